"""The tensor-bundle format and its sorted string table, checked against files that
TensorFlow 2.21 wrote (tests/fixtures/tf_files) and against damaged and hostile files."""

import os
import shutil
import struct
import sys

import numpy as np
import pytest

from tensorfleet import errors
from tensorfleet.protos import tensor_bundle_pb2
from tensorfleet.platform import tensor_bundle as bundle
from tensorfleet.platform import sorted_string_table as sst

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "tf_files")
sys.path.insert(0, DATA)
import interop_model as m  # noqa: E402

TF_PREFIX = os.path.join(DATA, "tf_ckpt", "model.ckpt-3")
DTYPES_PREFIX = os.path.join(DATA, "tf_dtypes", "ck")


def _copy(tmp_path, prefix):
    d = tmp_path / "ck"
    shutil.copytree(os.path.dirname(prefix), d)
    return str(d / os.path.basename(prefix))


# -- the table ---------------------------------------------------------------------------

def test_table_written_here_is_byte_identical_to_tensorflows():
    data = open(TF_PREFIX + ".index", "rb").read()
    items = sorted(sst.parse_table(data).items())
    assert items[0][0] == b"" and len(items) == 24
    assert sst.build_table(items) == data


@pytest.mark.parametrize("block_size,interval", [(64, 1), (200, 3), (1 << 18, 16)])
def test_table_round_trip_across_blocks_and_restart_points(block_size, interval):
    rng = np.random.RandomState(block_size)
    keys = sorted({bytes(rng.randint(0, 256, size=rng.randint(0, 12)).astype(np.uint8))
                   for _ in range(300)})
    items = [(k, bytes([len(k)]) * int(rng.randint(0, 40))) for k in keys]
    data = sst.build_table(items, block_size=block_size, restart_interval=interval)
    assert list(sst.parse_table(data).items()) == items


def test_table_refuses_unsorted_keys():
    with pytest.raises(ValueError, match="strictly increase"):
        sst.build_table([(b"b", b""), (b"a", b"")])


def test_every_truncation_of_an_index_is_data_loss_naming_the_file(tmp_path):
    data = open(TF_PREFIX + ".index", "rb").read()
    path = str(tmp_path / "x.index")
    for n in range(len(data)):
        with open(path, "wb") as f:
            f.write(data[:n])
        with pytest.raises(errors.DataLossError) as e:
            bundle.read_index(path[:-len(".index")])
        assert path in str(e.value)


def test_every_flipped_byte_of_an_index_is_caught_or_harmless(tmp_path):
    data = open(TF_PREFIX + ".index", "rb").read()
    good = bundle.read_index(TF_PREFIX)
    path = str(tmp_path / "x.index")
    caught = 0
    for i in range(len(data)):
        bad = bytearray(data)
        bad[i] ^= 0x20
        with open(path, "wb") as f:
            f.write(bytes(bad))
        try:
            idx = bundle.read_index(path[:-len(".index")])
        except errors.DataLossError as e:
            assert path in str(e)
            caught += 1
            continue
        # Only the footer's zero padding and the (unused) meta-index block carry no
        # meaning; every byte of an entry is covered by its block's checksum.
        assert idx.entries == good.entries and idx.slice_entries == good.slice_entries
    assert caught >= len(data) - 60


def test_hostile_block_sizes_are_refused_before_reading():
    items = [(b"", b"h"), (b"a", b"v")]
    data = bytearray(sst.build_table(items))
    # An index handle pointing far past the end of the file.
    footer = len(data) - 48
    huge = sst.put_varint(0) + sst.put_varint(5) + sst.put_varint(1 << 60) + sst.put_varint(7)
    bad = bytes(data[:footer]) + huge + b"\0" * (40 - len(huge)) + bytes(data[-8:])
    with pytest.raises(sst.TableError, match="past the end"):
        sst.parse_table(bad)
    # A block claiming more restart points than it has bytes.
    block = struct.pack("<I", 0) + struct.pack("<I", 1 << 30)
    with pytest.raises(sst.TableError, match="restart points"):
        sst._block_entries(block, "block")


# -- slices' keys ---------------------------------------------------------------------------

def test_slice_keys_are_encoded_as_tensorflow_encodes_them():
    index = bundle.read_index(DTYPES_PREFIX)
    assert set(index.slice_entries) == {
        bundle.encode_tensor_name_slice("huge", [0, 0], [2, 1]),
        bundle.encode_tensor_name_slice("huge", [500000, 0], [2, 1])}
    tf_index = bundle.read_index(TF_PREFIX)
    half = m.VOCAB // 2
    for name in ("embedding", "embedding/Adam", "embedding/Adam_1"):
        assert bundle.encode_tensor_name_slice(name, [half, 0], [half, m.EMBED]) in \
            tf_index.slice_entries
    # The ordered code keeps numeric order, negative numbers and -1 (a full extent) too.
    values = [-(1 << 40), -70000, -65, -64, -1, 0, 1, 63, 64, 8191, 8192, 1 << 20, 1 << 62]
    keys = [bundle._write_signed_num_increasing(v) for v in values]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


# -- tensors ---------------------------------------------------------------------------------

