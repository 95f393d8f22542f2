"""``tf.contrib.quantize``: rewrites a float graph for quantization-aware training and
evaluation, as TensorFlow's does.

Every ``Conv2D``, ``DepthwiseConv2dNative`` and ``MatMul`` whose weights are read from a
variable gets

* its weights fake-quantized (``<layer>/weights_quant``) to ``weight_bits`` levels over
  their current ``[min, max]`` (``narrow_range``, zero included);
* its activation, the output of the layer after the ``BiasAdd``/``Add`` and
  ``Relu``/``Relu6`` that follow it, fake-quantized (``<layer>/act_quant``) to
  ``activation_bits`` over a range kept in the variables ``act_quant/min`` and
  ``act_quant/max``: during training they follow the activation's min and max by an
  exponential moving average (decay 0.999); for evaluation they are read as restored.

Every consumer of the weights and the activation then reads the quantized value. With
``quant_delay``, training runs the float graph until the global step reaches it. Call
the training rewrite after building the model and before the optimizer, so the gradients
go through the fake-quant ops (straight-through, see ``ops/fake_quant_ops``).
"""

from __future__ import annotations

import logging
from typing import Any, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, Operation, Tensor, control_dependencies,
                                         get_default_graph, name_scope)
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops
from tensorfleet.ops.control_flow_ops import cond
from tensorfleet.ops.fake_quant_ops import fake_quant_with_min_max_vars
from tensorfleet.ops.init_ops import Constant
from tensorfleet.ops.variable_scope import get_variable, variable_scope
from tensorfleet.training.training_util import get_global_step

logger = logging.getLogger(__name__)

_LAYER_TYPES = ("Conv2D", "DepthwiseConv2dNative", "MatMul")
_FOLLOWERS = (("BiasAdd", "Add", "AddV2"), ("Relu", "Relu6"))
_EMA_DECAY = 0.999
# The marker attr of ops this module made, so a second rewrite leaves them alone.
_MARK = "_tensorfleet_quantized"


def _reads_variable(t: Tensor) -> bool:
    op = t.op
    while op.type in ("Identity", "ReadVariableOp") and op.inputs:
        op = op.inputs[0].op
    return op.type in ("VariableV2", "Variable", "VarHandleOp")


def _consumers(graph: Graph, t: Tensor) -> List[Operation]:
    return [op for op in graph.get_operations() if any(i is t for i in op.inputs)]


def _activation(graph: Graph, layer: Operation) -> Tensor:
    out = layer.outputs[0]
    for kinds in _FOLLOWERS:
        users = _consumers(graph, out)
        if len(users) == 1 and users[0].type in kinds:
            out = users[0].outputs[0]
    return out


def _rewire(graph: Graph, old: Tensor, new: Tensor, made: List[Operation]) -> None:
    for op in _consumers(graph, old):
        if id(op) in {id(m) for m in made}:
            continue
        for i, t in enumerate(op.inputs):
            if t is old:
                op.replace_input(i, new)


def _delayed(quantized: Tensor, plain: Tensor, quant_delay: Optional[int]) -> Tensor:
    if not quant_delay:
        return quantized
    step = get_global_step()
    if step is None:
        raise ValueError("quant_delay needs a global step; create one first "
                         "(tf.train.get_or_create_global_step())")
    return cond(M.greater_equal(A.identity(step), quant_delay), lambda: quantized,
                lambda: plain)


