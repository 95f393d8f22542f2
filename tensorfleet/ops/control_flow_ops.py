"""Control flow: no_op, group, tuple, with_dependencies, Assert, Print, cond, case and
switch_case.

``cond`` is built from ``Switch`` and ``Merge``. A Switch forwards its input on
the output of the taken branch and marks the other output dead; the executor
skips every op that reads a dead tensor, and a Merge forwards whichever input
is alive. So that a branch's ops run only when it is taken, every tensor from
outside the branch that the branch reads is routed through a Switch on the
predicate (variable references through a ``RefGate``, which keeps the
reference), and each branch result goes through one too before the Merge.
"""

from __future__ import annotations

import builtins
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple


from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Graph, Operation, Tensor, convert_to_tensor,
                                         get_default_graph)
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, scalar
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs, same_shape
from tensorfleet.ops import array_ops, math_ops


def _switch_shape(op: Operation) -> List[TensorShape]:
    pred = op.inputs[1].shape
    if pred.ndims not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {pred.ndims}: the predicate of a "
                         f"Switch must be a scalar")
    return [op.inputs[0].shape, op.inputs[0].shape]


def _merge_shape(op: Operation) -> List[TensorShape]:
    shapes = [t.shape for t in op.inputs]
    out = shapes[0]
    for s in shapes[1:]:
        if out.ndims is None or s.ndims is None or out.ndims != s.ndims:
            out = TensorShape(None)
            break
        out = TensorShape([a if a == b else None for a, b in zip(out.as_list(), s.as_list())])
    return [out, scalar()]


register_op("NoOp", no_outputs)
register_op("Switch", _switch_shape)
register_op("Merge", _merge_shape)
# RefGate(ref, gate) forwards a variable reference; reading a dead gate kills it.
register_op("RefGate", lambda op: [op.inputs[0].shape], ref_inputs=(0,), ref_output=True)
register_op("Assert", no_outputs, stateful=True)


def _name_like_scope(graph: Graph, scope: str, build: Callable[[str], Any]) -> Any:
    """Calls ``build(name)`` so that the op it makes is named exactly like ``scope``.

    The name scope already claimed the name; TensorFlow gives the scope's final
    op that same name (``init``, ``.../control_dependency``), so the claim is
    released for that one op.
    """
    name = scope[:-1] if scope.endswith("/") else scope
    with graph._lock:
        graph.release_name(name)
        with graph.name_scope(None):
            return build(name)


def no_op(name: Optional[str] = None) -> Operation:
    """An op that does nothing; useful as a target for control dependencies."""
    return make_op("NoOp", [], [], name=name or "NoOp")


def _flatten_inputs(x: Any, out: List[Any]) -> None:
    if isinstance(x, dict):
        for k in sorted(x):
            _flatten_inputs(x[k], out)
    elif isinstance(x, (list, builtins.tuple)):
        for v in x:
            _flatten_inputs(v, out)
    elif x is not None:
        out.append(x)


def _as_op(graph: Graph, x: Any) -> Operation:
    if isinstance(x, IndexedSlices):
        x = x.values
    el = graph.as_graph_element(x)
    return el.op if isinstance(el, Tensor) else el


def group(*inputs: Any, **kwargs: Any) -> Operation:
    """An op that runs after all of ``inputs`` (ops, tensors, nested lists of them).

    Inputs on several devices get one NoOp per device, so a group spanning tasks
    costs one control message per task instead of one per input.
    """
    name = kwargs.pop("name", None)
    if kwargs:
        raise TypeError(f"Unknown keyword arguments: {', '.join(sorted(kwargs))}")
    flat: List[Any] = []
    _flatten_inputs(inputs, flat)
    g = get_default_graph()
    if not flat:
        return no_op(name=name)
    ops: List[Operation] = []
    for x in flat:
        op = _as_op(g, x)
        if op not in ops:
            ops.append(op)
    g = ops[0].graph
    by_device: Dict[str, List[Operation]] = {}
    for op in ops:
        by_device.setdefault(op.device, []).append(op)
    with g.name_scope(name or "group_deps") as scope:
        if len(by_device) == 1:
            (dev, deps), = by_device.items()
        else:
            deps = []
            for dev_name in sorted(by_device):
                with (g.device(dev_name) if dev_name else _nullctx()), \
                        g.control_dependencies(by_device[dev_name]):
                    deps.append(no_op())
            dev = ""

        def build(n: str) -> Operation:
            with g.control_dependencies(deps):
                if dev:
                    with g.device(dev):
                        return no_op(name=n)
                return no_op(name=n)
        return _name_like_scope(g, scope, build)