def test_every_dtype_tensorflow_wrote_reads_back_and_encodes_byte_identically():
    index = bundle.read_index(DTYPES_PREFIX)
    data = open(DTYPES_PREFIX + ".data-00000-of-00001", "rb").read()
    for name, want in m.DTYPE_VALUES.items():
        got = index.read(name)
        assert got.dtype == want.dtype and got.shape == want.shape, name
        np.testing.assert_array_equal(got, want)
        e = index.entries[name]
        _, _, raw, crc = bundle.encode_tensor(want)
        assert raw == data[e.offset:e.offset + e.size] and crc == e.crc32c, name


def test_a_tensor_whose_slices_do_not_cover_it_is_data_loss():
    with pytest.raises(errors.DataLossError, match="cover 4 of 1000000"):
        bundle.read_index(DTYPES_PREFIX).read("huge")


def test_truncated_or_altered_data_file_is_data_loss_naming_it(tmp_path):
    prefix = _copy(tmp_path, TF_PREFIX)
    data_file = prefix + ".data-00000-of-00001"
    size = os.path.getsize(data_file)
    index = bundle.read_index(prefix)
    name, last = max(((n, e) for n, e in index.entries.items() if not e.slices),
                     key=lambda ne: ne[1].offset + ne[1].size)
    end = last.offset + last.size
    with open(data_file, "r+b") as f:
        f.truncate(end - 1)
    with pytest.raises(errors.DataLossError, match="truncated") as e:
        index.read(name)
    assert data_file in str(e.value)
    with open(data_file, "r+b") as f:
        f.truncate(size)  # zero-filled: the right size, the wrong bytes
    assert end - 1 < size
    with pytest.raises(errors.DataLossError, match="CRC-32C") as e:
        index.read(name)
    assert data_file in str(e.value)
    os.remove(data_file)
    with pytest.raises(errors.NotFoundError, match="does not exist"):
        index.read(name)


def _index_with(tmp_path, entry, *more):
    prefix = str(tmp_path / "h")
    with open(prefix + ".index", "wb") as f:
        f.write(bundle.build_index(1, [(b"t", entry), *more]))
    with open(prefix + ".data-00000-of-00001", "wb") as f:
        f.write(b"\0" * 16)
    return bundle.read_index(prefix)


def test_hostile_entries_are_refused_before_allocating(tmp_path):
    shape = bundle.shape_proto([1 << 20, 1 << 20])
    idx = _index_with(tmp_path, bundle.BundleEntryProto(dtype=1, shape=shape, size=1 << 50))
    with pytest.raises(errors.DataLossError, match="offset 0 and size"):
        idx.read("t")
    idx = _index_with(tmp_path, bundle.BundleEntryProto(dtype=1, shape=shape, size=16))
    with pytest.raises(errors.DataLossError, match="16 bytes for a float32"):
        idx.read("t")
    sliced = bundle.BundleEntryProto(dtype=1, shape=shape)
    sliced.slices.append(bundle.make_slice_proto([0, 0], [1, 1]))
    piece = bundle.BundleEntryProto(dtype=1, shape=bundle.shape_proto([1, 1]), size=4)
    idx = _index_with(tmp_path, sliced, (bundle.slice_key("t", [0, 0], [1, 1]), piece))
    with pytest.raises(errors.DataLossError, match="too large"):
        idx.read("t")
    idx = _index_with(tmp_path, bundle.BundleEntryProto(dtype=14, shape=bundle.shape_proto([2])))
    with pytest.raises(errors.DataLossError, match="DataType 14"):
        idx.read("t")
    idx = _index_with(tmp_path, bundle.BundleEntryProto(dtype=1, shard_id=3, size=4))
    with pytest.raises(errors.DataLossError, match="data file 3"):
        idx.read("t")


def test_hostile_string_lengths_are_data_loss():
    # Lengths claiming more bytes than follow.
    raw = sst.put_varint(1 << 40) + b"\0\0\0\0" + b"abc"
    with pytest.raises(errors.DataLossError, match="add up"):
        bundle.decode_tensor(raw, bundle.dtype_from_enum(7, "t"), [1], "file f")
    with pytest.raises(errors.DataLossError, match="bad string lengths"):
        bundle.decode_tensor(b"\xff\xff", bundle.dtype_from_enum(7, "t"), [1], "file f")


def test_bad_header_is_refused(tmp_path):
    prefix = str(tmp_path / "h")
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1, endianness=1)
    with open(prefix + ".index", "wb") as f:
        f.write(sst.build_table([(b"", header.SerializeToString())]))
    with pytest.raises(errors.DataLossError, match="big-endian"):
        bundle.read_index(prefix)
    header = tensor_bundle_pb2.BundleHeaderProto(num_shards=1)
    header.version.min_consumer = 99
    with open(prefix + ".index", "wb") as f:
        f.write(sst.build_table([(b"", header.SerializeToString())]))
    with pytest.raises(errors.DataLossError, match="version"):
        bundle.read_index(prefix)
    with open(prefix + ".index", "wb") as f:
        f.write(sst.build_table([(b"a", b"")]))
    with pytest.raises(errors.DataLossError, match="no header"):
        bundle.read_index(prefix)
    with open(prefix + ".index", "wb") as f:
        f.write(sst.build_table([(b"", b"\xff\xff\xff")]))
    with pytest.raises(errors.DataLossError, match="header does not parse"):
        bundle.read_index(prefix)
