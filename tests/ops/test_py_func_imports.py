"""A graph imported from a file may call only the py_func functions registered for the
graph it is imported into; tokens cannot be guessed."""

import numpy as np
import pytest

import tensorfleet as tf


def _graph_with_py_func(calls):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.py_func(lambda v: calls.append(float(v)) or v * 2, [x], tf.float32, name="f")
    return g, x, y


def test_tokens_are_not_counters():
    calls = []
    tokens = {_graph_with_py_func(calls)[2].op.attrs["token"] for _ in range(3)}
    assert len(tokens) == 3
    assert all(len(t) >= len("pyfunc_") + 32 for t in tokens)


def test_a_meta_graph_naming_another_graphs_function_is_refused(tmp_path):
    calls = []
    victim, _, y = _graph_with_py_func(calls)  # alive: its function is registered
    token = y.op.attrs["token"]
    # A file that names the victim's token, as a hostile .meta would.
    with victim.as_default():
        meta = tf.train.export_meta_graph(str(tmp_path / "evil.meta"))
    assert token.encode() in (tmp_path / "evil.meta").read_bytes()
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="registered for another graph"):
            tf.train.import_meta_graph(str(tmp_path / "evil.meta"))
    with tf.Graph().as_default():
        with pytest.raises(tf.errors.InvalidArgumentError, match="registered for another graph"):
            tf.import_graph_def(meta.graph_def, name="")
    assert calls == []


def test_the_graph_that_registered_the_function_still_runs_it():
    calls = []
    g, x, y = _graph_with_py_func(calls)
    with tf.Session(graph=g) as sess:
        assert sess.run(y, {x: 3.0}) == 6.0
    assert calls == [3.0]
    # Re-importing a graph's own definition into itself keeps its functions.
    with g.as_default():
        tf.import_graph_def(g.as_graph_def(), name="again")
        again = g.get_tensor_by_name("again/f:0")
        with tf.Session(graph=g) as sess:
            np.testing.assert_allclose(sess.run(again, {g.get_tensor_by_name("again/x:0"): 1.5}),
                                       3.0)
