"""tf.compat.v1, the TF 1.15 behaviour switches, the tensorflow.python module paths,
device_lib and the GraphOptions/OptimizerOptions/LogMessage config classes."""

import importlib

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.gradients.registry import get_gradient_fn


def test_compat_v1_is_tensorfleet():
    v1 = importlib.import_module("tensorfleet.compat.v1")
    assert v1 is tf and tf.compat.v1 is tf
    from tensorfleet.compat.v1 import placeholder
    assert placeholder is tf.placeholder
    x = tf.compat.v1.placeholder(tf.float32, [2])
    with tf.compat.v1.Session() as sess:
        np.testing.assert_allclose(sess.run(x * 2, {x: [1.0, 2.0]}), [2.0, 4.0])
    assert tf.compat.as_bytes("é") == "é".encode() and tf.compat.as_text(b"a") == "a"


def test_v1_switches_return_and_eager_raises():
    assert tf.compat.v1.disable_v2_behavior() is None
    assert tf.disable_eager_execution() is None
    assert tf.disable_resource_variables() is None
    assert tf.disable_v2_tensorshape() is None
    assert tf.executing_eagerly() is False and tf.resource_variables_enabled() is False
    with pytest.raises(RuntimeError, match="eager execution is not supported"):
        tf.compat.v1.enable_eager_execution()
    with pytest.raises(RuntimeError, match="eager execution is not supported"):
        tf.enable_v2_behavior()
    # The graph still works after the switch, as a TF 1.15 program expects.
    tf.disable_v2_behavior()
    with tf.Session() as sess:
        assert sess.run(tf.constant(3) + 1) == 4


def test_tensorflow_python_paths_are_the_real_modules():
    from tensorfleet.python.framework import dtypes, ops
    from tensorfleet.python.ops import array_ops, math_ops, rnn_cell_impl, variable_scope
    from tensorfleet.python.platform import gfile
    from tensorfleet.python.platform import tf_logging as logging
    from tensorfleet.python.training import training_util
    from tensorfleet.python.util import nest
    assert ops.convert_to_tensor is tf.convert_to_tensor
    assert ops.get_default_graph is tf.get_default_graph
    assert ops.RegisterGradient is tf.RegisterGradient and ops.Graph is tf.Graph
    assert ops.IndexedSlices is tf.IndexedSlices and ops.GraphKeys is tf.GraphKeys
    assert ops.op_scope is tf.op_scope
    with tf.name_scope("outer"):
        assert ops.get_name_scope() == "outer"
    assert dtypes.float32 is tf.float32
    assert array_ops.placeholder is tf.placeholder and math_ops.matmul is tf.matmul
    assert rnn_cell_impl.LSTMCell is tf.nn.rnn_cell.LSTMCell
    assert variable_scope.get_variable is tf.get_variable
    assert training_util.get_or_create_global_step is tf.train.get_or_create_global_step
    # The tensorflow.python paths are the implementation modules, as in TensorFlow; the
    # namespaces hold the same objects.
    assert logging.info is tf.logging.info and logging.INFO == tf.logging.INFO
    assert gfile.Exists is tf.gfile.Exists and nest.flatten is tf.nest.flatten
    import tensorfleet.python.ops.nn_ops as nn_ops
    assert nn_ops.relu is tf.nn.relu
    with pytest.raises(ModuleNotFoundError, match="tensorfleet.python.ops.no_such"):
        importlib.import_module("tensorfleet.python.ops.no_such")


def test_register_gradient_through_ops_path():
    from tensorfleet.python.framework import ops

    @ops.RegisterGradient("MiscDoubleGrad")
    def _double(op, grad):
        return [grad * 2.0]
    assert get_gradient_fn("MiscDoubleGrad") is _double
    ops.NotDifferentiable("MiscNoGrad")
    assert get_gradient_fn("MiscNoGrad") is None


def test_device_lib_lists_cpu():
    from tensorfleet.python.client import device_lib
    devices = device_lib.list_local_devices()
    assert devices[0].name == "/device:CPU:0" and devices[0].device_type == "CPU"
    assert [d.name for d in devices if d.device_type == "GPU"] == [] or \
        all(d.name.startswith("/device:GPU") for d in devices if d.device_type == "GPU")


def test_optimizer_and_graph_options():
    oo = tf.OptimizerOptions(opt_level=tf.OptimizerOptions.L0, do_constant_folding=True)
    assert (tf.OptimizerOptions.L0, tf.OptimizerOptions.L1) == (-1, 0)
    assert oo.opt_level == -1 and oo.do_constant_folding is True
    go = tf.GraphOptions(optimizer_options=oo, infer_shapes=True)
    assert go.optimizer_options is oo and go.infer_shapes
    assert go.to_plain()["optimizer_options"]["opt_level"] == -1
    cfg = tf.ConfigProto(graph_options=go)
    with tf.Session(config=cfg) as sess:
        assert sess.run(tf.constant(2.0) * 3) == 6.0
    with pytest.raises(ValueError, match="XLA"):
        tf.OptimizerOptions(global_jit_level=tf.OptimizerOptions.ON_1)
    with pytest.raises(ValueError, match="opt_level"):
        tf.OptimizerOptions(opt_level=3)
    with pytest.raises(ValueError, match="timeline"):
        tf.GraphOptions(timeline_step=5)
    with pytest.raises(ValueError, match="cost model"):
        tf.GraphOptions(build_cost_model=1)
    with pytest.raises(TypeError, match="optimizer_options"):
        tf.GraphOptions(optimizer_options={"opt_level": 0})


def test_log_message():
    m = tf.LogMessage(level=tf.LogMessage.INFO, message="hi")
    assert (m.level, m.message) == (20, "hi")
    assert [tf.LogMessage.UNKNOWN, tf.LogMessage.DEBUGGING, tf.LogMessage.WARN,
            tf.LogMessage.ERROR, tf.LogMessage.FATAL] == [0, 10, 30, 40, 50]
    assert m == tf.LogMessage(20, "hi")
    with pytest.raises(ValueError, match="level"):
        tf.LogMessage(level=25)


def test_gradient_and_error_aliases():
    tf.NoGradient("MiscAliasNoGrad")
    tf.no_gradient("MiscAliasNoGrad2")
    assert get_gradient_fn("MiscAliasNoGrad") is None
    assert get_gradient_fn("MiscAliasNoGrad2") is None
    assert tf.OpError is tf.errors.OpError


def test_contrib_layers_python_path():
    import tensorfleet.contrib.layers.python.layers as layers_path
    from tensorfleet.contrib.layers.python.layers import batch_norm
    assert layers_path is tf.contrib.layers and batch_norm is tf.contrib.layers.batch_norm
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorfleet.contrib.layers.python.other")


def test_contrib_seq2seq_python_ops_paths_reach_contrib_seq2seq():
    for name in ("attention_wrapper", "basic_decoder", "beam_search_decoder", "decoder",
                 "helper", "loss"):
        mod = importlib.import_module(f"tensorfleet.contrib.seq2seq.python.ops.{name}")
        assert mod is tf.contrib.seq2seq
    assert tf.contrib.seq2seq.python.ops.attention_wrapper.AttentionWrapper is \
        tf.contrib.seq2seq.AttentionWrapper
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tensorfleet.contrib.seq2seq.python.ops.no_such_module")
