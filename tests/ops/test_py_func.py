"""tf.py_func: Python functions as ops of the graph."""

import gc
import json

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.ops import script_ops


def test_single_output():
    x = tf.constant([1.0, 2.0])
    y = tf.py_func(lambda a: a * 2 + 1, [x], tf.float32)
    assert isinstance(y, tf.Tensor) and y.dtype is tf.float32 and y.op.type == "PyFunc"
    with tf.Session() as s:
        np.testing.assert_array_equal(s.run(y), [3.0, 5.0])


def test_several_outputs_and_strings():
    x = tf.placeholder(tf.int64, [None])

    def split(a):
        return a.sum(), np.array([str(v) for v in a]), a.astype(np.float64)

    total, words, as_float = tf.py_func(split, [x], [tf.int64, tf.string, tf.float64],
                                        stateful=False)
    assert total.op.type == "PyFuncStateless"
    with tf.Session() as s:
        t, w, f = s.run([total, words, as_float], {x: [3, 4]})
    assert t == 7
    np.testing.assert_array_equal(w, [b"3", b"4"])
    np.testing.assert_array_equal(f, [3.0, 4.0])


def test_no_outputs_runs_for_its_effect():
    seen = []
    x = tf.constant(5)
    op = tf.py_func(lambda a: seen.append(int(a)), [x], [])
    assert isinstance(op, tf.Operation)
    with tf.Session() as s:
        s.run(op)
    assert seen == [5]


def test_wrong_result_dtype_or_count_is_an_error():
    x = tf.constant([1.0])
    bad_dtype = tf.py_func(lambda a: a, [x], tf.int32)
    bad_count = tf.py_func(lambda a: (a, a), [x], [tf.float32])
    with tf.Session() as s:
        with pytest.raises(tf.errors.InvalidArgumentError, match="float32, but expects int32"):
            s.run(bad_dtype)
        with pytest.raises(tf.errors.InvalidArgumentError, match="returned 2 values"):
            s.run(bad_count)


def test_exceptions_become_op_errors():
    x = tf.constant(1.0)

    def stop(a):
        raise StopIteration

    def own(a):
        raise tf.errors.AbortedError(None, None, "mine")

    boom = tf.py_func(lambda a: 1 / 0, [x], tf.float32)
    with tf.Session() as s:
        with pytest.raises(tf.errors.UnknownError, match="ZeroDivisionError"):
            s.run(boom)
        with pytest.raises(tf.errors.OutOfRangeError):
            s.run(tf.py_func(stop, [x], tf.float32))
        with pytest.raises(tf.errors.AbortedError, match="mine"):
            s.run(tf.py_func(own, [x], tf.float32))


def test_no_gradient():
    x = tf.constant(2.0)
    y = tf.py_func(lambda a: a * a, [x], tf.float32)
    assert tf.gradients(y, x) == [None]
    with pytest.raises(TypeError, match="callable"):
        tf.py_func(3, [x], tf.float32)


def test_function_missing_from_the_process_is_a_clear_error():
    # What a task in another process sees: the graph, but no function behind the token.
    x = tf.constant(1.0)
    tf.py_func(lambda a: a, [x], tf.float32, name="f")
    plain = json.loads(json.dumps(tf.get_default_graph().as_graph_def()))
    node = next(n for n in plain["node"] if n["name"] == "f")
    node["attr"]["token"] = {"s": "pyfunc_unknown"}
    g = tf.import_graph_def(plain, graph=tf.Graph())
    with tf.Session(graph=g) as s:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="runs only in the process that built the graph"):
            s.run("f:0")


def test_registry_entries_go_away_with_their_graph():
    g = tf.Graph()
    with g.as_default():
        y = tf.py_func(lambda a: a, [tf.constant(1.0)], tf.float32)
    token = y.op.get_attr("token")
    assert script_ops.lookup_function(token) is not None
    del g, y
    gc.collect()
    assert script_ops.lookup_function(token) is None


def test_runs_on_a_task_served_from_this_process():
    with local_cluster(ps=1, worker=1) as c:
        with tf.device("/job:ps/task:0"):
            y = tf.py_func(lambda a: a + 1, [tf.constant([1, 2])], tf.int32)
        with tf.Session(c.target("worker")) as s:
            np.testing.assert_array_equal(s.run(y), [2, 3])
