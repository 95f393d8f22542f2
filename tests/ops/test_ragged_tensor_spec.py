"""tf.RaggedTensorSpec, also as tf.data.experimental.RaggedTensorStructure gives it:
defaults, checks and compatibility as in TensorFlow 2.21."""

import pytest

import tensorfleet as tf
from tensorfleet.ops.ragged_tensor_spec import RaggedTensorSpec


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


S = tf.data.experimental.RaggedTensorStructure


def test_ragged_tensor_structure_matches_tensorflow():
    s = S(tf.int32, [2, None], 1)
    assert isinstance(s, RaggedTensorSpec)
    assert (s.shape.as_list(), s.dtype, s.ragged_rank, s.row_splits_dtype) == (
        [2, None], tf.int32, 1, tf.int64)
    assert s.flat_values_spec is None and s.value_type is tf.RaggedTensor
    assert S(tf.float32, [None, None, 3], 1).ragged_rank == 1
    assert RaggedTensorSpec([None, None, 3]).ragged_rank == 2
    assert s == RaggedTensorSpec([2, None], tf.int32)
    assert s != RaggedTensorSpec([2, None], tf.int64)
    assert s.most_specific_compatible_type(RaggedTensorSpec([3, None], tf.int32)) == \
        RaggedTensorSpec([None, None], tf.int32)
    assert S(tf.int32, None, 1).shape.ndims is None
    with pytest.raises(ValueError, match=r"`ragged_rank` \(2\) must be less than rank \(2\)"):
        S(tf.int32, [2, None], 2)
    with pytest.raises(ValueError, match="less than rank"):
        S(tf.int32, [None], 1)


def test_ragged_tensor_spec_from_values():
    with tf.Graph().as_default():
        rt = tf.ragged.constant([[1, 2], [3]])
        assert RaggedTensorSpec.from_value(rt) == RaggedTensorSpec([2, None], tf.int32, 1)
        nested = tf.ragged.constant([[[1, 2]], [[3]]])
        assert RaggedTensorSpec.from_value(nested) == RaggedTensorSpec([2, None, None],
                                                                       tf.int32, 2)
        s = S(tf.int32, [2, None], 1)
        assert s.is_compatible_with(rt)
        assert not s.is_compatible_with(tf.ragged.constant([[1, 2], [3], [4]]))
        assert s.is_compatible_with(RaggedTensorSpec([None, None], tf.int32))
        with tf.Session() as sess:
            value = sess.run(rt)
        assert s.is_compatible_with(value)
        assert RaggedTensorSpec.from_value(value) == RaggedTensorSpec([2, None], tf.int32)
    with pytest.raises(TypeError, match="needs a RaggedTensor"):
        RaggedTensorSpec.from_value([1, 2])
