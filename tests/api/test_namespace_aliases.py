"""Names that later TensorFlow namespaces gave existing ops compute what those ops do."""

import numpy as np
import pytest

import tensorfleet as tf


def test_aliases_compute_the_same():
    x = np.arange(16.0, dtype=np.float32).reshape(1, 4, 4, 1)
    with tf.Session() as s:
        assert s.run(tf.math.is_non_decreasing([1, 2, 2])) and \
            not s.run(tf.math.is_strictly_increasing([1, 2, 2]))
        np.testing.assert_array_equal(
            s.run(tf.image.resize_with_crop_or_pad(x[0], 2, 2)),
            s.run(tf.image.resize_image_with_crop_or_pad(x[0], 2, 2)))
        np.testing.assert_array_equal(
            s.run(tf.image.extract_image_patches(x, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1],
                                                 "VALID"))[0, 0, 0], [0, 1, 4, 5])
        assert s.run(tf.debugging.assert_all_finite(tf.constant([1.0]), "ok")) == [1.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="bad"):
            s.run(tf.debugging.assert_all_finite(tf.constant([np.inf]), "bad"))
        with pytest.raises(tf.errors.InvalidArgumentError):
            s.run(tf.debugging.Assert(tf.constant(False), ["no"]))
    assert tf.graph_util.import_graph_def is tf.import_graph_def
    assert tf.sparse.SparseConditionalAccumulator is tf.SparseConditionalAccumulator
