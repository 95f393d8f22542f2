"""The sorted string table (LevelDB's table format) that a checkpoint's ``.index`` is.

A table maps byte-string keys, added in strictly increasing order, to byte-string
values. Its layout, as TensorFlow's tensor-bundle index uses it (no compression):

* data blocks, each a run of entries ``varint32 shared | varint32 unshared |
  varint32 value length | key suffix | value`` (a key shares ``shared`` leading
  bytes with the previous one, except at restart points, every 16 entries),
  followed by the restart offsets (fixed32 each) and their count (fixed32);
* after every block a 5-byte trailer: the compression type (0, none) and the
  masked CRC-32C of the block and that type byte;
* an empty meta-index block and the index block, whose entries map a key at or
  after the last key of each data block to that block's handle (varint64 offset,
  varint64 size);
* a 48-byte footer: the meta-index and index handles, zero padding to 40 bytes,
  then the magic number 0xdb4775248b80fb57 (fixed64).

Reading checks every size and offset against the bytes actually present before
using it, and every block's checksum, so a truncated or altered file is a
``DataLossError`` naming the file, never an oversized allocation or a wrong value.
"""

from __future__ import annotations

import os
import struct
from typing import Dict, Iterable, List, Optional, Tuple

import crc32c as _crc32c

from tensorfleet import errors

MAGIC = 0xDB4775248B80FB57
FOOTER_SIZE = 48
BLOCK_TRAILER_SIZE = 5
_HANDLE_MAX = 20  # two varint64s
NO_COMPRESSION = 0
DEFAULT_BLOCK_SIZE = 256 * 1024
DEFAULT_RESTART_INTERVAL = 16
# An index of a checkpoint holds one small entry per tensor; a file far larger than
# any real one is refused before it is read into memory.
MAX_TABLE_BYTES = 1 << 31
_MASK_DELTA = 0xA282EAD8


