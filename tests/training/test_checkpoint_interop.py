"""Checkpoints written by TensorFlow 2.21 (``compat.v1``) restore into tensorfleet.

The fixtures in tests/fixtures/tf_files were written by make_fixtures.py under TensorFlow
(the command is at the top of that file): a convolution + partitioned embedding +
dense model trained three Adam steps, its predictions, and every variable after one
more step. No TensorFlow is needed here.
"""

import os
import shutil
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.platform import tensor_bundle as bundle
from tensorfleet.training import checkpoint_management as cm

DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fixtures",
                    "tf_files")
sys.path.insert(0, DATA)
import interop_model as m  # noqa: E402
import write_tensorfleet_checkpoint  # noqa: E402

v1 = tf.compat.v1


@pytest.fixture
def tf_ckpt(tmp_path):
    """A copy of TensorFlow's checkpoint directory (tests may damage it)."""
    d = tmp_path / "tf_ckpt"
    shutil.copytree(os.path.join(DATA, "tf_ckpt"), d)
    return str(d)


@pytest.fixture
def expected():
    return np.load(os.path.join(DATA, "expected.npz"))


def test_tensorflow_checkpoint_restores_with_same_predictions_and_next_adam_step(
        tf_ckpt, expected):
    g = tf.Graph()
    with g.as_default():
        t = m.build(v1)
        saver = v1.train.Saver()
        with v1.Session() as sess:
            prefix = tf.train.latest_checkpoint(tf_ckpt)
            assert prefix == os.path.join(tf_ckpt, "model.ckpt-3")
            saver.restore(sess, prefix)
            feed = {t["x"]: expected["x"], t["ids"]: expected["ids"],
                    t["labels"]: expected["labels"]}
            np.testing.assert_allclose(sess.run(t["logits"], feed), expected["preds"],
                                       rtol=1e-6, atol=1e-6)
            sess.run(t["train"], feed)
            got = {v.op.name: sess.run(v) for v in v1.global_variables()}
    # Every variable TensorFlow had, slots and beta powers included, after the step.
    want = {k[len("after/"):]: expected[k] for k in expected.files if k.startswith("after/")}
    assert sorted(got) == sorted(want)
    assert {"beta1_power", "beta2_power", "embedding/part_1/Adam_1"} <= set(got)
    for name in want:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)


def test_checkpoint_reader_lists_and_assembles_partitioned_tensors(tf_ckpt, expected):
    names = dict(tf.train.list_variables(tf_ckpt))
    assert names["embedding"] == [m.VOCAB, m.EMBED]
    assert names["embedding/Adam_1"] == [m.VOCAB, m.EMBED]
    assert names["conv/kernel"] == [3, 3, 1, 2] and names["beta1_power"] == []
    reader = tf.train.NewCheckpointReader(os.path.join(tf_ckpt, "model.ckpt-3"))
    emb = reader.get_tensor("embedding")
    assert emb.shape == (m.VOCAB, m.EMBED) and emb.dtype == np.float32
    assert reader.get_variable_to_dtype_map()["embedding"] is tf.float32
    np.testing.assert_array_equal(tf.train.load_variable(tf_ckpt, "embedding:0"), emb)
    index = bundle.read_index(os.path.join(tf_ckpt, "model.ckpt-3"))
    half = m.VOCAB // 2
    assert index.slices("embedding") == [([0, 0], [half, m.EMBED]),
                                         ([half, 0], [half, m.EMBED])]


def test_init_from_checkpoint_reads_tensorflow_checkpoint(tf_ckpt):
    reader = tf.train.load_checkpoint(tf_ckpt)
    with tf.Graph().as_default():
        with v1.variable_scope("new"):
            emb = v1.get_variable("emb", [m.VOCAB, m.EMBED],
                                  partitioner=v1.fixed_size_partitioner(4))
            k = v1.get_variable("k", [3, 3, 1, 2])
        tf.train.init_from_checkpoint(tf_ckpt, {"embedding": "new/emb", "conv/kernel": k})
        with v1.Session() as sess:
            sess.run(v1.global_variables_initializer())
            np.testing.assert_array_equal(np.concatenate(sess.run(list(emb))),
                                          reader.get_tensor("embedding"))
            np.testing.assert_array_equal(sess.run(k), reader.get_tensor("conv/kernel"))


