"""tf.data.experimental scan, group_by_reducer/Reducer, assert_cardinality and
pad_to_cardinality (expected values from TensorFlow 2.21 on the same pipelines)."""

import numpy as np
import pytest

import tensorfleet as tf
from tests.data.drain import drain
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def

E = tf.data.experimental


def test_scan_matches_tensorflow():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5)
        assert drain(ds.apply(E.scan(np.int64(0), lambda s, x: (s + x, s * 10 + x)))) == [
            0, 1, 12, 33, 64]
        pairs = tf.data.Dataset.from_tensor_slices(([1, 2, 3], [10.0, 20.0, 30.0]))
        out = pairs.apply(E.scan((0, 0.0), lambda s, e: (
            (s[0] + e[0], s[1] + e[1]), tf.cast(s[0], tf.float32) * e[1])))
        assert out.output_types == tf.float32
        assert drain(out) == [0.0, 20.0, 90.0]
        # A state that grows: its shape is relaxed, as TensorFlow does.
        grow = tf.data.Dataset.range(3).apply(E.scan(
            tf.constant([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))))
        assert drain(grow) == [1, 2, 3]
        batched = drain(ds.apply(E.scan(np.int64(0), lambda s, x: (s + x, s))).batch(2))
        assert [b.tolist() for b in batched] == [[0, 0], [1, 3], [6]]
        with tf.Session() as s:
            assert s.run(E.cardinality(ds.apply(E.scan(np.int64(0),
                                                       lambda s, x: (s, x))))) == 5
    with pytest.raises(TypeError, match="pair"):
        tf.data.Dataset.range(3).apply(E.scan(np.int64(0), lambda s, x: s + x))
    with pytest.raises(TypeError, match="structure and dtypes"):
        tf.data.Dataset.range(3).apply(E.scan(np.int64(0), lambda s, x: (
            tf.cast(s, tf.float32), x)))


def test_group_by_reducer_matches_tensorflow():
    with tf.Graph().as_default():
        r = E.Reducer(lambda k: np.int64(0), lambda s, x: s + x, lambda s: s)
        assert drain(tf.data.Dataset.range(10).apply(E.group_by_reducer(
            lambda x: x % 3, r))) == [18, 12, 15]
        # Tuple states; finalize gets them unpacked; keys come out in ascending order.
        r2 = E.Reducer(lambda k: (k, np.int64(0)), lambda s, x: (s[0], s[1] + x),
                       lambda k, s: k * 100 + s)
        assert drain(tf.data.Dataset.range(10).apply(E.group_by_reducer(
            lambda x: (x * 7) % 5, r2))) == [5, 111, 207, 313, 409]
    with pytest.raises(TypeError, match="Reducer"):
        E.group_by_reducer(lambda x: x, lambda s, x: s)
    with pytest.raises(ValueError, match="scalar int32 or int64"):
        tf.data.Dataset.range(3).apply(E.group_by_reducer(
            lambda x: tf.cast(x, tf.float32), E.Reducer(lambda k: k, lambda s, x: s,
                                                        lambda s: s)))


def test_assert_cardinality_matches_tensorflow():
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5)
        assert drain(ds.apply(E.assert_cardinality(5))) == [0, 1, 2, 3, 4]
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="expected to contain 3 elements but contained at least 4"):
            drain(ds.apply(E.assert_cardinality(3)))
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="expected to contain 7 elements but contained only 5"):
            drain(ds.apply(E.assert_cardinality(7)))
        with tf.Session() as s:
            assert s.run(E.cardinality(ds.filter(lambda x: True).apply(
                E.assert_cardinality(5)))) == 5


def test_pad_to_cardinality_matches_tensorflow():
    with tf.Graph().as_default():
        d = tf.data.Dataset.from_tensor_slices({"a": [1, 2], "b": [[1.0, 2.0], [3.0, 4.0]],
                                                "c": ["x", "y"]})
        got = drain(d.apply(E.pad_to_cardinality(4)))
        assert [e["valid"] for e in got] == [True, True, False, False]
        assert [e["a"] for e in got] == [1, 2, 0, 0]
        assert [e["c"] for e in got] == [b"x", b"y", b"", b""]
        np.testing.assert_array_equal(np.stack([e["b"] for e in got]),
                                      [[1, 2], [3, 4], [0, 0], [0, 0]])
        padded = d.apply(E.pad_to_cardinality(4, mask_key="m"))
        assert padded.output_types["m"] == tf.bool
        with tf.Session() as s:
            assert s.run(E.cardinality(padded)) == 4
        # The stage travels as plain data: a graph imported elsewhere runs it.
        nxt = padded.make_one_shot_iterator().get_next()
        plain = graph_to_plain(tf.get_default_graph())
    with tf.Graph().as_default() as g:
        import_graph_def(plain, graph=g)
        with tf.Session() as s:
            masks = [s.run(g.get_tensor_by_name(nxt["m"].name)) for _ in range(4)]
        assert masks == [True, True, False, False]
    with pytest.raises(ValueError, match="to be a dictionary"):
        tf.data.Dataset.range(3).apply(E.pad_to_cardinality(4))
    with pytest.raises(ValueError, match="known cardinality"):
        d.filter(lambda x: True).apply(E.pad_to_cardinality(4))
    with pytest.raises(ValueError, match="less than the target cardinality"):
        d.apply(E.pad_to_cardinality(1))
