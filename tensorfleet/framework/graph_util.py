"""``tf.graph_util``: rewriting graph defs (freezing variables, pruning) and
``tf.train.write_graph``.

All of them work on ``GraphDef`` objects (``Graph.as_graph_def()``) and return
new ones; the input graph def is left as it was. ``extract_sub_graph`` and
``convert_variables_to_constants`` also take TensorFlow's ``GraphDef`` message (as
parsed from a file, bare or inside a ``GraphDef``) and then return one of the same
kind.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, Iterable, List, Optional, Sequence, Set

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import serialization as _ser
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.framework.graph import Graph, Operation
from tensorfleet.framework.graph_def import AttrValue, GraphDef, NodeDef
from tensorfleet.kernels.numpy.io_kernels import os_error
from tensorfleet.protos import graph_pb2

logger = logging.getLogger(__name__)

_VARIABLE_OPS = ("VariableV2", "Variable")
_TRAINING_ONLY_OPS = ("Identity", "CheckNumerics")


def _copy(graph_def: Any) -> GraphDef:
    if not isinstance(graph_def, dict) or not isinstance(graph_def.get("node"), list):
        raise TypeError(f"Expected a GraphDef, got {type(graph_def).__name__}")
    return GraphDef(json.loads(json.dumps(graph_def)))


def _node_name(input_name: str) -> str:
    """The node an input string reads: ``"^a"``, ``"a:1"`` and ``"a"`` all name ``a``."""
    name = input_name[1:] if input_name.startswith("^") else input_name
    base, sep, idx = name.rpartition(":")
    return base if sep and idx.isdigit() else name


def _tensorflow_message(graph_def: Any) -> Any:
    """TensorFlow's ``GraphDef`` message ``graph_def`` is or holds, else None."""
    if isinstance(graph_def, graph_pb2.GraphDef):
        return graph_def
    return getattr(graph_def, "tensorflow", None)


def _as_given(graph_def: Any, msg: Any) -> Any:
    """``msg`` in the kind of ``graph_def``: the bare message, or a ``GraphDef`` over it."""
    if isinstance(graph_def, GraphDef):
        out = GraphDef()
        out.tensorflow = msg
        return out
    return msg


def _needed_nodes(by_name: Dict[str, Any], dest_nodes: Sequence[str]) -> Set[str]:
    """The names of ``dest_nodes`` and of every node they read (data and control)."""
    if isinstance(dest_nodes, str):
        raise TypeError("dest_nodes must be a list of node names, not a string")
    for d in dest_nodes:
        if _node_name(d) not in by_name:
            raise ValueError(f"{d} is not in graph")
    keep: Set[str] = set()
    stack = [_node_name(d) for d in dest_nodes]
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        node = by_name.get(name)
        if node is None:
            raise ValueError(f"Node {name!r} is read by the sub-graph but is not in graph")
        stack.extend(_node_name(i) for i in node.input)
    return keep


def extract_sub_graph(graph_def: Any, dest_nodes: Sequence[str]) -> Any:
    """The nodes that ``dest_nodes`` need (through data and control inputs), in their
    original order.

    Raises:
      TypeError: ``graph_def`` is not a GraphDef or ``dest_nodes`` is a string.
      ValueError: a destination names no node.
    """
    msg = _tensorflow_message(graph_def)
    if msg is not None:
        keep = _needed_nodes({n.name: n for n in msg.node}, dest_nodes)
        out = type(msg)()
        out.CopyFrom(msg)
        del out.node[:]
        out.node.extend(n for n in msg.node if n.name in keep)
        return _as_given(graph_def, out)
    gd = _copy(graph_def)
    keep = _needed_nodes({n.name: n for n in gd.node}, dest_nodes)
    gd["node"] = type(gd.node)(n for n in gd.node if n.name in keep)
    return gd


def convert_variables_to_constants(sess: Any, input_graph_def: Any,
                                   output_node_names: Sequence[str],
                                   variable_names_whitelist: Optional[Iterable[str]] = None,
                                   variable_names_blacklist: Optional[Iterable[str]] = None
                                   ) -> GraphDef:
    """The sub-graph that computes ``output_node_names``, with every variable it reads
    replaced by a ``Const`` holding the variable's current value in ``sess``.

    Args:
      sess: a session in which the variables are initialized.
      input_graph_def: the graph def (``graph.as_graph_def()``).
      output_node_names: names of the nodes to keep (with all they depend on).
      variable_names_whitelist: if given, only these variables are converted.
      variable_names_blacklist: variables that stay variables.

    Raises:
      ValueError: an output names no node. FailedPreconditionError (from ``sess``):
      a variable is not initialized.
    """
    sub = extract_sub_graph(input_graph_def, output_node_names)
    allow = None if variable_names_whitelist is None else set(variable_names_whitelist)
    deny = set(variable_names_blacklist or ())
    msg = _tensorflow_message(sub)
    if msg is not None:
        _freeze_message(sess, msg, allow, deny)
        return sub
    to_freeze = [n for n in sub.node if n.op in _VARIABLE_OPS
                 and (allow is None or n.name in allow) and n.name not in deny]
    values = sess.run([f"{n.name}:0" for n in to_freeze]) if to_freeze else []
    for node, value in zip(to_freeze, values):
        arr = np.asarray(value)
        dtype = _dtypes.as_dtype(arr.dtype).name
        const = NodeDef(name=node.name, op="Const", input=[], device=node.device,
                        out=[[dtype, list(arr.shape)]])
        const.attr["dtype"] = AttrValue({"type": dtype})
        const.attr["value"] = AttrValue(_ser.encode_attr(arr))
        node.clear()
        node.update(const)
    logger.info("Froze %d variables.", len(to_freeze))
    return sub


