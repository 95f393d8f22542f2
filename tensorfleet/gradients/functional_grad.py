"""The gradient of ``While``: a backward loop over values the forward loop recorded.

The body's gradient is built once, symbolically, on a copy of the body sub-graph
(``tf.gradients`` of the body outputs with respect to its arguments, the incoming
gradients being arguments too). The forward values those gradient ops read are
then recorded by the forward ``While`` at every iteration: the op's body is
replaced by the copy (whose nested loops now record what *their* gradients need),
its ``body_record`` attr names the values, and it gains one output per value, a
list with one entry per iteration. Values that do not change across iterations
(the captures) are not recorded; the backward loop captures them directly.

The backward loop is a ``While`` too, colocated with the forward one (the records
never leave its task). It runs the trip count of the forward loop backwards; each
iteration reads the records of its iteration, runs the copied gradient ops, hands
the gradients of the loop variables to the next iteration and adds those of the
captures into accumulators. Its results are the gradients of the forward op's
inputs: loop variables and captures (a variable's ``read``, so an optimizer can
train a variable used in a loop).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, Operation, Tensor, convert_to_tensor
from tensorfleet.framework.indexed_slices import IndexedSlices
from tensorfleet.framework.serialization import SubGraph, graph_to_plain, import_graph_def
from tensorfleet.gradients.gradients_impl import gradients
from tensorfleet.gradients.registry import no_gradient, register_gradient
from tensorfleet.ops import array_ops, functional_ops, functional_trace, math_ops
from tensorfleet.ops.tensor_array_ops import empty_grad_list

no_gradient("WhileRecordGet")


def _differentiable(dt: _dtypes.DType) -> bool:
    return dt.is_floating or dt is _dtypes.variant


def _zero_like(t: Tensor) -> Tensor:
    return empty_grad_list(t) if t.dtype is _dtypes.variant else array_ops.zeros_like(t)


def _dense(g: Any) -> Any:
    return convert_to_tensor(g) if isinstance(g, IndexedSlices) else g


class _BodyGradient:
    """The gradient of one While's body, built on a copy of the body sub-graph."""

    def __init__(self, op: Operation):
        a = op.attrs
        n = int(a["n_vars"])
        self.n = n
        s = Graph()
        import_graph_def(a["body"].plain, graph=s)
        self.graph = s
        names = list(a["body_inputs"])
        self.args = [s.get_tensor_by_name(nm) if nm else None for nm in names]
        outs = [s.get_tensor_by_name(nm) for nm in a["body_outputs"]]
        # Loop variables that carry a gradient, and captures that receive one.
        self.var_idx = [k for k in range(n) if _differentiable(op.inputs[k].dtype)]
        self.cap_idx = [k for k in range(n, len(names))
                        if self.args[k] is not None and _differentiable(op.inputs[k].dtype)]
        self.n_forward = len(s._ops)
        with s.as_default():
            self.dys = functional_trace.make_args(
                s, [(outs[k].dtype, op.outputs[k].shape) for k in self.var_idx], name="dy")
            self.n_grad_start = len(s._ops)
            xs_pos = [k for k in self.var_idx + self.cap_idx if self.args[k] is not None]
            ys = [outs[k] for k in self.var_idx]
            grads = gradients(ys, [self.args[k] for k in xs_pos], grad_ys=self.dys,
                              name="body_grad") if ys and xs_pos else []
            self.grads: Dict[int, Any] = {k: _dense(g) for k, g in zip(xs_pos, grads)}
        self.grad_ops = s._ops[self.n_grad_start:]
        grad_set = set(self.grad_ops) | {d.op for d in self.dys}
        cap_args = {self.args[k]: k for k in range(n, len(names)) if self.args[k] is not None}
        self.needed: List[Tensor] = []
        self.invariant: Dict[Tensor, int] = {}
        seen = set()
        reads = [t for gop in self.grad_ops for t in gop.inputs]
        reads += [g for g in self.grads.values() if isinstance(g, Tensor)]
        for t in reads:
            if t.op in grad_set or t in seen:
                continue
            seen.add(t)
            if t in cap_args:
                self.invariant[t] = cap_args[t]
            else:
                self.needed.append(t)

    def forward_plain(self) -> Dict[str, Any]:
        """The body as it is now in the copy: nested loops record for their gradients."""
        return graph_to_plain(self.graph, ops=self.graph._ops[:self.n_forward])


def _add_records(op: Operation, needed: List[Tensor], plain: Dict[str, Any]) -> List[Tensor]:
    """Makes the forward op record ``needed`` per iteration; returns the record outputs."""
    a = op.attrs
    record = list(a.get("body_record", []))
    n_fixed = int(a["n_vars"]) + 1
    for t in needed:
        if t.name not in record:
            record.append(t.name)
            op.add_output(_dtypes.variant)
    op.set_attr("body", SubGraph(plain))
    op.set_attr("body_record", record)
    return [op.outputs[n_fixed + record.index(t.name)] for t in needed]


@register_gradient("While")
def _while_grad(op: Operation, *out_grads: Any) -> List[Optional[Any]]:
    a = op.attrs
    n = int(a["n_vars"])
    n_in = len(op.inputs)
    if not a.get("back_prop", True):
        return [None] * n_in
    bg = _BodyGradient(op)
    records = _add_records(op, bg.needed, bg.forward_plain())
    g = op.graph
    trip = op.outputs[n]
    init_dys = []
    for k in bg.var_idx:
        gk = out_grads[k]
        init_dys.append(_dense(gk) if gk is not None else _zero_like(op.outputs[k]))
    init_accs = [_zero_like(op.inputs[k]) for k in bg.cap_idx]
    nv = len(bg.var_idx)

    def body(i: Tensor, *state: Tensor) -> List[Any]:
        dys, accs = list(state[:nv]), list(state[nv:])
        mapping: Dict[Tensor, Tensor] = {}
        for t, rec in zip(bg.needed, records):
            v = g.create_op("WhileRecordGet", [rec, i], [t.dtype], name="record",
                            shapes=[t.shape]).outputs[0]
            mapping[t] = v
        for t, k in bg.invariant.items():
            mapping[t] = op.inputs[k]
        for d_arg, d in zip(bg.dys, dys):
            mapping[d_arg] = d
        copied = functional_trace.inline(g, bg.grad_ops, mapping)
        new_dys = []
        for k, d in zip(bg.var_idx, dys):
            gk = bg.grads.get(k)
            new_dys.append(_zero_like(d) if gk is None else copied[gk])
        new_accs = []
        for k, acc in zip(bg.cap_idx, accs):
            gk = bg.grads.get(k)
            new_accs.append(acc if gk is None else math_ops.add_n([acc, copied[gk]]))
        return [i - 1] + new_dys + new_accs

    with g.name_scope("while_grad") as scope:
        start = math_ops.subtract(trip, 1)
        spec = functional_ops.LoopSpec([start] + init_dys + init_accs, None)
        spec.invariants = [start.shape] + [op.outputs[k].shape for k in bg.var_idx] + \
            [op.inputs[k].shape for k in bg.cap_idx]
        back = functional_ops.build_while(
            g, lambda i, *_: math_ops.greater_equal(i, 0), body, spec, True, scope,
            back_prop=False, parallel_iterations=1, swap_memory=False, max_iters=None,
            check_shapes=False, colocate=op)
    result: List[Optional[Any]] = [None] * n_in
    for j, k in enumerate(bg.var_idx):
        result[k] = back.outputs[1 + j]
    for j, k in enumerate(bg.cap_idx):
        result[k] = back.outputs[1 + nv + j]
    return result
