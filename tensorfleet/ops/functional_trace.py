"""Tracing a Python function into a sub-graph that a functional op (``While``) holds.

The function is called in the graph being built, as TensorFlow 1.x does, so name
scopes, variable scopes, collections and variable creation behave exactly as they
do outside a loop. The ops it created that belong to the function are then moved
out of the graph into a plain-data sub-graph:

* every op that depends on an argument, every stateful op (so a random op or an
  ``assign_add`` runs once per call) and every op these need that was created by
  the call;
* not a variable the function created (``get_variable`` in a loop body): the
  variable, its initializer and its ``read`` stay in the graph, as in TensorFlow.

A tensor from outside that the function reads (a constant, a variable's ``read``
snapshot, anything computed before the loop) becomes a *capture*: an explicit
input of the functional op, so placement, partitioning and send/recv see it like
any other edge. A variable the function updates or reads by reference is the one
exception: its ``VariableV2`` node is copied into the sub-graph (it names the same
storage in the task's resource manager), and the functional op is colocated with it.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Dict, List, Sequence, Set, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, Operation, Tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.serialization import GRAPH_FORMAT_VERSION, encode_attr, node_to_plain
from tensorfleet.framework.tensor_shape import TensorShape

# The arguments of a sub-graph: fed by the functional op that runs it, never run
# as ops (they have no kernel).
register_op("_Arg", None)


class Traced:
    """A traced function: its plain sub-graph and how it connects to the outer graph."""

    __slots__ = ("plain", "arg_names", "output_names", "captures", "capture_names",
                 "variables", "external_control", "outputs")

    def __init__(self) -> None:
        self.plain: Dict[str, Any] = {}
        self.arg_names: List[str] = []
        self.output_names: List[str] = []
        self.captures: List[Tensor] = []
        self.capture_names: List[str] = []
        self.variables: List[Operation] = []
        self.external_control: List[Operation] = []
        self.outputs: List[Tensor] = []


def make_args(graph: Graph, sigs: Sequence[Tuple[_dtypes.DType, TensorShape]],
              name: str = "arg") -> List[Tensor]:
    """Argument tensors of a function about to be traced, one per (dtype, shape)."""
    out = []
    with graph.control_dependencies(None):
        for i, (dt, shape) in enumerate(sigs):
            op = graph.create_op("_Arg", [], [dt], {"index": i}, name=name, shapes=[shape])
            out.append(op.outputs[0])
    return out


def _variable_machinery(graph: Graph, new: Set[Operation], new_ops: List[Operation],
                        coll_lengths: Dict[str, int]) -> Set[Operation]:
    """Ops the call created for new variables: storage, initializer, initial value, read."""
    roots: List[Operation] = [op for op in new_ops if op.type == "VariableV2"]
    for key, items in graph._collections.items():
        for item in items[coll_lengths.get(key, 0):]:
            init = getattr(item, "_initializer_op", None)
            snap = getattr(item, "_snapshot", None)
            if isinstance(init, Operation):
                roots.append(init)
            if isinstance(snap, Tensor):
                roots.append(snap.op)
    out: Set[Operation] = set()
    stack = [r for r in roots if r in new]
    while stack:
        op = stack.pop()
        if op in out:
            continue
        out.add(op)
        stack.extend(t.op for t in op.inputs if t.op in new)
        stack.extend(c for c in op.control_inputs if c in new)
    return out


def _closure(new_ops: List[Operation], seeds: Set[Operation], excluded: Set[Operation],
             where: str) -> Set[Operation]:
    new = set(new_ops)
    body = set(seeds)
    changed = True
    while changed:
        changed = False
        # Whatever reads a function op is a function op: it cannot stay outside.
        for op in new_ops:
            if op in body:
                continue
            if any(t.op in body for t in op.inputs) or any(c in body for c in op.control_inputs):
                if op in excluded:
                    raise ValueError(
                        f"{where}: op {op.name!r} initializes a variable created inside the "
                        f"function from a value computed inside it; variables made in a "
                        f"loop must have initial values that do not depend on loop values")
                body.add(op)
                changed = True
        # Whatever a function op needs and the call created comes along.
        stack = list(body)
        while stack:
            op = stack.pop()
            for dep in [t.op for t in op.inputs] + list(op.control_inputs):
                if dep in new and dep not in body and dep not in excluded:
                    body.add(dep)
                    stack.append(dep)
                    changed = True
    return body


def trace(graph: Graph, args: List[Tensor], call: Callable[[], Any],
          flatten_result: Callable[[Any], List[Tensor]], where: str) -> Tuple[Traced, Any]:
    """Calls ``call()`` (which calls the user's function on structures built from
    ``args``, the newest ops of ``graph``), flattens its result to tensors with
    ``flatten_result`` and moves the ops that belong to the call into a sub-graph."""
    n0 = len(graph._ops) - len(args)
    if graph._ops[n0:] != [a.op for a in args]:
        raise ValueError("trace: the argument ops must be the last ops of the graph")
    coll_lengths = {k: len(v) for k, v in graph._collections.items()}
    result = call()
    flat = flatten_result(result)
    new_ops = graph._ops[n0:]
    new = set(new_ops)
    machinery = _variable_machinery(graph, new, new_ops, coll_lengths)
    seeds = {a.op for a in args}
    seeds.update(op for op in new_ops if op.op_def.stateful and op not in machinery)
    seeds.update(t.op for t in flat if t.op in new and t.op not in machinery)
    body = _closure(new_ops, seeds, machinery, where)
    tr = Traced()
    ops_in = [op for op in new_ops if op in body]
    cap_index: Dict[Tensor, int] = {}
    var_nodes: Dict[str, Dict[str, Any]] = {}
    external: List[Operation] = []
    prefix = graph.unique_name(f"{args[0].op.name}_capture" if args else "capture",
                               mark_as_used=True)

    def name_of(t: Tensor) -> str:
        if t.op in body:
            return t.name
        if t.op.type == "VariableV2" and t.value_index == 0:
            if t.op.name not in var_nodes:
                nd = node_to_plain(t.op)
                nd["input"] = []
                var_nodes[t.op.name] = nd
                tr.variables.append(t.op)
            return t.name
        if t not in cap_index:
            cap_index[t] = len(tr.captures)
            tr.captures.append(t)
            tr.capture_names.append(f"{prefix}/{len(cap_index) - 1}:0")
        return tr.capture_names[cap_index[t]]

    nodes = []
    for op in ops_in:
        nd = node_to_plain(op)
        ctrl = []
        for c in op.control_inputs:
            if c in body:
                ctrl.append(f"^{c.name}")
            elif c not in external:
                external.append(c)
        nd["input"] = [name_of(t) for t in op.inputs] + ctrl
        nodes.append(nd)
    tr.output_names = [name_of(t) for t in flat]
    cap_nodes = [{"name": n[:-2], "op": "_Arg", "input": [], "device": "",
                  "attr": {"index": encode_attr(i)},
                  "out": [[t.dtype.name, t.shape.to_plain()]]}
                 for i, (n, t) in enumerate(zip(tr.capture_names, tr.captures))]
    tr.plain = {"version": GRAPH_FORMAT_VERSION,
                "node": list(var_nodes.values()) + cap_nodes + nodes}
    tr.arg_names = [a.name for a in args]
    tr.external_control = external
    tr.outputs = flat
    _remove_ops(graph, body, n0, coll_lengths)
    return tr, result


def _remove_ops(graph: Graph, body: Set[Operation], n0: int,
                coll_lengths: Dict[str, int]) -> None:
    # A collection entry made by the function (a summary, an update op) names an op
    # that now lives in the sub-graph only.
    graph.remove_operations(body, coll_lengths)


def inline(graph: Graph, nodes: Sequence[Operation],
           input_map: Dict[Tensor, Tensor]) -> Dict[Tensor, Tensor]:
    """Copies ``nodes`` (ops of another graph, in topological order) into ``graph``,
    reading ``input_map[t]`` where they read a tensor ``t`` not copied. Control
    inputs on ops not copied are dropped. Returns the map old tensor -> new tensor."""
    out = dict(input_map)
    copied: Dict[Operation, Operation] = {}
    for op in nodes:
        ins = []
        for t in op.inputs:
            if t not in out:
                raise ValueError(f"inline: {op.name} reads {t.name}, which is neither copied "
                                 f"nor mapped")
            ins.append(out[t])
        ctrl = [copied[c] for c in op.control_inputs if c in copied]
        base = op.name.rsplit("/", 1)[-1]
        new = graph.create_op(op.type, ins, [t.dtype for t in op.outputs], dict(op.attrs),
                              name=base, shapes=[t.shape for t in op.outputs],
                              control_inputs=ctrl)
        copied[op] = new
        for a, b in zip(op.outputs, new.outputs):
            out[a] = b
    return out


# -- nested structures ---------------------------------------------------------------

def is_namedtuple(x: Any) -> bool:
    """Whether ``x`` is an instance of a ``collections.namedtuple`` class."""
    return isinstance(x, builtins.tuple) and hasattr(x, "_fields")


def flatten(x: Any, is_leaf: Callable[[Any], bool] = lambda v: False) -> List[Any]:
    """Leaves of a nest of lists, tuples, namedtuples and dicts (sorted keys)."""
    out: List[Any] = []

    def walk(v: Any) -> None:
        if is_leaf(v):
            out.append(v)
        elif isinstance(v, dict):
            for k in sorted(v):
                walk(v[k])
        elif isinstance(v, (list, builtins.tuple)):
            for e in v:
                walk(e)
        else:
            out.append(v)
    walk(x)
    return out


def pack_as(structure: Any, flat: Sequence[Any],
            is_leaf: Callable[[Any], bool] = lambda v: False) -> Any:
    """``structure`` with its leaves replaced, in order, by ``flat``."""
    it = iter(flat)

    def build(v: Any) -> Any:
        if is_leaf(v):
            return next(it)
        if isinstance(v, dict):
            vals = {k: build(v[k]) for k in sorted(v)}
            return type(v)((k, vals[k]) for k in v)
        if is_namedtuple(v):
            return type(v)(*[build(e) for e in v])
        if isinstance(v, (list, builtins.tuple)):
            items = [build(e) for e in v]
            return items if isinstance(v, list) else builtins.tuple(items)
        return next(it)
    return build(structure)


def same_structure(a: Any, b: Any, is_leaf: Callable[[Any], bool] = lambda v: False) -> bool:
    """Whether two nests have the same shape of containers (lists and tuples alike)."""
    if is_leaf(a) or is_leaf(b):
        return is_leaf(a) and is_leaf(b)
    if isinstance(a, dict) or isinstance(b, dict):
        return (isinstance(a, dict) and isinstance(b, dict) and sorted(a) == sorted(b)
                and all(same_structure(a[k], b[k], is_leaf) for k in a))
    sa, sb = isinstance(a, (list, builtins.tuple)), isinstance(b, (list, builtins.tuple))
    if sa != sb:
        return False
    if not sa:
        return True
    if is_namedtuple(a) != is_namedtuple(b) or (is_namedtuple(a) and type(a) is not type(b)):
        return False
    return len(a) == len(b) and all(same_structure(x, y, is_leaf) for x, y in zip(a, b))


__all__ = ["Traced", "make_args", "trace", "inline", "flatten", "pack_as", "same_structure",
           "is_namedtuple"]
