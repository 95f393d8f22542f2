"""Importers of the op types TensorFlow's training graphs add to a model: variables
(``VariableV2``) and their assignments, the gradients' own ops, and the optimizers'
fused updates (``ApplyAdam``...). ``TRAINING_IMPORTERS`` joins
``tensorflow_graph_import.IMPORTERS``, so a ``.meta`` file or graph def that trains
imports and trains. Each importer takes that module's node view (inputs, attrs,
name).

Each builds tensorfleet's op of the same name: tensorfleet's variables, assignments
and updates are TensorFlow's ref-variable ops (a reference output, updated in place),
with the same inputs in the same order.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.ops import array_transform_ops, nn_conv_ops, state_ops
from tensorfleet.ops.op_util import make_op, make_tensor

_Node = Any  # tensorflow_graph_import's node view
TRAINING_IMPORTERS: Dict[str, Callable[[Any], Any]] = {}


def _register(names: Sequence[str], fn: Callable[[Any], Any]) -> None:
    for n in names:
        TRAINING_IMPORTERS[n] = fn

# Fused optimizer updates TensorFlow and tensorfleet share, with the attrs they take.
UPDATE_OPS = {"ApplyGradientDescent": ("use_locking",),
              "ApplyMomentum": ("use_locking", "use_nesterov"),
              "ApplyAdam": ("use_locking", "use_nesterov"),
              "ApplyAdagrad": ("use_locking",),
              "ApplyRMSProp": ("use_locking",)}
GRADIENT_OPS = ("ReluGrad", "Relu6Grad", "TanhGrad", "SigmoidGrad")


def _variable(n: _Node) -> Any:
    return state_ops.variable_op_v2(n.attrs["shape"], n.attrs["dtype"], name=n.name,
                                    container=n.attrs.get("container", ""),
                                    shared_name=n.attrs.get("shared_name", ""))


def _assign(n: _Node) -> Any:
    return state_ops.assign(n.inputs[0], n.inputs[1],
                            validate_shape=n.attrs.get("validate_shape", True),
                            use_locking=n.attrs.get("use_locking", True), name=n.name)


def _update(n: _Node) -> Any:
    if n.op == "ApplyAdagrad" and not n.attrs.get("update_slots", True):
        raise errors.InvalidArgumentError(None, None, f"Node {n.name} (ApplyAdagrad): "
                                          f"update_slots=false is not supported")
    attrs = {k: bool(n.attrs.get(k, False)) for k in UPDATE_OPS[n.op]}
    return make_op(n.op, n.inputs, [n.inputs[0].dtype], attrs, name=n.name).outputs[0]


def _broadcast_gradient_args(n: _Node) -> Any:
    dt = n.inputs[0].dtype if n.inputs else _dtypes.int32
    return list(make_op("BroadcastGradientArgs", n.inputs, [dt, dt], name=n.name).outputs)


def _conv_backprop(fn_name: str) -> Any:
    def build(n: _Node) -> Any:
        if n.attrs.get("explicit_paddings") or n.attrs.get("padding") == "EXPLICIT":
            raise errors.InvalidArgumentError(None, None, f"Node {n.name} ({n.op}): "
                                              f"explicit paddings are not supported")
        return getattr(nn_conv_ops, fn_name)(
            n.inputs[0], n.inputs[1], n.inputs[2], strides=n.attrs["strides"],
            padding=n.attrs["padding"], data_format=n.attrs.get("data_format", "NHWC"),
            dilations=n.attrs.get("dilations"), name=n.name)
    return build


def _random(n: _Node) -> Any:
    """Initializers' random ops, with the graph-level and op seeds TensorFlow gave them
    (tensorfleet's generator differs: initial values are not TensorFlow's)."""
    attrs = {"dtype": n.attrs["dtype"], "seed": int(n.attrs.get("seed", 0)),
             "seed2": int(n.attrs.get("seed2", 0))}
    return make_tensor(n.op, n.inputs[:1], attrs["dtype"], attrs, name=n.name)


def _sparse_xent(n: _Node) -> Any:
    dt = n.inputs[0].dtype
    return list(make_op("SparseSoftmaxCrossEntropyWithLogits", n.inputs[:2], [dt, dt],
                        name=n.name).outputs)


_register(["VariableV2"], _variable)
_register(["Assign"], _assign)
_register(["AssignAdd"], lambda n: state_ops.assign_add(
    n.inputs[0], n.inputs[1], use_locking=n.attrs.get("use_locking", False), name=n.name))
_register(["AssignSub"], lambda n: state_ops.assign_sub(
    n.inputs[0], n.inputs[1], use_locking=n.attrs.get("use_locking", False), name=n.name))
_register(list(UPDATE_OPS), _update)
_register(["BroadcastGradientArgs"], _broadcast_gradient_args)
_register(list(GRADIENT_OPS), lambda n: make_tensor(n.op, n.inputs[:2], n.inputs[1].dtype,
                                                    name=n.name))
_register(["BiasAddGrad"], lambda n: make_tensor(
    "BiasAddGrad", n.inputs[:1], n.inputs[0].dtype,
    {"data_format": n.attrs.get("data_format", "NHWC")}, name=n.name))

_register(["Conv2DBackpropInput"], _conv_backprop("conv2d_backprop_input"))
_register(["Conv2DBackpropFilter"], _conv_backprop("conv2d_backprop_filter"))
_register(["SparseSoftmaxCrossEntropyWithLogits"], _sparse_xent)
_register(["RandomStandardNormal", "RandomUniform", "TruncatedNormal"], _random)
_register(["ShapeN"], lambda n: array_transform_ops.shape_n(
    n.inputs, out_type=n.attrs.get("out_type", _dtypes.int32), name=n.name))

__all__ = ["TRAINING_IMPORTERS", "UPDATE_OPS", "GRADIENT_OPS"]
