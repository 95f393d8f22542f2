"""The TF 1.x ``tf.data.experimental.*Structure`` constructors: the element types of data
sets, taking their arguments in TensorFlow 1.x's order (dtype first) and giving the
corresponding ``TypeSpec``."""

from __future__ import annotations

from typing import Any

from tensorfleet.framework.type_spec import SparseTensorSpec, TensorArraySpec, TensorSpec
from tensorfleet.ops.ragged_tensor_spec import RaggedTensorSpec


def TensorStructure(dtype: Any, shape: Any) -> TensorSpec:  # noqa: N802 (TF's name)
    """``TensorSpec(shape, dtype)``."""
    return TensorSpec(shape, dtype)


def SparseTensorStructure(dtype: Any, shape: Any) -> SparseTensorSpec:  # noqa: N802
    """``SparseTensorSpec(shape, dtype)``."""
    return SparseTensorSpec(shape, dtype)


def TensorArrayStructure(dtype: Any, element_shape: Any, dynamic_size: bool,  # noqa: N802
                         infer_shape: bool) -> TensorArraySpec:
    """``TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)``."""
    return TensorArraySpec(element_shape, dtype, dynamic_size, infer_shape)


def RaggedTensorStructure(dtype: Any, shape: Any,  # noqa: N802 (TF's name)
                          ragged_rank: int) -> RaggedTensorSpec:
    """``RaggedTensorSpec(shape, dtype, ragged_rank)``."""
    return RaggedTensorSpec(shape, dtype, ragged_rank)


__all__ = ["RaggedTensorStructure", "SparseTensorStructure", "TensorArrayStructure",
           "TensorStructure"]
