"""``tf.math.approx_max_k`` / ``approx_min_k`` (also in ``tf.nn``): on TPUs these trade
recall for speed; here they return the exact top k, which meets every recall target.
The reduction runs along any dimension."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops.array_indexing_ops import transpose
from tensorfleet.ops.math_ops_core import negative
from tensorfleet.ops.nn_sampling_ops import top_k


def _approx_k(operand: Any, k: int, reduction_dimension: int, recall_target: float,
              reduction_input_size_override: int, aggregate_to_topk: bool, largest: bool,
              name: Optional[str], default: str) -> Tuple[Tensor, Tensor]:
    with name_scope(name, default):
        x = convert_to_tensor(operand)
        if not x.dtype.is_floating:
            raise TypeError(f"{default} takes a floating-point operand, got {x.dtype.name}")
        rank = x.shape.ndims
        if rank is None or rank == 0:
            raise ValueError(f"{default} needs an operand of known rank >= 1, got {x.shape}")
        if not -rank <= reduction_dimension < rank:
            raise ValueError(f"reduction_dimension {reduction_dimension} is out of range for "
                             f"rank {rank}")
        if not 0.0 < float(recall_target) <= 1.0:
            raise ValueError(f"recall_target must be in (0, 1], got {recall_target}")
        if not aggregate_to_topk:
            raise ValueError("aggregate_to_topk=False (the partially reduced TPU result) is "
                             "not supported; the exact top k is always returned")
        dim = reduction_dimension % rank
        size = x.shape.as_list()[dim]
        override = int(reduction_input_size_override)
        if override != -1 and size is not None and override < size:
            raise ValueError(f"reduction_input_size_override ({override}) must be -1 or at "
                             f"least the reduced dimension's size ({size})")
        perm = [i for i in range(rank) if i != dim] + [dim]
        inverse = [perm.index(i) for i in range(rank)]
        moved = transpose(x, perm) if dim != rank - 1 else x
        vals, idx = top_k(moved if largest else negative(moved), k)
        if not largest:
            vals = negative(vals)
        if dim != rank - 1:
            vals, idx = transpose(vals, inverse), transpose(idx, inverse)
        return vals, idx


def approx_max_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True,
                 name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """The ``k`` largest values along ``reduction_dimension`` and their int32 indices."""
    return _approx_k(operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, True, name,
                     "approx_max_k")


def approx_min_k(operand: Any, k: int, reduction_dimension: int = -1,
                 recall_target: float = 0.95, reduction_input_size_override: int = -1,
                 aggregate_to_topk: bool = True,
                 name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """The ``k`` smallest values along ``reduction_dimension`` and their int32 indices."""
    return _approx_k(operand, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, False, name,
                     "approx_min_k")


def approx_top_k(input: Any, k: int, reduction_dimension: int = -1,  # noqa: A002 - TF name
                 recall_target: float = 0.95, is_max_k: bool = True,
                 reduction_input_size_override: int = -1, aggregate_to_topk: bool = True,
                 name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """TensorFlow's raw ``ApproxTopK``: ``approx_max_k`` (``is_max_k``) or
    ``approx_min_k`` of ``input``; the result is the exact top k."""
    return _approx_k(input, k, reduction_dimension, recall_target,
                     reduction_input_size_override, aggregate_to_topk, bool(is_max_k), name,
                     "ApproxTopK")
