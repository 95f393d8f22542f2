"""Queue-era file readers (TextLineReader, TFRecordReader, WholeFileReader,
FixedLengthRecordReader) fed by string_input_producer and match_filenames_once."""

from __future__ import annotations

import threading
import time
import zlib
from typing import Any, List

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.framework.serialization import graph_to_plain, import_graph_def

JOIN_SECS = 5.0


@pytest.fixture(autouse=True)
def _fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()


def _session() -> Any:
    # A bounded step deadline turns a hung read into a failure instead of a hang.
    return tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=20000))


def _drain(fetch: Any, limit: int = 1000) -> List[Any]:
    """Runs ``fetch`` as a TF1 program does: under a Coordinator, until the input
    runs out with OutOfRangeError; returns every value."""
    out: List[Any] = []
    with _session() as sess:
        sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            while not coord.should_stop():
                out.append(sess.run(fetch))
                assert len(out) <= limit, "input never ran out"
        except tf.errors.OutOfRangeError:
            pass
        finally:
            coord.request_stop()
            start = time.monotonic()
            coord.join(threads, stop_grace_period_secs=JOIN_SECS)
            assert time.monotonic() - start < JOIN_SECS
    return out


def _key(k: bytes) -> str:
    return k.decode()


def _write_text(path: Any, lines: List[str], newline: str = "\n", final: bool = True) -> str:
    text = newline.join(lines) + (newline if final else "")
    path.write_bytes(text.encode())
    return str(path)


# -- TextLineReader -------------------------------------------------------------------------

def test_text_line_reader_skips_headers_over_files_and_epochs(tmp_path):
    a = _write_text(tmp_path / "a.csv", ["id,v", "1,10", "2,20", "3,30"])
    b = _write_text(tmp_path / "b.csv", ["id,v", "4,40", "5,50"], newline="\r\n", final=False)
    q = tf.train.string_input_producer([a, b], num_epochs=2, shuffle=False)
    reader = tf.TextLineReader(skip_header_lines=1)
    key, value = reader.read(q)
    assert key.shape.as_list() == [] and value.dtype == tf.string
    got = [(_key(k), v.decode()) for k, v in _drain([key, value])]
    one_epoch = [(f"{a}:2", "1,10"), (f"{a}:3", "2,20"), (f"{a}:4", "3,30"),
                 (f"{b}:2", "4,40"), (f"{b}:3", "5,50")]
    assert got == one_epoch * 2


def test_text_lines_through_decode_csv_and_batch(tmp_path):
    rows = np.arange(14, dtype=np.int64).reshape(7, 2)
    path = _write_text(tmp_path / "d.csv", ["x,y"] + [f"{r[0]},{r[1]}" for r in rows])
    q = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
    _, line = tf.TextLineReader(skip_header_lines=1).read(q)
    x, y = tf.decode_csv(line, record_defaults=[[0], [0]])
    bx, by = tf.train.batch([x, y], batch_size=3, allow_smaller_final_batch=True)
    batches = _drain([bx, by])
    got = np.concatenate([np.stack(b, axis=1) for b in batches])
    np.testing.assert_array_equal(got, rows)
    assert [len(b[0]) for b in batches] == [3, 3, 1]


# -- TFRecordReader -------------------------------------------------------------------------

def _write_records(path: str, records: List[bytes], options: Any = None) -> List[int]:
    with tf.python_io.TFRecordWriter(path, options=options) as w:
        for r in records:
            w.write(r)
    # Offsets from the format: 8-byte length, 4-byte length CRC, data, 4-byte data CRC.
    return list(np.cumsum([0] + [16 + len(r) for r in records])[:-1])


@pytest.mark.parametrize("kind", ["", "GZIP", "ZLIB"])
def test_tfrecord_reader_plain_and_compressed(tmp_path, kind):
    opts = tf.python_io.TFRecordOptions(
        {"": tf.python_io.TFRecordCompressionType.NONE,
         "GZIP": tf.python_io.TFRecordCompressionType.GZIP,
         "ZLIB": tf.python_io.TFRecordCompressionType.ZLIB}[kind])
    files, expected = [], []
    for i in range(3):
        path = str(tmp_path / f"r{i}.tfrecord")
        recs = [b"file%d-rec%d-" % (i, j) + b"x" * j for j in range(4 + i)]
        offs = _write_records(path, recs, opts)
        files.append(path)
        expected += [(f"{path}:{o}", r) for o, r in zip(offs, recs)]
    if kind == "GZIP":
        assert (tmp_path / "r0.tfrecord").read_bytes()[:2] == b"\x1f\x8b"
    q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    key, value = tf.TFRecordReader(options=opts).read(q)
    got = [(_key(k), v) for k, v in _drain([key, value])]
    assert got == expected