def test_tensorfleet_checkpoint_has_tensorflow_layout_and_reads_back(tmp_path):
    """What ``make_fixtures.py check`` reads in TensorFlow (see docs/interop.md): the
    same keys, slices and header as TensorFlow writes for this model."""
    prefix = write_tensorfleet_checkpoint.write(str(tmp_path))
    ours = bundle.read_index(prefix)
    theirs = bundle.read_index(os.path.join(DATA, "tf_ckpt", "model.ckpt-3"))
    assert sorted(ours.entries) == sorted(theirs.entries)
    assert sorted(ours.slice_entries) == sorted(theirs.slice_entries)
    for name, e in theirs.entries.items():
        mine = ours.entries[name]
        assert (mine.dtype, mine.shape, list(mine.slices)) == (e.dtype, e.shape, list(e.slices))
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "frozen_graph.pb",
                                            "model.ckpt-3.data-00000-of-00001",
                                            "model.ckpt-3.index", "saved_model",
                                            "tensorfleet_expected.npz"]
    saved = np.load(os.path.join(str(tmp_path), "tensorfleet_expected.npz"))
    with tf.Graph().as_default():
        t = m.build(v1)
        with v1.Session() as sess:
            v1.train.Saver().restore(sess, tf.train.latest_checkpoint(str(tmp_path)))
            np.testing.assert_array_equal(
                sess.run(t["logits"], {t["x"]: saved["x"], t["ids"]: saved["ids"]}),
                saved["preds"])


def test_two_ps_cluster_checkpoint_has_one_data_file_per_ps(tmp_path):
    prefix = write_tensorfleet_checkpoint.write(str(tmp_path), ps=2)
    index = bundle.read_index(prefix)
    assert index.num_shards == 2
    assert {e.shard_id for e in index.slice_entries.values()} == {0, 1}
    assert sorted(f for f in os.listdir(tmp_path) if ".data-" in f) == [
        "model.ckpt-3.data-00000-of-00002", "model.ckpt-3.data-00001-of-00002"]
    # What TensorFlow reads (docs/interop.md): the entries TensorFlow writes for this model.
    theirs = bundle.read_index(os.path.join(DATA, "tf_ckpt", "model.ckpt-3"))
    assert sorted(index.entries) == sorted(theirs.entries)
    assert sorted(index.slice_entries) == sorted(theirs.slice_entries)
    for name, e in theirs.entries.items():
        mine = index.entries[name]
        assert (mine.dtype, mine.shape, list(mine.slices)) == (e.dtype, e.shape, list(e.slices))
    saved = np.load(os.path.join(str(tmp_path), "tensorfleet_expected.npz"))
    with tf.Graph().as_default():
        t = m.build(v1, partitions=2)
        with v1.Session() as sess:
            v1.train.Saver().restore(sess, prefix)
            np.testing.assert_allclose(
                sess.run(t["logits"], {t["x"]: saved["x"], t["ids"]: saved["ids"]}),
                saved["preds"], rtol=1e-6, atol=1e-6)


def test_damaged_tensorflow_data_file_falls_back_to_nothing_silently_never(tf_ckpt):
    data = os.path.join(tf_ckpt, "model.ckpt-3.data-00000-of-00001")
    with open(data, "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 0x40]))
    with tf.Graph().as_default():
        m.build(v1)
        with v1.Session() as sess, pytest.raises(errors.DataLossError, match="CRC-32C") as e:
            v1.train.Saver().restore(sess, tf.train.latest_checkpoint(tf_ckpt))
    assert data in str(e.value)
    with pytest.raises(errors.DataLossError):
        for name, _ in cm.list_variables(tf_ckpt):
            cm.load_variable(tf_ckpt, name)
