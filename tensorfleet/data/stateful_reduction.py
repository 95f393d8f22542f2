"""``scan`` and ``group_by_reducer``: transformations whose functions carry a state from
element to element, run inside the iterator kernel (``kernels/numpy/dataset_state_kernels.py``).

A state whose shape changes from one step to the next (a growing vector) is traced again
with the dimensions that change left unknown, as TensorFlow relaxes it.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.data import dataset_compose as _compose
from tensorfleet.data.dataset_ops import Dataset, _KernelStage, transformation_input
from tensorfleet.data.grouping import _scalar_function
from tensorfleet.data.iterator_ops import ComponentSpec, flatten, pack_sequence_as
from tensorfleet.framework.graph import Tensor
from tensorfleet.ops.op_util import const_value

Transformation = Callable[[Dataset], Dataset]


def _state_arrays(initial_state: Any) -> Tuple[Any, List[np.ndarray]]:
    """The initial state's spec and its values as arrays (they travel in the stage)."""
    leaves = flatten(initial_state)
    arrays = []
    for leaf in leaves:
        if isinstance(leaf, Tensor):
            v = const_value(leaf)
            if v is None:
                raise ValueError(f"scan: initial_state must be known when the data set is "
                                 f"built; {leaf.name} is computed")
            arrays.append(np.asarray(v, dtype=leaf.dtype.np))
        else:
            arrays.append(np.asarray(leaf, dtype=_dtypes.dtype_of_value(leaf).np))
    spec = pack_sequence_as(initial_state, [
        ComponentSpec(_dtypes.as_dtype(a.dtype), a.shape) for a in arrays])
    return spec, arrays


def _relaxed(what: str, state: Any, new_state: Any) -> Any:
    """``state`` with the dimensions ``new_state`` changes left unknown, or TypeError when
    the two differ in structure or dtype."""
    try:
        pack_sequence_as(state, flatten(new_state))
        relaxed = _compose.most_specific_compatible(state, new_state)
    except (TypeError, ValueError, StopIteration):
        raise TypeError(f"{what}: the new state must have the structure and dtypes of the "
                        f"old one, {state}; got {new_state}") from None
    return relaxed


def _same(a: Any, b: Any) -> bool:
    return [(c.dtype, c.shape.as_list() if c.shape.ndims is not None else None)
            for c in flatten(a)] == [(c.dtype, c.shape.as_list() if c.shape.ndims is not None
                                      else None) for c in flatten(b)]


def _trace_step(what: str, fn: Callable[..., Any], state: Any, element: Any,
                pair: bool) -> Tuple[Dict[str, Any], Any, Any]:
    """The stage of ``fn(state, element)``, the (possibly relaxed) state spec and the spec
    of what it emits besides the state (``pair``: it returns ``(state, output)``)."""
    for _ in range(8):
        stage, out = _compose.function_stage("map", fn, (state, element))
        if pair:
            if not isinstance(out, tuple) or len(out) != 2:
                raise TypeError(f"{what} must return a pair (new_state, output_element), "
                                f"got {out}")
            new_state, emitted = out
        else:
            new_state, emitted = out, None
        relaxed = _relaxed(what, state, new_state)
        if _same(relaxed, state):
            return stage, state, emitted
        state = relaxed
    raise TypeError(f"{what}: the state's shape does not settle")


def scan(initial_state: Any, scan_func: Callable[..., Any]) -> Transformation:
    """A running state through the data set: ``scan_func(state, element)`` returns
    ``(new_state, output)`` and the data set of the outputs results.

    Raises:
      ValueError: an ``initial_state`` computed when the graph runs.
      TypeError: a ``scan_func`` that does not return a pair, or a new state of another
        structure or dtype.
    """
    state_spec, arrays = _state_arrays(initial_state)

    def apply(ds: Dataset) -> Dataset:
        spec = transformation_input(ds, "scan")._spec
        fn, _, out_spec = _trace_step("scan: scan_func", scan_func, state_spec, spec, True)
        stage = {"op": "scan", "fn": fn, "initial_state": arrays}
        return ds._with(_KernelStage(stage, out_spec), out_spec)
    return apply


class Reducer:
    """What ``group_by_reducer`` does with each group: ``init_func(key)`` gives its first
    state, ``reduce_func(state, element)`` the next, ``finalize_func(state)`` (a tuple state
    unpacked as arguments) the group's element."""

    def __init__(self, init_func: Callable[..., Any], reduce_func: Callable[..., Any],
                 finalize_func: Callable[..., Any]):
        for n, f in (("init_func", init_func), ("reduce_func", reduce_func),
                     ("finalize_func", finalize_func)):
            if not callable(f):
                raise TypeError(f"Reducer: {n} must be callable, got {type(f).__name__}")
        self._init_func, self._reduce_func = init_func, reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self) -> Callable[..., Any]:
        return self._init_func

    @property
    def reduce_func(self) -> Callable[..., Any]:
        return self._reduce_func

    @property
    def finalize_func(self) -> Callable[..., Any]:
        return self._finalize_func


def group_by_reducer(key_func: Callable[..., Any], reducer: Reducer) -> Transformation:
    """Groups elements by ``key_func(element)`` (a scalar int32/int64) and reduces each
    group with ``reducer``; when the input ends, one element per key, in ascending key
    order.

    Raises:
      TypeError: ``reducer`` is not a ``Reducer``, or ``reduce_func`` changes the state's
        structure or dtype.
      ValueError: ``key_func`` does not return a scalar integer.
    """
    if not isinstance(reducer, Reducer):
        raise TypeError(f"group_by_reducer: reducer must be a tf.data.experimental.Reducer, "
                        f"got {type(reducer).__name__}")

    def apply(ds: Dataset) -> Dataset:
        spec = transformation_input(ds, "group_by_reducer")._spec
        key = _scalar_function("group_by_reducer key_func", key_func, spec)
        init, state = _compose.function_stage("map", reducer.init_func,
                                              ComponentSpec(_dtypes.int64, []))
        reduce, state, _ = _trace_step("group_by_reducer: reduce_func", reducer.reduce_func,
                                       state, spec, False)
        finalize, out_spec = _compose.function_stage("map", reducer.finalize_func, state)
        stage = {"op": "group_by_reducer", "key": key, "init": init, "reduce": reduce,
                 "finalize": finalize}
        return ds._with(_KernelStage(stage, out_spec), out_spec)
    return apply


__all__ = ["Reducer", "group_by_reducer", "scan"]
