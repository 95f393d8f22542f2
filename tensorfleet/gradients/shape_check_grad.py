"""Gradient of ``EnsureShape``: the op passes its input through, so does its gradient."""

from __future__ import annotations

from typing import Any, List

from tensorfleet.gradients.registry import register_gradient


@register_gradient("EnsureShape")
def _ensure_shape_grad(op: Any, grad: Any) -> List[Any]:
    return [grad]
