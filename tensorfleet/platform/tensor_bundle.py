"""TensorFlow's tensor-bundle checkpoint format, read and written.

A checkpoint with prefix ``dir/model.ckpt-100`` is

* ``dir/model.ckpt-100.data-0000i-of-0000n``: ``n`` data files (one per task that
  holds variables), each the raw bytes of its tensors one after another
  (little-endian; string tensors as varint64 lengths, a masked CRC-32C of the
  lengths, then the bytes);
* ``dir/model.ckpt-100.index``: a sorted string table (``sorted_string_table``)
  whose empty key holds a ``BundleHeaderProto`` (shard count, endianness, version)
  and whose other keys are tensor names, each mapped to a ``BundleEntryProto``
  (dtype, shape, data file, offset, size, masked CRC-32C of the bytes).

A partitioned variable is one tensor under its full name whose entry lists the
slices saved and holds no bytes; each slice has its own entry, under a key made by
``encode_tensor_name_slice`` (TensorFlow's ordered-code encoding of the name and
the slice's extents, which sorts before every plain name).

Everything read is checked before it is used: entry offsets and sizes against the
data file's length, the bytes against their CRC-32C, shapes against the byte count
(so no allocation is sized by an unchecked number), and every malformed input is a
``DataLossError`` naming the file.
"""

from __future__ import annotations

import os
import struct
from typing import Any, Dict, Iterable, List, Sequence, Tuple

import crc32c as _crc32c
import numpy as np
from google.protobuf.message import DecodeError

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.protos import tensor_bundle_pb2, tensor_shape_pb2, tensor_slice_pb2
from tensorfleet.platform import sorted_string_table as sst

INDEX_SUFFIX = ".index"
HEADER_KEY = b""
# The bundle format version written (TensorFlow's kTensorBundleVersion) and the
# oldest one this reader accepts.
BUNDLE_VERSION = 1
MIN_READABLE_VERSION = 0
# A tensor's byte count, or a string element's length, beyond this is not believed.
MAX_TENSOR_BYTES = 1 << 40

BundleEntryProto = tensor_bundle_pb2.BundleEntryProto
BundleHeaderProto = tensor_bundle_pb2.BundleHeaderProto

_BY_ENUM: Dict[int, _dtypes.DType] = {
    d.enum: d for d in (_dtypes.float16, _dtypes.float32, _dtypes.float64, _dtypes.int8,
                        _dtypes.int16, _dtypes.int32, _dtypes.int64, _dtypes.uint8,
                        _dtypes.uint16, _dtypes.bool, _dtypes.string)}


def index_path(prefix: str) -> str:
    """The ``.index`` file of checkpoint ``prefix``."""
    return prefix + INDEX_SUFFIX


def data_filename(prefix: str, shard: int, num_shards: int) -> str:
    """The path of data file ``shard`` of ``num_shards`` of checkpoint ``prefix``."""
    return f"{prefix}.data-{shard:05d}-of-{num_shards:05d}"


def dtype_from_enum(enum: int, what: str) -> _dtypes.DType:
    """The dtype numbered ``enum`` in TensorFlow's ``DataType``.

    Raises:
      DataLossError: tensorfleet has no such dtype (naming ``what``).
    """
    dt = _BY_ENUM.get(int(enum))
    if dt is None:
        raise errors.DataLossError(None, None, f"{what} has DataType {enum}, which tensorfleet "
                                   f"does not support")
    return dt


# -- ordered code: the keys of slices -----------------------------------------------------

