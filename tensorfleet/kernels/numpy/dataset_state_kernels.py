"""Pipeline stages that carry state from element to element, run over value elements in
the iterator kernel: ``scan`` (a running state and an output per element),
``group_by_reducer`` (one state per key, finalized when the input ends),
``assert_cardinality`` (an element count checked as it streams) and
``pad_to_cardinality`` (a validity mask, and padding up to a count).

Each stage arrives as plain data (sub-graphs for its functions, arrays for its initial
values) and is checked here as the other stages are in ``dataset_kernels.py``.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, Optional

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels import dataset_values as dv
from tensorfleet.kernels.numpy.dataset_kernels import register_stage, validate_stages

Element = dv.Element
_MAX_COUNT = 2 ** 62


def _invalid(op_name: Optional[str], msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(op_name, None, msg)


def _check_fn(fn: Any, what: str, op_name: Optional[str]) -> Dict[str, Any]:
    if not isinstance(fn, dict):
        raise _invalid(op_name, f"Dataset {what} needs a function description")
    return validate_stages([dict(fn, op="map")], op_name, inner=True)[0]


def _check_arrays(values: Any, what: str, op_name: Optional[str]) -> List[np.ndarray]:
    if not isinstance(values, (list, tuple)) or not all(
            isinstance(v, np.ndarray) for v in values):
        raise _invalid(op_name, f"Dataset {what} must be a list of arrays")
    return list(values)


def _check_count(st: Dict[str, Any], lo: int, op_name: Optional[str]) -> int:
    n = st.get("cardinality")
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not lo <= n < _MAX_COUNT:
        raise _invalid(op_name, f"Dataset {st.get('op')}: cardinality must be an integer >= "
                                f"{lo}, got {n!r}")
    return int(n)


# -- scan -----------------------------------------------------------------------------------

class Scan:
    """``scan``: ``fn(state, element)`` gives the next state and the element emitted."""

    def __init__(self, up: Iterable[Element], fn: dv.Function, initial: List[np.ndarray]):
        self.up, self.fn, self.initial = up, fn, initial

    def __iter__(self) -> Iterator[Element]:
        state = [a.copy() for a in self.initial]
        k = len(state)
        for e in self.up:
            out = self.fn(tuple(state) + tuple(e))
            state = out[:k]
            yield tuple(out[k:])


def _check_scan(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    _check_fn(st.get("fn"), "scan function", op_name)
    _check_arrays(st.get("initial_state"), "scan initial_state", op_name)
    return st


def _build_scan(node: Iterable[Element], st: Dict[str, Any], compile_fn: Any) -> Any:
    return Scan(node, compile_fn(dict(st["fn"], op="scan")), list(st["initial_state"]))


# -- group_by_reducer -----------------------------------------------------------------------

class GroupByReducer:
    """One state per key: ``init(key)`` on the key's first element, ``reduce(state,
    element)`` on each; when the input ends, ``finalize(state)`` per key in ascending key
    order (as TensorFlow's ordered map gives them)."""

    def __init__(self, up: Iterable[Element], fns: Dict[str, dv.Function]):
        self.up, self.fns = up, fns

    def __iter__(self) -> Iterator[Element]:
        states: Dict[int, List[np.ndarray]] = {}
        f = self.fns
        for e in self.up:
            k = dv.scalar_int(f["key"], e, "group_by_reducer key_func")
            if k not in states:
                states[k] = f["init"]((np.asarray(k, dtype=np.int64),))
            states[k] = f["reduce"](tuple(states[k]) + tuple(e))
        for k in sorted(states):
            yield tuple(f["finalize"](tuple(states.pop(k))))


_REDUCER_FNS = ("key", "init", "reduce", "finalize")


def _check_group_by_reducer(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    for k in _REDUCER_FNS:
        _check_fn(st.get(k), f"group_by_reducer {k} function", op_name)
    return st


def _build_group_by_reducer(node: Iterable[Element], st: Dict[str, Any],
                            compile_fn: Any) -> Any:
    return GroupByReducer(node, {k: compile_fn(dict(st[k], op="group_by_reducer"))
                                 for k in _REDUCER_FNS})


# -- assert_cardinality / pad_to_cardinality ------------------------------------------------

def _count_words(n: int) -> str:
    return "an infinite number of" if n < 0 else str(n)


class AssertCardinality:
    """The input unchanged; FailedPreconditionError as soon as it holds more elements
    than expected, or when it ends with fewer."""

    def __init__(self, up: Iterable[Element], expected: int):
        self.up, self.expected = up, expected

    def __iter__(self) -> Iterator[Element]:
        n = 0
        for e in self.up:
            n += 1
            if 0 <= self.expected < n:
                raise errors.FailedPreconditionError(
                    None, None, f"Input dataset was expected to contain {self.expected} "
                    f"elements but contained at least {n} elements.")
            yield e
        if self.expected < 0 or n < self.expected:
            raise errors.FailedPreconditionError(
                None, None, f"Input dataset was expected to contain "
                f"{_count_words(self.expected)} elements but contained only {n} elements.")


class PadToCardinality:
    """Each element with a true mask component inserted at ``mask_index``; after the
    input ends, padding elements (zeros, a false mask) up to ``cardinality``."""

    def __init__(self, up: Iterable[Element], cardinality: int, mask_index: int,
                 padding: List[np.ndarray]):
        self.up, self.n, self.mask_index, self.padding = up, cardinality, mask_index, padding

    def _with_mask(self, e: Element, valid: bool) -> Element:
        i = self.mask_index
        return tuple(e[:i]) + (np.asarray(valid),) + tuple(e[i:])

    def __iter__(self) -> Iterator[Element]:
        n = 0
        for e in self.up:
            n += 1
            if n > self.n:
                raise errors.InvalidArgumentError(
                    None, None, f"pad_to_cardinality: the input holds more than the target "
                    f"cardinality ({self.n}) elements")
            yield self._with_mask(e, True)
        for _ in range(self.n - n):
            yield self._with_mask(tuple(p.copy() for p in self.padding), False)


def _check_assert(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    _check_count(st, -1, op_name)
    return st


def _check_pad(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    _check_count(st, 0, op_name)
    padding = _check_arrays(st.get("padding"), "pad_to_cardinality padding", op_name)
    i = st.get("mask_index")
    if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or \
            not 0 <= i <= len(padding):
        raise _invalid(op_name, f"pad_to_cardinality: mask_index must be in [0, "
                                f"{len(padding)}], got {i!r}")
    return st


register_stage("scan", _check_scan, _build_scan)
register_stage("group_by_reducer", _check_group_by_reducer, _build_group_by_reducer)
register_stage("assert_cardinality", _check_assert,
               lambda node, st, _: AssertCardinality(node, int(st["cardinality"])))
register_stage("pad_to_cardinality", _check_pad,
               lambda node, st, _: PadToCardinality(node, int(st["cardinality"]),
                                                    int(st["mask_index"]),
                                                    list(st["padding"])))

__all__ = ["Scan", "GroupByReducer", "AssertCardinality", "PadToCardinality"]
