"""Queue-era file readers: the reader resources and the numpy kernels that drive them.

A reader is a stateful resource in its task's ``ResourceManager``. It works through
one file (a *work unit*) at a time; when the current file is exhausted, the next
``read`` dequeues another file name from the queue it is given, blocking as a
queue dequeue does, and raising OutOfRangeError once that queue is closed and empty.
Records are produced lazily from an iterator per file, so a file is never held in
memory whole (except by ``WholeFileReader``, whose record is the whole file).
"""

from __future__ import annotations

import glob
import logging
import os
import threading
from typing import Any, Callable, Iterator, List, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.kernels.numpy.reader_kernels import fixed_length_records as _fixed_length_records
from tensorfleet.kernels.numpy.reader_kernels import iter_lines
from tensorfleet.platform.tf_record import compression_kind, iter_records, open_for_reading
from tensorfleet.kernels.queue_resources import FIFOQueueResource
from tensorfleet.kernels.registry import KernelContext, register_kernel

logger = logging.getLogger(__name__)

Record = Tuple[bytes, bytes]
CancelCheck = Optional[Callable[[], bool]]
_CHUNK = 256 * 1024


# -- per-format record iterators ----------------------------------------------------------------

def _text_records(name: bytes, skip_header_lines: int) -> Iterator[Record]:
    # Line numbers count from 1 and include the skipped header lines, so a key
    # points at the physical line of the file.
    for number, line in enumerate(iter_lines(name), start=1):
        if number > skip_header_lines:
            yield b"%s:%d" % (name, number), line


def _tfrecord_records(name: bytes, compression: str) -> Iterator[Record]:
    for offset, data in iter_records(name, compression or None):
        yield b"%s:%d" % (name, offset), data


def _whole_file_records(name: bytes) -> Iterator[Record]:
    f = open_for_reading(name)
    try:
        data = f.read()
    finally:
        f.close()
    yield name, data


# -- the resource -----------------------------------------------------------------------------

class ReaderResource:
    """A reader: its current file's record iterator and its counters.

    Args:
      name: the resource name, used in error messages.
      kind: the reader op type (``TextLineReaderV2``, ...).
      open_file: ``fn(filename bytes) -> iterator of (key, value)``.
    """

    def __init__(self, name: str, kind: str, open_file: Callable[[bytes], Iterator[Record]]):
        self.name = name
        self.kind = kind
        self._open_file = open_file
        self._lock = threading.Lock()
        self._records: Optional[Iterator[Record]] = None
        self._work = b""
        self.num_records_produced = 0
        self.num_work_units_completed = 0

    def read(self) -> np.ndarray:
        """What fetching the reader's handle yields: its name, as a string scalar."""
        return np.array(self.name.encode(), dtype=object)

    def _next_work(self, queue: FIFOQueueResource, cancelled: CancelCheck) -> None:
        row = queue.dequeue(cancelled=cancelled)
        work = np.asarray(row[0])
        if work.ndim != 0 or not isinstance(work.item(), (bytes, str)):
            raise errors.InvalidArgumentError(
                None, None, f"{self.kind} '{self.name}' expects its queue to hold scalar "
                f"string file names, got {work.dtype} of shape {list(work.shape)}")
        item = work.item()
        self._work = item if isinstance(item, bytes) else item.encode()
        self._records = self._open_file(self._work)

    def _finish_work(self) -> None:
        self._records = None
        self._work = b""
        self.num_work_units_completed += 1

    def read_records(self, queue: FIFOQueueResource, limit: int,
                     cancelled: CancelCheck) -> List[Record]:
        """Up to ``limit`` records from one file (at least one), taking new files from
        ``queue`` while the current one is exhausted."""
        with self._lock:
            out: List[Record] = []
            while not out:
                if self._records is None:
                    self._next_work(queue, cancelled)
                try:
                    while len(out) < limit:
                        rec = next(self._records, None)  # type: ignore[arg-type]
                        if rec is None:
                            self._finish_work()
                            break
                        out.append(rec)
                except errors.OpError:
                    # A damaged or missing file ends its work unit, as TensorFlow does,
                    # so the next read moves on instead of failing forever.
                    self._finish_work()
                    raise
            self.num_records_produced += len(out)
            return out

    def reset(self) -> None:
        """Forgets the current file and zeroes the counters."""
        with self._lock:
            self._records = None
            self._work = b""
            self.num_records_produced = 0
            self.num_work_units_completed = 0


# -- kernels ------------------------------------------------------------------------------------

def _int_attr(ctx: KernelContext, key: str, default: int = 0) -> int:
    v = ctx.attrs.get(key, default)
    return default if v is None else int(v)


