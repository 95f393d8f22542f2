"""Kernel of ``tf.py_func`` (``ops/script_ops.py``): calls the registered function."""

from __future__ import annotations

import traceback
from typing import Any, List

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.ops.script_ops import lookup_function


def _as_output(ctx: KernelContext, value: Any, dtype: _dtypes.DType, i: int) -> np.ndarray:
    token = ctx.attrs["token"]
    if dtype is _dtypes.string:
        arr = np.asarray(value, dtype=object)
        flat = arr.reshape(-1)
        for j, v in enumerate(flat):
            if isinstance(v, str):
                flat[j] = v.encode("utf-8")
            elif not isinstance(v, bytes):
                raise errors.InvalidArgumentError(
                    ctx.op_name, None, f"{i}-th value returned by {token} holds "
                    f"{type(v).__name__}, but expects string")
        return arr
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype != dtype.np:
        # As in TensorFlow: a numpy result must already have the declared dtype.
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{i}-th value returned by {token} is {value.dtype}, but "
            f"expects {dtype.name}")
    try:
        return np.asarray(value, dtype=dtype.np)
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{i}-th value returned by {token} cannot be {dtype.name}: "
            f"{e}") from None


def _run(ctx: KernelContext, *inputs: Any) -> Any:
    token = ctx.attrs["token"]
    func = lookup_function(token)
    if func is None:
        raise errors.FailedPreconditionError(
            ctx.op_name, None, f"The Python function of py_func {token!r} is not in this "
            f"process: py_func runs only in the process that built the graph. Place the op "
            f"(with tf.device) on a task served from that process, or use graph ops "
            f"instead (op placed on {ctx.device or 'the default device'!r}).")
    touts: List[_dtypes.DType] = [_dtypes.as_dtype(t) for t in ctx.attrs["Tout"]]
    try:
        result = func(*[np.asarray(x) for x in inputs])
    except errors.OpError:
        raise
    except StopIteration:
        raise errors.OutOfRangeError(ctx.op_name, None, f"{token} raised StopIteration") from None
    except Exception as e:  # noqa: BLE001 - any error of user code becomes the op's error
        raise errors.UnknownError(
            ctx.op_name, None, f"{type(e).__name__}: {e}\n"
            f"{''.join(traceback.format_exception(type(e), e, e.__traceback__)[-3:])}"
        ) from None
    if not touts:
        return None
    values = result if isinstance(result, (list, tuple)) else [result]
    if len(values) != len(touts):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{token} returned {len(values)} values, but expects "
            f"{len(touts)}")
    outs = tuple(_as_output(ctx, v, dt, i) for i, (v, dt) in enumerate(zip(values, touts)))
    return outs[0] if len(outs) == 1 else outs


register_kernel("PyFunc")(_run)
register_kernel("PyFuncStateless")(_run)

__all__: List[str] = []
