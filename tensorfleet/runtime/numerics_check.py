"""The run-time half of ``tf.debugging.enable_check_numerics``: an op created while it
was enabled carries the ``_check_numerics`` attr, and the executor runs its kernel
through ``checking_kernel``, which fails the step with InvalidArgumentError at the first
floating-point output holding an Inf or NaN -- naming the op, the output and where the
op was created -- so the op that produced a bad value is found, not one downstream."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.graph import Operation
from tensorfleet.ops.numerics_instrumentation import CHECK_NUMERICS_ATTR


def _kinds(v: np.ndarray) -> str:
    parts = []
    if np.isneginf(v).any():
        parts.append("-Inf")
    if np.isposinf(v).any():
        parts.append("+Inf")
    if np.isnan(v).any():
        parts.append("NaN")
    return " and ".join(parts)


def _message(op: Operation, index: int, value: np.ndarray) -> str:
    inputs = ", ".join(t.name for t in op.inputs) or "none"
    where = op.defined_at or "unknown"
    return (f"\n\n!!! Detected Infinity or NaN in output {index} of graph op \"{op.type}\" "
            f"(# of outputs: {len(op.outputs)}) !!!\n  dtype: {op.outputs[index].dtype.name}\n"
            f"  shape: {tuple(value.shape)}\n  Op name: \"{op.name}\"\n"
            f"  Input tensors: {inputs}\n  Created at: {where}\n"
            f" : Tensor had {_kinds(value)} values")


def checking_kernel(kern: Callable[..., Any], op: Operation) -> Callable[..., Any]:
    """``kern`` followed by a check of ``op``'s floating-point outputs."""
    floating = [i for i, t in enumerate(op.outputs) if t.dtype.is_floating
                and not (i == 0 and op.op_def.ref_output)]
    many = len(op.outputs) > 1

    def run(ctx: Any, *ins: Any) -> Any:
        out = kern(ctx, *ins)
        values = out if many else (out,)
        for i in floating:
            v = values[i]
            if isinstance(v, np.ndarray) or np.isscalar(v):
                arr = np.asarray(v)
                if arr.dtype.kind == "f" and not np.isfinite(arr).all():
                    raise errors.InvalidArgumentError(op.name, op, _message(op, i, arr))
        return out
    return run


__all__ = ["CHECK_NUMERICS_ATTR", "checking_kernel"]