def _write_num_increasing(n: int) -> bytes:
    body = n.to_bytes((n.bit_length() + 7) // 8, "big") if n else b""
    return bytes([len(body)]) + body


def _write_string(s: bytes) -> bytes:
    return s.replace(b"\xff", b"\xff\x00").replace(b"\x00", b"\x00\xff") + b"\x00\x01"


def _write_signed_num_increasing(val: int) -> bytes:
    x = ~val if val < 0 else val
    if x < 64:
        return bytes([(0x80 ^ val) & 0xFF])
    length = (x.bit_length() + 7) // 7
    buf = bytearray(val.to_bytes(10, "big", signed=True)[10 - length:])
    # The first ``length`` bits of the encoding say how long it is.
    header = ((1 << length) - 1) << 1 if length <= 8 else 0
    if length <= 7:
        buf[0] ^= (header << (7 - length)) & 0xFF
    elif length == 8:
        buf[0] ^= 0xFF
    elif length == 9:
        buf[0] ^= 0xFF
        buf[1] ^= 0x80
    else:
        buf[0] ^= 0xFF
        buf[1] ^= 0xC0
    return bytes(buf)


def encode_tensor_name_slice(name: str, starts: Sequence[int], lengths: Sequence[int]) -> bytes:
    """The index key of the slice of tensor ``name`` at ``starts`` with ``lengths``
    (-1: the whole dimension), as TensorFlow encodes it."""
    out = _write_num_increasing(0) + _write_string(name.encode("utf-8"))
    out += _write_num_increasing(len(starts))
    for s, n in zip(starts, lengths):
        out += _write_signed_num_increasing(int(s)) + _write_signed_num_increasing(int(n))
    return out


def slice_extents(slice_proto: Any, full_shape: Sequence[int]) -> Tuple[List[int], List[int]]:
    """``(starts, lengths)`` of a ``TensorSliceProto``, -1 lengths kept as -1."""
    starts, lengths = [], []
    for e in slice_proto.extent:
        starts.append(int(e.start))
        lengths.append(int(e.length) if e.HasField("length") else -1)
    if len(starts) != len(full_shape):
        raise ValueError(f"slice of rank {len(starts)} for a tensor of rank {len(full_shape)}")
    return starts, lengths


def make_slice_proto(offsets: Sequence[int], lengths: Sequence[int]) -> Any:
    """A ``TensorSliceProto`` of the given extents (TensorFlow's form: every
    extent with its start and length)."""
    sp = tensor_slice_pb2.TensorSliceProto()
    for o, n in zip(offsets, lengths):
        e = sp.extent.add()
        e.start = int(o)
        e.length = int(n)
    return sp


def slice_key(full_name: str, offsets: Sequence[int], lengths: Sequence[int]) -> bytes:
    """The index key of a saved slice, as ``encode_tensor_name_slice``."""
    return encode_tensor_name_slice(full_name, offsets, lengths)


# -- tensor bytes -------------------------------------------------------------------------

def shape_proto(shape: Sequence[int]) -> Any:
    """A ``TensorShapeProto`` of a fully defined shape."""
    sp = tensor_shape_pb2.TensorShapeProto()
    for d in shape:
        sp.dim.add().size = int(d)
    return sp


def encode_tensor(value: Any) -> Tuple[_dtypes.DType, List[int], bytes, int]:
    """``(dtype, shape, bytes, masked crc32c)`` of a tensor as a data file stores it."""
    arr = np.asarray(value)
    if arr.dtype == object or arr.dtype.kind in "SU":
        flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in arr.reshape(-1)]
        lengths = b"".join(sst.put_varint(len(v)) for v in flat)
        tail = struct.pack("<I", _mask(_crc32c.crc32c(_lengths32(flat))))
        data = lengths + tail + b"".join(flat)
        return _dtypes.string, list(arr.shape), data, string_crc(arr)
    dt = _dtypes.as_dtype(arr.dtype)
    data = np.ascontiguousarray(arr, dtype=arr.dtype.newbyteorder("<")).tobytes()
    return dt, list(arr.shape), data, sst.masked_crc32c(data)


def _lengths32(flat: Sequence[bytes]) -> bytes:
    if any(len(v) > 0xFFFFFFFF for v in flat):
        raise errors.InvalidArgumentError(None, None, "a string element of 4 GiB or more "
                                          "cannot be saved in a checkpoint")
    return b"".join(struct.pack("<I", len(v)) for v in flat)


