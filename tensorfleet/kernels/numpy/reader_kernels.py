"""Reading input files inside a ``tf.data`` pipeline: text lines and TFRecords.

These are pipeline nodes for ``kernels/numpy/dataset_kernels.py``: re-iterables whose
every iteration opens the files again, so an outer ``repeat`` re-reads them.
Files are read lazily, a chunk at a time, so a data set may be far larger than
memory; a file is opened only when the pipeline reaches it.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Iterable, Iterator, List, Optional, Sequence

from tensorfleet import errors
from tensorfleet.platform.tf_record import compression_kind, iter_records, open_for_reading

READERS = ("text", "tfrecord")
_CHUNK = 256 * 1024


def iter_lines(path: str, compression: Any = None) -> Iterator[bytes]:
    """The lines of a text file without their ``\\n`` (or ``\\r\\n``) endings; a last line
    without an ending counts too."""
    f = open_for_reading(path, compression)
    try:
        rest = b""
        while True:
            try:
                chunk = f.read(_CHUNK)
            except (OSError, EOFError) as e:
                raise errors.DataLossError(None, None, f"{path}: corrupted compressed data: "
                                                       f"{e}") from None
            if not chunk:
                break
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                yield line[:-1] if line.endswith(b"\r") else line
        if rest:
            yield rest[:-1] if rest.endswith(b"\r") else rest
    finally:
        f.close()


def iter_file(path: Any, reader: str, compression: Any = None) -> Iterator[bytes]:
    """The records of one file: lines (``reader="text"``) or TFRecords."""
    p = os.fsdecode(path) if isinstance(path, (bytes, str)) else str(path)
    if reader == "text":
        return iter_lines(p, compression)
    if reader == "tfrecord":
        return (data for _, data in iter_records(p, compression))
    raise errors.InvalidArgumentError(None, None, f"Unknown file reader {reader!r}; known: "
                                                  f"{READERS}")


def check_reader(spec: Any, op_name: Optional[str]) -> None:
    """InvalidArgumentError unless ``spec`` names a known reader and compression."""
    if not isinstance(spec, dict) or spec.get("reader") not in READERS:
        raise errors.InvalidArgumentError(op_name, None, f"File reader must be one of "
                                                         f"{READERS}, got {spec!r}")
    try:
        compression_kind(spec.get("compression"))
    except ValueError as e:
        raise errors.InvalidArgumentError(op_name, None, str(e)) from None


class FileRecords:
    """The records of ``filenames``, one file after the other."""

    def __init__(self, filenames: Sequence[Any], reader: str, compression: Any):
        self.filenames, self.reader, self.compression = list(filenames), reader, compression

    def __iter__(self) -> Iterator[bytes]:
        for name in self.filenames:
            yield from iter_file(name, self.reader, self.compression)


class Interleave:
    """``interleave``: up to ``cycle`` inputs open at once, ``block`` records from each in
    turn; an input that ends is replaced by the next element of ``up``.

    ``make_inner(element)`` is the re-iterable of records for one upstream element
    (a file name, after the inner data set's own stages).
    """

    def __init__(self, up: Iterable[Any], make_inner: Callable[[Any], Iterable[Any]],
                 cycle: int, block: int):
        self.up, self.make_inner, self.cycle, self.block = up, make_inner, cycle, block

    def __iter__(self) -> Iterator[Any]:
        sources = iter(self.up)
        active: List[Optional[Iterator[Any]]] = []
        exhausted = False
        while True:
            while not exhausted and len(active) < self.cycle:
                nxt = next(sources, _END)
                if nxt is _END:
                    exhausted = True
                else:
                    active.append(iter(self.make_inner(nxt)))
            if not active:
                return
            for slot in range(len(active)):
                it = active[slot]
                for _ in range(self.block):
                    item = next(it, _END) if it is not None else _END
                    if item is _END:
                        active[slot] = None
                        break
                    yield item
                if active[slot] is None and not exhausted:
                    # Refill this slot at once, as the cycle order promises.
                    nxt = next(sources, _END)
                    if nxt is _END:
                        exhausted = True
                    else:
                        active[slot] = iter(self.make_inner(nxt))
            active = [it for it in active if it is not None]


_END = object()


__all__ = ["READERS", "FileRecords", "Interleave", "iter_file", "iter_lines", "check_reader"]
