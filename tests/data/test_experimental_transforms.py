"""tf.data.experimental / tf.contrib.data transformations and tf.parse_single_sequence_example
(values from protos built here; expected shapes and errors as TensorFlow 1.15 gives them)."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.contrib.tensorboard.plugins import projector


def _take(ds, n):
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        return [sess.run(nxt) for _ in range(n)]


def test_map_and_batch_equals_map_then_batch():
    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.map_and_batch(lambda x: x * 2, 4, drop_remainder=True,
                                           num_parallel_calls=tf.data.experimental.AUTOTUNE))
    assert ds.output_shapes.as_list() == [4]
    got = _take(ds, 2)
    np.testing.assert_array_equal(got, [[0, 2, 4, 6], [8, 10, 12, 14]])
    ds = tf.data.Dataset.range(5).apply(tf.contrib.data.map_and_batch(lambda x: x + 1, 3))
    got = _take(ds, 2)
    assert [g.tolist() for g in got] == [[1, 2, 3], [4, 5]]
    with pytest.raises(ValueError, match="not both"):
        tf.data.experimental.map_and_batch(lambda x: x, 2, num_parallel_batches=1,
                                           num_parallel_calls=2)
    with pytest.raises(ValueError, match="positive integer"):
        tf.data.experimental.map_and_batch(lambda x: x, 2, num_parallel_calls=0)


def test_shuffle_and_repeat_is_a_permutation_per_epoch():
    ds = tf.data.Dataset.range(6).apply(tf.data.experimental.shuffle_and_repeat(6, 3, seed=4))
    got = [int(v) for v in _take(ds, 18)]
    for e in range(3):
        assert sorted(got[6 * e:6 * e + 6]) == list(range(6))
    with pytest.raises(tf.errors.OutOfRangeError):
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            for _ in range(19):
                sess.run(nxt)


def test_batch_and_drop_remainder_and_unbatch():
    ds = tf.data.Dataset.range(7).apply(tf.contrib.data.batch_and_drop_remainder(3))
    assert ds.output_shapes.as_list() == [3]
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert sess.run(nxt).tolist() == [0, 1, 2]
        assert sess.run(nxt).tolist() == [3, 4, 5]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(nxt)
    flat = tf.data.Dataset.from_tensor_slices([[1, 2], [3, 4]]).apply(
        tf.data.experimental.unbatch())
    assert [int(v) for v in _take(flat, 4)] == [1, 2, 3, 4]
    with pytest.raises(TypeError, match="Dataset.apply"):
        tf.data.experimental.unbatch()([1, 2])


def test_parallel_interleave_reads_files_in_turn(tmp_path):
    names = []
    for f in range(2):
        p = tmp_path / f"f{f}.txt"
        p.write_text("".join(f"{f}-{i}\n" for i in range(3)))
        names.append(str(p))
    ds = tf.data.Dataset.from_tensor_slices(names).apply(
        tf.contrib.data.parallel_interleave(tf.data.TextLineDataset, cycle_length=2,
                                            sloppy=True))
    assert _take(ds, 6) == [b"0-0", b"1-0", b"0-1", b"1-1", b"0-2", b"1-2"]


def _sequence_example():
    ex = tf.train.SequenceExample()
    ex.context.feature["len"].int64_list.value.append(3)
    ex.context.feature["tags"].bytes_list.value.extend([b"a", b"b"])
    for t in range(3):
        ex.feature_lists.feature_list["tok"].feature.add().int64_list.value.extend([t, t * 10])
        ex.feature_lists.feature_list["w"].feature.add().float_list.value.extend([0.5] * t)
    return ex.SerializeToString()


def test_parse_single_sequence_example_values_and_shapes():
    ctx, seq = tf.parse_single_sequence_example(
        _sequence_example(),
        context_features={"len": tf.FixedLenFeature([], tf.int64),
                          "tags": tf.VarLenFeature(tf.string),
                          "miss": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])},
        sequence_features={"tok": tf.io.FixedLenSequenceFeature([2], tf.int64),
                           "w": tf.VarLenFeature(tf.float32),
                           "none": tf.FixedLenSequenceFeature([], tf.string,
                                                              allow_missing=True),
                           "nonev": tf.VarLenFeature(tf.int64)})
    assert seq["tok"].shape.as_list() == [None, 2] and ctx["len"].shape.ndims == 0
    with tf.Session() as sess:
        c, s = sess.run([ctx, seq])
    assert c["len"] == 3 and c["miss"].tolist() == [1.0, 2.0]
    assert c["tags"].indices.tolist() == [[0], [1]] and c["tags"].dense_shape.tolist() == [2]
    np.testing.assert_array_equal(s["tok"], [[0, 0], [1, 10], [2, 20]])
    assert s["w"].indices.tolist() == [[1, 0], [2, 0], [2, 1]]
    assert s["w"].dense_shape.tolist() == [3, 2]
    assert s["none"].shape == (0,) and s["nonev"].dense_shape.tolist() == [0, 0]


def test_parse_single_sequence_example_errors():
    ser = _sequence_example()
    _, q = tf.io.parse_single_sequence_example(
        ser, sequence_features={"zz": tf.FixedLenSequenceFeature([], tf.int64)})
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="'zz' is required"):
            sess.run(q)
    _, q = tf.parse_single_sequence_example(
        ser, sequence_features={"tok": tf.FixedLenSequenceFeature([3], tf.int64)})
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="Values size: 2"):
            sess.run(q)
        with pytest.raises(tf.errors.InvalidArgumentError, match="Could not parse"):
            x = tf.placeholder(tf.string, [])
            _, q2 = tf.parse_single_sequence_example(
                x, sequence_features={"tok": tf.VarLenFeature(tf.int64)})
            sess.run(q2, {x: b"\xff\xff\xff"})
    with pytest.raises(ValueError, match="context_features or sequence_features"):
        tf.parse_single_sequence_example(ser)
    with pytest.raises(ValueError, match="FixedLenFeature or VarLenFeature"):
        tf.parse_single_sequence_example(
            ser, context_features={"a": tf.FixedLenSequenceFeature([], tf.int64)})
    with pytest.raises(ValueError, match="default_value"):
        tf.parse_single_sequence_example(
            ser, sequence_features={"a": tf.FixedLenSequenceFeature([], tf.int64,
                                                                     default_value=0)})


def test_projector_config_written_for_tensorboard(tmp_path):
    assert tf.contrib.tensorboard.plugins.projector is projector
    writer = tf.summary.FileWriter(str(tmp_path))
    config = projector.ProjectorConfig()
    emb = config.embeddings.add()
    emb.tensor_name = "embedding:0"
    emb.metadata_path = 'meta "1".tsv'
    emb.sprite.image_path = "sprite.png"
    emb.sprite.single_image_dim.extend([28, 28])
    projector.visualize_embeddings(writer, config)
    writer.close()
    text = (tmp_path / "projector_config.pbtxt").read_text()
    assert text == ('embeddings {\n  tensor_name: "embedding:0"\n'
                    '  metadata_path: "meta \\"1\\".tsv"\n  sprite {\n'
                    '    image_path: "sprite.png"\n    single_image_dim: 28\n'
                    '    single_image_dim: 28\n  }\n}\n')
    with pytest.raises(TypeError, match="ProjectorConfig"):
        projector.visualize_embeddings(writer, {"embeddings": []})
