"""tf.function / tf.wrap_function in graph mode: one trace per signature, later calls
copy the trace; stateful ops run in program order; values as TensorFlow gives them."""

import numpy as np
import pytest

import tensorfleet as tf


def test_traced_once_per_signature_and_side_effects_run_in_order():
    traces = []
    with tf.Graph().as_default():
        v = tf.Variable(1.0)

        @tf.function
        def f(x, k=2):
            traces.append((x.shape.as_list(), k))
            v.assign_add(1.0)
            return x * k + v

        a = f(tf.constant([1., 2.]))
        b = f(tf.constant([3., 4.]))
        f(tf.constant([3., 4., 5.]))
        f(tf.constant([3., 4.]), k=3)
        assert traces == [([2], 2), ([3], 2), ([2], 3)]
        assert f.experimental_get_tracing_count() == 3
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            # Each run of a call runs its assign_add before the read that follows it.
            np.testing.assert_allclose(s.run(a), [4., 6.])
            np.testing.assert_allclose(s.run(a), [5., 7.])
            np.testing.assert_allclose(s.run(b), [10., 12.])
            assert s.run(v) == 4.0


def test_input_signature_structures_and_errors():
    traces = []
    with tf.Graph().as_default():
        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def h(x):
            traces.append(x.shape.as_list())
            return {"s": tf.reduce_sum(x), "t": (x, x + 1)}

        h(tf.constant([1., 2.]))
        h2 = h(tf.constant([1., 2., 3.]))
        assert traces == [[None]]
        with pytest.raises(TypeError, match="can not cast"):
            h(tf.constant([1, 2]))
        with pytest.raises(TypeError, match="can not cast"):
            h(tf.constant([[1.]]))
        ft = h.function_type
        assert isinstance(ft, tf.types.experimental.FunctionType)
        assert list(ft.parameters) == ["x"]
        assert ft.parameters["x"].type_constraint == tf.TensorSpec([None], tf.float32)
        with tf.Session() as s:
            out = s.run(h2)
        assert out["s"] == 6.0
        np.testing.assert_allclose(out["t"][1], [2., 3., 4.])


def test_variables_only_on_first_trace_and_no_autograph():
    with tf.Graph().as_default():
        @tf.function
        def mk(x):
            w = tf.Variable(3.0)
            return x * w

        m = mk(tf.constant(2.0))
        with pytest.raises(ValueError, match="singleton tf.Variables"):
            mk(tf.constant([1.0]))

        @tf.function
        def branchy(x):
            if x > 0:
                return x
            return -x

        with pytest.raises(TypeError, match="no autograph"):
            branchy(tf.constant(1.0))
        @tf.function
        def returns_op(x):
            return tf.no_op()

        with pytest.raises(TypeError, match="outputs must be tensors"):
            returns_op(tf.constant(1.0))
        with pytest.raises(ValueError, match="XLA"):
            tf.function(lambda x: x, jit_compile=True)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(m) == 6.0


def test_gradients_through_calls_and_wrap_function():
    with tf.Graph().as_default():
        @tf.function
        def sq(x):
            return x * x

        x = tf.constant(3.0)
        with tf.GradientTape() as t:
            t.watch(x)
            z = sq(x)
        gz = t.gradient(z, x)
        gg = tf.gradients(sq(x * 2.0), x)[0]

        def lin(x):
            w = tf.get_variable("w", initializer=tf.constant([[2.0], [3.0]]))
            return tf.matmul(x, w)

        wf = tf.wrap_function(lin, [tf.TensorSpec([None, 2], tf.float32)])
        y = wf(tf.constant([[1., 1.], [2., 0.]]))
        with pytest.raises(TypeError, match="does not match"):
            wf(tf.constant([[1., 1., 1.]]))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            out = s.run([gz, gg, y])
    assert out[0] == 6.0 and out[1] == 24.0
    np.testing.assert_allclose(out[2], [[5.], [4.]])


def test_method_binding_and_outer_control_dependencies():
    class Model:
        def __init__(self):
            self.v = tf.Variable(0.0)

        @tf.function
        def bump(self, by):
            return self.v.assign_add(by)

    with tf.Graph().as_default():
        m = Model()
        first = m.bump(tf.constant(1.0))
        gate = m.v.assign(10.0)
        with tf.control_dependencies([gate]):
            after = m.bump(tf.constant(1.0))
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            assert s.run(first) == 1.0
            assert s.run(after) == 11.0