def _mask(crc: int) -> int:
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def decode_tensor(data: bytes, dtype: _dtypes.DType, shape: Sequence[int],
                  where: str) -> np.ndarray:
    """The array a data file's ``data`` holds for a tensor of ``dtype`` and ``shape``.

    Raises:
      DataLossError: the bytes do not hold such a tensor (naming ``where``).
    """
    count = int(np.prod(shape)) if len(shape) else 1
    if dtype is _dtypes.string:
        pos, lengths = 0, []
        try:
            for _ in range(count):
                n, pos = sst.get_varint(data, pos, len(data))
                lengths.append(n)
        except ValueError as e:
            raise errors.DataLossError(None, None, f"{where}: bad string lengths ({e})") from None
        if pos + 4 + sum(lengths) != len(data):
            raise errors.DataLossError(None, None, f"{where}: string lengths add up to "
                                       f"{sum(lengths)} bytes but {len(data) - pos - 4} follow")
        pos += 4
        out = np.empty(count, dtype=object)
        for i, n in enumerate(lengths):
            out[i] = data[pos:pos + n]
            pos += n
        return out.reshape(list(shape))
    want = count * np.dtype(dtype.np).itemsize
    if want != len(data):
        raise errors.DataLossError(None, None, f"{where}: {len(data)} bytes for a {dtype.name} "
                                   f"tensor of shape {list(shape)} ({want} bytes)")
    arr = np.frombuffer(data, dtype=np.dtype(dtype.np).newbyteorder("<"), count=count)
    return arr.astype(dtype.np, copy=True).reshape(list(shape))


def entry_shape(entry: Any, where: str) -> List[int]:
    """The fully defined shape of an entry.

    Raises:
      DataLossError: an unknown rank or a negative size.
    """
    if entry.shape.unknown_rank or any(d.size < 0 for d in entry.shape.dim):
        raise errors.DataLossError(None, None, f"{where}: the shape is not fully defined")
    return [int(d.size) for d in entry.shape.dim]


def read_entry(prefix: str, entry: Any, num_shards: int, what: str) -> np.ndarray:
    """The tensor one (unsliced) entry of checkpoint ``prefix`` describes, verified.

    Raises:
      NotFoundError: the data file is gone. DataLossError: it is too short, or the
      bytes fail their CRC-32C or do not hold the entry's dtype and shape.
    """
    if not 0 <= entry.shard_id < num_shards:
        raise errors.DataLossError(None, None, f"Checkpoint index {index_path(prefix)}: tensor "
                                   f"{what} is in data file {entry.shard_id}, but the "
                                   f"checkpoint has {num_shards}")
    path = data_filename(prefix, entry.shard_id, num_shards)
    dtype = dtype_from_enum(entry.dtype, f"Tensor {what} in {index_path(prefix)}")
    shape = entry_shape(entry, f"Tensor {what} in {index_path(prefix)}")
    if entry.offset < 0 or not 0 <= entry.size <= MAX_TENSOR_BYTES:
        raise errors.DataLossError(None, None, f"Checkpoint index {index_path(prefix)}: tensor "
                                   f"{what} has offset {entry.offset} and size {entry.size}")
    try:
        with open(path, "rb") as f:
            actual = os.fstat(f.fileno()).st_size
            if entry.offset + entry.size > actual:
                raise errors.DataLossError(
                    None, None, f"Checkpoint data file {path} is {actual} bytes, but tensor "
                    f"{what} lies at bytes {entry.offset}..{entry.offset + entry.size}: the "
                    f"file is truncated")
            f.seek(entry.offset)
            data = f.read(entry.size)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"Checkpoint data file {path} named by the index "
                                   f"does not exist") from None
    except OSError as e:
        raise errors.UnknownError(None, None, f"Failed to read checkpoint data file {path}: "
                                  f"{e}") from None
    if len(data) != entry.size:
        raise errors.DataLossError(None, None, f"Checkpoint data file {path} changed while "
                                   f"being read")
    where = f"Checkpoint data file {path}, tensor {what}"
    value = decode_tensor(data, dtype, shape, where)
    got = string_crc(value) if dtype is _dtypes.string else sst.masked_crc32c(data)
    if got != entry.crc32c:
        raise errors.DataLossError(None, None, f"Checkpoint data file {path} is corrupt: tensor "
                                   f"{what} fails its CRC-32C check (masked {got:#010x}, the "
                                   f"index records {entry.crc32c:#010x})")
    return value


def string_crc(value: np.ndarray) -> int:
    """The masked checksum a bundle records for a string tensor: over each element's
    length as a fixed32, the masked checksum of those lengths, then the bytes."""
    flat = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in value.reshape(-1)]
    crc = _crc32c.crc32c(_lengths32(flat))
    crc = _crc32c.crc32c(struct.pack("<I", _mask(crc)), crc)
    for v in flat:
        crc = _crc32c.crc32c(v, crc)
    return _mask(crc)


# -- writing --------------------------------------------------------------------------------

