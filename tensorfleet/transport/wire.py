"""Message coding: a small JSON header plus raw tensor buffers, decoded strictly.

A message is ``(header, tensors)``: ``header`` is a dict of plain JSON data and
``tensors`` a list of numpy arrays. One encoded message (a *frame*) is laid out
as follows, all integers little-endian::

    prefix   magic b"TFLT" | version u16 | flags u16 | header length u32 | tensor count u32
    header   UTF-8 JSON object
    table    per tensor: dtype code u16 | rank u16 | dims u64 * rank | byte length u64
    (zero padding up to a multiple of 8)
    data     per tensor: its bytes in C order, zero-padded to a multiple of 8

String tensors (numpy object arrays of ``bytes``) hold, in place of raw bytes, a
sequence of u32-length-prefixed byte strings. Padding keeps every decoded array
aligned, so ``decode`` can return zero-copy views of the received buffer.

Every byte decoded here may come from a hostile peer: each declared length is
checked against the bytes that remain and against a maximum message size before
anything is allocated. Malformed input raises ``InvalidArgumentError``, truncated
input ``DataLossError``; nothing else escapes ``decode``.

Messages larger than one gRPC message travel as a *chunk stream*: a 16-byte
stream header (magic b"TFLS", version, flags, total size u64) followed by the
frame cut into chunks of ``CHUNK_BYTES``; ``reassemble`` copies them into one
buffer of the declared total, reserved only once a ``1/RESERVE_RATIO`` share of
it has arrived: a header that declares 2 GiB and sends nothing costs nothing.

Header numbers must be finite: ``1e400`` (which would read as infinity), ``NaN``
and ``Infinity`` are refused, so no handler ever sees a non-finite timeout or size.
"""

from __future__ import annotations

import json
import math
import struct
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.transport import buffers

WIRE_VERSION = 1
MAGIC = b"TFLT"
STREAM_MAGIC = b"TFLS"
CHUNK_BYTES = 4 << 20
DEFAULT_MAX_MESSAGE_BYTES = 2 << 30
MAX_RANK = 32
MAX_HEADER_DEPTH = 64
ALIGN = 8
# reassemble reserves a stream's buffer once 1/RESERVE_RATIO of its bytes are in.
RESERVE_RATIO = 4

_PREFIX = struct.Struct("<4sHHII")
_STREAM_HEADER = struct.Struct("<4sHHQ")
_ENTRY_HEAD = struct.Struct("<HH")
_U64 = struct.Struct("<Q")
_U32 = struct.Struct("<I")
PREFIX_BYTES = _PREFIX.size
STREAM_HEADER_BYTES = _STREAM_HEADER.size

Buffer = Union[bytes, bytearray, memoryview, np.ndarray]
Message = Tuple[Dict[str, Any], List[np.ndarray]]


def _allowed_dtypes() -> Dict[int, _dtypes.DType]:
    # Built from the public dtype names so a dtype added there is accepted here,
    # and nothing else (no object arrays of arbitrary Python values) ever is.
    table: Dict[int, _dtypes.DType] = {}
    for name in _dtypes.__all__:
        value = getattr(_dtypes, name, None)
        if isinstance(value, _dtypes.DType):
            table[value.enum] = value
    return table


_DTYPE_BY_CODE = _allowed_dtypes()
_WIRE_NP = {code: (None if dt is _dtypes.string else dt.np.newbyteorder("<"))
            for code, dt in _DTYPE_BY_CODE.items()}


def _invalid(msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"Malformed message: {msg}")


def _truncated(msg: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"Truncated message: {msg}")


def _pad(n: int) -> int:
    return -n % ALIGN


# ----------------------------------------------------------------------------- encoding


def _encode_header(header: Dict[str, Any]) -> bytes:
    if not isinstance(header, dict):
        raise errors.InvalidArgumentError(
            None, None, f"message header must be a dict, got {type(header).__name__}")
    try:
        text = json.dumps(header, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"message header is not plain JSON data: {e}") from None
    return text.encode("utf-8")