class _nullctx:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


def with_dependencies(dependencies: Sequence[Any], output_tensor: Any,
                      name: Optional[str] = None) -> Any:
    """``output_tensor``'s value, available only after ``dependencies`` have run."""
    is_slices = isinstance(output_tensor, IndexedSlices)
    values = output_tensor.values if is_slices else convert_to_tensor(output_tensor)
    g = values.graph
    with g.name_scope(name or "control_dependency") as scope:
        with g.colocate_with(values.op), g.control_dependencies(dependencies):
            out = _name_like_scope(g, scope, lambda n: array_ops.identity(values, name=n))
    if is_slices:
        return IndexedSlices(out, output_tensor.indices, output_tensor.dense_shape)
    return out


def tuple(tensors: Sequence[Any], name: Optional[str] = None,  # noqa: A001 - the TF name
          control_inputs: Optional[Sequence[Any]] = None) -> List[Any]:
    """The same tensors, each available only once all of them (and ``control_inputs``)
    have been computed. None entries stay None."""
    g = get_default_graph()
    items = list(tensors)
    with g.name_scope(name or "tuple"):
        gating = [_as_op(g, t) for t in items if t is not None]
        if control_inputs:
            gating += [_as_op(g, c) for c in control_inputs]
        gate = group(*gating)
        return [None if t is None else with_dependencies([gate], t) for t in items]


def Assert(condition: Any, data: Sequence[Any], summarize: Optional[int] = None,  # noqa: N802
           name: Optional[str] = None) -> Operation:
    """An op raising InvalidArgumentError with ``data`` when ``condition`` is false."""
    cond_t = convert_to_tensor(condition)
    if cond_t.dtype is not _dtypes.bool:
        raise TypeError(f"Assert: condition must be a bool tensor, got {cond_t.dtype.name}")
    ins = [cond_t] + [convert_to_tensor(d) for d in data]
    return make_op("Assert", ins, [], {"summarize": 3 if summarize is None else int(summarize)},
                   name=name or "Assert")


# -- cond -------------------------------------------------------------------------------

def switch(data: Any, pred: Any, name: Optional[str] = None) -> Tuple[Any, Any]:
    """``(output_false, output_true)``: ``data`` on the side ``pred`` selects, the other
    side dead. ``IndexedSlices`` are switched component by component."""
    if isinstance(data, IndexedSlices):
        v = switch(data.values, pred, name)
        i = switch(data.indices, pred)
        d = switch(data.dense_shape, pred) if data.dense_shape is not None else (None, None)
        return (IndexedSlices(v[0], i[0], d[0]), IndexedSlices(v[1], i[1], d[1]))
    data = convert_to_tensor(data)
    p = convert_to_tensor(pred)
    op = make_op("Switch", [data, p], [data.dtype, data.dtype], name=name or "Switch")
    return op.outputs[0], op.outputs[1]


def merge(inputs: Sequence[Any], name: Optional[str] = None) -> Tuple[Any, Tensor]:
    """``(output, value_index)``: the value of whichever input is alive."""
    if all(isinstance(x, IndexedSlices) for x in inputs):
        v, idx = merge([x.values for x in inputs], name)
        i, _ = merge([x.indices for x in inputs])
        d = None
        if all(x.dense_shape is not None for x in inputs):
            d, _ = merge([x.dense_shape for x in inputs])
        return IndexedSlices(v, i, d), idx
    ts = [convert_to_tensor(x) for x in inputs]
    for t in ts[1:]:
        if t.dtype is not ts[0].dtype:
            raise TypeError(f"Merge: inputs must have the same type, got {ts[0].dtype.name} "
                            f"and {t.dtype.name}")
    op = make_op("Merge", ts, [ts[0].dtype, _dtypes.int32], name=name or "Merge")
    return op.outputs[0], op.outputs[1]


