"""``tf.check_numerics``, ``tf.verify_tensor_all_finite`` and ``tf.add_check_numerics_ops``.

A check is an ``Assert`` that every entry is finite, and the checked tensor is
passed on only after it: a step that produces an Inf or NaN there fails with
InvalidArgumentError carrying the message. The gradient passes straight through.
"""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, \
    get_default_graph, name_scope
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M


def check_numerics(tensor: Any, message: str, name: Optional[str] = None) -> Tensor:
    """``tensor``, or InvalidArgumentError (``message``) if it holds an Inf or NaN.

    Raises:
      TypeError: for a tensor that is not floating point.
    """
    x = convert_to_tensor(tensor)
    if not x.dtype.is_floating:
        raise TypeError(f"check_numerics: tensor must be floating point, got {x.dtype.name}")
    with name_scope(name, "CheckNumerics", [x]):
        ok = M.reduce_all(M.is_finite(x))
        check = CF.Assert(ok, [f"{message} : Tensor had Inf or NaN values"])
        return CF.with_dependencies([check], x)


def verify_tensor_all_finite(t: Any, msg: str, name: Optional[str] = None) -> Tensor:
    """``check_numerics(t, msg)`` under the ``VerifyFinite`` scope."""
    with name_scope(name, "VerifyFinite", [t]):
        return check_numerics(t, msg)


def add_check_numerics_ops() -> Operation:
    """One op that checks every floating-point output of every op now in the default
    graph (its own checks excepted); run it with the train op to find where an Inf
    or NaN first appears: the message names the tensor."""
    g = get_default_graph()
    checks = []
    for op in list(g.get_operations()):
        for out in op.outputs:
            if out.dtype.is_floating:
                with g.colocate_with(op), name_scope(None, "CheckNumerics"):
                    ok = M.reduce_all(M.is_finite(out))
                    checks.append(CF.Assert(ok, [f"{out.name} : Tensor had Inf or NaN values"]))
    return CF.group(*checks, name="check_numerics_all")


__all__ = ["check_numerics", "verify_tensor_all_finite", "add_check_numerics_ops"]
