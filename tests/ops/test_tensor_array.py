"""tf.TensorArray: a list value flowing through the graph, in and out of loops."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients


def _run(fetches, feed=None):
    with tf.Session() as s:
        return s.run(fetches, feed)


def test_write_read_stack_size_outside_loops():
    ta = tf.TensorArray(tf.float32, size=3)
    assert ta.flow.dtype.name == "variant" and ta.handle is ta.flow
    ta = ta.write(0, [1.0, 2.0]).write(2, [5.0, 6.0]).write(1, [3.0, 4.0])
    r = ta.read(1)
    st = ta.stack()
    assert r.shape.as_list() == [2] and st.shape.as_list() == [3, 2]
    out = _run([r, st, ta.size()])
    np.testing.assert_array_equal(out[0], [3.0, 4.0])
    np.testing.assert_array_equal(out[1], [[1, 2], [3, 4], [5, 6]])
    assert out[2] == 3


def test_values_are_immutable():
    ta0 = tf.TensorArray(tf.int32, size=2).write(0, 7)
    ta1 = ta0.write(1, 8)
    ta2 = ta0.write(1, 9)
    out = _run([ta1.stack(), ta2.stack(), ta1.read(0)])
    np.testing.assert_array_equal(out[0], [7, 8])
    np.testing.assert_array_equal(out[1], [7, 9])
    assert out[2] == 7


def test_unstack_gather_scatter_concat_split():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    ta = tf.TensorArray(tf.float32, size=4).unstack(x)
    g = ta.gather([3, 0])
    sc = tf.TensorArray(tf.float32, size=3).scatter([2, 0, 1], x[:3])
    cat = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, x[:1]).write(
        1, x[1:]).concat()
    sp = tf.TensorArray(tf.float32, size=2).split(x, [3, 1])
    out = _run([ta.read(2), g, sc.stack(), cat, sp.read(0), sp.read(1)])
    np.testing.assert_array_equal(out[0], x[2])
    np.testing.assert_array_equal(out[1], x[[3, 0]])
    np.testing.assert_array_equal(out[2], x[[1, 2, 0]])
    np.testing.assert_array_equal(out[3], x)
    np.testing.assert_array_equal(out[4], x[:3])
    np.testing.assert_array_equal(out[5], x[3:])


def test_dynamic_size_grows_and_fixed_size_does_not():
    ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    ta = ta.write(0, 1.0).write(4, 5.0)
    assert _run(ta.size()) == 5
    fixed = tf.TensorArray(tf.float32, size=2).write(2, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="dynamic_size"):
        _run(fixed.flow)


def test_run_time_errors():
    ta = tf.TensorArray(tf.float32, size=2).write(0, 1.0)
    with pytest.raises(tf.errors.InvalidArgumentError, match="already been written"):
        _run(ta.write(0, 2.0).flow)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not yet been written"):
        _run(ta.read(1))
    with pytest.raises(tf.errors.InvalidArgumentError, match="size 2"):
        _run(ta.read(5))
    mixed = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, [1.0]).write(
        1, [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not stack"):
        _run(mixed.stack())


def test_build_time_checks():
    with pytest.raises(ValueError, match="Size must be provided"):
        tf.TensorArray(tf.float32)
    ta = tf.TensorArray(tf.float32, size=2, element_shape=[2])
    with pytest.raises(ValueError, match="Inconsistent shapes"):
        ta.write(0, [1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="rank 0"):
        tf.TensorArray(tf.float32, size=1).unstack(1.0)


def test_shape_inference_is_shared_across_writes():
    ta = tf.TensorArray(tf.float32, size=2)
    ta2 = ta.write(0, tf.zeros([3, 4]))
    assert ta.element_shape.as_list() == [3, 4]
    assert ta2.read(1).shape.as_list() == [3, 4]
    loose = tf.TensorArray(tf.float32, size=2, infer_shape=False).write(0, tf.zeros([3]))
    assert loose.read(0).shape.ndims is None


def test_empty_stack_with_known_element_shape():
    ta = tf.TensorArray(tf.float32, size=0, element_shape=[2])
    assert _run(ta.stack()).shape == (0, 2)


def test_identity_close_and_flow_constructor():
    ta = tf.TensorArray(tf.float32, size=1).write(0, 3.0)
    same = tf.TensorArray(tf.float32, flow=ta.identity().flow)
    close = ta.close()
    assert isinstance(close, tf.Operation)
    with tf.Session() as s:
        assert s.run(same.read(0)) == 3.0
        s.run(close)


def test_in_loop_accumulation_against_numpy():
    x = np.random.RandomState(0).randn(5, 3).astype(np.float32)
    inp = tf.TensorArray(tf.float32, size=5).unstack(x)

    def body(t, acc, out):
        acc = acc * 0.9 + inp.read(t)
        return t + 1, acc, out.write(t, acc)
    _, acc, out = tf.while_loop(lambda t, *_: t < 5, body,
                                [0, tf.zeros([3]), tf.TensorArray(tf.float32, size=5)])
    stacked = out.stack()
    assert stacked.shape.as_list() == [5, 3]
    got = _run(stacked)
    ref = np.zeros(3)
    rows = []
    for r in x:
        ref = ref * 0.9 + r
        rows.append(ref)
    np.testing.assert_allclose(got, np.array(rows), rtol=1e-5)


def test_dynamic_array_grows_inside_a_loop():
    _, ta = tf.while_loop(lambda i, ta: i < 6,
                          lambda i, ta: (i + 1, ta.write(i, tf.cast(i * i, tf.float32))),
                          (0, tf.TensorArray(tf.float32, size=0, dynamic_size=True)))
    np.testing.assert_array_equal(_run(ta.stack()), [0, 1, 4, 9, 16, 25])


# -- gradients ----------------------------------------------------------------------------

def test_gradient_write_read_and_stack():
    def f(x):
        ta = tf.TensorArray(tf.float64, size=3)
        ta = ta.write(0, x).write(1, x * 2.0).write(2, tf.sin(x))
        return ta.stack() + ta.read(1) * ta.read(2)
    check_gradients(f, [np.array([0.3, 0.4])])


def test_gradient_unstack_gather_scatter():
    def f(x):
        ta = tf.TensorArray(tf.float64, size=4).unstack(x)
        sc = tf.TensorArray(tf.float64, size=2).scatter([1, 0], ta.gather([2, 0]) * 3.0)
        return sc.stack() + ta.read(3)
    check_gradients(f, [np.random.RandomState(1).randn(4, 2)])


def test_gradient_split_concat():
    def f(x):
        ta = tf.TensorArray(tf.float64, size=2).split(x, [1, 2])
        return ta.concat() * ta.read(1)[0] + tf.reduce_sum(ta.read(0))
    check_gradients(f, [np.array([0.3, 0.4, 2.0])])


def test_gradient_through_arrays_in_a_loop():
    def f(x):
        inp = tf.TensorArray(tf.float64, size=4).unstack(x)

        def body(t, acc, out):
            acc = acc * 0.5 + tf.sin(inp.read(t))
            return t + 1, acc, out.write(t, acc * inp.read(t))
        _, acc, out = tf.while_loop(lambda t, *_: t < 4, body,
                                    [0, tf.zeros([3], tf.float64),
                                     tf.TensorArray(tf.float64, size=4)])
        return out.stack() + acc
    check_gradients(f, [np.random.RandomState(2).randn(4, 3)])


def test_unread_elements_get_zero_gradient():
    x = tf.constant([1.0, 2.0, 3.0])
    ta = tf.TensorArray(tf.float32, size=3).unstack(x)
    g = tf.gradients(ta.read(1) * 5.0, x)[0]
    np.testing.assert_array_equal(_run(g), [0.0, 5.0, 0.0])