def write_data_file(path: str, shard_id: int, values: Sequence[Any]) -> List[bytes]:
    """Writes ``values`` one after another to the data file at ``path`` (which the
    caller makes atomic); returns each tensor's serialized ``BundleEntryProto``."""
    entries: List[bytes] = []
    offset = 0
    with open(path, "wb") as f:
        for value in values:
            dt, shape, data, crc = encode_tensor(value)
            f.write(data)
            entry = BundleEntryProto(dtype=dt.enum, shape=shape_proto(shape), shard_id=shard_id,
                                     offset=offset, size=len(data), crc32c=crc)
            entries.append(entry.SerializeToString(deterministic=True))
            offset += len(data)
    return entries


def build_index(num_shards: int, entries: Iterable[Tuple[bytes, Any]]) -> bytes:
    """The ``.index`` table of a checkpoint: its header and ``(key, entry)`` pairs."""
    header = BundleHeaderProto(num_shards=int(num_shards), endianness=BundleHeaderProto.LITTLE)
    header.version.producer = BUNDLE_VERSION
    items = [(HEADER_KEY, header.SerializeToString(deterministic=True))]
    items += sorted((k, e.SerializeToString(deterministic=True)) for k, e in entries)
    return sst.build_table(items)


# -- reading the index ------------------------------------------------------------------------

class BundleIndex:
    """The parsed, validated ``.index`` of one tensor-bundle checkpoint.

    Tensor names are the plain keys; slices of partitioned tensors are reached
    through ``slice_entry``.

    Attributes:
      prefix: the checkpoint prefix.
      num_shards: how many data files the checkpoint has.
      entries: tensor name -> ``BundleEntryProto`` (slice keys left out).
      slice_entries: slice key -> ``BundleEntryProto``.
    """

    format = "bundle"

    def __init__(self, prefix: str, num_shards: int, entries: Dict[str, Any],
                 slice_entries: Dict[bytes, Any]):
        self.prefix = prefix
        self.num_shards = num_shards
        self.entries = entries
        self.slice_entries = slice_entries

    @property
    def tensors(self) -> Dict[str, Any]:
        """Tensor name -> entry (the names a checkpoint reader lists)."""
        return self.entries

    @property
    def shards(self) -> Dict[str, Dict[str, Any]]:
        """The data files' names (relative to the prefix's directory)."""
        base = os.path.basename(self.prefix)
        return {os.path.basename(data_filename(base, i, self.num_shards)): {}
                for i in range(self.num_shards)}

    def entry(self, name: str) -> Any:
        """The entry of tensor ``name``.

        Raises:
          NotFoundError: the checkpoint has no tensor ``name``.
        """
        e = self.entries.get(name)
        if e is None:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                       f"{self.prefix}")
        return e

    def dtype(self, name: str) -> _dtypes.DType:
        return dtype_from_enum(self.entry(name).dtype, f"Tensor {name} in checkpoint "
                               f"{self.prefix}")

    def shape(self, name: str) -> List[int]:
        return entry_shape(self.entry(name), f"Tensor {name} in checkpoint {self.prefix}")

    def slices(self, name: str) -> List[Tuple[List[int], List[int]]]:
        """``(starts, lengths)`` of each saved slice of ``name`` (empty: saved whole)."""
        e = self.entry(name)
        full = self.shape(name)
        out = []
        for sp in e.slices:
            try:
                out.append(slice_extents(sp, full))
            except ValueError as err:
                raise errors.DataLossError(None, None, f"Checkpoint index "
                                           f"{index_path(self.prefix)}: tensor {name}: "
                                           f"{err}") from None
        return out

    def slice_entry(self, full_name: str, starts: Sequence[int], lengths: Sequence[int]) -> Any:
        """The entry of one saved slice.

        Raises:
          NotFoundError: no such slice (naming the slices the checkpoint has).
        """
        e = self.slice_entries.get(slice_key(full_name, starts, lengths))
        if e is None:
            have = self.slices(full_name) if full_name in self.entries else []
            raise errors.NotFoundError(
                None, None, f"Slice {list(starts)}+{list(lengths)} of {full_name} not found in "
                f"checkpoint {self.prefix} (it holds slices {have}); restoring into a "
                f"different partitioning is not supported")
        return e

    def pieces(self, name: str) -> List[Tuple[Any, List[int], List[int]]]:
        """``(entry, starts, lengths)`` of every stored piece of tensor ``name``: the
        tensor itself when saved whole, else each saved slice."""
        e = self.entry(name)
        if not e.slices:
            shape = self.shape(name)
            return [(e, [0] * len(shape), shape)]
        out = []
        for starts, lengths in self.slices(name):
            out.append((self.slice_entry(name, starts, lengths), starts, lengths))
        return out

    def locate(self, name: str) -> Tuple[str, bytes, int]:
        """``(index path, packed entries, data file count)``: what a restore op is fed
        to read tensor ``name`` whole (see ``pack_entries``).

        Raises:
          NotFoundError: the checkpoint has no tensor ``name``.
        """
        e = self.entry(name)
        entries = [e] + [p[0] for p in self.pieces(name)] if e.slices else [e]
        return index_path(self.prefix), pack_entries(entries), self.num_shards

    def locate_slice(self, full_name: str, starts: Sequence[int],
                     lengths: Sequence[int]) -> Tuple[str, bytes, int]:
        """As ``locate``, for one saved slice of ``full_name``."""
        return (index_path(self.prefix),
                pack_entries([self.slice_entry(full_name, starts, lengths)]), self.num_shards)

    def read(self, name: str) -> np.ndarray:
        """The whole tensor ``name``, assembled from its slices if it was saved in pieces."""
        return assemble(self.prefix, self.num_shards, self.entry(name), self.pieces(name), name)


