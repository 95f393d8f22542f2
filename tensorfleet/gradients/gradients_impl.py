"""``tf.gradients``: reverse-mode differentiation over the graph.

The walk visits ops between ``xs`` and ``ys`` in reverse topological order, sums
the gradients of tensors used more than once (keeping sparse ``IndexedSlices``
sparse when every term is sparse) and returns None for unconnected ``xs``.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence, Set

from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.gradients.registry import get_gradient_fn
from tensorfleet.gradients.unconnected_gradients import as_unconnected, fill_unconnected
from tensorfleet.ops import array_ops, control_flow_ops, math_ops


def _as_list(x: Any) -> List[Any]:
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _reachable_from(xs_ops: Set[Operation], graph: Any) -> Set[Operation]:
    consumers: Dict[Operation, List[Operation]] = {}
    for op in graph.get_operations():
        for t in op.inputs:
            consumers.setdefault(t.op, []).append(op)
    seen: Set[Operation] = set()
    stack = list(xs_ops)
    while stack:
        op = stack.pop()
        if op in seen:
            continue
        seen.add(op)
        stack.extend(consumers.get(op, []))
    return seen


def _aggregate(grads: List[Any]) -> Any:
    grads = [g for g in grads if g is not None]
    if not grads:
        return None
    if len(grads) == 1:
        return grads[0]
    if all(isinstance(g, IndexedSlices) for g in grads):
        indices = [g.indices for g in grads]
        # Lookups by int32 and by int64 ids of one table meet here; as TensorFlow,
        # widen them all to int64 rather than fail the concat.
        if len({i.dtype for i in indices}) > 1:
            indices = [array_ops.cast(i, "int64") for i in indices]
        return IndexedSlices(array_ops.concat([g.values for g in grads], 0),
                             array_ops.concat(indices, 0),
                             grads[0].dense_shape)
    dense = [convert_to_tensor(g) for g in grads]
    return math_ops.add_n(dense)


class AggregationMethod:
    """How gradients reaching one tensor along several paths are summed
    (``tf.AggregationMethod``). Every method gives the same sum here: the terms are
    added by one ``AddN`` (or concatenated, for ``IndexedSlices``)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


_AGGREGATION_METHODS = (None, AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                        AggregationMethod.EXPERIMENTAL_ACCUMULATE_N)


def _gate(grads: List[Any]) -> List[Any]:
    """The dense gradients of one op, each usable only once all are computed."""
    dense = [g for g in grads if isinstance(g, Tensor)]
    if len(dense) < 2 or any(isinstance(g, IndexedSlices) for g in grads):
        return grads
    return control_flow_ops.tuple(grads)


def gradients(ys: Any, xs: Any, grad_ys: Any = None, name: str = "gradients",
              colocate_gradients_with_ops: bool = False, gate_gradients: bool = False,
              aggregation_method: Any = None, stop_gradients: Any = None,
              unconnected_gradients: Any = "none") -> List[Any]:
    """Symbolic partial derivatives of ``sum(ys)`` with respect to each of ``xs``.

    Returns a list with one entry per ``x``: a Tensor, an ``IndexedSlices`` for
    sparse gradients, or (when ``x`` does not influence ``ys``) None, or zeros like
    ``x`` with ``unconnected_gradients="zero"``. With ``gate_gradients`` the gradients
    of each op's inputs become usable together (a ``tuple``), as TensorFlow's: an
    optimizer's in-place update of one variable then never races with a gradient op
    still reading it (which matters where a read aliases the variable's buffer, as in
    TensorFlow running tensorfleet's graphs).
    """
    as_unconnected(unconnected_gradients)
    if aggregation_method not in _AGGREGATION_METHODS:
        raise ValueError(f"Invalid aggregation_method specified {aggregation_method!r}: "
                         "use a tf.AggregationMethod value or None")
    ys = [convert_to_tensor(y) for y in _as_list(ys)]
    xs = [convert_to_tensor(x) for x in _as_list(xs)]
    stops = {convert_to_tensor(s).op for s in _as_list(stop_gradients)} if stop_gradients else set()
    graph = ys[0].graph if ys else get_default_graph()
    grad_ys = _as_list(grad_ys) if grad_ys is not None else [None] * len(ys)
    if len(grad_ys) != len(ys):
        raise ValueError(f"Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    with graph.name_scope(name):
        # Ops that lie on a path from some x to some y.
        fwd = _reachable_from({x.op for x in xs}, graph)
        between: Set[Operation] = set()
        stack = [y.op for y in ys]
        while stack:
            op = stack.pop()
            if op in between or op not in fwd:
                continue
            between.add(op)
            if op in stops:
                continue
            stack.extend(t.op for t in op.inputs)
        # How many gradient contributions each op waits for.
        pending: Dict[Operation, int] = {op: 0 for op in between}
        for op in between:
            if op in stops:
                continue
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] += 1
        acc: Dict[Tensor, List[Any]] = {}
        for y, gy in zip(ys, grad_ys):
            if gy is None:
                with graph.colocate_with(y.op) if colocate_gradients_with_ops else _null():
                    gy = array_ops.ones_like(y, name=f"grad_ys_{ys.index(y)}")
            else:
                gy = gy if isinstance(gy, IndexedSlices) else convert_to_tensor(gy, dtype=y.dtype)
            acc.setdefault(y, []).append(gy)
        x_set = set(xs)
        ready = [op for op in between if pending[op] == 0]
        done: Set[Operation] = set()
        while ready:
            op = ready.pop()
            if op in done:
                continue
            done.add(op)
            out_grads = [_aggregate(acc.get(t, [])) for t in op.outputs]
            for t, g in zip(op.outputs, out_grads):
                if t in acc:
                    acc[t] = [g]
            if op not in stops and any(g is not None for g in out_grads) and op.inputs:
                in_grads = _call_grad(op, out_grads, colocate_gradients_with_ops)
                if gate_gradients:
                    in_grads = _gate(in_grads)
                for t, g in zip(op.inputs, in_grads):
                    if g is not None and t.op in between:
                        acc.setdefault(t, []).append(g)
            if op in stops:
                continue
            for t in op.inputs:
                if t.op in between:
                    pending[t.op] -= 1
                    if pending[t.op] == 0:
                        ready.append(t.op)
        del x_set
        return fill_unconnected([_aggregate(acc.get(x, [])) for x in xs], xs,
                                unconnected_gradients)


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *a: Any) -> None:
        return None


def _call_grad(op: Operation, out_grads: List[Any], colocate: bool) -> Sequence[Any]:
    try:
        fn = get_gradient_fn(op.attrs.get("_gradient_op_type") or op.type)
    except LookupError:
        raise LookupError(f"No gradient defined for operation '{op.name}' (op type: {op.type})"
                          ) from None
    if fn is None:
        return [None] * len(op.inputs)
    filled = []
    for t, g in zip(op.outputs, out_grads):
        if g is None and t.dtype.is_floating:
            g = array_ops.zeros_like(t)
        filled.append(g)
    graph = op.graph
    with graph.name_scope(op.name + "_grad"):
        with graph.colocate_with(op) if colocate else _null():
            res = fn(op, *filled)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    if len(res) != len(op.inputs):
        raise ValueError(f"Gradient function for {op.type} returned {len(res)} gradients, "
                         f"expected {len(op.inputs)}")
    return res


__all__ = ["gradients", "AggregationMethod"]