def masked_crc32c(data: bytes, crc: int = 0) -> int:
    """The CRC-32C of ``data`` (extending ``crc``), masked as the table format stores it."""
    c = _crc32c.crc32c(data, crc)
    return (((c >> 15) | (c << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def unmask_crc32c(masked: int) -> int:
    """The CRC-32C that ``masked_crc32c`` masked."""
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF


def put_varint(n: int) -> bytes:
    """``n`` (non-negative) as a little-endian base-128 varint."""
    if n < 0:
        raise ValueError(f"varint of a negative number {n}")
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def get_varint(data: bytes, pos: int, limit: int, max_bits: int = 64) -> Tuple[int, int]:
    """``(value, next position)`` of the varint at ``pos``; ValueError if it runs past
    ``limit`` or holds more than ``max_bits`` bits."""
    result = 0
    shift = 0
    while True:
        if pos >= limit:
            raise ValueError("varint runs past the end of its block")
        b = data[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            break
        shift += 7
        if shift >= max_bits:
            raise ValueError("varint too long")
    if result >> max_bits:
        raise ValueError("varint too large")
    return result, pos


class _BlockBuilder:
    def __init__(self, restart_interval: int):
        self._interval = restart_interval
        self._buf = bytearray()
        self._restarts = [0]
        self._counter = 0
        self._last = b""
        self.empty = True

    def add(self, key: bytes, value: bytes) -> None:
        shared = 0
        if self._counter < self._interval:
            limit = min(len(self._last), len(key))
            while shared < limit and self._last[shared] == key[shared]:
                shared += 1
        else:
            self._restarts.append(len(self._buf))
            self._counter = 0
        self._buf += put_varint(shared) + put_varint(len(key) - shared) + put_varint(len(value))
        self._buf += key[shared:] + value
        self._last = key
        self._counter += 1
        self.empty = False

    def size_estimate(self) -> int:
        return len(self._buf) + 4 * len(self._restarts) + 4

    def finish(self) -> bytes:
        tail = b"".join(struct.pack("<I", r) for r in self._restarts)
        return bytes(self._buf) + tail + struct.pack("<I", len(self._restarts))


def _shortest_separator(start: bytes, limit: bytes) -> bytes:
    """A short key ``k`` with ``start <= k < limit`` (LevelDB's bytewise comparator)."""
    n = min(len(start), len(limit))
    i = 0
    while i < n and start[i] == limit[i]:
        i += 1
    if i < n:
        b = start[i]
        if b < 0xFF and b + 1 < limit[i]:
            return start[:i] + bytes([b + 1])
    return start


def _short_successor(key: bytes) -> bytes:
    for i, b in enumerate(key):
        if b != 0xFF:
            return key[:i] + bytes([b + 1])
    return key


def _handle(offset: int, size: int) -> bytes:
    return put_varint(offset) + put_varint(size)


def build_table(items: Iterable[Tuple[bytes, bytes]], block_size: int = DEFAULT_BLOCK_SIZE,
                restart_interval: int = DEFAULT_RESTART_INTERVAL) -> bytes:
    """The bytes of a table holding ``items``, whose keys must strictly increase.

    Raises:
      ValueError: a key is not greater than the one before it.
    """
    out = bytearray()
    index = _BlockBuilder(1)
    block = _BlockBuilder(restart_interval)
    last: Optional[bytes] = None
    pending: Optional[Tuple[int, int]] = None

    def flush() -> Tuple[int, int]:
        contents = block.finish()
        offset = len(out)
        out.extend(contents)
        out.extend(bytes([NO_COMPRESSION]))
        out.extend(struct.pack("<I", masked_crc32c(contents + bytes([NO_COMPRESSION]))))
        return offset, len(contents)

    for key, value in items:
        key, value = bytes(key), bytes(value)
        if last is not None and key <= last:
            raise ValueError(f"table keys must strictly increase: {key!r} after {last!r}")
        if pending is not None:
            index.add(_shortest_separator(last or b"", key), _handle(*pending))
            pending = None
        block.add(key, value)
        last = key
        if block.size_estimate() >= block_size:
            pending = flush()
            block = _BlockBuilder(restart_interval)
    if not block.empty:
        pending = flush()
    if pending is not None:
        index.add(_short_successor(last or b""), _handle(*pending))

    def write_block(b: _BlockBuilder) -> Tuple[int, int]:
        contents = b.finish()
        offset = len(out)
        out.extend(contents + bytes([NO_COMPRESSION]))
        out.extend(struct.pack("<I", masked_crc32c(contents + bytes([NO_COMPRESSION]))))
        return offset, len(contents)

    meta_handle = write_block(_BlockBuilder(restart_interval))
    index_handle = write_block(index)
    handles = _handle(*meta_handle) + _handle(*index_handle)
    footer = handles + b"\0" * (2 * _HANDLE_MAX - len(handles))
    footer += struct.pack("<II", MAGIC & 0xFFFFFFFF, MAGIC >> 32)
    out.extend(footer)
    return bytes(out)


class TableError(ValueError):
    """What is wrong with a table's bytes (the reader adds the file's name)."""


def _read_block(data: bytes, offset: int, size: int, what: str) -> bytes:
    end = offset + size
    if offset < 0 or size < 0 or end + BLOCK_TRAILER_SIZE > len(data):
        raise TableError(f"{what} at offset {offset} of {size} bytes lies past the end of the "
                         f"file ({len(data)} bytes)")
    contents = data[offset:end]
    kind = data[end]
    (stored,) = struct.unpack_from("<I", data, end + 1)
    if masked_crc32c(data[offset:end + 1]) != stored:
        raise TableError(f"{what} at offset {offset} fails its CRC-32C check")
    if kind != NO_COMPRESSION:
        raise TableError(f"{what} at offset {offset} is compressed (type {kind}); only "
                         f"uncompressed tables are read")
    return contents


def _block_entries(block: bytes, what: str) -> List[Tuple[bytes, bytes]]:
    if len(block) < 4:
        raise TableError(f"{what} is too short ({len(block)} bytes) to hold its restart count")
    (num_restarts,) = struct.unpack_from("<I", block, len(block) - 4)
    if num_restarts > (len(block) - 4) // 4:
        raise TableError(f"{what} claims {num_restarts} restart points, more than its "
                         f"{len(block)} bytes hold")
    limit = len(block) - 4 - 4 * num_restarts
    entries: List[Tuple[bytes, bytes]] = []
    pos = 0
    key = b""
    try:
        while pos < limit:
            shared, pos = get_varint(block, pos, limit, 32)
            unshared, pos = get_varint(block, pos, limit, 32)
            vlen, pos = get_varint(block, pos, limit, 32)
            if shared > len(key):
                raise TableError(f"{what}: an entry shares {shared} bytes with a key of "
                                 f"{len(key)}")
            if pos + unshared + vlen > limit:
                raise TableError(f"{what}: an entry runs past the end of the block")
            key = key[:shared] + block[pos:pos + unshared]
            pos += unshared
            entries.append((key, block[pos:pos + vlen]))
            pos += vlen
    except TableError:
        raise
    except ValueError as e:
        raise TableError(f"{what}: {e}") from None
    return entries


def _decode_handle(value: bytes, what: str) -> Tuple[int, int]:
    try:
        offset, pos = get_varint(value, 0, len(value))
        size, _ = get_varint(value, pos, len(value))
    except ValueError as e:
        raise TableError(f"{what}: bad block handle ({e})") from None
    return offset, size


def parse_table(data: bytes) -> Dict[bytes, bytes]:
    """Every entry of the table in ``data``, in key order.

    Raises:
      TableError: the bytes are not a well-formed, intact table.
    """
    if len(data) < FOOTER_SIZE:
        raise TableError(f"{len(data)} bytes is too short for a table footer ({FOOTER_SIZE})")
    lo, hi = struct.unpack_from("<II", data, len(data) - 8)
    if (hi << 32 | lo) != MAGIC:
        raise TableError("bad magic number: not a sorted string table (or truncated)")
    footer = data[len(data) - FOOTER_SIZE:len(data) - 8]
    try:
        _, pos = get_varint(footer, 0, len(footer))
        _, pos = get_varint(footer, pos, len(footer))
        index_offset, pos = get_varint(footer, pos, len(footer))
        index_size, _ = get_varint(footer, pos, len(footer))
    except ValueError as e:
        raise TableError(f"bad footer ({e})") from None
    body = len(data) - FOOTER_SIZE
    index = _block_entries(_read_block(data[:body], index_offset, index_size, "index block"),
                           "index block")
    out: Dict[bytes, bytes] = {}
    last: Optional[bytes] = None
    for n, (_, handle) in enumerate(index):
        offset, size = _decode_handle(handle, f"index entry {n}")
        what = f"data block {n}"
        for key, value in _block_entries(_read_block(data[:body], offset, size, what), what):
            if last is not None and key <= last:
                raise TableError(f"{what}: keys out of order ({key!r} after {last!r})")
            out[key] = value
            last = key
    return out


def read_table_file(path: str, what: str = "Table") -> Dict[bytes, bytes]:
    """``parse_table`` of the file at ``path``.

    Raises:
      NotFoundError: no such file. DataLossError: the file is damaged or too large,
      naming it (as ``what``, e.g. "Checkpoint index").
    """
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_TABLE_BYTES:
                raise errors.DataLossError(None, None, f"{what} {path} is {size} bytes, more "
                                           f"than the {MAX_TABLE_BYTES} a table may hold")
            data = f.read(size + 1)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{what} {path} does not exist") from None
    except OSError as e:
        raise errors.UnknownError(None, None, f"Failed to read {path}: {e}") from None
    try:
        return parse_table(data)
    except TableError as e:
        raise errors.DataLossError(None, None, f"{what} {path} is corrupt: {e}") from None


__all__ = ["MAGIC", "masked_crc32c", "unmask_crc32c", "put_varint", "get_varint",
           "build_table", "parse_table", "read_table_file", "TableError"]