def _opener(ctx: KernelContext) -> Callable[[bytes], Iterator[Record]]:
    t = ctx.op_type
    if t == "TextLineReaderV2":
        skip = _int_attr(ctx, "skip_header_lines")
        return lambda name: _text_records(name, skip)
    if t == "TFRecordReaderV2":
        comp = str(ctx.attrs.get("compression_type") or "")
        try:
            compression_kind(comp)
        except ValueError as e:
            raise errors.InvalidArgumentError(ctx.op_name, None, str(e)) from None
        return lambda name: _tfrecord_records(name, comp)
    if t == "WholeFileReaderV2":
        return _whole_file_records
    if t == "IdentityReaderV2":
        return lambda work: iter([(work, work)])
    rb = _int_attr(ctx, "record_bytes")
    hb, fb, hop = (_int_attr(ctx, k) for k in ("header_bytes", "footer_bytes", "hop_bytes"))
    enc = str(ctx.attrs.get("encoding") or "")
    if rb <= 0 or min(hb, fb, hop) < 0:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"FixedLengthRecordReader needs record_bytes > 0 and "
            f"non-negative header_bytes, footer_bytes, hop_bytes; got {rb}, {hb}, {fb}, {hop}")
    return lambda name: _fixed_length_records(name, rb, hb, fb, hop, enc)


def _reader_op(ctx: KernelContext) -> ReaderResource:
    name = ctx.attrs.get("shared_name") or ctx.op_name
    r = ctx.resources.lookup_or_create(
        ctx.attrs.get("container", ""), name,
        lambda: ReaderResource(name, ctx.op_type, _opener(ctx)))
    if not isinstance(r, ReaderResource) or r.kind != ctx.op_type:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"Resource {name!r} exists and is not a {ctx.op_type} "
            f"({getattr(r, 'kind', type(r).__name__)})")
    return r


for _t in ("TextLineReaderV2", "TFRecordReaderV2", "WholeFileReaderV2",
           "FixedLengthRecordReaderV2", "IdentityReaderV2"):
    register_kernel(_t)(_reader_op)


def _check(ctx: KernelContext, reader: Any, queue: Any = None) -> ReaderResource:
    if not isinstance(reader, ReaderResource):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type} needs a reader reference as input 0, got "
            f"{type(reader).__name__}")
    if queue is not None and not isinstance(queue, FIFOQueueResource):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"{ctx.op_type} needs a queue reference as input 1, got "
            f"{type(queue).__name__}")
    return reader


def _strings(values: List[bytes]) -> np.ndarray:
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


@register_kernel("ReaderReadV2")
def _read(ctx: KernelContext, reader: Any, queue: Any) -> Tuple[np.ndarray, np.ndarray]:
    key, value = _check(ctx, reader, queue).read_records(queue, 1, ctx.cancel_check())[0]
    return np.array(key, dtype=object), np.array(value, dtype=object)


@register_kernel("ReaderReadUpToV2")
def _read_up_to(ctx: KernelContext, reader: Any, queue: Any,
                num_records: Any) -> Tuple[np.ndarray, np.ndarray]:
    n = np.asarray(num_records)
    if n.ndim != 0 or n.dtype.kind not in "iu" or int(n) < 1:
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"ReaderReadUpTo: num_records must be a positive integer "
            f"scalar, got {n.tolist()!r}")
    recs = _check(ctx, reader, queue).read_records(queue, int(n), ctx.cancel_check())
    return _strings([k for k, _ in recs]), _strings([v for _, v in recs])


@register_kernel("ReaderNumRecordsProducedV2")
def _num_records(ctx: KernelContext, reader: Any) -> np.ndarray:
    return np.array(_check(ctx, reader).num_records_produced, dtype=np.int64)


@register_kernel("ReaderNumWorkUnitsCompletedV2")
def _num_work_units(ctx: KernelContext, reader: Any) -> np.ndarray:
    return np.array(_check(ctx, reader).num_work_units_completed, dtype=np.int64)


@register_kernel("ReaderResetV2")
def _reset(ctx: KernelContext, reader: Any) -> None:
    _check(ctx, reader).reset()


@register_kernel("MatchingFiles")
def _matching_files(ctx: KernelContext, pattern: Any) -> np.ndarray:
    pats = np.asarray(pattern).reshape(-1)
    found: List[bytes] = []
    for p in pats.tolist():
        p = p if isinstance(p, bytes) else str(p).encode()
        found.extend(sorted(glob.glob(p)))
    return _strings(found)


__all__ = ["ReaderResource"]
