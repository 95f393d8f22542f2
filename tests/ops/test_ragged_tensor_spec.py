"""RaggedTensorSpec, as tf.data.experimental.RaggedTensorStructure gives it (behaviour
checked against TensorFlow 2.21)."""

import pytest

import tensorfleet as tf
from tensorfleet.ops.ragged_tensor_spec import RaggedTensorSpec

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