def test_tfrecord_read_up_to_stays_within_one_file(tmp_path):
    files = []
    for i, n in enumerate([5, 2]):
        path = str(tmp_path / f"u{i}.tfrecord")
        _write_records(path, [b"%d:%d" % (i, j) for j in range(n)])
        files.append(path)
    q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.TFRecordReader()
    keys, values = reader.read_up_to(q, 3)
    assert keys.shape.as_list() == [None]
    got = [[v.decode() for v in vals] for _, vals in _drain([keys, values])]
    assert got == [["0:0", "0:1", "0:2"], ["0:3", "0:4"], ["1:0", "1:1"]]


def test_tfrecord_reader_rejects_unknown_compression():
    with pytest.raises(ValueError, match="compression"):
        tf.TFRecordReader(options="BZIP2")


# -- WholeFileReader and match_filenames_once -------------------------------------------------

def test_whole_file_reader_with_match_filenames_once(tmp_path):
    contents = {f"w{i}.bin": bytes(np.random.RandomState(i).randint(0, 256, 50 * i + 3)
                                   .astype(np.uint8)) for i in range(3)}
    for n, data in contents.items():
        (tmp_path / n).write_bytes(data)
    (tmp_path / "skip.txt").write_bytes(b"not matched")
    names = tf.train.match_filenames_once(str(tmp_path / "w*.bin"))
    assert names.op.name == "matching_filenames"
    assert names in tf.local_variables()
    q = tf.train.string_input_producer(names, num_epochs=1, shuffle=False)
    key, value = tf.WholeFileReader().read(q)
    got = _drain([key, value])
    assert [(_key(k), v) for k, v in got] == [(str(tmp_path / n), d)
                                              for n, d in sorted(contents.items())]


# -- FixedLengthRecordReader ----------------------------------------------------------------

def _fixed_reference(data: bytes, rb: int, hb: int, fb: int, hop: int) -> List[bytes]:
    step = hop or rb
    end = len(data) - fb
    return [data[s:s + rb] for s in range(hb, end - rb + 1, step)]


@pytest.mark.parametrize("rb,hb,fb,hop", [(4, 0, 0, 0), (4, 2, 3, 0), (4, 2, 3, 3),
                                          (5, 1, 0, 7), (3000, 10, 20, 0)])
def test_fixed_length_reader_matches_byte_slicing(tmp_path, rb, hb, fb, hop):
    blobs = [np.random.RandomState(s).randint(0, 256, size).astype(np.uint8).tobytes()
             for s, size in [(1, 41), (2, 20), (3, 700000)]]
    files = []
    expected = []
    for i, blob in enumerate(blobs):
        path = str(tmp_path / f"f{i}.bin")
        with open(path, "wb") as f:
            f.write(blob)
        files.append(path)
        expected += [(f"{path}:{j}", r)
                     for j, r in enumerate(_fixed_reference(blob, rb, hb, fb, hop))]
    q = tf.train.string_input_producer(files, num_epochs=1, shuffle=False)
    reader = tf.FixedLengthRecordReader(rb, header_bytes=hb, footer_bytes=fb, hop_bytes=hop)
    keys, values = reader.read_up_to(q, 1000)
    got = [(_key(k), v) for ks, vs in _drain([keys, values]) for k, v in zip(ks, vs)]
    assert len(got) == len(expected)
    assert got == expected


def test_fixed_length_reader_decodes_records_with_decode_raw(tmp_path):
    labels = np.arange(6, dtype=np.uint8)
    images = np.random.RandomState(0).randint(0, 256, (6, 12)).astype(np.uint8)
    path = tmp_path / "cifar_like.bin"
    path.write_bytes(zlib.compress(np.concatenate([labels[:, None], images], 1).tobytes()))
    q = tf.train.string_input_producer([str(path)], num_epochs=1, shuffle=False)
    _, value = tf.FixedLengthRecordReader(13, encoding="ZLIB").read(q)
    raw = tf.decode_raw(value, tf.uint8)
    got = np.stack(_drain(raw))
    np.testing.assert_array_equal(got[:, 0], labels)
    np.testing.assert_array_equal(got[:, 1:], images)


def test_fixed_length_reader_argument_errors():
    with pytest.raises(ValueError, match="record_bytes"):
        tf.FixedLengthRecordReader(0)
    with pytest.raises(ValueError, match="header_bytes"):
        tf.FixedLengthRecordReader(4, header_bytes=-1)
    with pytest.raises(ValueError, match="encoding"):
        tf.FixedLengthRecordReader(4, encoding="LZ4")
    with pytest.raises(ValueError, match="skip_header_lines"):
        tf.TextLineReader(skip_header_lines=-2)