def _is_ref(t: Tensor) -> bool:
    return t.value_index == 0 and t.op.op_def.ref_output


def _flatten_result(x: Any, out: List[Any]) -> Any:
    """Flattens a branch result into ``out``; returns a spec to rebuild it."""
    if isinstance(x, builtins.tuple) and hasattr(x, "_fields"):
        return ("nt", type(x), [_flatten_result(v, out) for v in x])
    if isinstance(x, (list, builtins.tuple)):
        return ("seq", type(x), [_flatten_result(v, out) for v in x])
    if isinstance(x, dict):
        keys = sorted(x)
        return ("dict", type(x), keys, [_flatten_result(x[k], out) for k in keys])
    if x is None:
        raise ValueError("true_fn and false_fn must not return None inside their results")
    out.append(x)
    return ("leaf",)


def _same_structure(a: Any, b: Any) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "leaf":
        return True
    if a[0] == "dict" and a[2] != b[2]:
        return False
    ca, cb = a[-1], b[-1]
    return len(ca) == len(cb) and all(_same_structure(x, y) for x, y in zip(ca, cb))


def _rebuild(spec: Any, it: Any) -> Any:
    kind = spec[0]
    if kind == "leaf":
        return next(it)
    if kind == "nt":
        return spec[1](*[_rebuild(s, it) for s in spec[2]])
    if kind == "dict":
        return spec[1]((k, _rebuild(s, it)) for k, s in zip(spec[2], spec[3]))
    items = [_rebuild(s, it) for s in spec[2]]
    return items if spec[1] is list else builtins.tuple(items)


class _CondBuilder:
    """Builds the two branches of one cond and rewires their external inputs."""

    def __init__(self, graph: Graph, pred: Tensor):
        self.g = graph
        p_false, p_true = switch(pred, pred)
        self.pivots = (array_ops.identity(p_false, name="switch_f"),
                       array_ops.identity(p_true, name="switch_t"))
        self.pred_id = array_ops.identity(pred, name="pred_id")
        # The cond's own plumbing is read by branch ops as is, never re-switched.
        self.plumbing = {p_true.op, self.pred_id.op} | {p.op for p in self.pivots}
        self.switches: Dict[Tensor, Operation] = {}
        self.ref_gates: Dict[Tuple[Tensor, int], Tensor] = {}
        self.created: List[Operation] = []

    def _external(self, t: Tensor, branch: int) -> Tensor:
        g = self.g
        if _is_ref(t):
            key = (t, branch)
            gate = self.ref_gates.get(key)
            if gate is None:
                with g.colocate_with(t.op):
                    gate = make_op("RefGate", [t, self.pivots[branch]], [t.dtype],
                                   name="RefGate").outputs[0]
                self.ref_gates[key] = gate
                self.created.append(gate.op)
            return gate
        sw = self.switches.get(t)
        if sw is None:
            with g.colocate_with(t.op):
                sw = switch(t, self.pred_id)[0].op
            self.switches[t] = sw
            self.created.append(sw)
        return sw.outputs[branch]

    def branch(self, fn: Callable[[], Any], branch: int) -> Tuple[Any, List[Any]]:
        """Runs ``fn``; returns (structure spec, flat results, each gated by a Switch)."""
        g = self.g
        pivot = self.pivots[branch]
        n0 = len(g.get_operations())
        with g.control_dependencies([pivot.op]):
            res = fn()
            if res is None:
                raise ValueError("true_fn and false_fn must return at least one result.")
            flat: List[Any] = []
            spec = _flatten_result(res, flat)
            outs: List[Any] = []
            for x in flat:
                if isinstance(x, Operation):
                    # An op result becomes a bool tensor that exists once the op ran.
                    with g.control_dependencies([x]):
                        x = array_ops.identity(pivot)
                elif not isinstance(x, IndexedSlices):
                    x = convert_to_tensor(x)
                    if _is_ref(x):
                        x = array_ops.identity(x)
                outs.append(x)
        new_ops = g.get_operations()[n0:]
        self.created = []
        self._rewire(new_ops, pivot.op, branch)
        self._hoist(n0)
        gated = []
        for x in outs:
            gated.append(switch(x, self.pred_id)[branch])
        return spec, gated

    def _hoist(self, pos: int) -> None:
        """Moves the switches made while rewiring in front of the branch's ops.

        Graph order must stay a topological order: serialized graphs are
        imported node by node, each after the nodes it reads.
        """
        if not self.created:
            return
        self.g.move_operations(self.created, pos)

    def _rewire(self, new_ops: List[Operation], pivot: Operation, branch: int) -> None:
        own = set(new_ops)
        # Ops created under control_dependencies(None) (variables) escaped the branch.
        inside = {op for op in new_ops if pivot in op.control_inputs}
        for op in new_ops:
            if op not in inside:
                continue
            gated_by_data = False
            for i, t in enumerate(op.inputs):
                if t.op in own or t.op in self.plumbing:
                    gated_by_data = (gated_by_data or t.op in inside
                                     or t is self.pivots[branch])
                    continue
                op.replace_input(i, self._external(t, branch))
                gated_by_data = True
            if gated_by_data:
                # A dead data input already stops this op; the control edge to the
                # pivot would only cost a message when the op sits on another task.
                op.remove_control_input(pivot)


