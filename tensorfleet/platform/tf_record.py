"""``tf.python_io``: TFRecord files, written and read record by record.

A TFRecord file is a sequence of records, each framed as::

    uint64 length            (little-endian)
    uint32 masked_crc(length bytes)
    byte   data[length]
    uint32 masked_crc(data)

where ``masked_crc(b) = ((c >> 15) | (c << 17)) + 0xa282ead8`` (mod 2**32) and ``c``
is the CRC-32C (Castagnoli) of ``b``. With GZIP or ZLIB compression the whole
stream of framed records is compressed (a gzip member, or a zlib stream), not each
record. Files written here read in any program that follows this format, and the
reverse.

A record whose framing or checksum does not hold, or a file that ends inside a
record, raises ``tf.errors.DataLossError`` naming the file and the byte offset of
the record (in the uncompressed stream).
"""

from __future__ import annotations

import gzip
import io
import os
import struct
import zlib
from typing import IO, Any, Iterator, Optional, Tuple, Union

# The C implementation: the pure-Python CRC-32C runs at ~10 MB/s, too slow for input files.
import crc32c as _crc32c

from tensorfleet import errors

_MASK_DELTA = 0xA282EAD8
_HEADER = struct.Struct("<QI")
_FOOTER = struct.Struct("<I")
_READ_CHUNK = 256 * 1024


def masked_crc32c(data: bytes) -> int:
    """The masked CRC-32C of ``data``, as stored in TFRecord framing."""
    crc = _crc32c.crc32c(data)
    return (((crc >> 15) | (crc << 17)) + _MASK_DELTA) & 0xFFFFFFFF


def encode_record(data: bytes) -> bytes:
    """``data`` framed as one TFRecord (length, its CRC, data, data's CRC)."""
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", masked_crc32c(length)) + data + \
        _FOOTER.pack(masked_crc32c(data))


class TFRecordCompressionType:
    """How a TFRecord file is compressed (as a whole stream)."""

    NONE = 0
    ZLIB = 1
    GZIP = 2


_BY_NAME = {"": TFRecordCompressionType.NONE, "NONE": TFRecordCompressionType.NONE,
            "ZLIB": TFRecordCompressionType.ZLIB, "GZIP": TFRecordCompressionType.GZIP}
_NAMES = {TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
          TFRecordCompressionType.GZIP: "GZIP"}


class TFRecordOptions:
    """Options of a TFRecord file: its compression type and, when writing, level."""

    compression_type_map = {TFRecordCompressionType.ZLIB: "ZLIB",
                            TFRecordCompressionType.GZIP: "GZIP",
                            TFRecordCompressionType.NONE: ""}

    def __init__(self, compression_type: Any = None, compression_level: Optional[int] = None):
        """``compression_type``: a ``TFRecordCompressionType`` value, ``"GZIP"``,
        ``"ZLIB"``, ``""``/``"NONE"`` or None; ``compression_level``: 0-9 (zlib's
        default, 6, when None)."""
        self.compression_type = compression_kind(compression_type)
        if compression_level is not None and (
                isinstance(compression_level, bool) or not isinstance(compression_level, int)
                or not -1 <= compression_level <= 9):
            raise ValueError(f"TFRecordOptions: compression_level must be an int in "
                             f"[-1, 9], got {compression_level!r}")
        self.compression_level = compression_level

    @classmethod
    def get_compression_type_string(cls, options: Any) -> str:
        """``"GZIP"``, ``"ZLIB"`` or ``""`` for options, a type, a string or None."""
        if isinstance(options, TFRecordOptions):
            return _NAMES[options.compression_type]
        return _NAMES[compression_kind(options)]


def compression_kind(value: Any) -> int:
    """A ``TFRecordCompressionType`` value from options, a name, a value or None."""
    if value is None:
        return TFRecordCompressionType.NONE
    if isinstance(value, TFRecordOptions):
        return value.compression_type
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if isinstance(value, str):
        kind = _BY_NAME.get(value.upper())
        if kind is None:
            raise ValueError(f"Unknown TFRecord compression type {value!r}; expected "
                             f"'', 'ZLIB' or 'GZIP'")
        return kind
    if not isinstance(value, bool) and isinstance(value, int) and value in _NAMES:
        return value
    raise ValueError(f"Unknown TFRecord compression type {value!r}; expected a "
                     f"TFRecordCompressionType value, 'ZLIB', 'GZIP' or ''")