def assemble(prefix: str, num_shards: int, full: Any,
             pieces: Sequence[Tuple[Any, Sequence[int], Sequence[int]]], name: str) -> np.ndarray:
    """Tensor ``name`` from its stored pieces (one whole one, or slices)."""
    if not full.slices:
        return read_entry(prefix, full, num_shards, name)
    where = f"Tensor {name} in checkpoint {prefix}"
    dtype = dtype_from_enum(full.dtype, where)
    shape = entry_shape(full, where)
    if int(np.prod(shape)) * max(1, np.dtype(dtype.np).itemsize) > MAX_TENSOR_BYTES:
        raise errors.DataLossError(None, None, f"{where}: shape {shape} is too large")
    out = np.zeros(shape, dtype=dtype.np) if dtype is not _dtypes.string else \
        np.full(shape, b"", dtype=object)
    covered = 0
    for entry, starts, lengths in pieces:
        value = read_entry(prefix, entry, num_shards, name)
        region = tuple(slice(s, None if n < 0 else s + n) for s, n in zip(starts, lengths))
        try:
            out[region] = value
        except ValueError:
            raise errors.DataLossError(None, None, f"{where}: a slice at {list(starts)} of "
                                       f"shape {list(value.shape)} does not fit {shape}") from None
        covered += value.size
    if covered != out.size:
        raise errors.DataLossError(None, None, f"{where}: its slices cover {covered} of "
                                   f"{out.size} elements")
    return out


def _parse_entry(raw: bytes, what: str, path: str) -> Any:
    e = BundleEntryProto()
    try:
        e.ParseFromString(raw)
    except DecodeError as err:
        raise errors.DataLossError(None, None, f"Checkpoint index {path} is corrupt: entry "
                                   f"{what} does not parse ({err})") from None
    return e