def cond(pred: Any, true_fn: Optional[Callable[[], Any]] = None,
         false_fn: Optional[Callable[[], Any]] = None, strict: bool = False,
         name: Optional[str] = None, fn1: Optional[Callable[[], Any]] = None,
         fn2: Optional[Callable[[], Any]] = None) -> Any:
    """``true_fn()`` if ``pred`` else ``false_fn()``; only the taken branch runs.

    Both functions must return the same structure of tensors (lists, tuples,
    dicts, namedtuples; ops become bool tensors). A result that is a one-element
    list is unpacked unless ``strict``.

    Raises:
      TypeError: if ``pred`` is a Python bool or not a bool tensor, or the two
        branches return different dtypes.
      ValueError: if the branches return different structures or nothing.
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("true_fn must be callable.")
    if not callable(false_fn):
        raise TypeError("false_fn must be callable.")
    if isinstance(pred, bool):
        raise TypeError("pred must not be a Python bool")
    p = convert_to_tensor(pred)
    if p.dtype is not _dtypes.bool:
        raise TypeError(f"pred must be a bool tensor, got {p.dtype.name} ({p.name})")
    if p.shape.ndims not in (None, 0):
        raise ValueError(f"pred must be a scalar, got shape {p.shape} ({p.name})")
    g = p.graph
    with g.name_scope(name or "cond"):
        b = _CondBuilder(g, p)
        spec_t, outs_t = b.branch(true_fn, 1)
        spec_f, outs_f = b.branch(false_fn, 0)
        if not _same_structure(spec_t, spec_f):
            raise ValueError("Outputs of true_fn and false_fn must have the same structure")
        merged = []
        for t, f in zip(outs_t, outs_f):
            if isinstance(t, IndexedSlices) != isinstance(f, IndexedSlices):
                t, f = convert_to_tensor(t), convert_to_tensor(f)
            if t.dtype is not f.dtype:
                raise TypeError(f"Outputs of true_fn and false_fn must have the same type: "
                                f"{t.dtype.name}, {f.dtype.name}")
            merged.append(merge([f, t])[0])
    result = _rebuild(spec_t, iter(merged))
    if not strict and isinstance(result, (list, builtins.tuple)) and len(result) == 1 \
            and not hasattr(result, "_fields"):
        return result[0]
    return result


def case(pred_fn_pairs: Any, default: Optional[Callable[[], Any]] = None,
         exclusive: bool = False, strict: bool = False, name: str = "case") -> Any:
    """The result of the first ``fn`` whose ``pred`` is true, else of ``default``.

    Built as nested ``cond``s, so only the selected function's ops run.
    ``exclusive=True`` additionally fails at run time when several preds are true.
    """
    pairs = list(pred_fn_pairs.items()) if isinstance(pred_fn_pairs, dict) else list(
        pred_fn_pairs)
    for p, f in pairs:
        if not callable(f):
            raise TypeError(f"fn for pred {p} must be callable.")
    if default is None:
        if not pairs:
            raise ValueError("case() needs at least one (pred, fn) pair or a default")
        default = pairs[-1][1]
        pairs = pairs[:-1]
    g = get_default_graph()
    with g.name_scope(name):
        preds = [convert_to_tensor(p) for p, _ in pairs]
        if exclusive and len(preds) > 1:
            count = math_ops.reduce_sum(array_ops.cast(array_ops.stack(preds), _dtypes.int32))
            check = Assert(math_ops.less_equal(count, 1),
                           ["More than one condition evaluated as True:", array_ops.stack(preds)])
            with g.control_dependencies([check]):
                preds = [array_ops.identity(p) for p in preds]

        def build(i: int) -> Any:
            if i == len(pairs):
                return default()
            return cond(preds[i], pairs[i][1], lambda: build(i + 1), strict=strict)
        return build(0)


def switch_case(branch_index: Any, branch_fns: Any, default: Optional[Callable[[], Any]] = None,
                name: str = "switch_case") -> Any:
    """The result of ``branch_fns[branch_index]`` (a list of callables, a list of
    ``(int, callable)`` pairs or a dict with keys 0..n-1); an index out of range runs
    ``default``, or the last branch when there is none."""
    if isinstance(branch_fns, dict):
        items: List[Tuple[Any, Any]] = list(branch_fns.items())
    else:
        items = list(branch_fns)
        if items and not isinstance(items[0], builtins.tuple):
            items = list(enumerate(items))
    if not items:
        raise ValueError("branch_fns must not be empty")
    keys = sorted(int(k) for k, _ in items)
    if keys != list(range(len(items))):
        raise ValueError(f"branch_fns keys must be the ints 0 to {len(items) - 1}, got {keys}")
    fns = [fn for _, fn in sorted(items, key=lambda kv: int(kv[0]))]
    for fn in fns + ([default] if default is not None else []):
        if not callable(fn):
            raise TypeError(f"branch function {fn!r} is not callable")
    with get_default_graph().name_scope(name):
        idx = convert_to_tensor(branch_index)
        if not idx.dtype.is_integer:
            raise TypeError(f"branch_index must be an integer, got {idx.dtype.name}")
        if default is None:
            default, fns = fns[-1], fns[:-1]
        pairs = [(math_ops.equal(idx, array_ops.cast(k, idx.dtype)), fn)
                 for k, fn in enumerate(fns)]
        return case(pairs, default=default, exclusive=False)


# -- Print ----------------------------------------------------------------------------------
# Stateful so that it is never cached or folded away: printing is the side effect.
register_op("Print", same_shape, stateful=True)


def Print(input_: Any, data: Sequence[Any], message: Optional[str] = None,  # noqa: N802
          first_n: Optional[int] = None, summarize: Optional[int] = None,
          name: Optional[str] = None) -> Tensor:
    """Returns ``input_`` unchanged; each time it is computed, writes ``message``
    followed by the values of the tensors in ``data``, each in brackets, to stderr.

    Args:
      input_: the tensor passed through.
      data: the tensors whose values are printed.
      message: text printed before the values.
      first_n: print only the first ``first_n`` times the op runs (None: always).
      summarize: show at most this many elements of each tensor (default 3; a
        negative value shows all of them).
      name: op name.
    """
    x = convert_to_tensor(input_)
    if isinstance(data, Tensor) or not isinstance(data, (list, builtins.tuple)):
        data = [data]
    ins = [x] + [convert_to_tensor(d) for d in data]
    attrs = {"message": "" if message is None else str(message),
             "first_n": -1 if first_n is None else int(first_n),
             "summarize": 3 if summarize is None else int(summarize)}
    return make_tensor("Print", ins, x.dtype, attrs, name=name or "Print")


__all__ = ["no_op", "group", "tuple", "with_dependencies", "Assert", "Print", "cond", "case",
           "switch_case"]
