"""tf.data.experimental.Optional and get_next_as_optional (behaviour checked against
TensorFlow 2.21 in graph mode)."""

import numpy as np
import pytest

import tensorfleet as tf

E = tf.data.experimental


def test_get_next_as_optional_matches_tensorflow():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(([1, 2], [[1.0, 2.0], [3.0, 4.0]]))
        opt = E.get_next_as_optional(ds.map(lambda a, b: (a * 2, b)).make_one_shot_iterator())
        assert [(s.dtype, s.shape.as_list()) for s in opt.element_spec] == [
            (tf.int32, []), (tf.float32, [2])]
        hv, v = opt.has_value(), opt.get_value()
        with tf.Session() as s:
            # Each run advances the iteration, as in TensorFlow.
            assert s.run(hv)
            a, b = s.run(v)
            assert a == 4 and b.tolist() == [3.0, 4.0]
            assert not s.run(hv)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match="optional does not have a value"):
                s.run(v)


def test_maps_after_the_kernel_run_only_on_a_value():
    # string_to_number fails on the empty string an empty optional would hold.
    with tf.Graph().as_default():
        ds = tf.data.Dataset.from_tensor_slices(["1.5", "2.5"]).map(
            lambda x: tf.strings.to_number(x) * 2)
        it = ds.make_initializable_iterator()
        opt = E.get_next_as_optional(it)
        both = [opt.has_value(), opt.get_value()]
        with tf.Session() as s:
            s.run(it.initializer)
            assert s.run(both) == [True, 3.0]
            assert s.run(both) == [True, 5.0]
            assert not s.run(opt.has_value())
            s.run(it.initializer)
            assert s.run(both) == [True, 3.0]
    with pytest.raises(TypeError, match="Iterator"):
        E.get_next_as_optional(ds)


def test_optional_from_value_and_empty():
    with tf.Graph().as_default():
        full = E.Optional.from_value({"a": tf.constant(1), "b": (tf.constant([1.0, 2.0]),)})
        assert full.element_spec["b"][0].shape.as_list() == [2]
        empty = E.Optional.empty(tf.TensorSpec([None, 2], tf.float32))
        with tf.Session() as s:
            has, value = s.run([full.has_value(), full.get_value()])
            assert has and value["a"] == 1 and value["b"][0].tolist() == [1.0, 2.0]
            assert not s.run(empty.has_value())
            with pytest.raises(tf.errors.InvalidArgumentError, match="does not have a value"):
                s.run(empty.get_value())
    with pytest.raises(TypeError, match="TensorSpecs"):
        E.Optional.empty(np.zeros(2))
    with pytest.raises(ValueError, match="from_value"):
        E.Optional(None, [], None)