def read_index(prefix: str) -> BundleIndex:
    """Reads and validates the ``.index`` of checkpoint ``prefix``.

    Raises:
      NotFoundError: no index file. DataLossError: it is not an intact bundle index.
    """
    path = index_path(prefix)
    try:
        table = sst.read_table_file(path, "Checkpoint index")
    except errors.NotFoundError:
        raise errors.NotFoundError(
            None, None, f"Failed to find any matching files for {prefix}: no checkpoint "
            f"index {path}. Pass the checkpoint prefix (like 'dir/model.ckpt-100'), e.g. "
            f"from tf.train.latest_checkpoint(dir).") from None
    raw = table.get(HEADER_KEY)
    if raw is None:
        raise errors.DataLossError(None, None, f"Checkpoint index {path} has no header entry")
    header = BundleHeaderProto()
    try:
        header.ParseFromString(raw)
    except DecodeError as err:
        raise errors.DataLossError(None, None, f"Checkpoint index {path}: the header does not "
                                   f"parse ({err})") from None
    if header.endianness != BundleHeaderProto.LITTLE:
        raise errors.DataLossError(None, None, f"Checkpoint index {path}: big-endian "
                                   f"checkpoints are not supported")
    if header.version.producer < MIN_READABLE_VERSION or \
            header.version.min_consumer > BUNDLE_VERSION or \
            BUNDLE_VERSION in header.version.bad_consumers:
        raise errors.DataLossError(None, None, f"Checkpoint index {path}: bundle version "
                                   f"{header.version.producer} (min consumer "
                                   f"{header.version.min_consumer}) cannot be read")
    if not 1 <= header.num_shards <= 100000:
        raise errors.DataLossError(None, None, f"Checkpoint index {path}: {header.num_shards} "
                                   f"data files")
    entries: Dict[str, Any] = {}
    slices: Dict[bytes, Any] = {}
    for key, value in table.items():
        if key == HEADER_KEY:
            continue
        if key[:1] == b"\x00":
            slices[key] = _parse_entry(value, repr(key), path)
            continue
        try:
            name = key.decode("utf-8")
        except UnicodeDecodeError:
            raise errors.DataLossError(None, None, f"Checkpoint index {path}: key {key!r} is "
                                       f"not UTF-8") from None
        entries[name] = _parse_entry(value, name, path)
    return BundleIndex(prefix, int(header.num_shards), entries, slices)


__all__ = ["INDEX_SUFFIX", "BundleIndex", "BundleEntryProto", "BundleHeaderProto",
           "index_path", "data_filename", "dtype_from_enum", "encode_tensor_name_slice",
           "slice_key", "make_slice_proto", "shape_proto", "encode_tensor", "decode_tensor",
           "read_entry", "assemble", "write_data_file", "build_index", "read_index"]


# -- what a restore op is fed ---------------------------------------------------------------

_MAX_PIECES = 1 << 20


def pack_entries(entries: Sequence[Any]) -> bytes:
    """One tensor's entries as a restore op is fed them: its own entry, then (when that
    lists slices) the entry of each slice in the same order, each length-prefixed."""
    out = bytearray(sst.put_varint(len(entries)))
    for e in entries:
        raw = e.SerializeToString(deterministic=True)
        out += sst.put_varint(len(raw)) + raw
    return bytes(out)


def unpack_entries(packed: bytes, where: str) -> List[Any]:
    """The entries ``pack_entries`` packed.

    Raises:
      InvalidArgumentError: the bytes are not such a packing (naming ``where``).
    """
    try:
        count, pos = sst.get_varint(packed, 0, len(packed))
        if not 1 <= count <= _MAX_PIECES:
            raise ValueError(f"{count} entries")
        out = []
        for _ in range(count):
            n, pos = sst.get_varint(packed, pos, len(packed))
            if pos + n > len(packed):
                raise ValueError("an entry runs past the end")
            e = BundleEntryProto()
            e.ParseFromString(packed[pos:pos + n])
            out.append(e)
            pos += n
    except (ValueError, DecodeError) as e:
        raise errors.InvalidArgumentError(None, None, f"{where}: malformed checkpoint entry "
                                          f"record ({e})") from None
    return out


def read_packed(index_file: str, packed: bytes, num_shards: int, name: str) -> np.ndarray:
    """The tensor a packed record of checkpoint ``index_file`` describes, verified."""
    if not index_file.endswith(INDEX_SUFFIX):
        raise errors.InvalidArgumentError(None, None, f"{index_file} is not a checkpoint index")
    prefix = index_file[:-len(INDEX_SUFFIX)]
    entries = unpack_entries(packed, f"tensor {name} of {index_file}")
    full, rest = entries[0], entries[1:]
    if len(full.slices) != len(rest):
        raise errors.InvalidArgumentError(None, None, f"tensor {name} of {index_file}: "
                                          f"{len(full.slices)} slices but {len(rest)} entries")
    shape = entry_shape(full, f"Tensor {name} in {index_file}")
    pieces = []
    for sp, e in zip(full.slices, rest):
        try:
            starts, lengths = slice_extents(sp, shape)
        except ValueError as err:
            raise errors.DataLossError(None, None, f"Tensor {name} in {index_file}: "
                                       f"{err}") from None
        pieces.append((e, starts, lengths))
    return assemble(prefix, num_shards, full, pieces, name)


__all__ += ["pack_entries", "unpack_entries", "read_packed"]
