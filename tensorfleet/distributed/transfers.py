"""Which cross-task transfers of a step share a round trip.

After partitioning, every tensor that crosses tasks is a ``_Send``/``_Recv``
pair, pulled by its receiver with one RecvTensor call. Two rewrites save round
trips, and both pay for it by making a receive wait for more than its own
tensor:

* *relay*: a tensor sent to the master's own task rides back on the sending
  partition's RunGraph reply, so it waits for that whole partition to finish;
* *grouping*: several tensors from one task to another travel in one
  RecvTensors call, so each waits for the whole group.

Waiting for more is a deadlock when what is waited for itself waits, through
any number of tasks, for the tensor. So the step's transfers are modelled as a
graph over rendezvous keys (A -> B when B's ``_Send`` cannot run before A's
``_Recv`` has completed), and a rewrite is kept only if, with its extra waits,
that graph stays acyclic. Where the graph allows a rewrite but it would delay a
tensor that something still needs early, the rewrite is not made either.
"""

from __future__ import annotations

from typing import Dict, FrozenSet, Iterable, List, Mapping, Optional, Set

import numpy as np

from tensorfleet.distributed.partition import Partition
from tensorfleet.framework.serialization import encode_attr

# A relayed tensor is copied once more on its way (a reply is snapshotted before it
# is sent), while a pulled one is sent straight from its memory: beyond this size
# the copy costs more than the round trip a relay saves.
MAX_RELAY_BYTES = 1 << 20


def _key(nd: Dict) -> str:
    return nd["attr"]["key"]["s"]


def _node_of(inp: str) -> str:
    return inp[1:] if inp.startswith("^") else inp.rsplit(":", 1)[0]


def _static_bytes(recv: Dict) -> int:
    """The byte size of a ``_Recv``'s tensor when its shape is fully known, else 0."""
    dims = recv["attr"].get("shape", {}).get("shape")
    dtype = recv["attr"].get("dtype", {}).get("type")
    if dims is None or dtype is None or any(d is None or d < 0 for d in dims):
        return 0
    try:
        itemsize = np.dtype(dtype).itemsize
    except TypeError:
        return 0
    return int(np.prod(dims, dtype=np.int64)) * itemsize


def _recv_ancestors(p: Partition) -> Dict[str, FrozenSet[str]]:
    """For every node of ``p``, the ``_Recv`` nodes of ``p`` it depends on."""
    nodes = {nd["name"]: nd for nd in p.head + p.nodes + p.tail}
    out: Dict[str, FrozenSet[str]] = {}
    for name in nodes:
        if name in out:
            continue
        stack = [(name, False)]
        while stack:
            n, expanded = stack.pop()
            if n in out:
                continue
            nd = nodes.get(n)
            if nd is None:
                out[n] = frozenset()
                continue
            deps = [_node_of(i) for i in nd["input"]]
            if not expanded:
                stack.append((n, True))
                stack.extend((d, False) for d in deps if d not in out)
                continue
            acc = {n} if nd["op"] == "_Recv" else set()
            for d in deps:
                acc |= out.get(d, frozenset())
            out[n] = frozenset(acc)
    return out


