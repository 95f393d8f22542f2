"""tf.strings.ngrams on dense string tensors; the expected n-grams are what TensorFlow
2.21 returns for the same calls."""

import numpy as np
import pytest

import tensorfleet as tf


def run(t):
    with tf.Session() as s:
        return np.asarray(s.run(t)).tolist()


def test_ngrams_widths_padding_and_short_sequences():
    d = tf.constant([["a", "b", "c", "d"], ["e", "f", "g", "h"]])
    assert run(tf.strings.ngrams(d, 2)) == [[b"a b", b"b c", b"c d"], [b"e f", b"f g", b"g h"]]
    assert run(tf.strings.ngrams(d, [1, 3], separator="-"))[0] == \
        [b"a", b"b", b"c", b"d", b"a-b-c", b"b-c-d"]
    assert run(tf.strings.ngrams(d, 3, pad_values=("<s>", "</s>")))[1] == \
        [b"<s> <s> e", b"<s> e f", b"e f g", b"f g h", b"g h </s>", b"h </s> </s>"]
    assert run(tf.strings.ngrams(d, 6, preserve_short_sequences=True)) == \
        [[b"a b c d"], [b"e f g h"]]
    assert run(tf.strings.ngrams(d, 6)) == [[], []]
    assert run(tf.strings.ngrams(tf.constant(["x", "y"]), 2, pad_values="#",
                                 padding_width=1)) == [b"# x", b"x y", b"y #"]


def test_ngrams_errors():
    with pytest.raises(ValueError, match="ngram_width"):
        tf.strings.ngrams(tf.constant(["a"]), 0)
    with pytest.raises(TypeError, match="string tensor"):
        tf.strings.ngrams(tf.constant([1, 2]), 2)
    with pytest.raises(ValueError, match="known"):
        tf.strings.ngrams(tf.placeholder(tf.string, [None]), 2)
    with pytest.raises(ValueError, match="padding_width"):
        tf.strings.ngrams(tf.constant(["a"]), 2, padding_width=1)
