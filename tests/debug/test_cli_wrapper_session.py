"""``tensorflow.python.debug``'s LocalCLIDebugWrapperSession driven by scripted commands."""

import io

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.python import debug as tf_debug


def _graph():
    x = tf.placeholder(tf.float32, [2], name="x")
    y = tf.log(x, name="y")
    z = tf.reduce_sum(y * 2.0, name="z")
    return x, z


def _wrap(sess, commands):
    out = io.StringIO()
    dbg = tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="readline",
                                               stdin=io.StringIO(commands), stdout=out)
    dbg.add_tensor_filter("has_inf_or_nan", tf_debug.has_inf_or_nan)
    return dbg, out


def test_run_then_list_and_print_the_intermediate_tensors():
    with tf.Graph().as_default():
        x, z = _graph()
        with tf.Session() as sess:
            dbg, out = _wrap(sess, "help\nrun\nlt\npt y\ncontinue\n")
            v = dbg.run(z, {x: [1.0, np.e]})
    assert v == pytest.approx(2.0)
    text = out.getvalue()
    assert "y:0\tfloat32\t[2]" in text and "z:0\tfloat32\t[]" in text
    assert "Tensor 'y:0':\n[0. 1.]" in text and "run -f FILTER" in text


def test_run_until_a_filter_passes_then_exit():
    with tf.Graph().as_default():
        x, z = _graph()
        with tf.Session() as sess:
            dbg, out = _wrap(sess, "run -f has_inf_or_nan\nlt -f has_inf_or_nan\nexit\n")
            assert dbg.run(z, {x: [1.0, 1.0]}) == 0.0  # passes through: all finite
            assert "filter" not in out.getvalue().split("run -f")[-1]
            assert np.isnan(dbg.run(z, {x: [-1.0, 1.0]}))  # stops here
            text = out.getvalue()
            assert "filter 'has_inf_or_nan' passed in run #2" in text
            listed = text.split("lt lists them")[-1]
            assert "y:0" in listed and "z:0" in listed and "x:0" not in listed
            assert dbg.run(z, {x: [1.0, 1.0]}) == 0.0  # after exit: no prompt, no input left
            assert dbg.run_call_count == 3


def test_run_t_skips_prompts_and_errors_are_clear():
    with tf.Graph().as_default():
        x, z = _graph()
        with tf.Session() as sess:
            dbg, out = _wrap(sess, "bogus\nrun -f nofilter\nrun -t 2\n")
            assert dbg.run(z, {x: [1.0, 1.0]}) == 0.0
            assert dbg.run(z, {x: [1.0, 1.0]}) == 0.0
            assert "unknown command 'bogus'" in out.getvalue()
            assert "no filter named 'nofilter'" in out.getvalue()
            with pytest.raises(EOFError, match="end of input"):
                dbg.run(z, {x: [1.0, 1.0]})
        with pytest.raises(ValueError, match="dump_root"):
            tf_debug.LocalCLIDebugWrapperSession(sess, dump_root="/tmp/x")
        with pytest.raises(ValueError, match="ui_type"):
            tf_debug.LocalCLIDebugWrapperSession(sess, ui_type="web")


def test_has_inf_or_nan():
    d = tf_debug.DebugTensorDatum("a", 0)
    assert d.tensor_name == "a:0"
    assert tf_debug.has_inf_or_nan(d, np.array([1.0, np.inf]))
    assert not tf_debug.has_inf_or_nan(d, np.array([1.0, 2.0]))
    assert not tf_debug.has_inf_or_nan(d, np.array([1, 2]))