class TransferGraph:
    """The step's transfers and what each one's send waits for.

    ``deps[k]`` holds the keys whose receives must complete before the send of
    ``k`` can run. Groups (``group_of``: key -> the group's first key) merge
    their members into one node.
    """

    def __init__(self, parts: Mapping[str, Partition]):
        self.parts = parts
        self.anc = {task: _recv_ancestors(p) for task, p in parts.items()}
        # task -> {key: name of the _Recv node receiving it there}
        self.recv_name: Dict[str, Dict[str, str]] = {
            task: {_key(nd): nd["name"] for nd in p.head if nd["op"] == "_Recv"}
            for task, p in parts.items()}
        self.deps: Dict[str, Set[str]] = {}
        for task, p in parts.items():
            keys = {name: k for k, name in self.recv_name[task].items()}
            for nd in p.tail:
                if nd["op"] == "_Send":
                    src = _node_of(nd["input"][0])
                    self.deps[_key(nd)] = {keys[r] for r in self.anc[task].get(src, ())}
        self.group_of: Dict[str, str] = {}

    def received_by(self, task: str) -> Set[str]:
        """Every key that ``task``'s partition receives."""
        return set(self.recv_name.get(task, ()))

    def acyclic(self, deps: Optional[Mapping[str, Set[str]]] = None,
                group_of: Optional[Mapping[str, str]] = None) -> bool:
        """Whether no transfer waits on itself, with ``deps``/``group_of`` (or the
        current ones)."""
        deps = self.deps if deps is None else deps
        group_of = self.group_of if group_of is None else group_of
        edges: Dict[str, Set[str]] = {}
        for k, ds in deps.items():
            rk = group_of.get(k, k)
            for d in ds:
                rd = group_of.get(d, d)
                if rd == rk:
                    return False  # one member of a group waits for another
                edges.setdefault(rd, set()).add(rk)
        state: Dict[str, int] = {}  # 1: on the current path, 2: finished
        for start in edges:
            if start in state:
                continue
            state[start] = 1
            stack = [(start, iter(edges[start]))]
            while stack:
                node, it = stack[-1]
                nxt = next(it, None)
                if nxt is None:
                    state[node] = 2
                    stack.pop()
                elif state.get(nxt) == 1:
                    return False
                elif nxt not in state:
                    state[nxt] = 1
                    stack.append((nxt, iter(edges.get(nxt, ()))))
        return True

    def consumers_wait_for(self, task: str, key: str, others: Iterable[str]) -> bool:
        """Whether everything on ``task`` that uses ``key`` also needs one of ``others``:
        then receiving ``key`` only when ``others`` arrive delays nothing."""
        names = self.recv_name[task]
        mine = names[key]
        theirs = {names[k] for k in others}
        return all(anc & theirs for node, anc in self.anc[task].items()
                   if node != mine and mine in anc)

    def feeds_other_tasks(self, task: str) -> Set[str]:
        """Names of ``task``'s receives that some send of ``task`` depends on."""
        anc = self.anc[task]
        out: Set[str] = set()
        for nd in self.parts[task].tail:
            if nd["op"] == "_Send":
                out |= anc.get(_node_of(nd["input"][0]), frozenset())
        return out


def relay_through_master(parts: Dict[str, Partition], master_task: str,
                         graph: Optional[TransferGraph] = None) -> TransferGraph:
    """Sends into the master's own task ride back on the sender's RunGraph reply.

    That saves the receiver a RecvTensor round trip, for tensors up to
    ``MAX_RELAY_BYTES`` (or of a shape only known at run time). A partition that receives
    nothing never waits for the master's task, so all its sends there can ride.
    One that does receive relays a tensor only when nothing it waits for waits
    for that tensor (checked on the transfer graph), and when the master's task
    only uses the tensor for itself: a tensor it passes on to other tasks is
    not held back until the whole sending partition is done.
    """
    graph = graph if graph is not None else TransferGraph(parts)
    if master_task not in parts:
        return graph
    dst = parts[master_task]
    passed_on = graph.feeds_other_tasks(master_task)
    recvs = {_key(nd): nd for nd in dst.head if nd["op"] == "_Recv"}
    for task, p in parts.items():
        if task == master_task:
            continue
        own = graph.received_by(task)
        for nd in [n for n in p.tail if n["op"] == "_Send"]:
            key = _key(nd)
            if not key.endswith(f";{master_task}"):
                continue
            if key in recvs and _static_bytes(recvs[key]) > MAX_RELAY_BYTES:
                continue
            if own:
                if graph.recv_name[master_task].get(key) in passed_on:
                    continue
                trial = dict(graph.deps)
                trial[key] = graph.deps[key] | own
                if not graph.acyclic(trial):
                    continue
                graph.deps = trial
            p.tail.remove(nd)
            p.targets.remove(nd["name"])
            p.relays[nd["input"][0]] = key
            for rv in dst.head:
                if rv["op"] == "_Recv" and _key(rv) == key:
                    rv["attr"]["src_task"] = encode_attr(master_task)
    return graph


