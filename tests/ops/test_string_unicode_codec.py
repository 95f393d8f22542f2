"""``tf.strings`` unicode_decode/_encode/_split and bytes_split (expected values from
TensorFlow 2.21 on the same inputs)."""

import pytest

import tensorfleet as tf

S = [b"h\xc3\xa9llo", b"a\xffb\xe2\x82", b"", "\U0001F600x".encode()]
BAD = [b"\xed\xa0\x80", b"\xc0\x80", b"\xf0\x9f\x98", b"\xf4\x90\x80\x80", b"a\x80\x80b"]
R = 65533


def _lists(sess, *ts):
    return [sess.run(t).to_list() for t in ts]


def test_unicode_decode_matches_tensorflow():
    s = tf.strings
    with tf.Graph().as_default(), tf.Session() as sess:
        assert _lists(sess, s.unicode_decode(S, "UTF-8"))[0] == [
            [104, 233, 108, 108, 111], [97, R, 98, R], [], [128512, 120]]
        assert _lists(sess, *s.unicode_decode_with_offsets(S, "UTF-8", errors="ignore")) == [
            [[104, 233, 108, 108, 111], [97, 98], [], [128512, 120]],
            [[0, 1, 3, 4, 5], [0, 2], [], [0, 4]]]
        assert _lists(sess, *s.unicode_decode_with_offsets(BAD, "UTF-8")) == [
            [[R] * 3, [R] * 2, [R], [R] * 4, [97, R, R, 98]],
            [[0, 1, 2], [0, 1], [0], [0, 1, 2, 3], [0, 1, 2, 3]]]
        assert _lists(sess, *s.unicode_decode_with_offsets(
            [b"\x00a\xd8\x00\x00b", b"\x00a\x00"], "UTF-16-BE")) == [
            [[97, R, 98], [97, R]], [[0, 2, 4], [0, 2]]]
        assert _lists(sess, *s.unicode_decode_with_offsets(
            [b"\x00\x00\x00a\x00\x11\x00\x00\x00\x00\x00"], "UTF-32-BE")) == [
            [[97, R, R]], [[0, 4, 8]]]
        pts, offs = sess.run(s.unicode_decode_with_offsets(
            "a\U0001F600b".encode("utf-16-be"), "UTF-16-BE"))
        assert pts.tolist() == [97, 128512, 98] and offs.tolist() == [0, 2, 6]
        assert sess.run(s.unicode_decode(b"ab\x01c", "UTF-8", replace_control_characters=True,
                                         replacement_char=63)).tolist() == [97, 98, 63, 99]
        assert sess.run(s.unicode_decode(b"\xe9a", "ISO-8859-1")).tolist() == [233, 97]
        assert _lists(sess, s.unicode_decode([[b"ab", b"c"], [b"d", b"ef"]], "UTF-8"))[0] == [
            [[97, 98], [99]], [[100], [101, 102]]]
        ragged = tf.ragged.constant([[b"ab"], [b"c", b"de"]])
        assert _lists(sess, s.unicode_decode(ragged, "UTF-8"))[0] == [
            [[97, 98]], [[99], [100, 101]]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="Invalid formatting"):
            sess.run(s.unicode_decode(S, "UTF-8", errors="strict"))
    with pytest.raises(ValueError, match="input_encoding 'UTF-7' is not supported"):
        s.unicode_decode(S, "UTF-7")
    with pytest.raises(ValueError, match="errors must be"):
        s.unicode_decode(S, "UTF-8", errors="bad")


def test_unicode_encode_matches_tensorflow():
    s = tf.strings
    with tf.Graph().as_default(), tf.Session() as sess:
        rc = tf.ragged.constant([[104, 105], [], [0x1F600, -1, 0x110000, 0xD800]])
        assert sess.run(s.unicode_encode(rc, "UTF-8")).tolist() == [
            b"hi", b"", b"\xf0\x9f\x98\x80" + b"\xef\xbf\xbd" * 3]
        assert sess.run(s.unicode_encode(rc, "UTF-8", errors="ignore")).tolist() == [
            b"hi", b"", b"\xf0\x9f\x98\x80"]
        assert sess.run(s.unicode_encode(rc, "UTF-16-BE", replacement_char=63)).tolist() == [
            b"\x00h\x00i", b"", b"\xd8=\xde\x00\x00?\x00?\x00?"]
        assert sess.run(s.unicode_encode([104, 105], "UTF-8")) == b"hi"
        assert sess.run(s.unicode_encode([[104, 105], [65, 66]], "UTF-32-BE")).tolist() == [
            b"\x00\x00\x00h\x00\x00\x00i", b"\x00\x00\x00A\x00\x00\x00B"]
        nested = tf.ragged.constant([[[104], [105, 106]], [[]]])
        assert _lists(sess, s.unicode_encode(nested, "UTF-8"))[0] == [[b"h", b"ij"], [b""]]
        with pytest.raises(tf.errors.InvalidArgumentError, match="out of range for Unicode"):
            sess.run(s.unicode_encode([[104, -5]], "UTF-8", errors="strict"))
        # Round trip through decode.
        text = "gr\u00fc\u00dfe \U0001F600"
        back = s.unicode_encode(s.unicode_decode([text.encode()], "UTF-8"), "UTF-8")
        assert sess.run(back).tolist() == [text.encode()]
    with pytest.raises(ValueError, match="output_encoding"):
        s.unicode_encode([104], "ISO-8859-1")


def test_unicode_split_and_bytes_split_match_tensorflow():
    s = tf.strings
    chars = [[b"h", b"\xc3\xa9", b"l", b"l", b"o"], [b"a", b"\xef\xbf\xbd", b"b",
                                                      b"\xef\xbf\xbd"], [],
             [b"\xf0\x9f\x98\x80", b"x"]]
    with tf.Graph().as_default(), tf.Session() as sess:
        assert _lists(sess, s.unicode_split(S, "UTF-8"))[0] == chars
        assert _lists(sess, *s.unicode_split_with_offsets(S, "UTF-8")) == [
            chars, [[0, 1, 3, 4, 5], [0, 1, 2, 3], [], [0, 4]]]
        assert sess.run(s.unicode_split(b"a\xffb", "UTF-8")).tolist() == [
            b"a", b"\xef\xbf\xbd", b"b"]
        assert sess.run(s.unicode_split("a\U0001F600".encode("utf-16-be"),
                                        "UTF-16-BE")).tolist() == [b"\x00a", b"\xd8=\xde\x00"]
        assert _lists(sess, s.bytes_split([b"abc", b"", b"\xc3\xa9"]))[0] == [
            [b"a", b"b", b"c"], [], [b"\xc3", b"\xa9"]]
        assert sess.run(s.bytes_split(b"abc")).tolist() == [b"a", b"b", b"c"]
        assert _lists(sess, s.bytes_split([[b"ab"], [b"c"]]))[0] == [[[b"a", b"b"]], [[b"c"]]]
    with pytest.raises(ValueError, match="re-encoded in input_encoding"):
        s.unicode_split(S, "ISO-8859-1")
