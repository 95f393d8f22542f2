"""A TFRecord whose record declares more bytes than it holds is a DataLossError naming
the file and the offset, without allocating what it declares."""

import gzip
import struct

import pytest

import tensorfleet as tf
from tensorfleet.platform.tf_record import encode_record, masked_crc32c


def _lying_record(length: int) -> bytes:
    head = struct.pack("<Q", length)
    return head + struct.pack("<I", masked_crc32c(head)) + b"just a few bytes"


@pytest.mark.parametrize("length", [2 ** 40, 2 ** 63, 2 ** 64 - 1])
@pytest.mark.parametrize("compression", [None, "GZIP", "ZLIB"])
def test_a_huge_declared_length_is_data_loss_at_its_offset(tmp_path, length, compression):
    good = encode_record(b"first")
    raw = good + _lying_record(length)
    path = tmp_path / "bad.tfrecord"
    if compression == "GZIP":
        path.write_bytes(gzip.compress(raw))
    elif compression == "ZLIB":
        import zlib
        path.write_bytes(zlib.compress(raw))
    else:
        path.write_bytes(raw)
    options = tf.python_io.TFRecordOptions(compression) if compression else None
    it = tf.python_io.tf_record_iterator(str(path), options)
    assert next(it) == b"first"
    with pytest.raises(tf.errors.DataLossError) as e:
        next(it)
    assert str(path) in str(e.value) and f"offset {len(good)}" in str(e.value)


def test_inside_a_dataset_too(tmp_path):
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(encode_record(b"first") + _lying_record(2 ** 40))
    ds = tf.data.TFRecordDataset([str(path)])
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt) == b"first"
        with pytest.raises(tf.errors.DataLossError, match="offset"):
            sess.run(nxt)
