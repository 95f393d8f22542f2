"""Partitioning: split a placed step into one graph per task, joined by send/recv.

Every edge whose ends run on different tasks becomes a ``_Send`` on the
producer's task and a ``_Recv`` on the consumer's task, sharing a rendezvous key;
control edges across tasks carry a tiny constant so ordering is kept. Fed tensors
become placeholders in each partition that reads them. The result is plain data
(the same form as ``Graph.as_graph_def``) ready to register with each worker.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Set, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.framework.serialization import GRAPH_FORMAT_VERSION, encode_attr, node_to_plain
from tensorfleet.distributed.variable_sends import VariableSends
from tensorfleet.kernels.numpy.sendrecv_kernels import SEND_BUFFER_ATTR
from tensorfleet.runtime.executor import READ_BEFORE_UPDATE_ATTR, reads_before_updates


def _safe(name: str) -> str:
    return name.replace("/", "_").replace(":", "_")


class Partition:
    """One task's share of a step."""

    def __init__(self, task: str):
        self.task = task
        self.nodes: List[Dict[str, Any]] = []
        self.head: List[Dict[str, Any]] = []  # feeds and recvs: no inputs, so first
        self.tail: List[Dict[str, Any]] = []  # sends: after everything they read
        self.feeds: Dict[str, str] = {}  # original tensor name -> partition tensor name
        self.fetches: List[str] = []
        self.targets: List[str] = []
        self.recv_keys: List[str] = []
        # Tensors this partition returns to the master instead of sending them:
        # fetch name -> rendezvous key on the master's own task.
        self.relays: Dict[str, str] = {}

    def graph_def(self) -> Dict[str, Any]:
        return {"version": GRAPH_FORMAT_VERSION, "node": self.head + self.nodes + self.tail}

    def to_plain(self) -> Dict[str, Any]:
        fetches = list(self.fetches) + [n for n in self.relays if n not in self.fetches]
        return {"graph": self.graph_def(), "feeds": dict(self.feeds), "fetches": fetches,
                "targets": list(self.targets)}


def _out_sig(t: Tensor) -> List[Any]:
    return [[t.dtype.name, t.shape.to_plain()]]


def partition(ops: Sequence[Operation], placement: Dict[Operation, str],
              feeds: Sequence[Tensor], fetches: Sequence[Tensor],
              targets: Sequence[Operation]) -> Dict[str, Partition]:
    """Splits ``ops`` (already pruned, in topological order) by task."""
    parts: Dict[str, Partition] = {}

    def part(task: str) -> Partition:
        p = parts.get(task)
        if p is None:
            p = parts[task] = Partition(task)
        return p

    fed: Set[Tensor] = set(feeds)
    sent: Dict[Tuple[str, str], str] = {}  # (tensor name, dst task) -> recv tensor name
    ctrl_sent: Dict[Tuple[str, str], str] = {}

    def feed_name(t: Tensor, task: str) -> str:
        p = part(task)
        if t.name not in p.feeds:
            name = f"_feed/{_safe(t.name)}"
            p.head.append({"name": name, "op": "Placeholder", "input": [], "device": "",
                           "attr": {"dtype": encode_attr(t.dtype), "shape": encode_attr(t.shape)},
                           "out": _out_sig(t)})
            p.feeds[t.name] = f"{name}:0"
        return p.feeds[t.name]

    def transfer(t: Tensor, src: str, dst: str) -> str:
        if t.dtype is _dtypes.variant:
            raise errors.InvalidArgumentError(
                None, None, f"Tensor {t.name} is a TensorArray value (dtype variant), which "
                f"cannot be sent from {src} to {dst}: place the ops that produce and consume "
                f"it on the same task")
        k = (t.name, dst)
        if k not in sent:
            key = f"{t.name};{src};{dst}"
            base = f"{_safe(t.name)}/{_safe(dst)}"
            attr = {"key": encode_attr(key)}
            if variable_sends.needs_no_copy(t):
                attr[SEND_BUFFER_ATTR] = encode_attr(True)
            part(src).tail.append({"name": f"_send/{base}", "op": "_Send", "input": [t.name],
                                   "device": "", "attr": attr, "out": []})
            part(src).targets.append(f"_send/{base}")
            recv = f"_recv/{base}"
            part(dst).head.append({"name": recv, "op": "_Recv", "input": [], "device": "",
                                   "attr": {"key": encode_attr(key), "src_task": encode_attr(src),
                                            "dtype": encode_attr(t.dtype),
                                            "shape": encode_attr(t.shape)},
                                   "out": _out_sig(t)})
            part(dst).recv_keys.append(key)
            sent[k] = f"{recv}:0"
        return sent[k]

    def control_transfer(op: Operation, src: str, dst: str) -> str:
        k = (op.name, dst)
        if k not in ctrl_sent:
            base = f"{_safe(op.name)}/{_safe(dst)}"
            key = f"^{op.name};{src};{dst}"
            zero = np.zeros((), dtype=np.int32)
            cname = f"_ctrl/{base}"
            part(src).tail.append({"name": cname, "op": "Const", "input": [f"^{op.name}"],
                                   "device": "", "attr": {"value": encode_attr(zero),
                                                          "dtype": encode_attr(_dtypes.int32)},
                                   "out": [["int32", []]]})
            part(src).tail.append({"name": f"_send/{cname[1:]}", "op": "_Send",
                                   "input": [f"{cname}:0"], "device": "",
                                   "attr": {"key": encode_attr(key)}, "out": []})
            part(src).targets.append(f"_send/{cname[1:]}")
            recv = f"_recv/{cname[1:]}"
            part(dst).head.append({"name": recv, "op": "_Recv", "input": [], "device": "",
                                   "attr": {"key": encode_attr(key), "src_task": encode_attr(src),
                                            "dtype": encode_attr(_dtypes.int32),
                                            "shape": encode_attr(TensorShape([]))},
                                   "out": [["int32", []]]})
            part(dst).recv_keys.append(key)
            ctrl_sent[k] = recv
        return ctrl_sent[k]

    # Only the whole graph shows that a read on a ps is used before the update that
    # waits on another task's gradient; without the mark the ps would copy the variable.
    uncopied = reads_before_updates(list(ops), fetches)
    variable_sends = VariableSends(ops, uncopied)
    for op in ops:
        task = placement[op]
        nd = node_to_plain(op)
        if op in uncopied:
            nd["attr"][READ_BEFORE_UPDATE_ATTR] = encode_attr(True)
        inputs: List[str] = []
        for t in op.inputs:
            if t in fed:
                inputs.append(feed_name(t, task))
            elif placement[t.op] != task:
                inputs.append(transfer(t, placement[t.op], task))
            else:
                inputs.append(t.name)
        for c in op.control_inputs:
            if c not in placement:
                continue  # pruned away because everything it guarded is fed
            if placement[c] != task:
                inputs.append("^" + control_transfer(c, placement[c], task))
            else:
                inputs.append("^" + c.name)
        nd["input"] = inputs
        part(task).nodes.append(nd)
    for t in fetches:
        if t not in fed:
            part(placement[t.op]).fetches.append(t.name)
    for op in targets:
        part(placement[op]).targets.append(op.name)
    return parts


__all__ = ["Partition", "partition"]