def _as_wire_array(value: Any, index: int) -> Tuple[_dtypes.DType, np.ndarray]:
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    try:
        # Byte order is a property of the wire (little-endian), not of the dtype.
        dt = _dtypes.as_dtype(arr.dtype if arr.dtype.isnative else arr.dtype.newbyteorder("="))
    except TypeError as e:
        raise errors.InvalidArgumentError(
            None, None, f"tensor {index}: dtype {arr.dtype} cannot be sent: {e}") from None
    if dt.enum not in _DTYPE_BY_CODE:
        raise errors.InvalidArgumentError(
            None, None, f"tensor {index}: dtype {dt.name} cannot be sent")
    if arr.ndim > MAX_RANK:
        raise errors.InvalidArgumentError(
            None, None, f"tensor {index}: rank {arr.ndim} exceeds the limit of {MAX_RANK}")
    if dt is not _dtypes.string:
        wire_dt = _WIRE_NP[dt.enum]
        if arr.dtype != wire_dt:
            arr = arr.astype(wire_dt)
        if not arr.flags.c_contiguous:
            arr = arr.copy(order="C")  # not ascontiguousarray: it turns 0-d into 1-d
    return dt, arr


def _encode_strings(arr: np.ndarray, index: int) -> bytes:
    pieces: List[bytes] = []
    for item in arr.reshape(-1).tolist():
        if isinstance(item, str):
            item = item.encode("utf-8")
        elif not isinstance(item, bytes):
            raise errors.InvalidArgumentError(
                None, None, f"tensor {index}: string tensors hold bytes or str, got "
                f"{type(item).__name__}")
        if len(item) > 0xFFFFFFFF:
            raise errors.InvalidArgumentError(None, None, f"tensor {index}: a string exceeds 4 GiB")
        pieces.append(_U32.pack(len(item)))
        pieces.append(item)
    return b"".join(pieces)


def encode_parts(header: Dict[str, Any],
                 tensors: Sequence[Any] = ()) -> Tuple[List[Buffer], int]:
    """Encodes a message as a list of buffers plus their total size, without copying tensors.

    The first buffer holds prefix, header and tensor table; the others are views
    of the tensors' memory (and padding), ready for ``iter_chunks`` or a join.

    Raises:
      InvalidArgumentError: the header is not plain JSON data, or a tensor has a
        dtype, rank or element that cannot be sent.
    """
    header_bytes = _encode_header(header)
    table: List[bytes] = []
    bodies: List[Tuple[Buffer, int]] = []
    for i, value in enumerate(tensors):
        dt, arr = _as_wire_array(value, i)
        if dt is _dtypes.string:
            body: Buffer = _encode_strings(arr, i)
            nbytes = len(body)
        else:
            nbytes = arr.nbytes
            body = memoryview(arr.reshape(-1).view(np.uint8)) if nbytes else b""
        table.append(_ENTRY_HEAD.pack(dt.enum, arr.ndim))
        table.extend(_U64.pack(d) for d in arr.shape)
        table.append(_U64.pack(nbytes))
        bodies.append((body, nbytes))
    if len(header_bytes) > 0xFFFFFFFF or len(bodies) > 0xFFFFFFFF:
        raise errors.InvalidArgumentError(None, None, "message header or tensor count too large")
    head = [_PREFIX.pack(MAGIC, WIRE_VERSION, 0, len(header_bytes), len(bodies)), header_bytes]
    head.extend(table)
    head_len = sum(len(p) for p in head)
    head.append(bytes(_pad(head_len)))
    parts: List[Buffer] = [b"".join(head)]
    total = head_len + _pad(head_len)
    for body, nbytes in bodies:
        if nbytes:
            parts.append(body)
        pad = _pad(nbytes)
        if pad:
            parts.append(bytes(pad))
        total += nbytes + pad
    return parts, total


def encode(header: Dict[str, Any], tensors: Sequence[Any] = ()) -> bytes:
    """Encodes a message into one ``bytes`` frame (see the module docstring)."""
    parts, _ = encode_parts(header, tensors)
    return b"".join(parts)


# ----------------------------------------------------------------------------- decoding


