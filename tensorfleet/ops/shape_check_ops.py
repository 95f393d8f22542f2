"""``tf.ensure_shape``: a tensor passed through unchanged after its shape is checked, so
that later ops can rely on the static shape it declares."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops.op_util import make_tensor


def _ensure_shape_shape(op: Any) -> List[TensorShape]:
    return [op.inputs[0].shape.merge_with(op.attrs["shape"])]


register_op("EnsureShape", _ensure_shape_shape)


def ensure_shape(x: Any, shape: Any, name: Optional[str] = None) -> Tensor:
    """``x``, checked when the graph runs to have a shape compatible with ``shape``
    (``None`` entries match any size); the result's static shape is the merge of both.

    Raises:
      ValueError: the static shape of ``x`` is already incompatible with ``shape``.
      InvalidArgumentError: (when run) the value's shape is incompatible.
    """
    x = convert_to_tensor(x)
    want = as_shape(shape)
    if not x.shape.is_compatible_with(want):
        raise ValueError(f"ensure_shape: the shape of {x.name}, {x.shape}, is not compatible "
                         f"with the expected shape {want}")
    return make_tensor("EnsureShape", [x], x.dtype, {"shape": want}, name=name or "EnsureShape")
