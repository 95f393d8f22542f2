"""tf.print (PrintV2), tf.strings.format and tf.Print: rendered text and op behaviour.

Expected strings are TensorFlow 1.15's output for the same calls (numpy-like nesting
without padding, summarize entries per dimension, shortest round-trip floats).
"""

import logging
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy.print_kernels import format_tensor


def _run_stdout(capsys, *inputs, **kwargs):
    op = tf.print(*inputs, output_stream=sys.stdout, **kwargs)
    with tf.Session() as sess:
        sess.run(op)
    return capsys.readouterr().out


def test_print_returns_stateful_op_and_formats_matrix(capsys):
    op = tf.print("x:", tf.constant([[1, 2, 3, 4], [5, 6, 7, 8]]), tf.constant(1.5),
                  output_stream=sys.stdout)
    assert isinstance(op, tf.Operation) and op.type == "PrintV2"
    with tf.Session() as sess:
        assert sess.run(op) is None
        sess.run(op)
    assert capsys.readouterr().out == "x: [[1 2 3 4]\n [5 6 7 8]] 1.5\n" * 2


def test_summarize_per_dimension(capsys):
    assert _run_stdout(capsys, tf.range(10)) == "[0 1 2 ... 7 8 9]\n"
    assert _run_stdout(capsys, tf.range(10), summarize=-1) == "[0 1 2 3 4 5 6 7 8 9]\n"
    out = _run_stdout(capsys, tf.reshape(tf.range(27), [3, 3, 3]), summarize=1)
    assert out == ("[[[0 ... 2]\n  ...\n  [6 ... 8]]\n\n ...\n\n"
                   " [[18 ... 20]\n  ...\n  [24 ... 26]]]\n")


def test_sep_end_and_strings(capsys):
    out = _run_stdout(capsys, tf.range(3), tf.constant([b"a", b"b"]), sep="|", end="END\n")
    assert out == '[0 1 2]|["a" "b"]END\n'
    # A lone scalar string prints bare; otherwise strings are quoted and escaped.
    assert _run_stdout(capsys, tf.constant("hello")) == "hello\n"
    assert _run_stdout(capsys, tf.constant(["hello"])) == '["hello"]\n'
    assert _run_stdout(capsys, tf.constant([["x", "y z"]]), tf.constant("a\nb")) == \
        '[["x" "y z"]] "a\\nb"\n'


def test_float_bool_and_python_structures(capsys):
    assert _run_stdout(capsys, tf.constant([0.5, 1e-7, 123456789.0])) == \
        "[0.5 1e-07 123456792]\n"
    assert _run_stdout(capsys, tf.constant([1.123456789], tf.float64),
                       tf.constant([[1.5, -2.0], [3.0, np.nan]])) == \
        "[1.123456789] [[1.5 -2]\n [3 nan]]\n"
    out = _run_stdout(capsys, tf.constant([True, False]), [tf.constant(1), "a", 2.5],
                      (3, tf.constant([1.5])), {"b": 1, "a": tf.constant(2)})
    assert out == "[1 0] [1, 'a', 2.5] (3, [1.5]) {'a': 2, 'b': 1}\n"
    assert _run_stdout(capsys, "a", 1, 2.5, None, True) == "a 1 2.5 None True\n"


def test_default_stream_is_stderr_and_values_are_fed(capsys):
    x = tf.placeholder(tf.int32, [None])
    op = tf.print("v", x)
    with tf.Session() as sess:
        sess.run(op, {x: [4, 5]})
    captured = capsys.readouterr()
    assert captured.err == "v [4 5]\n" and captured.out == ""


def test_control_dependency_prints_before_value(capsys):
    x = tf.constant(3.0)
    with tf.control_dependencies([tf.print("computing", x, output_stream=sys.stdout)]):
        y = tf.identity(x * 2)
    with tf.Session() as sess:
        assert sess.run(y) == 6.0
    assert capsys.readouterr().out == "computing 3\n"


def test_file_and_logging_streams(tmp_path, caplog):
    path = tmp_path / "out.txt"
    a = tf.print("first", tf.constant([1, 2]), output_stream=f"file://{path}")
    b = tf.print("second", output_stream=f"file://{path}")
    c = tf.print("logged", tf.constant(7), output_stream=tf.logging.warning)
    with caplog.at_level(logging.WARNING, logger="tensorfleet"):
        with tf.Session() as sess:
            sess.run(a)
            sess.run(b)
            sess.run(c)
    assert path.read_text() == "first [1 2]\nsecond\n"
    assert any(r.getMessage() == "logged 7" and r.levelno == logging.WARNING
               for r in caplog.records)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match="Unsupported output stream"):
        tf.print("x", output_stream=print)
    with pytest.raises(ValueError, match="Unrecognized keyword"):
        tf.print("x", foo=1)


def test_strings_format():
    s = tf.strings.format("x={} y={}", [tf.constant([1, 2]), tf.constant("s")])
    t = tf.strings.format("{}!", tf.range(8), summarize=2)
    with tf.Session() as sess:
        assert sess.run(s) == b'x=[1 2] y="s"'
        assert sess.run(t) == b"[0 1 ... 6 7]!"
    assert s.dtype == tf.string and s.shape.ndims == 0
    with pytest.raises(ValueError, match="placeholders"):
        tf.strings.format("{} {}", [tf.constant(1)])


def test_format_tensor_matches_numpy_values():
    x = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
    assert format_tensor(x) == "[[0 0.25 0.5]\n [0.75 1 1.25]]"
    assert format_tensor(np.float32(0.1)) == "0.1"
    assert format_tensor(np.float64(0.1) + np.float64(0.2)) == "0.30000000000000004"
    assert format_tensor(np.zeros([0], np.int32)) == "[]"


def test_legacy_Print_still_passes_value_through(capsys):
    x = tf.constant([1.0, 2.0])
    y = tf.Print(x, [x], message="vals: ")
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(y), [1.0, 2.0])
    assert "vals: " in capsys.readouterr().err


def test_sparse_tensor_prints_its_parts(capsys):
    sp = tf.SparseTensor([[0, 1]], [2.0], [2, 2])
    assert _run_stdout(capsys, sp) == "'SparseTensor(indices=[[0 1]], values=[2], shape=[2 2])'\n"


def test_print_inside_while_loop_and_cond(capsys):
    def body(i):
        with tf.control_dependencies([tf.print("i =", i, output_stream=sys.stdout)]):
            return i + 1

    def branch(text, value):
        def fn():
            with tf.control_dependencies([tf.print(text, output_stream=sys.stdout)]):
                return tf.constant(value)
        return fn
    r = tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])
    c = tf.cond(tf.constant(False), branch("true branch", 1), branch("false branch", 2))
    with tf.Session() as sess:
        assert sess.run(r) == 3
        assert sess.run(c) == 2
    assert capsys.readouterr().out == "i = 0\ni = 1\ni = 2\nfalse branch\n"