def _freeze_message(sess: Any, msg: Any, allow: Optional[Set[str]], deny: Set[str]) -> None:
    """``convert_variables_to_constants`` on TensorFlow's message, in place."""
    resource = sorted(n.name for n in msg.node if n.op == "VarHandleOp")
    if resource:
        raise ValueError(f"convert_variables_to_constants: {resource} are resource "
                         f"variables, which tensorfleet does not import")
    to_freeze = [n for n in msg.node if n.op in _VARIABLE_OPS
                 and (allow is None or n.name in allow) and n.name not in deny]
    values = sess.run([f"{n.name}:0" for n in to_freeze]) if to_freeze else []
    for node, value in zip(to_freeze, values):
        proto = _tp.make_tensor_proto(np.asarray(value))
        name, device = node.name, node.device
        node.Clear()
        node.name, node.op, node.device = name, "Const", device
        node.attr["dtype"].type = proto.dtype
        node.attr["value"].tensor.CopyFrom(proto)
    logger.info("Froze %d variables.", len(to_freeze))


def remove_training_nodes(input_graph: Any,
                          protected_nodes: Optional[Iterable[str]] = None) -> GraphDef:
    """Removes ``Identity`` and ``CheckNumerics`` nodes (not in ``protected_nodes`` and
    without control inputs), rewiring their readers to what they read."""
    gd = _copy(input_graph)
    protected = set(protected_nodes or ())
    alias: Dict[str, str] = {}
    for n in gd.node:
        if (n.op in _TRAINING_ONLY_OPS and n.name not in protected and n.input
                and not any(i.startswith("^") for i in n.input)):
            alias[n.name] = n.input[0]

    def resolve(tensor: str) -> str:
        seen = 0
        while _node_name(tensor) in alias and seen <= len(alias):
            tensor = alias[_node_name(tensor)]
            seen += 1
        return tensor

    kept: List[NodeDef] = []
    for n in gd.node:
        if n.name in alias:
            continue
        n["input"] = [("^" + _node_name(resolve(i[1:]))) if i.startswith("^") else resolve(i)
                      for i in n.input]
        kept.append(n)
    gd["node"] = type(gd.node)(kept)
    return gd


def write_graph(graph_or_graph_def: Any, logdir: str, name: str,
                as_text: bool = True) -> str:
    """Writes the graph as TensorFlow's ``GraphDef`` to ``logdir/name``; returns the path.

    The file is the protobuf text format when ``as_text``, else binary, as TensorFlow
    writes it, so TensorFlow, TensorBoard and ``tf.import_graph_def`` (here) read it.
    Op types TensorFlow lacks are written as they are, with a WARNING naming them:
    TensorBoard shows them, TensorFlow will not import them.

    Raises:
      TypeError: neither a Graph nor a GraphDef. PermissionDeniedError and friends
      when the file cannot be written.
    """
    from google.protobuf import text_format

    from tensorfleet.framework import tensorflow_graph_export as tge

    if isinstance(graph_or_graph_def, Graph):
        gd = graph_or_graph_def.as_graph_def()
    elif isinstance(graph_or_graph_def, dict):
        gd = graph_or_graph_def
    elif type(graph_or_graph_def).__name__ == "GraphDef" and hasattr(graph_or_graph_def,
                                                                       "library"):
        gd = None
        msg = graph_or_graph_def
    else:
        raise TypeError(f"write_graph expects a Graph or GraphDef, got "
                        f"{type(graph_or_graph_def).__name__}")
    if gd is not None:
        msg = gd.tensorflow if getattr(gd, "tensorflow", None) is not None else \
            tge.to_tensorflow_graph_def(gd, strict=False)
        foreign = sorted({n.op for n in msg.node if not tge.exportable(n.op)})
        if foreign:
            logger.warning("write_graph: op types TensorFlow does not have are written as "
                           "they are: %s", ", ".join(foreign))
    path = os.path.join(logdir, name)
    data = text_format.MessageToString(msg).encode("utf-8") if as_text else \
        msg.SerializeToString(deterministic=True)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        os.makedirs(logdir or ".", exist_ok=True)
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError as e:
        raise os_error(e, f"Failed to write graph {path}") from None
    return path


def must_run_on_cpu(node: Any, pin_variables_on_cpu: bool = False) -> bool:
    """Whether ``node`` (an Operation or NodeDef) must run on a CPU: always, since
    tensorfleet's kernels are CPU kernels (so a device function built on this answer places
    every op on the CPU, whatever ``pin_variables_on_cpu``).

    Raises:
      TypeError: ``node`` is neither an Operation nor a NodeDef.
    """
    if not isinstance(node, (Operation, NodeDef)):
        raise TypeError(f"must_run_on_cpu needs an Operation or NodeDef, got "
                        f"{type(node).__name__}")
    return True


def tensor_shape_from_node_def_name(graph: Graph, input_name: str) -> Any:
    """The static shape of tensor ``input_name`` of ``graph`` (``"op"`` meaning ``"op:0"``).

    Raises:
      KeyError: no such tensor.
    """
    name = input_name if ":" in input_name else f"{input_name}:0"
    return graph.get_tensor_by_name(name).shape


__all__ = ["convert_variables_to_constants", "extract_sub_graph", "remove_training_nodes",
           "write_graph", "must_run_on_cpu", "tensor_shape_from_node_def_name"]
