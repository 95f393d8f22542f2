"""Reading input files inside a ``tf.data`` pipeline: text lines and TFRecords.

These are pipeline nodes for ``kernels/numpy/dataset_kernels.py``: re-iterables whose
every iteration opens the files again, so an outer ``repeat`` re-reads them.
Files are read lazily, a chunk at a time, so a data set may be far larger than
memory; a file is opened only when the pipeline reaches it.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.platform.tf_record import compression_kind, iter_records, open_for_reading

READERS = ("text", "tfrecord", "fixed")
# The layout fields of the "fixed" reader (FixedLengthRecordDataset).
FIXED_LAYOUT = ("record_bytes", "header_bytes", "footer_bytes")
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


def iter_file(path: Any, reader: str, compression: Any = None,
              layout: Optional[Dict[str, int]] = None) -> Iterator[bytes]:
    """The records of one file: lines (``reader="text"``), TFRecords, or records of
    ``layout["record_bytes"]`` bytes between a header and a footer (``"fixed"``)."""
    p = os.fsdecode(path) if isinstance(path, (bytes, str)) else str(path)
    if reader == "text":
        return iter_lines(p, compression)
    if reader == "tfrecord":
        return (data for _, data in iter_records(p, compression))
    if reader == "fixed":
        lay = layout or {}
        return (data for _, data in fixed_length_records(
            os.fsencode(p), int(lay["record_bytes"]), int(lay.get("header_bytes", 0)),
            int(lay.get("footer_bytes", 0)), 0, compression or "", whole=True))
    raise errors.InvalidArgumentError(None, None, f"Unknown file reader {reader!r}; known: "
                                                  f"{READERS}")


def fixed_length_records(name: bytes, record_bytes: int, header_bytes: int,
                          footer_bytes: int, hop_bytes: int, encoding: str,
                          whole: bool = False) -> Iterator[Tuple[bytes, bytes]]:
    """Records at ``header + k * step`` (step is ``hop_bytes`` when positive, else
    ``record_bytes``) that end at or before the footer. The file is streamed: a
    record is emitted once the bytes after it show it cannot lie in the footer. With
    ``whole``, a body that is not a whole number of records is an InvalidArgumentError."""
    step = hop_bytes if hop_bytes > 0 else record_bytes
    f = open_for_reading(name, encoding or None)
    try:
        buf = bytearray()
        base = 0          # file offset of buf[0]
        eof = False
        start = header_bytes
        number = 0
        while True:
            need = start + record_bytes + footer_bytes - base
            while not eof and len(buf) < need:
                try:
                    chunk = f.read(max(_CHUNK, need - len(buf)))
                except (OSError, EOFError) as e:
                    raise errors.DataLossError(None, None, f"{os.fsdecode(name)}: corrupted "
                                                           f"compressed data: {e}") from None
                if not chunk:
                    eof = True
                buf += chunk
            if len(buf) < need:
                body = base + len(buf) - footer_bytes - header_bytes
                if whole and body % record_bytes:
                    raise errors.InvalidArgumentError(
                        None, None, f"Excluding the header ({header_bytes} bytes) and footer "
                        f"({footer_bytes} bytes), input file \"{os.fsdecode(name)}\" has body "
                        f"length {max(body, 0)} bytes, which is not an exact multiple of the "
                        f"record length ({record_bytes} bytes).")
                return
            lo = start - base
            yield b"%s:%d" % (name, number), bytes(buf[lo:lo + record_bytes])
            number += 1
            start += step
            # Drop what no later record can reach, so memory stays bounded.
            drop = start - base
            if drop > _CHUNK:
                del buf[:drop]
                base = start
    finally:
        f.close()


def check_reader(spec: Any, op_name: Optional[str]) -> None:
    """InvalidArgumentError unless ``spec`` names a known reader and compression."""
    if not isinstance(spec, dict) or spec.get("reader") not in READERS:
        raise errors.InvalidArgumentError(op_name, None, f"File reader must be one of "
                                                         f"{READERS}, got {spec!r}")
    try:
        compression_kind(spec.get("compression"))
    except ValueError as e:
        raise errors.InvalidArgumentError(op_name, None, str(e)) from None
    if spec["reader"] == "fixed":
        lay = spec.get("layout")
        if not isinstance(lay, dict) or not all(
                isinstance(lay.get(k), int) and not isinstance(lay.get(k), bool)
                and lay[k] >= (1 if k == "record_bytes" else 0) for k in FIXED_LAYOUT):
            raise errors.InvalidArgumentError(
                op_name, None, f"The fixed-length reader needs record_bytes >= 1 and "
                f"header_bytes, footer_bytes >= 0, got {lay!r}")


class FileRecords:
    """The records of ``filenames``, one file after the other."""

    def __init__(self, filenames: Sequence[Any], reader: str, compression: Any,
                 layout: Optional[Dict[str, int]] = None):
        self.filenames, self.reader, self.compression = list(filenames), reader, compression
        self.layout = layout

    def __iter__(self) -> Iterator[bytes]:
        for name in self.filenames:
            yield from iter_file(name, self.reader, self.compression, self.layout)


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
