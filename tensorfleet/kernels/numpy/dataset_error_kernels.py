"""The ``ignore_errors`` stage (``data/error_tolerance.py``): elements whose map or filter
function fails are dropped, and the pipeline goes on with the next one.

The map and filter stages directly before ``ignore_errors`` are rebuilt to catch their
function's error per element. Any other stage that fails (a reader, a batch holding a
failed element) cannot resume after raising, so its error ends the sequence there; TensorFlow
also stops or loses elements in that case. OutOfRangeError is never caught: it is the end.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, Iterable, Iterator, Optional

from tensorfleet import errors
from tensorfleet.kernels import dataset_values as dv
from tensorfleet.kernels.numpy.dataset_kernels import register_stage

logger = logging.getLogger(__name__)
Element = dv.Element


def _report(log_warning: bool, err: errors.OpError, what: str) -> None:
    (logger.warning if log_warning else logger.debug)(
        "ignore_errors: %s: %s", what, err.message)


def _failed(err: BaseException) -> bool:
    return isinstance(err, errors.OpError) and not isinstance(err, errors.OutOfRangeError)


class _SkipFailedMap:
    def __init__(self, up: Iterable[Element], fn: dv.Function, log_warning: bool):
        self.up, self.fn, self.log_warning = up, fn, log_warning

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            try:
                out = self.fn(e)
            except errors.OpError as err:
                if not _failed(err):
                    raise
                _report(self.log_warning, err, "dropped an element whose map failed")
                continue
            yield tuple(out)


class _SkipFailedFilter:
    def __init__(self, up: Iterable[Element], fn: dv.Function, log_warning: bool):
        self.up, self.fn, self.log_warning = up, fn, log_warning

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            try:
                kept = list(dv.Filter([e], self.fn))
            except errors.OpError as err:
                if not _failed(err):
                    raise
                _report(self.log_warning, err, "dropped an element whose filter failed")
                continue
            yield from kept


class _EndOnError:
    def __init__(self, up: Iterable[Element], log_warning: bool):
        self.up, self.log_warning = up, log_warning

    def __iter__(self) -> Iterator[Element]:
        it = iter(self.up)
        while True:
            try:
                e = next(it)
            except StopIteration:
                return
            except errors.OpError as err:
                if not _failed(err):
                    raise
                _report(self.log_warning, err, "a stage failed, ending the sequence")
                return
            yield e


def tolerant(node: Any, log_warning: bool) -> Any:
    """``node`` with its trailing map and filter stages dropping failed elements and any
    other failure ending the sequence."""
    if type(node) is dv.Map:
        return _SkipFailedMap(tolerant(node.up, log_warning), node.fn, log_warning)
    if type(node) is dv.Filter:
        return _SkipFailedFilter(tolerant(node.up, log_warning), node.fn, log_warning)
    return _EndOnError(node, log_warning)


def _check(st: Dict[str, Any], op_name: Optional[str]) -> Dict[str, Any]:
    if not isinstance(st.get("log_warning"), bool):
        raise errors.InvalidArgumentError(op_name, None, "ignore_errors: log_warning must be "
                                                         "a bool")
    return st


register_stage("ignore_errors", _check,
               lambda node, st, _: tolerant(node, st["log_warning"]))

__all__ = ["tolerant"]