class _ZlibWriter:
    """A file object that zlib-compresses what is written to it (zlib header included)."""

    def __init__(self, raw: IO[bytes], level: int):
        self._raw = raw
        self._z = zlib.compressobj(level, zlib.DEFLATED, zlib.MAX_WBITS)

    def write(self, data: bytes) -> None:
        self._raw.write(self._z.compress(data))

    def flush(self) -> None:
        self._raw.write(self._z.flush(zlib.Z_SYNC_FLUSH))
        self._raw.flush()

    def close(self) -> None:
        try:
            self._raw.write(self._z.flush(zlib.Z_FINISH))
        finally:
            self._raw.close()


class _ZlibReader:
    """A readable file object over a zlib stream."""

    def __init__(self, raw: IO[bytes]):
        self._raw = raw
        self._z = zlib.decompressobj(zlib.MAX_WBITS)
        self._buf = b""

    def read(self, n: int) -> bytes:
        while len(self._buf) < n and not self._z.eof:
            chunk = self._raw.read(_READ_CHUNK)
            if not chunk:
                break
            self._buf += self._z.decompress(chunk)
        out, self._buf = self._buf[:n], self._buf[n:]
        return out

    def close(self) -> None:
        self._raw.close()


def _path(path: Any) -> str:
    if isinstance(path, bytes):
        return path.decode("utf-8")
    return os.fspath(path)


def open_for_reading(path: Any, compression: Any = None) -> Any:
    """A binary reader of the uncompressed content of ``path``.

    NotFoundError when the file is missing, as every reader of files here raises.
    """
    p = _path(path)
    kind = compression_kind(compression)
    try:
        raw = open(p, "rb")
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{p}; No such file or directory") from None
    except IsADirectoryError:
        raise errors.FailedPreconditionError(None, None, f"{p}; Is a directory") from None
    if kind == TFRecordCompressionType.GZIP:
        return gzip.GzipFile(fileobj=raw, mode="rb")
    if kind == TFRecordCompressionType.ZLIB:
        return _ZlibReader(raw)
    return raw


# A record's declared length is untrusted: its bytes are read in pieces of this size,
# so memory follows the bytes the file really holds, not the number it declares.
_READ_PIECE = 16 << 20


def _read_exact(f: Any, n: int, path: str, offset: int) -> bytes:
    """Up to ``n`` bytes of ``f`` (fewer at the end of the file)."""
    pieces = []
    left = n
    try:
        while left > 0:
            piece = f.read(min(left, _READ_PIECE))
            if not piece:
                break
            pieces.append(piece)
            left -= len(piece)
    except (OSError, EOFError, zlib.error) as e:
        raise errors.DataLossError(None, None, f"{path}: corrupted compressed data near "
                                               f"record offset {offset}: {e}") from None
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def _remaining(f: Any, position: int) -> float:
    """Bytes left after ``position`` in an uncompressed file; infinite for a compressed
    stream, whose length is known only by reading it."""
    try:
        size = os.fstat(f.fileno()).st_size
    except (AttributeError, OSError, ValueError):
        return float("inf")
    if not isinstance(f, io.BufferedReader):
        return float("inf")
    return max(0, size - position)