# -- reader state -----------------------------------------------------------------------------

def test_counters_reset_and_out_of_range_on_closed_queue(tmp_path):
    a = _write_text(tmp_path / "a.txt", ["a1", "a2"])
    b = _write_text(tmp_path / "b.txt", ["b1"])
    q = tf.FIFOQueue(10, tf.string)
    fill = q.enqueue_many([[a, b, a]])
    close = q.close()
    reader = tf.TextLineReader()
    key, value = reader.read(q)
    produced, done = reader.num_records_produced(), reader.num_work_units_completed()
    reset = reader.reset()
    with _session() as sess:
        sess.run(fill)
        assert [sess.run(value) for _ in range(2)] == [b"a1", b"a2"]
        # The first file's end is only seen by the read that moves past it.
        assert sess.run([produced, done]) == [2, 0]
        assert sess.run(key) == f"{b}:1".encode()
        assert sess.run([produced, done]) == [3, 1]
        sess.run(reset)
        assert sess.run([produced, done]) == [0, 0]
        assert sess.run(value) == b"a1"      # the reset dropped the rest of b
        sess.run(close)
        assert sess.run(value) == b"a2"
        with pytest.raises(tf.errors.OutOfRangeError, match="closed"):
            sess.run(value)


def test_read_blocks_until_a_file_name_arrives(tmp_path):
    path = _write_text(tmp_path / "late.txt", ["late"])
    q = tf.FIFOQueue(4, tf.string)
    name = tf.placeholder(tf.string, [])
    enq = q.enqueue(name)
    value = tf.TextLineReader().read(q)[1]
    with _session() as sess:
        timer = threading.Timer(0.5, lambda: sess.run(enq, {name: path}))
        start = time.monotonic()
        timer.start()
        try:
            assert sess.run(value) == b"late"
        finally:
            timer.join()
        assert time.monotonic() - start >= 0.4


def test_missing_file_fails_then_reader_moves_on(tmp_path):
    good = _write_text(tmp_path / "good.txt", ["ok"])
    q = tf.FIFOQueue(4, tf.string)
    fill = q.enqueue_many([[str(tmp_path / "missing.txt"), good]])
    value = tf.TextLineReader().read(q)[1]
    with _session() as sess:
        sess.run(fill)
        with pytest.raises(tf.errors.NotFoundError, match="missing.txt"):
            sess.run(value)
        assert sess.run(value) == b"ok"


def test_read_argument_errors():
    with pytest.raises(TypeError, match="queue"):
        tf.TextLineReader().read([b"not a queue"])
    with pytest.raises(ValueError, match="scalar"):
        tf.TFRecordReader().read_up_to(tf.FIFOQueue(1, tf.string), [1, 2])


def test_reader_graph_survives_serialization(tmp_path):
    path = str(tmp_path / "s.tfrecord")
    offs = _write_records(path, [b"alpha", b"beta"], tf.python_io.TFRecordOptions("GZIP"))
    q = tf.FIFOQueue(4, tf.string)
    fill, close = q.enqueue_many([[path]]), q.close()
    keys, values = tf.TFRecordReader(options=tf.python_io.TFRecordOptions("GZIP")).read_up_to(
        q, 10)
    # The graph as another task receives it: plain data only.
    g2 = import_graph_def(graph_to_plain(tf.get_default_graph()))
    with g2.as_default(), _session() as sess:
        sess.run([g2.get_operation_by_name(fill.name), g2.get_operation_by_name(close.name)])
        k, v = sess.run([g2.get_tensor_by_name(keys.name), g2.get_tensor_by_name(values.name)])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(g2.get_tensor_by_name(values.name))
    assert k.tolist() == [f"{path}:{o}".encode() for o in offs]
    assert v.tolist() == [b"alpha", b"beta"]


def test_reader_on_a_cluster_task(tmp_path):
    from tensorfleet.testing.cluster import local_cluster
    a = _write_text(tmp_path / "a.txt", ["h", "1", "2"])
    b = _write_text(tmp_path / "b.txt", ["h", "3"])
    with local_cluster(worker=1, ps=1) as c:
        with tf.device("/job:ps/task:0"):
            q = tf.FIFOQueue(4, tf.string)
            fill, close = q.enqueue_many([[a, b]]), q.close()
            key, value = tf.TextLineReader(skip_header_lines=1).read(q)
        with tf.Session(c.target("worker")) as sess:
            sess.run([fill, close])
            got = []
            with pytest.raises(tf.errors.OutOfRangeError):
                for _ in range(10):
                    got.append(tuple(sess.run([key, value])))
    assert got == [(f"{a}:2".encode(), b"1"), (f"{a}:3".encode(), b"2"),
                   (f"{b}:2".encode(), b"3")]
