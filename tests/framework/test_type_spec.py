"""``tf.TypeSpec`` and its kinds; ``tf.data.experimental.get_structure`` and the
``*Structure`` names of TF 1.x."""

import numpy as np
import pytest

import tensorfleet as tf


def test_tensor_spec_compatibility_and_merging():
    spec = tf.TensorSpec([None, 3], tf.float32, name="x")
    assert spec.shape.as_list() == [None, 3] and spec.dtype is tf.float32 and spec.name == "x"
    with tf.Graph().as_default():
        t = tf.placeholder(tf.float32, [2, 3], name="p")
        assert spec.is_compatible_with(t)
        assert not spec.is_compatible_with(tf.placeholder(tf.int32, [2, 3]))
        assert tf.TensorSpec.from_tensor(t) == tf.TensorSpec([2, 3], tf.float32, "p")
    assert spec.is_compatible_with(np.ones((5, 3), np.float32))
    assert not spec.is_compatible_with(np.ones((5, 4), np.float32))
    merged = tf.TensorSpec([2, 3]).most_specific_compatible_type(tf.TensorSpec([4, 3]))
    assert merged.shape.as_list() == [None, 3]
    with pytest.raises(ValueError, match="No TypeSpec"):
        tf.TensorSpec([2]).most_specific_compatible_type(tf.TensorSpec([2], tf.int32))
    assert tf.TensorSpec.from_spec(spec, name="y") == tf.TensorSpec([None, 3], name="y")
    assert len({tf.TensorSpec([1]), tf.TensorSpec([1])}) == 1
    assert isinstance(spec, tf.TypeSpec) and spec.value_type is tf.Tensor


def test_type_spec_from_value():
    assert tf.type_spec_from_value(np.zeros((2, 2), np.int64)) == tf.TensorSpec([2, 2], tf.int64)
    assert tf.type_spec_from_value([b"a", b"b"]) == tf.TensorSpec([2], tf.string)
    assert tf.type_spec_from_value(None) == tf.NoneTensorSpec()
    with tf.Graph().as_default():
        sp = tf.SparseTensor([[0, 0]], [1.0], [2, 3])
        assert tf.type_spec_from_value(sp) == tf.SparseTensorSpec([2, 3], tf.float32)
        assert tf.SparseTensorSpec([None, 3]).is_compatible_with(sp)
    with pytest.raises(TypeError, match="Could not build a TypeSpec"):
        tf.type_spec_from_value(object())
    ta = tf.TensorArraySpec([2], tf.float32)
    assert ta.is_compatible_with(tf.TensorArraySpec([None], tf.float32))
    assert not ta.is_compatible_with(tf.TensorArraySpec([2], tf.int32))
    assert tf.IndexedSlicesSpec([4, 2]).shape.as_list() == [4, 2]
    assert tf.OptionalSpec(tf.TensorSpec([1])).element_spec == tf.TensorSpec([1])


def test_dataset_structure():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(
            {"a": np.ones((4, 3), np.float32), "b": np.arange(4)}).batch(2)
        structure = tf.data.experimental.get_structure(ds)
        assert structure == {"a": tf.TensorSpec([None, 3], tf.float32),
                             "b": tf.TensorSpec([None], tf.int64)}
        spec = tf.type_spec_from_value(ds)
        assert isinstance(spec, tf.data.DatasetSpec) and spec.element_spec == structure
        assert spec.value_type is tf.data.Dataset
    e = tf.data.experimental
    assert (e.Structure, e.DatasetStructure, e.OptionalStructure) == (
        tf.TypeSpec, tf.data.DatasetSpec, tf.OptionalSpec)
    # The TF 1.x constructors take the dtype first.
    assert e.TensorStructure(tf.int32, [2]) == tf.TensorSpec([2], tf.int32)
    assert e.SparseTensorStructure(tf.int32, [2, 3]) == tf.SparseTensorSpec([2, 3], tf.int32)
    assert e.TensorArrayStructure(tf.int32, [2], True, False) == tf.TensorArraySpec(
        [2], tf.int32, True, False)
    with pytest.raises(TypeError, match="needs a tf.data.Dataset"):
        e.get_structure([1, 2])
