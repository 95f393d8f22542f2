"""TFRecord files: framing bytes checked against the format specification, compression,
and the errors a damaged file raises."""

import gzip
import struct
import zlib

import pytest

import tensorfleet as tf
from tensorfleet.platform import tf_record


def _crc32c_bitwise(data: bytes) -> int:
    """CRC-32C straight from its definition (reflected polynomial 0x82F63B78): the
    reference the fast implementation is checked against."""
    c = 0xFFFFFFFF
    for byte in data:
        c ^= byte
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
    return c ^ 0xFFFFFFFF


def _masked(data: bytes) -> int:
    c = _crc32c_bitwise(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def _frame(data: bytes) -> bytes:
    length = struct.pack("<Q", len(data))
    return length + struct.pack("<I", _masked(length)) + data + struct.pack("<I", _masked(data))


# b"hello" framed: length 5 as uint64 LE, masked CRC of those 8 bytes, the data, masked
# CRC of the data (values from the bitwise reference above).
HELLO = bytes.fromhex("0500000000000000" "eab2043e" "68656c6c6f" "bb1f1c19")
EMPTY = bytes.fromhex("0000000000000000" "29039807" "d8ea82a2")


def test_crc_reference_matches_the_check_value():
    assert _crc32c_bitwise(b"123456789") == 0xE3069283


def test_framing_bytes_match_hand_computed_fixtures():
    assert _frame(b"hello") == HELLO
    assert _frame(b"") == EMPTY
    assert tf_record.encode_record(b"hello") == HELLO
    assert tf_record.encode_record(b"") == EMPTY
    for n in (1, 7, 255, 4096):
        data = bytes(range(256)) * (n // 256) + bytes(range(n % 256))
        assert tf_record.masked_crc32c(data) == _masked(data)


def test_writer_writes_exact_bytes_and_iterator_reads_them(tmp_path):
    path = str(tmp_path / "a.tfrecord")
    with tf.python_io.TFRecordWriter(path) as w:
        w.write(b"hello")
        w.write(b"")
        w.write("wörld")
    raw = open(path, "rb").read()
    assert raw == HELLO + EMPTY + _frame("wörld".encode())
    assert list(tf.python_io.tf_record_iterator(path)) == [b"hello", b"", "wörld".encode()]


@pytest.mark.parametrize("kind,decompress", [
    (tf.python_io.TFRecordCompressionType.GZIP, gzip.decompress),
    ("GZIP", gzip.decompress),
    (tf.python_io.TFRecordCompressionType.ZLIB, zlib.decompress),
    ("ZLIB", zlib.decompress),
])
def test_compressed_files_are_the_framed_stream_compressed(tmp_path, kind, decompress):
    path = str(tmp_path / "c.tfrecord")
    records = [b"x" * 1000, b"hello", b""]
    opts = tf.python_io.TFRecordOptions(kind)
    with tf.python_io.TFRecordWriter(path, opts) as w:
        for r in records:
            w.write(r)
    raw = open(path, "rb").read()
    assert len(raw) < 1000  # compressed
    assert decompress(raw) == b"".join(_frame(r) for r in records)
    assert list(tf.python_io.tf_record_iterator(path, opts)) == records


def test_reads_files_compressed_elsewhere(tmp_path):
    stream = HELLO + _frame(b"second")
    gz, zl = tmp_path / "a.gz", tmp_path / "a.z"
    gz.write_bytes(gzip.compress(stream))
    zl.write_bytes(zlib.compress(stream, 9))
    gz_opts = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    assert list(tf.python_io.tf_record_iterator(str(gz), gz_opts)) == [b"hello", b"second"]
    assert list(tf.python_io.tf_record_iterator(str(zl), "ZLIB")) == [b"hello", b"second"]


def test_flush_makes_records_readable_before_close(tmp_path):
    path = str(tmp_path / "f.tfrecord")
    w = tf.python_io.TFRecordWriter(path)
    w.write(b"one")
    w.flush()
    assert list(tf.python_io.tf_record_iterator(path)) == [b"one"]
    w.close()
    w.close()  # idempotent
    with pytest.raises(tf.errors.FailedPreconditionError, match="closed"):
        w.write(b"two")


def test_corrupt_data_raises_data_loss_naming_file_and_offset(tmp_path):
    path = tmp_path / "bad.tfrecord"
    damaged = bytearray(HELLO + HELLO)
    damaged[len(HELLO) + 13] ^= 0x01  # a data byte of the second record
    path.write_bytes(bytes(damaged))
    it = tf.python_io.tf_record_iterator(str(path))
    assert next(it) == b"hello"
    with pytest.raises(tf.errors.DataLossError) as e:
        next(it)
    assert str(path) in str(e.value) and f"offset {len(HELLO)}" in str(e.value)
    assert "data checksum" in str(e.value)


def test_corrupt_length_and_truncation_raise_data_loss(tmp_path):
    bad_len = bytearray(HELLO)
    bad_len[0] = 6
    p = tmp_path / "len.tfrecord"
    p.write_bytes(bytes(bad_len))
    with pytest.raises(tf.errors.DataLossError, match="offset 0 .length checksum"):
        list(tf.python_io.tf_record_iterator(str(p)))
    for cut in (3, 12, len(HELLO) - 1):
        t = tmp_path / f"cut{cut}.tfrecord"
        t.write_bytes(HELLO + HELLO[:cut])
        with pytest.raises(tf.errors.DataLossError, match=f"truncated record at offset "
                                                          f"{len(HELLO)}"):
            list(tf.python_io.tf_record_iterator(str(t)))


def test_corrupt_compressed_stream_raises_data_loss(tmp_path):
    p = tmp_path / "bad.gz"
    data = bytearray(gzip.compress(HELLO * 50))
    data[len(data) // 2] ^= 0xFF
    p.write_bytes(bytes(data))
    with pytest.raises(tf.errors.DataLossError, match=str(p)):
        list(tf.python_io.tf_record_iterator(str(p), "GZIP"))


def test_bad_arguments_have_clear_errors(tmp_path):
    with pytest.raises(ValueError, match="compression type 'LZ4'"):
        tf.python_io.TFRecordOptions("LZ4")
    with pytest.raises(ValueError, match="compression_level"):
        tf.python_io.TFRecordOptions("GZIP", compression_level=12)
    with pytest.raises(tf.errors.NotFoundError, match="missing.tfrecord"):
        list(tf.python_io.tf_record_iterator(str(tmp_path / "missing.tfrecord")))
    with pytest.raises(tf.errors.NotFoundError):
        tf.python_io.TFRecordWriter(str(tmp_path / "no" / "dir.tfrecord"))
    with tf.python_io.TFRecordWriter(str(tmp_path / "t.tfrecord")) as w:
        with pytest.raises(TypeError, match="bytes"):
            w.write(3)


def test_compression_type_strings():
    opts = tf.python_io.TFRecordOptions
    kinds = tf.python_io.TFRecordCompressionType
    assert opts.get_compression_type_string(opts(kinds.GZIP)) == "GZIP"
    assert opts.get_compression_type_string(kinds.ZLIB) == "ZLIB"
    assert opts.get_compression_type_string(None) == ""
    assert opts.get_compression_type_string("gzip") == "GZIP"
