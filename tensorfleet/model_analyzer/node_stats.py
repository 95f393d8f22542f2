"""What the model analyzer knows of each op of a graph: its types, parameters, float
operations and input shapes (from the graph and the op log), and its run times (from
the step stats of traced steps).

Run times come from ``RunMetadata.step_stats`` of steps run with
``RunOptions(trace_level=FULL_TRACE)`` in an in-process session. tensorfleet's traces
time ops but do not record memory, so every byte measure is 0.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Set, Tuple

from tensorfleet.framework.graph import GraphKeys
from tensorfleet.model_analyzer.float_ops import float_ops
from tensorfleet.protos.tfprof_log_pb2 import OpLogEntry, OpLogProto
from tensorfleet.protos.tensor_shape_pb2 import TensorShapeProto

logger = logging.getLogger(__name__)

TRAINABLE_TYPE = "_trainable_variables"
_VARIABLE_OPS = frozenset(("Variable", "VariableV2", "VarHandleOp", "AutoReloadVariable"))


class NodeStats:
    """One graph op as the analyzer sees it."""

    def __init__(self, name: str, op_type: str):
        self.name = name
        self.op_type = op_type
        self.types: List[str] = [op_type]
        self.parameters = 0
        self.float_ops = 0
        self.input_shapes: Dict[int, TensorShapeProto] = {}
        # step -> (exec micros, run count, devices)
        self.runs: Dict[int, Tuple[int, int, Set[str]]] = {}

    def run_stats(self, step: int) -> Tuple[int, int, List[str]]:
        """``(exec_micros, run_count, devices)`` of ``step``; step -1 averages the time
        over the steps the op ran in and sums the runs."""
        if step >= 0:
            micros, count, devices = self.runs.get(step, (0, 0, set()))
            return micros, count, sorted(devices)
        if not self.runs:
            return 0, 0, []
        micros = sum(r[0] for r in self.runs.values()) // len(self.runs)
        count = sum(r[1] for r in self.runs.values())
        devices: Set[str] = set()
        for r in self.runs.values():
            devices |= r[2]
        return micros, count, sorted(devices)


def _shape_proto(shape: Any) -> Optional[TensorShapeProto]:
    if shape.ndims is None:
        return None
    out = TensorShapeProto()
    for d in shape.as_list():
        out.dim.add(size=-1 if d is None else int(d))
    return out


def _variable_parameters(op: Any) -> int:
    shape = op.outputs[0].shape if op.outputs else None
    if shape is None or not shape.is_fully_defined():
        return 0
    return int(shape.num_elements())


def default_op_log(graph: Any, op_log: Optional[OpLogProto] = None) -> OpLogProto:
    """The op log the analyzer uses: each trainable variable typed
    ``_trainable_variables``, each op's float operations where known, then the entries
    of ``op_log`` (whose types are added and whose positive float-op counts win)."""
    if op_log is not None and not isinstance(op_log, OpLogProto):
        raise TypeError(f"op_log must be a tf.profiler.OpLogProto, got "
                        f"{type(op_log).__name__}")
    entries: Dict[str, Any] = {}
    trainable = {v.op.name for v in graph.get_collection(GraphKeys.TRAINABLE_VARIABLES)}
    for op in graph.get_operations():
        flops = float_ops(op)
        if op.name in trainable or flops:
            entry = entries[op.name] = OpLogEntry(name=op.name)
            if op.name in trainable:
                entry.types.append(TRAINABLE_TYPE)
            if flops:
                entry.float_ops = flops
    out = OpLogProto()
    if op_log is not None:
        for given in op_log.log_entries:
            entry = entries.get(given.name)
            if entry is None:
                entry = entries[given.name] = OpLogEntry(name=given.name)
            for t in given.types:
                if t not in entry.types:
                    entry.types.append(t)
            if given.float_ops > 0:
                entry.float_ops = given.float_ops
            if given.HasField("code_def"):
                entry.code_def.CopyFrom(given.code_def)
        for key, value in op_log.id_to_string.items():
            out.id_to_string[key] = value
    for name in sorted(entries):
        out.log_entries.add().CopyFrom(entries[name])
    return out


def collect(graph: Any, op_log: OpLogProto) -> Dict[str, NodeStats]:
    """The ``NodeStats`` of every op of ``graph``, with the op log's types and counts."""
    nodes: Dict[str, NodeStats] = {}
    for op in graph.get_operations():
        node = nodes[op.name] = NodeStats(op.name, op.type)
        if op.type in _VARIABLE_OPS:
            node.parameters = _variable_parameters(op)
        for i, t in enumerate(op.inputs):
            shape = _shape_proto(t.shape)
            if shape is not None:
                node.input_shapes[i] = shape
    for entry in op_log.log_entries:
        node = nodes.get(entry.name)
        if node is None:
            continue  # an entry for an op of another graph: nothing to attach it to
        node.types.extend(t for t in entry.types if t not in node.types)
        node.float_ops = int(entry.float_ops)
    return nodes


def add_run(nodes: Dict[str, NodeStats], step: int, run_meta: Any) -> int:
    """Adds the op times of ``run_meta.step_stats`` as step ``step``; returns how many
    of the graph's ops it timed.

    Raises:
      TypeError: ``run_meta`` has no ``step_stats`` (it is not a ``RunMetadata``).
      ValueError: the step was not traced (its ``step_stats`` are empty).
    """
    if not hasattr(run_meta, "step_stats"):
        raise TypeError(f"run_meta must be a tf.RunMetadata, got {type(run_meta).__name__}")
    stats = run_meta.step_stats
    if stats is None or not getattr(stats, "dev_stats", None):
        raise ValueError("run_meta holds no step stats: run the step with "
                         "tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) in an "
                         "in-process session")
    timed = 0
    for dev in stats.dev_stats:
        for ns in dev.node_stats:
            node = nodes.get(ns.node_name)
            if node is None:
                continue
            micros = max(0, int(ns.op_end_rel_micros) - int(ns.op_start_rel_micros))
            old_micros, old_count, devices = node.runs.get(step, (0, 0, set()))
            if old_count == 0:
                timed += 1
            node.runs[step] = (old_micros + micros, old_count + 1, devices | {dev.device})
    return timed


__all__ = ["NodeStats", "TRAINABLE_TYPE", "add_run", "collect", "default_op_log"]
