"""Math ops: elementwise arithmetic, matmul, reductions, comparisons; Tensor operators."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import broadcast_binary, convert_pair, make_tensor, same_shape

register_op("Add", broadcast_binary)
register_op("AddN", same_shape)


def add(x: Any, y: Any, name: Optional[str] = None) -> Tensor:
    """Elementwise ``x + y`` with broadcasting."""
    x, y = convert_pair(x, y)
    return make_tensor("Add", [x, y], x.dtype, name=name or "add")


def add_n(inputs: List[Any], name: Optional[str] = None) -> Tensor:
    """Sums a list of tensors of the same shape and dtype."""
    ts = [convert_to_tensor(i) for i in inputs]
    if len(ts) == 1:
        return ts[0]
    return make_tensor("AddN", ts, ts[0].dtype, name=name or "AddN")


Tensor._override_operator("__add__", lambda a, b: add(a, b))
Tensor._override_operator("__radd__", lambda a, b: add(b, a))

__all__ = ["add", "add_n"]
