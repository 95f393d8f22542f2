"""Kernels of the functional ops: ``While`` runs its cond and body sub-graphs.

Each sub-graph is compiled once into a plan of the executor (the runtime layer hands
this module its plan builder, since kernels sit above it) and the plans are kept in
the op's per-session state, so an iteration costs two plan runs and nothing else.
The body's stateful ops are targets of its plan: they run once per iteration even
when no loop variable depends on them.
"""

from __future__ import annotations

import logging
from typing import Any, List, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.kernels.registry import DEAD, KernelContext, plan_builder, register_kernel

logger = logging.getLogger(__name__)

# How many iterations run between two looks at whether the step was cancelled.
_CANCEL_CHECK_EVERY = 64


class _SubPlan:
    __slots__ = ("plan", "feed_index")

    def __init__(self, ctx: KernelContext, which: str, input_names: List[str],
                 fetch_names: List[str]):
        build = plan_builder()
        sub = ctx.attrs.get(which)
        if not isinstance(sub, SubGraph):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type} needs a sub-graph in attr {which!r}, got "
                f"{type(sub).__name__}")
        g = sub.graph()
        try:
            feeds = [g.get_tensor_by_name(n) for n in input_names if n]
            fetches = [g.get_tensor_by_name(n) for n in fetch_names]
        except (KeyError, ValueError) as e:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"{ctx.op_type} {which} names a tensor it does not "
                f"hold: {e}") from None
        self.feed_index = [i for i, n in enumerate(input_names) if n]
        targets = [op for op in g.get_operations()
                   if op.op_def.stateful and op.type != "VariableV2"]
        states = ctx.state.setdefault(f"{which}_ops", {})
        self.plan = build(fetches, targets, feeds, ctx.resources,
                          lambda op: states.setdefault(op.name, {}), ctx.owner)


class _Program:
    __slots__ = ("key", "cond", "body", "n_vars", "n_record")

    def __init__(self, ctx: KernelContext, key: Tuple[Any, ...]):
        a = ctx.attrs
        self.key = key
        self.n_vars = int(a["n_vars"])
        record = list(a.get("body_record", []))
        self.n_record = len(record)
        self.cond = _SubPlan(ctx, "cond", list(a["cond_inputs"]), [a["cond_output"]])
        self.body = _SubPlan(ctx, "body", list(a["body_inputs"]),
                             list(a["body_outputs"]) + record)


def _program(ctx: KernelContext) -> _Program:
    a = ctx.attrs
    # The gradient may add recorded values after the loop first ran: recompile then.
    key = (a["cond"], a["body"], tuple(a.get("body_record", [])))
    prog = ctx.state.get("program")
    if prog is None or prog.key != key:
        prog = ctx.state["program"] = _Program(ctx, key)
    return prog


@register_kernel("While")
def _while(ctx: KernelContext, *inputs: Any) -> Tuple[Any, ...]:
    prog = _program(ctx)
    a = ctx.attrs
    n = prog.n_vars
    has_max = a.get("has_max_iters", False)
    values = list(inputs[:len(inputs) - 1] if has_max else inputs)
    limit = int(inputs[-1]) if has_max else -1
    cond_plan, cond_idx = prog.cond.plan, prog.cond.feed_index
    body_plan, body_idx = prog.body.plan, prog.body.feed_index
    records: List[List[Any]] = [[] for _ in range(prog.n_record)]
    step = ctx.step()
    count = 0
    while count != limit:
        c = cond_plan.run([values[i] for i in cond_idx], step)[0]
        if np.ndim(c) != 0:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, f"The loop condition must be a scalar, got shape "
                f"{list(np.shape(c))}")
        if c is DEAD:
            raise errors.InvalidArgumentError(
                ctx.op_name, None, "The loop condition has no value: it is computed in a "
                "branch of a cond that was not taken")
        if not c:
            break
        out = body_plan.run([values[i] for i in body_idx], step)
        if body_plan.has_dead and any(v is DEAD for v in out[:n]):
            raise errors.InvalidArgumentError(
                ctx.op_name, None, "A loop variable has no value after an iteration: it "
                "is computed in a branch of a cond that was not taken")
        values[:n] = out[:n]
        for r, v in zip(records, out[n:]):
            r.append(v)
        count += 1
        if count % _CANCEL_CHECK_EVERY == 0 and step is not None and step.cancelled:
            raise errors.CancelledError(ctx.op_name, None,
                                        f"step cancelled after {count} loop iterations")
    return tuple(values[:n]) + (np.int32(count),) + tuple(records)


@register_kernel("_Arg")
def _arg(ctx: KernelContext) -> Any:
    # A sub-graph's arguments are fed by the op running it; running one means a
    # tensor that lives inside a loop body was used outside the loop.
    raise errors.InvalidArgumentError(
        ctx.op_name, None, f"{ctx.op_name} is an argument of a loop body or condition and "
        f"has a value only inside the loop; a tensor computed inside a while_loop cannot "
        f"be used outside it (return it as a loop variable instead)")


@register_kernel("WhileRecordGet")
def _record_get(ctx: KernelContext, record: List[Any], index: Any) -> Any:
    i = int(index)
    if not 0 <= i < len(record):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"iteration {i} was not recorded (the loop ran "
                               f"{len(record)} iterations)")
    return record[i]


__all__: list = []
