"""tf.RaggedTensorSpec: defaults, checks and compatibility as in TensorFlow 2.21."""

import pytest

import tensorfleet as tf


def test_defaults_and_errors():
    s = tf.RaggedTensorSpec([2, None], tf.int32)
    assert (s.ragged_rank, s.row_splits_dtype, s.dtype) == (1, tf.int64, tf.int32)
    assert s.shape.as_list() == [2, None] and s.flat_values_spec is None
    assert tf.RaggedTensorSpec([None, None, 4]).ragged_rank == 2
    assert s.value_type is tf.RaggedTensor
    with pytest.raises(ValueError, match="known rank"):
        tf.RaggedTensorSpec(None)
    with pytest.raises(ValueError, match=r"\(2\) must be less than rank \(2\)"):
        tf.RaggedTensorSpec([None, None], ragged_rank=2)
    with pytest.raises(ValueError, match="int32 or int64"):
        tf.RaggedTensorSpec([None, None], row_splits_dtype=tf.float32)


def test_compatibility_with_values_and_specs():
    with tf.Graph().as_default():
        r = tf.RaggedTensor.from_row_splits(tf.constant([1, 2, 3]),
                                            tf.constant([0, 2, 3], tf.int64))
        spec = tf.RaggedTensorSpec.from_value(r)
        assert spec == tf.RaggedTensorSpec([2, None], tf.int32)
        assert tf.RaggedTensorSpec([None, None], tf.int32).is_compatible_with(r)
        assert not tf.RaggedTensorSpec([3, None], tf.int32).is_compatible_with(r)
        assert not tf.RaggedTensorSpec([None, None], tf.int64).is_compatible_with(r)
        with tf.Session() as s:
            value = s.run(r)
        assert tf.RaggedTensorSpec.from_value(value) == spec
    a, b = tf.RaggedTensorSpec([2, None]), tf.RaggedTensorSpec([None, None])
    assert a.is_compatible_with(b)
    assert a.most_specific_compatible_type(b) == b
    assert not tf.RaggedTensorSpec([None, None, 3], ragged_rank=1).is_compatible_with(
        tf.RaggedTensorSpec([None, None, 3], ragged_rank=2))
