"""A str fed to a string tensor is held as its UTF-8 bytes, as TensorFlow holds it, so it
compares equal to the same text written as a constant."""

import numpy as np
import pytest

import tensorfleet as tf


def test_fed_str_equals_the_constant_and_comes_back_as_bytes():
    x = tf.placeholder(tf.string, [None])
    with tf.Session() as sess:
        eq, back = sess.run([tf.equal(x, "a"), x], {x: ["a", "b"]})
    np.testing.assert_array_equal(eq, [True, False])
    assert back.tolist() == [b"a", b"b"]


def test_text_is_encoded_as_utf8_and_bytes_are_kept():
    s = tf.placeholder(tf.string, [])
    v = tf.placeholder(tf.string, [3])
    with tf.Session() as sess:
        assert sess.run(s, {s: "héllo"}) == "héllo".encode("utf-8")
        assert sess.run(tf.strings.length(s), {s: "héllo"}) == 6
        got = sess.run(v, {v: np.array(["x", "é", "z"])})
        assert got.tolist() == [b"x", "é".encode("utf-8"), b"z"]
        assert sess.run(v, {v: [b"\xff", "a", b""]}).tolist() == [b"\xff", b"a", b""]


def test_the_callers_array_is_not_changed():
    v = tf.placeholder(tf.string, [2])
    mine = np.array(["a", "b"], dtype=object)
    with tf.Session() as sess:
        sess.run(v, {v: mine})
    assert mine.tolist() == ["a", "b"]


def test_a_number_fed_to_a_string_tensor_names_the_tensor():
    s = tf.placeholder(tf.string, [], name="text")
    with tf.Session() as sess:
        with pytest.raises(TypeError, match="'text:0' of dtype string"):
            sess.run(s, {s: 3})
        assert sess.run(s, {s: "still works"}) == b"still works"