def group_receives(parts: Dict[str, Partition],
                   graph: Optional[TransferGraph] = None) -> TransferGraph:
    """Marks receives that can travel together in one RecvTensors round trip.

    Sends from one task to another that wait for exactly the same receives form
    a group: once one of them can be produced, so can the others (parameters
    read on a ps form one group; a worker's gradients, which all depend on those
    parameters, form another). A send that waits for nothing (a worker's local
    step counter) joins such a group when everything its receiver does with it
    also needs the group. Sends left over whose receives all arrive in one group
    form a group of their own (a ps's embedding gathers, each waiting for its own
    ids). Every group is checked on the transfer graph.
    """
    graph = graph if graph is not None else TransferGraph(parts)
    n = 0
    for src, p in parts.items():
        by_dst: Dict[str, Dict[FrozenSet[str], List[str]]] = {}
        for nd in p.tail:
            if nd["op"] != "_Send":
                continue
            key = _key(nd)
            dst = key.rsplit(";", 1)[1]
            if dst in parts:
                by_dst.setdefault(dst, {}).setdefault(frozenset(graph.deps[key]), []).append(key)
        for dst, sets in by_dst.items():
            free = sets.pop(frozenset(), [])
            groups = sorted(sets.values(), key=len, reverse=True)
            if free and groups:
                joiners = [k for k in free if graph.consumers_wait_for(dst, k, groups[0])]
                if joiners and _try_group(graph, groups[0] + joiners):
                    _mark(parts[dst], groups[0] + joiners, f"{src}#{n}")
                    n += 1
                    free = [k for k in free if k not in joiners]
                    groups = groups[1:]
            for keys in groups + [free]:
                if len(keys) > 1 and _try_group(graph, keys):
                    _mark(parts[dst], keys, f"{src}#{n}")
                    n += 1
    # Sends that wait for different receives which themselves arrive together (in
    # one group) become ready together too; they travel together, and with a group
    # already made whose members need nothing else.
    for src, p in parts.items():
        loose = {}  # type: Dict[str, Dict[FrozenSet[str], List[str]]]
        made = {}  # type: Dict[str, Dict[str, List[str]]]
        for nd in p.tail:
            if nd["op"] != "_Send":
                continue
            key = _key(nd)
            dst = key.rsplit(";", 1)[1]
            if dst not in parts:
                continue
            if key in graph.group_of:
                made.setdefault(dst, {}).setdefault(graph.group_of[key], []).append(key)
                continue
            arrive = frozenset(graph.group_of.get(d, d) for d in graph.deps.get(key, ()))
            if len(arrive) == 1 and next(iter(arrive)) in graph.group_of.values():
                loose.setdefault(dst, {}).setdefault(arrive, []).append(key)
        for dst, sets in loose.items():
            for arrive, keys in sets.items():
                for members in made.get(dst, {}).values():
                    if all(frozenset(graph.group_of.get(d, d) for d in graph.deps.get(m, ()))
                           <= arrive for m in members):
                        keys = members + keys
                        break
                if len(keys) > 1 and _try_group(graph, keys):
                    _mark(parts[dst], keys, f"{src}#{n}")
                    n += 1
    return graph


def _try_group(graph: TransferGraph, keys: List[str]) -> bool:
    trial = dict(graph.group_of)
    for k in keys:
        trial[k] = keys[0]
    if not graph.acyclic(group_of=trial):
        return False
    graph.group_of = trial
    return True


def _mark(dst: Partition, keys: List[str], group: str) -> None:
    members = set(keys)
    for rv in dst.head:
        if rv["op"] == "_Recv" and _key(rv) in members:
            rv["attr"]["group"] = encode_attr(group)


def plan_transfers(parts: Dict[str, Partition], master_task: str) -> None:
    """Relays, then groups, the step's transfers (see the module docstring)."""
    graph = relay_through_master(parts, master_task)
    group_receives(parts, graph)


__all__ = ["TransferGraph", "relay_through_master", "group_receives", "plan_transfers"]
