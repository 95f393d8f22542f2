"""tf.data file sources: TextLineDataset, TFRecordDataset, list_files, interleave."""

import gzip

import numpy as np
import pytest

import tensorfleet as tf


def _drain(ds, limit=1000):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as s:
        for _ in range(limit):
            try:
                out.append(s.run(nxt))
            except tf.errors.OutOfRangeError:
                return out
    raise AssertionError("data set did not end")


def test_text_lines_across_files_with_endings_and_gzip(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\n\nthree")
    (tmp_path / "b.txt.gz").write_bytes(gzip.compress(b"four\nfive\n"))
    plain = _drain(tf.data.TextLineDataset(str(tmp_path / "a.txt")))
    assert plain == [b"one", b"two", b"", b"three"]
    gz = _drain(tf.data.TextLineDataset([str(tmp_path / "b.txt.gz")], compression_type="GZIP"))
    assert gz == [b"four", b"five"]
    batched = _drain(tf.data.TextLineDataset([str(tmp_path / "a.txt")] * 2).batch(3))
    assert [b.tolist() for b in batched] == [[b"one", b"two", b""], [b"three", b"one", b"two"],
                                             [b"", b"three"]]


def test_tfrecord_dataset_reads_writer_output_and_repeats(tmp_path):
    path = str(tmp_path / "r.tfrecord.gz")
    with tf.python_io.TFRecordWriter(path, tf.python_io.TFRecordOptions("GZIP")) as w:
        for i in range(3):
            w.write(b"rec%d" % i)
    ds = tf.data.TFRecordDataset(path, compression_type="GZIP").repeat(2)
    assert _drain(ds) == [b"rec0", b"rec1", b"rec2"] * 2


def test_tfrecord_dataset_corruption_surfaces_from_get_next(tmp_path):
    path = tmp_path / "bad.tfrecord"
    with tf.python_io.TFRecordWriter(str(path)) as w:
        w.write(b"good")
        w.write(b"bad!")
    raw = bytearray(path.read_bytes())
    raw[-6] ^= 0x20
    path.write_bytes(bytes(raw))
    nxt = tf.data.TFRecordDataset(str(path)).make_one_shot_iterator().get_next()
    with tf.Session() as s:
        assert s.run(nxt) == b"good"
        with pytest.raises(tf.errors.DataLossError, match="bad.tfrecord.*offset 20"):
            s.run(nxt)


def test_csv_pipeline_map_before_batch(tmp_path):
    (tmp_path / "d.csv").write_text("label,x\n1,0.5\n0,1.5\n1,2.5\n")
    ds = (tf.data.TextLineDataset(str(tmp_path / "d.csv")).skip(1)
          .map(lambda line: tuple(tf.decode_csv(line, [[0], [0.0]])))
          .batch(2))
    out = _drain(ds)
    assert [o[0].tolist() for o in out] == [[1, 0], [1]]
    np.testing.assert_allclose(out[0][1], [0.5, 1.5])


def test_list_files_sorted_or_shuffled_and_no_match(tmp_path):
    for n in range(5):
        (tmp_path / f"f{n}.csv").write_text(str(n))
    pattern = str(tmp_path / "*.csv")
    names = _drain(tf.data.Dataset.list_files(pattern, shuffle=False))
    assert names == [str(tmp_path / f"f{n}.csv").encode() for n in range(5)]
    tf.reset_default_graph()
    shuffled = _drain(tf.data.Dataset.list_files(pattern, seed=3).repeat(4))
    assert sorted(shuffled) == sorted(names * 4)
    epochs = [tuple(shuffled[i:i + 5]) for i in range(0, 20, 5)]
    assert len(set(epochs)) > 1  # reshuffled every epoch (4 epochs of 5! orders)
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        tf.data.Dataset.list_files(str(tmp_path / "*.parquet"))


def test_interleave_order_shard_and_header_skip(tmp_path):
    for name, rows in (("a", 3), ("b", 2), ("c", 1), ("d", 2)):
        (tmp_path / f"{name}.csv").write_text("header\n" + "".join(
            f"{name}{i}\n" for i in range(rows)))
    files = tf.data.Dataset.list_files(str(tmp_path / "*.csv"), shuffle=False)
    ds = files.interleave(lambda f: tf.data.TextLineDataset(f).skip(1), cycle_length=2)
    assert _drain(ds) == [b"a0", b"b0", b"a1", b"b1", b"a2", b"c0", b"d0", b"d1"]
    blocks = files.interleave(lambda f: tf.data.TextLineDataset(f).skip(1), cycle_length=2,
                              block_length=2)
    assert _drain(blocks) == [b"a0", b"a1", b"b0", b"b1", b"a2", b"c0", b"d0", b"d1"]
    # Sharding the file list: worker 1 of 2 reads files b and d only.
    shard = files.shard(2, 1).flat_map(lambda f: tf.data.TextLineDataset(f).skip(1))
    assert _drain(shard) == [b"b0", b"b1", b"d0", b"d1"]


def test_interleave_refuses_what_it_cannot_run(tmp_path):
    files = tf.data.Dataset.from_tensor_slices(np.array([b"x"], dtype=object))
    with pytest.raises(tf.errors.UnimplementedError, match="may only use"):
        files.interleave(lambda f: tf.data.TextLineDataset(f).batch(2), cycle_length=1)
    with pytest.raises(tf.errors.UnimplementedError, match="must return"):
        files.interleave(lambda f: tf.data.Dataset.range(3), cycle_length=1)
    with pytest.raises(tf.errors.UnimplementedError, match="data set of file names"):
        tf.data.Dataset.range(3).interleave(lambda f: tf.data.TextLineDataset(f), 1)
    with pytest.raises(TypeError, match="interleave"):
        tf.data.TextLineDataset(files)
    with pytest.raises(tf.errors.InvalidArgumentError, match="compression type 'BZ2'"):
        tf.data.TFRecordDataset("x", compression_type="BZ2")


def test_missing_file_and_placeholder_file_names(tmp_path):
    (tmp_path / "ok.txt").write_text("l1\nl2\n")
    names = tf.placeholder(tf.string, [None])
    it = tf.data.TextLineDataset(names).make_initializable_iterator()
    nxt = it.get_next()
    with tf.Session() as s:
        s.run(it.initializer, {names: [str(tmp_path / "ok.txt")]})
        assert [s.run(nxt), s.run(nxt)] == [b"l1", b"l2"]
        s.run(it.initializer, {names: [str(tmp_path / "gone.txt")]})
        with pytest.raises(tf.errors.NotFoundError, match="gone.txt"):
            s.run(nxt)


def test_num_parallel_reads_interleaves_the_files_records(tmp_path):
    """As TensorFlow defines it: records of that many files at a time, in turn."""
    paths = []
    for f in range(2):
        p = str(tmp_path / f"part-{f}.tfrecord")
        with tf.python_io.TFRecordWriter(p) as w:
            for r in range(3):
                w.write(f"f{f}r{r}".encode())
        paths.append(p)
    nxt = tf.data.TFRecordDataset(paths, num_parallel_reads=2).make_one_shot_iterator() \
        .get_next()
    with tf.Session() as sess:
        got = [sess.run(nxt) for _ in range(6)]
    assert got == [b"f0r0", b"f1r0", b"f0r1", b"f1r1", b"f0r2", b"f1r2"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_parallel_reads"):
        tf.data.TFRecordDataset(paths, num_parallel_reads=0)
