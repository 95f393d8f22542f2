"""Gradients of the math ops."""

from __future__ import annotations

from typing import Any

from tensorfleet.gradients.registry import register_gradient


@register_gradient("AddN")
def _add_n_grad(op: Any, grad: Any) -> list:
    return [grad] * len(op.inputs)
