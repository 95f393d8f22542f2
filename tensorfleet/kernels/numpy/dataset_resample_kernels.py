"""The ``rejection_resample`` stage (``data/rejection_resampling.py``): elements drawn
from the input so that their classes follow a target distribution."""

from __future__ import annotations

import itertools
from typing import Any, Dict, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels import dataset_values as dv
from tensorfleet.kernels.numpy.dataset_kernels import register_stage, validate_stages

Element = dv.Element
# Classes are counted in blocks of this many elements when the input's distribution is
# estimated (TensorFlow's estimation batch).
ESTIMATION_BLOCK = 32


def acceptance(initial: np.ndarray, target: np.ndarray) -> Tuple[np.ndarray, float]:
    """The acceptance probability of each class and the probability ``m`` of passing an
    input element through unfiltered, so that the mixture follows ``target``."""
    ratio = target / (initial + np.finfo(np.float64).tiny)
    m, top = float(ratio.min()), float(ratio.max())
    if top == m:
        return np.zeros_like(ratio), m
    return (ratio - m) / (top - m), m


class RejectionResample:
    """``(class, element)`` pairs whose classes follow ``target``."""

    def __init__(self, up: Iterable[Element], class_fn: dv.Function, target: np.ndarray,
                 initial: Optional[np.ndarray], seed: Optional[List[int]]):
        self.up, self.class_fn, self.target, self.initial = up, class_fn, target, initial
        self.seed = seed

    def _classified(self) -> Iterator[Tuple[Element, int, np.ndarray, float]]:
        """Input elements with their class and the acceptance in force for them."""
        k = self.target.size
        fixed = None if self.initial is None else acceptance(self.initial, self.target)
        counts = np.zeros(k, dtype=np.int64)
        it = iter(self.up)
        while True:
            block = list(itertools.islice(it, ESTIMATION_BLOCK))
            if not block:
                return
            classes = []
            for e in block:
                c = dv.scalar_int(self.class_fn, e, "rejection_resample class_func")
                if not 0 <= c < k:
                    raise errors.InvalidArgumentError(
                        None, None, f"rejection_resample: class {c} is outside [0, {k})")
                classes.append(c)
            if fixed is None:
                counts += np.bincount(classes, minlength=k)
                a, m = acceptance(counts / counts.sum(), self.target)
            else:
                a, m = fixed
            for e, c in zip(block, classes):
                yield e, c, a, m

    def __iter__(self) -> Iterator[Element]:
        rng = np.random.default_rng(self.seed)
        stream = self._classified()
        for e, c, a, m in stream:
            if rng.random() < m:
                yield self._pair(c, e)
                continue
            # Rejection sampling: the first later element (this one included) accepted.
            while not rng.random() < a[c]:
                nxt = next(stream, None)
                if nxt is None:
                    return
                e, c, a, m = nxt
            yield self._pair(c, e)

    def _pair(self, c: int, e: Element) -> Element:
        return (np.asarray(c),) + tuple(e)


def _check(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    validate_stages([dict(st.get("class") or {}, op="map")], op_name, inner=True)
    target, initial = st.get("target"), st.get("initial")
    if not isinstance(target, np.ndarray) or target.ndim != 1 or target.size == 0 or (
            initial is not None and (not isinstance(initial, np.ndarray) or
                                     initial.shape != target.shape)):
        raise errors.InvalidArgumentError(op_name, None, "rejection_resample: target (and "
                                          "initial) must be vectors of one length")
    seed = st.get("seed")
    if seed is not None and (not isinstance(seed, list) or not all(
            isinstance(v, int) and 0 <= v < 2 ** 64 for v in seed)):
        raise errors.InvalidArgumentError(op_name, None, f"rejection_resample: bad seed "
                                                         f"{seed!r}")
    return st


register_stage("rejection_resample", _check, lambda node, st, compile_fn: RejectionResample(
    node, compile_fn(dict(st["class"], op="rejection_resample")),
    np.asarray(st["target"], dtype=np.float64),
    None if st.get("initial") is None else np.asarray(st["initial"], dtype=np.float64),
    st.get("seed")))

__all__ = ["RejectionResample", "acceptance", "ESTIMATION_BLOCK"]
