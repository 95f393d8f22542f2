"""Gradients of the array ops."""

from __future__ import annotations

from typing import Any

from tensorfleet.gradients.registry import no_gradient, register_gradient

no_gradient("Const")
no_gradient("Placeholder")


@register_gradient("Identity")
def _identity_grad(op: Any, grad: Any) -> Any:
    return grad


@register_gradient("PlaceholderWithDefault")
def _pwd_grad(op: Any, grad: Any) -> Any:
    return grad
