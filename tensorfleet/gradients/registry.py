"""Gradient registry: op type -> ``fn(op, *output_grads) -> input grads``."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

GradFn = Callable[..., Any]

_GRADS: Dict[str, Optional[GradFn]] = {}


def register_gradient(op_type: str) -> Callable[[GradFn], GradFn]:
    """Decorator: ``fn(op, *grads)`` returns one gradient (or None) per input of ``op``."""

    def deco(fn: GradFn) -> GradFn:
        _GRADS[op_type] = fn
        return fn

    return deco


def no_gradient(op_type: str) -> None:
    """Declares ``op_type`` not differentiable: no gradient flows through it."""
    _GRADS[op_type] = None


RegisterGradient = register_gradient
NotDifferentiable = no_gradient


def get_gradient_fn(op_type: str) -> Optional[GradFn]:
    """The gradient function, None for non-differentiable ops; LookupError when unknown."""
    if op_type not in _GRADS:
        raise LookupError(f"No gradient defined for operation type {op_type!r}")
    return _GRADS[op_type]


__all__ = ["register_gradient", "no_gradient", "RegisterGradient", "NotDifferentiable",
           "get_gradient_fn"]