def _reject_duplicates(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("duplicate key in JSON object")
    return out


class _NonFinite(ValueError):
    """A header number that is not finite."""


def _reject_constant(name: str) -> Any:
    raise _NonFinite(f"the non-standard JSON constant {name} is not a finite number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        shown = text if len(text) <= 40 else text[:37] + "..."
        raise _NonFinite(f"the number {shown} is out of range (it would read as "
                         f"{value}); header numbers must be finite")
    return value


def _check_depth(value: Any, limit: int) -> None:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            raise _invalid(f"header nests deeper than {limit} levels")
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)


def _decode_header(raw: bytes) -> Dict[str, Any]:
    try:
        text = raw.decode("utf-8")
        header = json.loads(text, object_pairs_hook=_reject_duplicates,
                            parse_constant=_reject_constant, parse_float=_finite_float)
    except _NonFinite as e:
        raise _invalid(f"header holds a number that is not finite: {e}") from None
    except RecursionError:
        raise _invalid(f"header nests deeper than {MAX_HEADER_DEPTH} levels") from None
    except ValueError as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise _invalid(f"header is not valid UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise _invalid(f"header must be a JSON object, got {type(header).__name__}")
    # Counting brackets is C-speed and bounds the depth, so most headers skip the walk.
    if raw.count(b"[") + raw.count(b"{") > MAX_HEADER_DEPTH:
        _check_depth(header, MAX_HEADER_DEPTH)
    return header


def peek_version(buf: Buffer) -> Optional[int]:
    """The protocol version of a frame or stream header, or None if ``buf`` is neither."""
    view = memoryview(buf).cast("B") if not isinstance(buf, bytes) else buf
    if len(view) < 6 or bytes(view[:4]) not in (MAGIC, STREAM_MAGIC):
        return None
    return int.from_bytes(bytes(view[4:6]), "little")


def _decode_strings(view: memoryview, offset: int, nbytes: int, count: int,
                    index: int) -> np.ndarray:
    if count * _U32.size > nbytes:
        raise _invalid(f"tensor {index}: {count} strings cannot fit in {nbytes} bytes")
    out = np.empty(count, dtype=object)
    pos, end = offset, offset + nbytes
    for k in range(count):
        if end - pos < _U32.size:
            raise _invalid(f"tensor {index}: string {k} runs past the tensor's bytes")
        (length,) = _U32.unpack_from(view, pos)
        pos += _U32.size
        if length > end - pos:
            raise _invalid(f"tensor {index}: string {k} declares {length} bytes, "
                           f"{end - pos} remain")
        out[k] = bytes(view[pos:pos + length])
        pos += length
    if pos != end:
        raise _invalid(f"tensor {index}: {end - pos} bytes left over after {count} strings")
    return out


def decode(buf: Buffer, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> Message:
    """Decodes one frame into ``(header, tensors)``; arrays are views of ``buf`` where possible.

    The returned arrays share memory with ``buf`` (read-only when ``buf`` is
    ``bytes``); copy one before modifying it in place.

    Raises:
      InvalidArgumentError: bad magic, version, flags, dtype code, rank, header,
        a length over ``max_message_bytes``, or shape and byte count disagreeing.
      DataLossError: the frame is shorter than its declared lengths.
    """
    try:
        view = memoryview(buf).cast("B")
    except TypeError as e:
        raise _invalid(f"decode needs a contiguous bytes-like buffer: {e}") from None
    size = len(view)
    if size > max_message_bytes:
        raise _invalid(f"{size} bytes exceed the maximum message size of {max_message_bytes}")
    if size < PREFIX_BYTES:
        if size >= 4 and bytes(view[:4]) != MAGIC:
            raise _invalid(f"bad magic {bytes(view[:4])!r}, expected {MAGIC!r}")
        raise _truncated(f"{size} bytes, the prefix alone needs {PREFIX_BYTES}")
    magic, version, flags, header_len, count = _PREFIX.unpack_from(view, 0)
    if magic != MAGIC:
        raise _invalid(f"bad magic {magic!r}, expected {MAGIC!r}")
    if version != WIRE_VERSION:
        raise _invalid(f"wire protocol version mismatch: the message has version {version}, "
                       f"this build reads version {WIRE_VERSION}")
    if flags:
        raise _invalid(f"unknown flags 0x{flags:04x}")
    pos = PREFIX_BYTES

    def need(n: int, what: str) -> None:
        if n > max_message_bytes:
            raise _invalid(f"{what} declares {n} bytes, over the maximum message size "
                           f"of {max_message_bytes}")
        if n > size - pos:
            raise _truncated(f"{what} needs {n} bytes at offset {pos}, only {size - pos} remain")

    def take(n: int, what: str) -> int:
        nonlocal pos
        need(n, what)
        start = pos
        pos += n
        return start

    def skip_padding(what: str) -> None:
        # Padding must be zero so that one message has exactly one encoding.
        at = take(_pad(pos), what)
        if any(view[at:pos]):
            raise _invalid(f"nonzero {what} at offset {at}")

    start = take(header_len, "header")
    header = _decode_header(bytes(view[start:start + header_len]))
    # Each table entry takes at least 12 bytes, which bounds count before any loop.
    need(count * (_ENTRY_HEAD.size + _U64.size), f"table of {count} tensors")
    entries = []
    for i in range(count):
        code, rank = _ENTRY_HEAD.unpack_from(view, take(_ENTRY_HEAD.size, f"tensor {i} entry"))
        if code not in _DTYPE_BY_CODE:
            raise _invalid(f"tensor {i}: unknown dtype code {code}")
        if rank > MAX_RANK:
            raise _invalid(f"tensor {i}: rank {rank} exceeds the limit of {MAX_RANK}")
        dims_at = take(_U64.size * rank, f"tensor {i} dims")
        dims = struct.unpack_from(f"<{rank}Q", view, dims_at)
        (nbytes,) = _U64.unpack_from(view, take(_U64.size, f"tensor {i} byte length"))
        entries.append((code, dims, nbytes))
    skip_padding("table padding")
    tensors: List[np.ndarray] = []
    for i, (code, dims, nbytes) in enumerate(entries):
        at = take(nbytes, f"tensor {i} data")
        skip_padding(f"tensor {i} padding")
        tensors.append(_make_array(view, code, dims, nbytes, at, i))
    if pos != size:
        raise _invalid(f"{size - pos} trailing bytes after the last tensor")
    return header, tensors


def _make_array(view: memoryview, code: int, dims: Tuple[int, ...], nbytes: int,
                at: int, index: int) -> np.ndarray:
    count = 1
    for d in dims:
        count *= d
    np_dtype = _WIRE_NP[code]
    if np_dtype is None:
        arr = _decode_strings(view, at, nbytes, count, index)
    else:
        if count * np_dtype.itemsize != nbytes:
            raise _invalid(f"tensor {index} of shape {list(dims)}: shape and byte count disagree: "
                           f"{_DTYPE_BY_CODE[code].name} needs {count * np_dtype.itemsize} "
                           f"bytes, the message holds {nbytes}")
        if np_dtype.kind == "b" and count:
            # A bool byte other than 0/1 would give numpy an array with undefined behaviour.
            if int(np.frombuffer(view, np.uint8, count, at).max()) > 1:
                raise _invalid(f"tensor {index}: bool values must be 0 or 1")
        arr = np.frombuffer(view, np_dtype, count, at)
    try:
        return arr.reshape(dims)
    except (ValueError, OverflowError) as e:
        raise _invalid(f"tensor {index}: shape {list(dims)} is not representable: {e}") from None


# ----------------------------------------------------------------------------- chunking


def stream_header(total: int) -> bytes:
    """The first message of a chunk stream: magic, version and the frame's total size."""
    return _STREAM_HEADER.pack(STREAM_MAGIC, WIRE_VERSION, 0, total)


def parse_stream_header(msg: Buffer, max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> int:
    """Checks a stream header and returns the declared total size of the frame.

    Raises:
      InvalidArgumentError: bad magic, version or flags, or a total above
        ``max_message_bytes``.
      DataLossError: fewer than 16 bytes.
    """
    view = memoryview(msg).cast("B")
    if len(view) != STREAM_HEADER_BYTES:
        if len(view) < STREAM_HEADER_BYTES:
            raise _truncated(f"stream header of {len(view)} bytes, expected {STREAM_HEADER_BYTES}")
        raise _invalid(f"stream header of {len(view)} bytes, expected {STREAM_HEADER_BYTES}")
    magic, version, flags, total = _STREAM_HEADER.unpack_from(view, 0)
    if magic != STREAM_MAGIC:
        raise _invalid(f"bad stream magic {magic!r}, expected {STREAM_MAGIC!r}")
    if version != WIRE_VERSION:
        raise _invalid(f"wire protocol version mismatch: the stream has version {version}, "
                       f"this build reads version {WIRE_VERSION}")
    if flags:
        raise _invalid(f"unknown stream flags 0x{flags:04x}")
    if total > max_message_bytes:
        raise _invalid(f"stream declares {total} bytes, over the maximum message size "
                       f"of {max_message_bytes}")
    return total


def iter_chunks(parts: Sequence[Buffer], chunk_bytes: int = CHUNK_BYTES) -> Iterator[bytes]:
    """Cuts encoded ``parts`` into ``bytes`` chunks of ``chunk_bytes`` (the last may be short).

    Each byte is copied once, straight from the tensors' memory into its chunk.
    """
    if chunk_bytes <= 0:
        raise ValueError(f"chunk_bytes must be positive, got {chunk_bytes}")
    pending: List[Buffer] = []
    filled = 0
    for part in parts:
        view = memoryview(part).cast("B") if not isinstance(part, bytes) else part
        pos, n = 0, len(view)
        while pos < n:
            step = min(chunk_bytes - filled, n - pos)
            pending.append(view[pos:pos + step])
            filled += step
            pos += step
            if filled == chunk_bytes:
                yield b"".join(pending)
                pending, filled = [], 0
    if filled:
        yield b"".join(pending)


def reassemble(chunks: Iterable[Buffer], total: int,
               max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> np.ndarray:
    """Copies ``chunks`` into one buffer of exactly ``total`` bytes.

    ``total`` is checked against ``max_message_bytes``, and the buffer is
    reserved only once ``total / RESERVE_RATIO`` bytes have arrived (until then
    the chunks themselves are kept): a sender that declares a size and never
    sends its bytes gets at most ``RESERVE_RATIO`` times what it sent reserved.
    The buffer is an uninitialised uint8 array (no zero-fill pass); pass it to
    ``decode``, whose arrays then are writable views of it.

    Raises:
      InvalidArgumentError: ``total`` over the limit, or more bytes than declared.
      DataLossError: the chunks end before ``total`` bytes.
    """
    if total < 0 or total > max_message_bytes:
        raise _invalid(f"declared size {total} is outside 0..{max_message_bytes}")
    out: Optional[np.ndarray] = None
    early: List[np.ndarray] = []  # chunks that came before the buffer was reserved
    filled = 0
    for chunk in chunks:
        piece = np.frombuffer(chunk, dtype=np.uint8)
        n = piece.size
        if n > total - filled:
            raise _invalid(f"chunks carry more than the declared {total} bytes")
        if out is None:
            early.append(piece)
            filled += n
            if filled * RESERVE_RATIO >= total:
                out = buffers.take(total)
                pos = 0
                for held in early:
                    out[pos:pos + held.size] = held
                    pos += held.size
                early = []
        else:
            out[filled:filled + n] = piece
            filled += n
    if filled != total:
        raise _truncated(f"chunk stream ended after {filled} of {total} bytes")
    return out if out is not None else buffers.take(0)


__all__ = [
    "WIRE_VERSION", "MAGIC", "STREAM_MAGIC", "CHUNK_BYTES", "DEFAULT_MAX_MESSAGE_BYTES",
    "MAX_RANK", "MAX_HEADER_DEPTH", "PREFIX_BYTES", "STREAM_HEADER_BYTES", "Buffer",
    "Message", "encode", "encode_parts", "decode", "peek_version", "stream_header",
    "parse_stream_header", "iter_chunks", "reassemble",
]