def iter_records(path: Any, compression: Any = None) -> Iterator[Tuple[int, bytes]]:
    """``(offset, data)`` of every record of a TFRecord file, in order.

    Raises:
      NotFoundError: no such file.
      DataLossError: a damaged record or a truncated file, naming path and offset.
    """
    p = _path(path)
    f = open_for_reading(p, compression)
    offset = 0
    try:
        while True:
            head = _read_exact(f, _HEADER.size, p, offset)
            if not head:
                return
            if len(head) < _HEADER.size:
                raise errors.DataLossError(None, None, f"{p}: truncated record at offset "
                                                       f"{offset} (header of {len(head)} bytes)")
            length, length_crc = _HEADER.unpack(head)
            if length_crc != masked_crc32c(head[:8]):
                raise errors.DataLossError(None, None, f"{p}: corrupted record at offset "
                                                       f"{offset} (length checksum mismatch)")
            if length > _remaining(f, offset + _HEADER.size):
                raise errors.DataLossError(None, None, f"{p}: truncated record at offset "
                                                       f"{offset} (declares {length} data "
                                                       f"bytes, more than the file holds)")
            body = _read_exact(f, length + _FOOTER.size, p, offset)
            if len(body) < length + _FOOTER.size:
                raise errors.DataLossError(None, None, f"{p}: truncated record at offset "
                                                       f"{offset} (expected {length} data "
                                                       f"bytes and a checksum)")
            data = body[:length]
            if _FOOTER.unpack(body[length:])[0] != masked_crc32c(data):
                raise errors.DataLossError(None, None, f"{p}: corrupted record at offset "
                                                       f"{offset} (data checksum mismatch)")
            yield offset, data
            offset += _HEADER.size + length + _FOOTER.size
    finally:
        f.close()


def tf_record_iterator(path: Any, options: Any = None) -> Iterator[bytes]:
    """Yields the records of the TFRecord file ``path`` as bytes.

    ``options``: a ``TFRecordOptions`` or a compression type (None: uncompressed).
    The file is opened when iteration starts; see ``iter_records`` for the errors.
    """
    kind = compression_kind(options)
    for _, data in iter_records(path, kind):
        yield data


class TFRecordWriter:
    """Writes records to a TFRecord file (created or truncated at construction)."""

    def __init__(self, path: Any, options: Any = None):
        """``options``: a ``TFRecordOptions`` or a compression type (None: uncompressed)."""
        p = _path(path)
        kind = compression_kind(options)
        level = options.compression_level if isinstance(options, TFRecordOptions) else None
        level = 6 if level is None or level < 0 else level
        try:
            raw = open(p, "wb")
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{p}; No such file or directory") from None
        except IsADirectoryError:
            raise errors.FailedPreconditionError(None, None, f"{p}; Is a directory") from None
        self._path = p
        self._f: Any
        if kind == TFRecordCompressionType.GZIP:
            # mtime=0 and no file name: the same records give the same bytes.
            self._f = gzip.GzipFile(filename="", fileobj=raw, mode="wb",
                                    compresslevel=level, mtime=0)
            self._raw: Optional[IO[bytes]] = raw
        elif kind == TFRecordCompressionType.ZLIB:
            self._f, self._raw = _ZlibWriter(raw, level), None
        else:
            self._f, self._raw = raw, None
        self._closed = False

    def write(self, record: Union[bytes, str]) -> None:
        """Appends one record (bytes; a str is written as UTF-8)."""
        if self._closed:
            raise errors.FailedPreconditionError(None, None, f"{self._path}: write to a "
                                                             f"closed TFRecordWriter")
        if isinstance(record, str):
            record = record.encode("utf-8")
        if not isinstance(record, (bytes, bytearray, memoryview)):
            raise TypeError(f"TFRecordWriter.write takes bytes, got "
                            f"{type(record).__name__}")
        self._f.write(encode_record(bytes(record)))

    def flush(self) -> None:
        """Pushes what was written so far to the file (readable up to here)."""
        if self._closed:
            return
        self._f.flush()
        if self._raw is not None:
            self._raw.flush()

    def close(self) -> None:
        """Finishes the file (the compressed stream's trailer too); idempotent."""
        if self._closed:
            return
        self._closed = True
        self._f.close()
        if self._raw is not None:
            self._raw.close()

    def __enter__(self) -> "TFRecordWriter":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001  (nothing to report to at interpreter exit)
            pass


__all__ = ["TFRecordWriter", "tf_record_iterator", "TFRecordOptions",
           "TFRecordCompressionType"]
