"""``tf.strings.unicode_transcode`` and ``unsorted_segment_join`` (expected values from
TensorFlow 2.21 on the same inputs)."""

import pytest

import tensorfleet as tf

X = [b"ab\xffc\xe2\x82", b"\x01x\xe2\x82\xacz"]


def test_unicode_transcode_matches_tensorflow():
    t = tf.strings.unicode_transcode
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(t(X, "UTF-8", "UTF-8")).tolist() == [
            b"ab\xef\xbf\xbdc\xef\xbf\xbd", b"\x01x\xe2\x82\xacz"]
        assert sess.run(t(X, "UTF-8", "UTF-16-BE", replacement_char=63)).tolist() == [
            b"\x00a\x00b\x00?\x00c\x00?", b"\x00\x01\x00x \xac\x00z"]
        assert sess.run(t(X, "UTF-8", "UTF-8", errors="ignore",
                          replace_control_characters=True)).tolist() == [
            b"abc", b"x\xe2\x82\xacz"]
        assert sess.run(t(X, "UTF-8", "UTF-8", replace_control_characters=True)).tolist() == [
            b"ab\xef\xbf\xbdc\xef\xbf\xbd", b"\xef\xbf\xbdx\xe2\x82\xacz"]
        assert sess.run(t([b"\x00A\xd8\x00"], "UTF-16-BE", "UTF-8")).tolist() == [
            b"A\xef\xbf\xbd"]
        # A U+FFFD already in the input is text, not an error.
        assert sess.run(t(["\ufffd".encode()], "UTF-8", "UTF-8", errors="ignore")).tolist() \
            == ["\ufffd".encode()]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting"):
            sess.run(t(X, "UTF-8", "UTF-8", errors="strict"))
    with pytest.raises(ValueError, match="output_encoding"):
        t(X, "UTF-8", "UTF-7")


def test_unsorted_segment_join_matches_tensorflow():
    j = tf.strings.unsorted_segment_join
    with tf.Graph().as_default(), tf.Session() as sess:
        out = j(["a", "b", "c", "d"], [1, 0, 1, 2], 4, separator=":")
        assert out.shape.as_list() == [4]
        assert sess.run(out).tolist() == [b"b", b"a:c", b"d", b""]
        assert sess.run(j([["a", "b"], ["c", "d"]], [1, 1], 2)).tolist() == [
            [b"", b""], [b"ac", b"bd"]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="negative values"):
            sess.run(j(["a"], [-1], 1))