def _quantize_layer(graph: Graph, layer: Operation, is_training: bool, weight_bits: int,
                    activation_bits: int, quant_delay: Optional[int]) -> None:
    scope = layer.name.rpartition("/")[0]
    weights = layer.inputs[1]
    act = _activation(graph, layer)
    before = set(id(o) for o in graph.get_operations())
    with name_scope(None), name_scope(f"{scope}/weights_quant/" if scope else "weights_quant/"):
        w_min = M.minimum(M.reduce_min(weights), 0.0)
        w_max = M.maximum(M.reduce_max(weights), 0.0)
        w_q = _delayed(fake_quant_with_min_max_vars(weights, w_min, w_max, weight_bits,
                                                    narrow_range=True),
                       weights, quant_delay if is_training else None)
    with variable_scope(f"{scope}/act_quant" if scope else "act_quant", reuse=None):
        a_min = get_variable("min", [], _dtypes.float32, initializer=Constant(-6.0),
                             trainable=False)
        a_max = get_variable("max", [], _dtypes.float32, initializer=Constant(6.0),
                             trainable=False)
    with name_scope(None), name_scope(f"{scope}/act_quant/" if scope else "act_quant/"):
        deps = []
        if is_training:
            # The range follows the batch's min and max; zero stays inside it.
            batch_min = M.minimum(M.reduce_min(act), 0.0)
            batch_max = M.maximum(M.reduce_max(act), 0.0)
            deps = [state_ops.assign(a_min, M.add(M.multiply(a_min, _EMA_DECAY),
                                                  M.multiply(batch_min, 1 - _EMA_DECAY))),
                    state_ops.assign(a_max, M.add(M.multiply(a_max, _EMA_DECAY),
                                                  M.multiply(batch_max, 1 - _EMA_DECAY)))]
        with control_dependencies(deps):
            a_q = _delayed(fake_quant_with_min_max_vars(act, a_min, a_max, activation_bits),
                           A.identity(act), quant_delay if is_training else None)
    made = [o for o in graph.get_operations() if id(o) not in before]
    for o in made:
        o.set_attr(_MARK, True)
    _rewire(graph, weights, w_q, made)
    _rewire(graph, act, a_q, made)


def _rewrite(graph: Optional[Graph], is_training: bool, weight_bits: int,
             activation_bits: int, quant_delay: Optional[int], scope: Optional[str]) -> None:
    graph = graph or get_default_graph()
    if not isinstance(graph, Graph):
        raise TypeError(f"input_graph must be a Graph, got {type(graph).__name__}")
    if quant_delay is not None and (isinstance(quant_delay, bool) or quant_delay < 0):
        raise ValueError(f"quant_delay must be a non-negative int, got {quant_delay!r}")
    with graph.as_default():
        layers = [op for op in graph.get_operations()
                  if op.type in _LAYER_TYPES and _MARK not in op.attrs
                  and (scope is None or op.name.startswith(scope))
                  and len(op.inputs) > 1 and _reads_variable(op.inputs[1])]
        for layer in layers:
            _quantize_layer(graph, layer, is_training, weight_bits, activation_bits,
                            quant_delay)
    logger.info("quantize: rewrote %d layers for %s", len(layers),
                "training" if is_training else "evaluation")


def create_training_graph(input_graph: Optional[Graph] = None, quant_delay: int = 0) -> None:
    """Rewrites ``input_graph`` (default: the default graph) in place for 8-bit
    quantization-aware training; float until the global step reaches ``quant_delay``."""
    _rewrite(input_graph, True, 8, 8, quant_delay, None)


def create_eval_graph(input_graph: Optional[Graph] = None) -> None:
    """Rewrites ``input_graph`` in place for 8-bit quantized evaluation (the activation
    ranges are read, not updated)."""
    _rewrite(input_graph, False, 8, 8, None, None)


def experimental_create_training_graph(input_graph: Optional[Graph] = None,
                                       weight_bits: int = 8, activation_bits: int = 8,
                                       quant_delay: int = 0, freeze_bn_delay: Any = None,
                                       scope: Optional[str] = None) -> None:
    """``create_training_graph`` with other bit widths, limited to ops under ``scope``.

    Raises:
      ValueError: ``freeze_bn_delay`` (batch-norm folding is not part of this rewrite).
    """
    if freeze_bn_delay is not None:
        raise ValueError("freeze_bn_delay is not supported: batch norms are not folded")
    _rewrite(input_graph, True, weight_bits, activation_bits, quant_delay, scope)


def experimental_create_eval_graph(input_graph: Optional[Graph] = None, weight_bits: int = 8,
                                   activation_bits: int = 8,
                                   scope: Optional[str] = None) -> None:
    """``create_eval_graph`` with other bit widths, limited to ops under ``scope``."""
    _rewrite(input_graph, False, weight_bits, activation_bits, None, scope)


__all__ = ["create_training_graph", "create_eval_graph", "experimental_create_training_graph",
           "experimental_create_eval_graph"]
