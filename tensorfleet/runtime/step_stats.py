"""Per-op timings of a traced step (``RunOptions(trace_level=FULL_TRACE)``), the
``RunMetadata.step_stats`` they fill, and ``Timeline`` (``tensorflow.python.client.
timeline``), which turns them into a Chrome trace (``chrome://tracing``, Perfetto).

A traced step runs a copy of its plan whose kernels note their op, start and end; the
cached plan is left as it is, so steps that are not traced pay nothing. Only in-process
sessions trace: a step run by a cluster's master is not timed op by op.
"""

from __future__ import annotations

import copy
import json
import threading
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

# (op name, op type, device, input tensor names, start, end, thread id); seconds.
TraceRecord = Tuple[str, str, str, Tuple[str, ...], float, float, int]
_DEFAULT_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _timed(kern: Callable[..., Any], op: Any, sink: List[TraceRecord]) -> Callable[..., Any]:
    name, typ, dev = op.name, op.type, op.device or _DEFAULT_DEVICE
    inputs = tuple(t.name for t in op.inputs)

    def run(ctx: Any, *ins: Any) -> Any:
        start = time.time()
        try:
            return kern(ctx, *ins)
        finally:
            # list.append is atomic: ops of one step may run on several threads.
            sink.append((name, typ, dev, inputs, start, time.time(), threading.get_ident()))
    return run


def traced_plan(plan: Any, sink: List[TraceRecord]) -> Any:
    """A copy of the executor ``plan`` whose kernels append a ``TraceRecord`` to ``sink``
    each time they run."""
    traced = copy.copy(plan)
    traced.steps = [(_timed(kern, op, sink), ctx, ins, out, multi, op)
                    for kern, ctx, ins, out, multi, op in plan.steps]
    return traced


class NodeExecStats:
    """One op of a traced step: ``node_name``, ``all_start_micros`` (epoch µs),
    ``op_start_rel_micros`` / ``op_end_rel_micros`` / ``all_end_rel_micros`` (relative
    to the start), ``timeline_label`` (``name = Type(inputs)``) and ``thread_id``."""

    def __init__(self, node_name: str, all_start_micros: int, all_end_rel_micros: int,
                 timeline_label: str = "", thread_id: int = 0):
        self.node_name = node_name
        self.all_start_micros = all_start_micros
        self.op_start_rel_micros = 0
        self.op_end_rel_micros = all_end_rel_micros
        self.all_end_rel_micros = all_end_rel_micros
        self.timeline_label = timeline_label
        self.thread_id = thread_id

    def __repr__(self) -> str:
        return (f"NodeExecStats({self.node_name!r}, start={self.all_start_micros}, "
                f"dur={self.all_end_rel_micros})")


class DeviceStepStats:
    """The ``node_stats`` of one ``device``."""

    def __init__(self, device: str, node_stats: Optional[List[NodeExecStats]] = None):
        self.device = device
        self.node_stats: List[NodeExecStats] = list(node_stats or [])


class StepStats:
    """``dev_stats``: one ``DeviceStepStats`` per device the step ran ops on."""

    def __init__(self, dev_stats: Optional[List[DeviceStepStats]] = None):
        self.dev_stats: List[DeviceStepStats] = list(dev_stats or [])


def step_stats_from(records: Sequence[TraceRecord]) -> StepStats:
    """The ``StepStats`` of a step's trace records, devices in first-seen order and ops
    by start time."""
    by_device: Dict[str, List[NodeExecStats]] = {}
    for name, typ, dev, inputs, start, end, tid in sorted(records, key=lambda r: r[4]):
        start_us = int(start * 1e6)
        label = f"{name} = {typ}({', '.join(inputs)})"
        by_device.setdefault(dev, []).append(
            NodeExecStats(name, start_us, max(0, int(end * 1e6) - start_us), label, tid))
    return StepStats([DeviceStepStats(d, s) for d, s in by_device.items()])


def _label_inputs(label: str) -> List[str]:
    """The input tensor names of a ``name = Type(a, b)`` timeline label."""
    if "(" not in label or not label.endswith(")"):
        return []
    inner = label[label.index("(") + 1:-1].strip()
    return [s.strip() for s in inner.split(",") if s.strip()] if inner else []


class Timeline:
    """A Chrome trace of a step's ``StepStats``: one process per device, one complete
    event per op (on as many lanes as ops overlapped), and with ``show_dataflow`` an
    arrow from each op to the ops that read its outputs."""

    def __init__(self, step_stats: StepStats, graph: Any = None):
        if step_stats is None or not hasattr(step_stats, "dev_stats"):
            raise ValueError("Timeline needs the step_stats of a traced step: run it with "
                             "options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE) "
                             "and run_metadata=tf.RunMetadata() in an in-process session")
        self._step_stats = step_stats
        self._graph = graph

    def generate_chrome_trace_format(self, show_dataflow: bool = True,
                                     show_memory: bool = False) -> str:
        """The trace as Chrome trace JSON text.

        Raises:
          ValueError: ``show_memory`` (tensorfleet records no allocations).
        """
        if show_memory:
            raise ValueError("Timeline: show_memory is not supported; tensorfleet records "
                             "no tensor allocations")
        events: List[Dict[str, Any]] = []
        ends: Dict[str, Tuple[int, int, int]] = {}   # op name -> (pid, lane, end µs)
        placed: List[Tuple[NodeExecStats, int, int]] = []
        for pid, dev in enumerate(self._step_stats.dev_stats):
            events.append({"name": "process_name", "ph": "M", "pid": pid,
                           "args": {"name": f"{dev.device} Compute"}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": pid,
                           "args": {"sort_index": pid}})
            lane_ends: List[int] = []
            for ns in sorted(dev.node_stats, key=lambda n: n.all_start_micros):
                start, end = ns.all_start_micros, ns.all_start_micros + ns.all_end_rel_micros
                lane = next((i for i, e in enumerate(lane_ends) if e <= start), len(lane_ends))
                if lane == len(lane_ends):
                    lane_ends.append(end)
                else:
                    lane_ends[lane] = end
                op_type = ns.timeline_label.split("= ", 1)[-1].split("(", 1)[0] \
                    if " = " in ns.timeline_label else ns.node_name
                args = {"name": ns.node_name, "op": op_type}
                for i, inp in enumerate(_label_inputs(ns.timeline_label)):
                    args[f"input{i}"] = inp
                events.append({"ph": "X", "cat": "Op", "name": op_type, "pid": pid,
                               "tid": lane, "ts": start, "dur": ns.all_end_rel_micros,
                               "args": args})
                ends[ns.node_name] = (pid, lane, end)
                placed.append((ns, pid, lane))
        if show_dataflow:
            flow_id = 0
            for ns, pid, lane in placed:
                for inp in _label_inputs(ns.timeline_label):
                    src = ends.get(inp.split(":")[0].lstrip("^"))
                    if src is None:
                        continue
                    events.append({"ph": "s", "cat": "DataFlow", "name": inp, "id": flow_id,
                                   "pid": src[0], "tid": src[1], "ts": src[2]})
                    events.append({"ph": "t", "cat": "DataFlow", "name": inp, "id": flow_id,
                                   "pid": pid, "tid": lane, "ts": ns.all_start_micros})
                    flow_id += 1
        return json.dumps({"traceEvents": events}, separators=(",", ":"))


__all__ = ["TraceRecord", "traced_plan", "NodeExecStats", "DeviceStepStats", "StepStats",
           "step_stats_from", "Timeline"]
