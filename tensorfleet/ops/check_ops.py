"""``tf.assert_*``: run-time checks on tensor values, shapes and dtypes, and the predicates
they rest on (``tf.is_numeric_tensor``, ``tf.is_non_decreasing``,
``tf.is_strictly_increasing``).

Each value check returns an ``Assert`` op (use it in ``control_dependencies``)
that fails the step with InvalidArgumentError naming the condition and showing
the first ``summarize`` entries of its inputs. When every input is a constant
the check is made while the graph is built instead, and a false one raises
InvalidArgumentError there, as in TensorFlow. Rank and dtype checks are static
when the rank or dtype is known.
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.op_util import const_value


def _static_fail(message: Optional[str], text: str) -> None:
    raise errors.InvalidArgumentError(None, None, (message + " " if message else "") + text)


def _binary(fname: str, symbol: str, tf_cmp: Callable[[Any, Any], Tensor],
            np_cmp: Callable[[Any, Any], Any]) -> Callable[..., Operation]:
    def check(x: Any, y: Any, data: Optional[Sequence[Any]] = None,
              summarize: Optional[int] = None, message: Optional[str] = None,
              name: Optional[str] = None) -> Operation:
        with name_scope(name, fname, [x, y]):
            xt = convert_to_tensor(x, name="x")
            yt = convert_to_tensor(y, name="y", preferred_dtype=xt.dtype)
            cond_text = f"Condition x {symbol} y did not hold element-wise:"
            xv, yv = const_value(xt), const_value(yt)
            if xv is not None and yv is not None and not np.all(np_cmp(xv, yv)):
                _static_fail(message, f"{cond_text} x ({xt.name}) = {xv} y ({yt.name}) = {yv}")
            if data is None:
                data = [cond_text, f"x ({xt.name}) = ", xt, f"y ({yt.name}) = ", yt]
            if message is not None:
                data = [message] + list(data)
            return CF.Assert(M.reduce_all(tf_cmp(xt, yt)), data, summarize=summarize)
    check.__name__ = check.__qualname__ = fname
    check.__doc__ = (f"An op failing the step unless ``x {symbol} y`` holds for every "
                     f"element (with broadcasting).\n\n    Raises:\n      "
                     f"InvalidArgumentError: at once, when both are constants and it "
                     f"does not hold.\n    ")
    return check


assert_equal = _binary("assert_equal", "==", M.equal, np.equal)
assert_none_equal = _binary("assert_none_equal", "!=", M.not_equal, np.not_equal)
assert_less = _binary("assert_less", "<", M.less, np.less)
assert_less_equal = _binary("assert_less_equal", "<=", M.less_equal, np.less_equal)
assert_greater = _binary("assert_greater", ">", M.greater, np.greater)
assert_greater_equal = _binary("assert_greater_equal", ">=", M.greater_equal,
                               np.greater_equal)


def _against_zero(fname: str, check: Callable[..., Operation]) -> Callable[..., Operation]:
    def fn(x: Any, data: Optional[Sequence[Any]] = None, summarize: Optional[int] = None,
           message: Optional[str] = None, name: Optional[str] = None) -> Operation:
        with name_scope(name, fname, [x]):
            xt = convert_to_tensor(x, name="x")
            zero = A.zeros([], dtype=xt.dtype)
            return check(xt, zero, data=data, summarize=summarize, message=message)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = f"``{check.__name__}(x, 0)``: see ``{check.__name__}``."
    return fn


assert_positive = _against_zero("assert_positive", assert_greater)
assert_negative = _against_zero("assert_negative", assert_less)
assert_non_negative = _against_zero("assert_non_negative", assert_greater_equal)
assert_non_positive = _against_zero("assert_non_positive", assert_less_equal)


def assert_near(x: Any, y: Any, rtol: Any = None, atol: Any = None,
                data: Optional[Sequence[Any]] = None, summarize: Optional[int] = None,
                message: Optional[str] = None, name: Optional[str] = None) -> Operation:
    """An op failing the step unless ``|x - y| <= atol + rtol * |y|`` everywhere
    (defaults: 10 * the dtype's epsilon for both)."""
    with name_scope(name, "assert_near", [x, y]):
        xt = convert_to_tensor(x, name="x")
        yt = convert_to_tensor(y, name="y", dtype=xt.dtype)
        eps = float(np.finfo(xt.dtype.np).eps) if xt.dtype.is_floating else 0.0
        rt = A.constant(10 * eps if rtol is None else rtol, dtype=xt.dtype)
        at = A.constant(10 * eps if atol is None else atol, dtype=xt.dtype)
        tol = M.add(at, M.multiply(rt, M.abs(yt)))
        cond = M.reduce_all(M.less_equal(M.abs(M.subtract(xt, yt)), tol))
        if data is None:
            data = ["x and y not equal to tolerance rtol = ", rt, ", atol = ", at,
                    f"x ({xt.name}) = ", xt, f"y ({yt.name}) = ", yt]
        if message is not None:
            data = [message] + list(data)
        return CF.Assert(cond, data, summarize=summarize)


def _rank_check(fname: str, ok: Callable[[int, int], bool], what: str,
                tf_ok: Callable[[Tensor, Tensor], Tensor]) -> Callable[..., Operation]:
    def fn(x: Any, rank: int, message: Optional[str] = None, name: Optional[str] = None,
           data: Optional[Sequence[Any]] = None, summarize: Optional[int] = None) -> Operation:
        with name_scope(name, fname, [x]):
            xt = convert_to_tensor(x, name="x")
            want = const_value(convert_to_tensor(rank))
            if want is None or np.ndim(want) != 0:
                raise ValueError(f"{fname}: rank must be a static scalar, got {rank!r}")
            want = int(want)
            if xt.shape.ndims is not None:
                if not ok(xt.shape.ndims, want):
                    raise ValueError((message + " " if message else "") +
                                     f"Tensor {xt.name} must have rank {what}{want}. "
                                     f"Received shape: {xt.shape}")
                return CF.no_op(name="static_checks_determined_all_ok")
            items: List[Any] = list(data) if data is not None else [
                f"Tensor {xt.name} must have rank {what}", want, "Received rank", A.rank(xt)]
            if message is not None:
                items = [message] + items
            cond = tf_ok(A.rank(xt), A.constant(want, dtype=_dtypes.int32))
            return CF.Assert(cond, items, summarize=summarize)
    fn.__name__ = fn.__qualname__ = fname
    fn.__doc__ = (f"Checks that ``x`` has rank {what}``rank``: at once when its rank is "
                  f"known (ValueError), else with an op failing the step.")
    return fn


assert_rank = _rank_check("assert_rank", lambda a, b: a == b, "", M.equal)
assert_rank_at_least = _rank_check("assert_rank_at_least", lambda a, b: a >= b, "at least ",
                                   M.greater_equal)


def assert_rank_in(x: Any, ranks: Sequence[Any], data: Any = None, summarize: Any = None,
                   message: Optional[str] = None, name: Optional[str] = None) -> Any:
    """Checks that the rank of ``x`` is one of ``ranks``: ValueError at once when the rank
    is known, else an ``Assert`` op (showing ``data``) that fails when run."""
    with name_scope(name or "assert_rank_in"):
        x = convert_to_tensor(x)
        wanted = [int(r) for r in ranks]
        r = x.shape.ndims
        if r is not None:
            if r not in wanted:
                raise ValueError(f"{message + ' ' if message else ''}Tensor {x.name} must have "
                                 f"rank in {tuple(wanted)}. Received rank {r}, shape {x.shape}")
            return CF.no_op(name="static_checks_determined_all_ok")
        shown = list(data) if data is not None else [
            message or f"Tensor {x.name} must have rank in {tuple(wanted)}; rank:", A.rank(x)]
        return CF.Assert(M.reduce_any(M.equal(A.rank(x), wanted)), shown, summarize=summarize)


def assert_scalar(tensor: Any, name: Optional[str] = None) -> Tensor:
    """``tensor`` itself, after checking that its (known) rank is 0.

    Raises:
      ValueError: for a tensor of unknown or non-zero rank.
    """
    with name_scope(name, "assert_scalar", [tensor]):
        t = convert_to_tensor(tensor, name="tensor")
        if t.shape.ndims != 0:
            raise ValueError(f"Expected scalar shape for {t.name}, saw shape: {t.shape}.")
        return t


def assert_type(tensor: Any, tf_type: Any, message: Optional[str] = None,
                name: Optional[str] = None) -> Operation:
    """A no-op, after checking that ``tensor`` has dtype ``tf_type``.

    Raises:
      TypeError: when it does not.
    """
    t = convert_to_tensor(tensor)
    want = _dtypes.as_dtype(tf_type)
    if t.dtype.base_dtype is not want.base_dtype:
        raise TypeError((message + " " if message else "") +
                        f"{t.name} must be of type {want.name}; got {t.dtype.name}")
    return CF.no_op(name=name or "statically_determined_correct_type")


def assert_integer(x: Any, message: Optional[str] = None,
                   name: Optional[str] = None) -> Operation:
    """A no-op, after checking that ``x`` has an integer dtype.

    Raises:
      TypeError: when it does not.
    """
    t = convert_to_tensor(x)
    if not t.dtype.is_integer:
        raise TypeError((message + " " if message else "") +
                        f"Expected integer type for {t.name}, got {t.dtype.name}")
    return CF.no_op(name=name or "statically_determined_was_integer")


def assert_same_float_dtype(tensors: Optional[Sequence[Any]] = None,
                            dtype: Any = None) -> Any:
    """The common floating dtype of ``tensors`` (and ``dtype``); ValueError when they differ
    or are not floating; float32 when there is nothing to go on."""
    found = _dtypes.as_dtype(dtype) if dtype is not None else None
    for t in tensors or []:
        dt = getattr(t, "dtype", None)
        if dt is None:
            continue
        dt = _dtypes.as_dtype(dt)
        if found is None:
            found = dt
        elif dt != found:
            raise ValueError(f"Expected {found.name} but got {dt.name} for {t}")
    if found is None:
        return _dtypes.float32
    if not found.is_floating:
        raise ValueError(f"Expected floating point type, got {found.name}.")
    return found


def assert_proper_iterable(values: Any) -> None:
    """TypeError when ``values`` is a tensor, an array or a string (iterable by accident) or
    is not iterable at all."""
    accidental = (Tensor, SparseTensor, np.ndarray, bytes, str)
    if isinstance(values, accidental):
        raise TypeError(f'Expected argument "values" to be a "proper" iterable.  Found: '
                        f"{type(values)}")
    if not hasattr(values, "__iter__"):
        raise TypeError(f'Expected argument "values" to be iterable.  Found: {type(values)}')


def is_numeric_tensor(tensor: Any) -> bool:
    """True for a ``Tensor`` of a numeric dtype."""
    return isinstance(tensor, Tensor) and tensor.dtype.np.kind in "iufc"


def _monotone(x: Any, op: Any, name: str) -> Tensor:
    with name_scope(name):
        t = A.reshape(convert_to_tensor(x), [-1])
        if not (t.dtype.is_floating or t.dtype.is_integer):
            raise TypeError(f"Expected x to be numeric, got {t.dtype.name}")
        return M.reduce_all(op(t[1:], t[:-1]))


def is_non_decreasing(x: Any, name: Optional[str] = None) -> Tensor:
    """True when the flattened ``x`` never decreases (true for fewer than two elements)."""
    return _monotone(x, M.greater_equal, name or "is_non_decreasing")


def is_strictly_increasing(x: Any, name: Optional[str] = None) -> Tensor:
    """True when the flattened ``x`` always increases (true for fewer than two elements)."""
    return _monotone(x, M.greater, name or "is_strictly_increasing")


__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_rank_in", "assert_scalar", "assert_type",
           "assert_integer", "assert_same_float_dtype", "assert_proper_iterable",
           "is_numeric_tensor", "is_non_decreasing", "is_strictly_increasing"]
