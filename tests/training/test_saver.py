"""tf.train.Saver: sharded tensor-bundle checkpoints, their index, state file and recovery."""

import os

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import errors
from tensorfleet.distributed.placement import place
from tensorfleet.ops import io_ops
from tensorfleet.testing.cluster import local_cluster
from tensorfleet.platform import tensor_bundle as bundle
from tensorfleet.training import checkpoint_management as cm
from tensorfleet.platform import sorted_string_table as sst
from tensorfleet.training.saver import Saver


def _model():
    with tf.variable_scope("layer1"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="weights")
        b = tf.Variable(np.array([1, 2], dtype=np.int64), name="bias")
    flag = tf.Variable(np.array([True, False]), name="flag")
    label = tf.Variable("hello", name="label")
    return w, b, flag, label


def _zero_all(sess, w, b, flag, label):
    sess.run([w.assign(tf.zeros_like(w)), b.assign(tf.zeros_like(b)),
              flag.assign(np.array([False, False])), label.assign("bye")])


def test_round_trip_restores_saved_values(tmp_path):
    w, b, flag, label = _model()
    saver = Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=100)
        assert prefix == str(tmp_path / "model.ckpt-100")
        _zero_all(sess, w, b, flag, label)
        assert sess.run(w).sum() == 0
        saver.restore(sess, prefix)
        vw, vb, vf, vl = sess.run([w, b, flag, label])
    np.testing.assert_array_equal(vw, np.arange(6, dtype=np.float32).reshape(2, 3))
    np.testing.assert_array_equal(vb, [1, 2])
    np.testing.assert_array_equal(vf, [True, False])
    assert vl == b"hello"
    names = sorted(os.listdir(tmp_path))
    assert names == ["checkpoint", "model.ckpt-100.data-00000-of-00001",
                     "model.ckpt-100.index", "model.ckpt-100.meta"]
    index = bundle.read_index(prefix)
    assert index.num_shards == 1
    assert index.shape("layer1/weights") == [2, 3]
    assert sum(e.size for e in index.entries.values()) == \
        os.path.getsize(tmp_path / "model.ckpt-100.data-00000-of-00001")


def test_data_file_holds_raw_little_endian_tensors_at_their_entries(tmp_path):
    _model()
    saver = Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = saver.save(sess, str(tmp_path / "m"), write_meta_graph=False)
    table = sst.read_table_file(prefix + ".index")
    assert sorted(table) == [b"", b"flag", b"label", b"layer1/bias", b"layer1/weights"]
    header = bundle.BundleHeaderProto.FromString(table[b""])
    assert header.num_shards == 1 and header.version.producer == 1
    data = open(prefix + ".data-00000-of-00001", "rb").read()
    e = bundle.BundleEntryProto.FromString(table[b"layer1/weights"])
    assert e.dtype == 1 and [d.size for d in e.shape.dim] == [2, 3]
    raw = data[e.offset:e.offset + e.size]
    np.testing.assert_array_equal(np.frombuffer(raw, "<f4"), np.arange(6, dtype=np.float32))
    assert sst.masked_crc32c(raw) == e.crc32c
    e = bundle.BundleEntryProto.FromString(table[b"layer1/bias"])
    assert e.dtype == 9 and np.frombuffer(data[e.offset:e.offset + e.size], "<i8").tolist() == [1, 2]
    e = bundle.BundleEntryProto.FromString(table[b"label"])
    # A string tensor: varint lengths, their masked checksum, then the bytes.
    assert e.dtype == 7 and data[e.offset:e.offset + e.size].endswith(b"hello")


def test_list_and_load_variable(tmp_path):
    _model()
    gs = tf.train.get_or_create_global_step()
    saver = Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(gs.assign(42))
        saver.save(sess, str(tmp_path / "m"), global_step=gs)
    assert cm.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-42")
    assert cm.list_variables(str(tmp_path)) == [
        ("flag", [2]), ("global_step", []), ("label", []), ("layer1/bias", [2]),
        ("layer1/weights", [2, 3])]
    np.testing.assert_array_equal(cm.load_variable(str(tmp_path), "layer1/bias:0"), [1, 2])
    assert cm.load_variable(str(tmp_path / "m-42"), "global_step") == 42
    reader = cm.load_checkpoint(str(tmp_path))
    assert reader.has_tensor("label") and not reader.has_tensor("nope")
    assert reader.get_variable_to_dtype_map()["flag"] is tf.bool
    with pytest.raises(errors.NotFoundError, match="nope"):
        reader.get_tensor("nope")


def test_max_to_keep_deletes_old_checkpoints_and_state_lists_the_rest(tmp_path):
    v = tf.Variable(1.0, name="v")
    saver = Saver(max_to_keep=2)
    base = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(4):
            saver.save(sess, base, global_step=step)
    assert saver.last_checkpoints == [f"{base}-2", f"{base}-3"]
    left = sorted(f for f in os.listdir(tmp_path) if f != "checkpoint")
    assert left == sorted(f"model.ckpt-{s}{ext}" for s in (2, 3)
                          for ext in (".data-00000-of-00001", ".index", ".meta"))
    state = cm.get_checkpoint_state(str(tmp_path))
    assert state.model_checkpoint_path == f"{base}-3"
    assert state.all_model_checkpoint_paths == [f"{base}-2", f"{base}-3"]
    assert cm.latest_checkpoint(str(tmp_path)) == f"{base}-3"
    del v


def test_keep_every_n_hours_and_recover_last_checkpoints(tmp_path):
    tf.Variable(1.0, name="v")
    base = str(tmp_path / "m")
    # Zero hours: every checkpoint that rotates out is one "kept per period".
    saver = Saver(max_to_keep=1, keep_checkpoint_every_n_hours=0.0)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        for step in range(3):
            saver.save(sess, base, global_step=step)
        assert all(cm.checkpoint_exists(f"{base}-{s}") for s in range(3))
        restarted = Saver(max_to_keep=2)
        state = cm.get_checkpoint_state(str(tmp_path))
        restarted.recover_last_checkpoints(state.all_model_checkpoint_paths + [base + "-99"])
        assert restarted.last_checkpoints == [f"{base}-2"]


def test_checkpoint_state_text_format_and_relative_paths(tmp_path):
    d = str(tmp_path)
    assert cm.get_checkpoint_state(d) is None and cm.latest_checkpoint(d) is None
    cm.update_checkpoint_state(d, os.path.join(d, "a-2"), [os.path.join(d, "a-1")],
                               save_relative_paths=True)
    text = (tmp_path / "checkpoint").read_text()
    assert text.splitlines()[:3] == ['model_checkpoint_path: "a-2"',
                                     'all_model_checkpoint_paths: "a-1"',
                                     'all_model_checkpoint_paths: "a-2"']
    st = cm.get_checkpoint_state(d)
    assert st.model_checkpoint_path == os.path.join(d, "a-2")
    assert st.all_model_checkpoint_paths == [os.path.join(d, "a-1"), os.path.join(d, "a-2")]
    # Named but never written: latest_checkpoint does not return it.
    assert cm.latest_checkpoint(d) is None
    parsed = cm.parse_checkpoint_state('model_checkpoint_path: "x\\"y"\nunknown_field: 3\n')
    assert parsed.model_checkpoint_path == 'x"y'
    with pytest.raises(ValueError, match="path components"):
        cm.update_checkpoint_state(d, "a", latest_filename="sub/checkpoint")


def test_save_relative_paths_survive_moving_the_directory(tmp_path):
    v = tf.Variable([3.0, 4.0], name="v")
    saver = Saver(save_relative_paths=True)
    os.makedirs(tmp_path / "a")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.save(sess, str(tmp_path / "a" / "m"), global_step=1)
        os.rename(tmp_path / "a", tmp_path / "b")
        latest = cm.latest_checkpoint(str(tmp_path / "b"))
        assert latest == str(tmp_path / "b" / "m-1")
        sess.run(v.assign([0.0, 0.0]))
        saver.restore(sess, latest)
        np.testing.assert_array_equal(sess.run(v), [3.0, 4.0])


def test_restore_into_mismatched_shape_names_variable_and_shapes(tmp_path):
    tf.Variable(np.zeros((2, 3), np.float32), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    tf.Variable(np.zeros((3, 2), np.float32), name="w")
    saver = Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        with pytest.raises(errors.InvalidArgumentError) as e:
            saver.restore(sess, prefix)
    assert "w" in str(e.value) and "[2, 3]" in str(e.value) and "[3, 2]" in str(e.value)
    # The same element count restores with reshape=True.
    tf.reset_default_graph()
    w = tf.Variable(np.zeros((3, 2), np.float32), name="w")
    saver = Saver(reshape=True)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        saver.restore(sess, prefix)
        assert sess.run(w).shape == (3, 2)


def test_restore_dtype_mismatch_and_missing_key(tmp_path):
    tf.Variable(np.zeros(2, np.float32), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = Saver().save(sess, str(tmp_path / "m"))
    tf.reset_default_graph()
    tf.Variable(np.zeros(2, np.int32), name="w")
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError, match="float32"):
        Saver().restore(sess, prefix)
    tf.reset_default_graph()
    tf.Variable(np.zeros(2, np.float32), name="other")
    with tf.Session() as sess, pytest.raises(errors.NotFoundError, match="Key other"):
        Saver().restore(sess, prefix)


def test_restore_kernel_checks_shapes_itself(tmp_path):
    """The restore op verifies the file's tensors too, not only the client's index check."""
    tf.Variable(np.zeros((2, 2), np.float32), name="w")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        prefix = Saver().save(sess, str(tmp_path / "m"))
    path, sha, size = cm.read_index(prefix).locate("w")
    out = io_ops.restore_shard([path], [sha], np.array([size], np.int64), ["w"], [tf.float32],
                               [[4]], var_names=["model/w"])
    with tf.Session() as sess, pytest.raises(errors.InvalidArgumentError) as e:
        sess.run(out)
    assert "model/w" in str(e.value) and "[2, 2]" in str(e.value) and "[4]" in str(e.value)


def _saved(tmp_path):
    w = tf.Variable(np.arange(1000, dtype=np.float32), name="w")
    saver = Saver()
    sess = tf.Session()
    sess.run(tf.global_variables_initializer())
    prefix = saver.save(sess, str(tmp_path / "m"))
    return w, saver, sess, prefix, prefix + ".data-00000-of-00001"


def test_truncated_shard_is_data_loss(tmp_path):
    _, saver, sess, prefix, shard = _saved(tmp_path)
    with open(shard, "r+b") as f:
        f.truncate(os.path.getsize(shard) - 10)
    with pytest.raises(errors.DataLossError, match="truncated") as e:
        saver.restore(sess, prefix)
    assert shard in str(e.value)
    with pytest.raises(errors.DataLossError):
        cm.load_variable(prefix, "w")
    sess.close()


def test_flipped_byte_is_data_loss(tmp_path):
    w, saver, sess, prefix, shard = _saved(tmp_path)
    with open(shard, "rb") as f:
        data = bytearray(f.read())
    data[-7] ^= 0x01
    with open(shard, "wb") as f:
        f.write(bytes(data))
    sess.run(w.assign(tf.zeros_like(w)))
    with pytest.raises(errors.DataLossError, match="CRC-32C") as e:
        saver.restore(sess, prefix)
    assert shard in str(e.value)
    assert sess.run(w).sum() == 0  # nothing half-restored
    sess.close()


def test_missing_or_corrupt_checkpoint(tmp_path):
    _, saver, sess, prefix, shard = _saved(tmp_path)
    with pytest.raises(errors.NotFoundError, match="nope"):
        saver.restore(sess, str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="None"):
        saver.restore(sess, None)
    with pytest.raises(errors.NotFoundError):
        cm.list_variables(str(tmp_path / "nope"))
    with pytest.raises(ValueError, match="Parent directory"):
        saver.save(sess, str(tmp_path / "no" / "such" / "m"))
    with open(prefix + ".index", "w") as f:
        f.write("{not a table")
    with pytest.raises(errors.DataLossError, match="index"):
        saver.restore(sess, prefix)
    os.remove(shard)
    sess.close()


def test_crash_before_index_keeps_previous_checkpoint(tmp_path, monkeypatch):
    v = tf.Variable(1.0, name="v")
    saver = Saver()
    base = str(tmp_path / "m")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        good = saver.save(sess, base, global_step=1)
        sess.run(v.assign(2.0))
        real = cm.atomic_write

        def failing(path, data):
            if path.endswith(bundle.INDEX_SUFFIX):
                raise OSError(28, "No space left on device")
            real(path, data)

        monkeypatch.setattr(cm, "atomic_write", failing)
        with pytest.raises(errors.ResourceExhaustedError, match="index"):
            saver.save(sess, base, global_step=2)
        monkeypatch.undo()
        # The shard was written, then removed when its index could not be.
        assert not os.path.exists(base + "-2.data-00000-of-00001")
        assert not cm.checkpoint_exists(base + "-2")
        assert cm.latest_checkpoint(str(tmp_path)) == good
        assert not [f for f in os.listdir(tmp_path) if ".tmp-" in f]
        saver.restore(sess, cm.latest_checkpoint(str(tmp_path)))
        assert sess.run(v) == 1.0


def test_disk_full_writing_the_meta_graph_is_resource_exhausted(tmp_path, monkeypatch):
    """The meta graph is written last: the checkpoint itself is complete and the latest,
    and the full disk is still reported, naming the file."""
    v = tf.Variable(1.0, name="v")
    saver = Saver()
    real = cm.atomic_write

    def failing(path, data):
        if path.endswith(".meta"):
            raise OSError(28, "No space left on device", path + ".tmp-x")
        real(path, data)

    with tf.Session() as sess:
        sess.run(v.initializer)
        monkeypatch.setattr(cm, "atomic_write", failing)
        with pytest.raises(errors.ResourceExhaustedError, match="meta graph") as e:
            saver.save(sess, str(tmp_path / "m"), global_step=1)
        monkeypatch.undo()
        assert str(tmp_path / "m-1.meta") in str(e.value)
        assert cm.latest_checkpoint(str(tmp_path)) == str(tmp_path / "m-1")
        sess.run(v.assign(5.0))
        saver.restore(sess, str(tmp_path / "m-1"))
        assert sess.run(v) == 1.0


def test_saver_options(tmp_path):
    a = tf.Variable(np.ones(2, np.float32), name="a")
    b = tf.Variable(np.ones(3, np.float32), name="b")
    gs = tf.Variable(7, dtype=tf.int64, name="step", trainable=False)
    only_a = Saver({"renamed_a": a}, sharded=False, pad_step_number=True,
                   restore_sequentially=True)
    with pytest.raises(ValueError, match="No variables"):
        Saver([])
    assert Saver([], allow_empty=True).save(None, str(tmp_path / "e")) is None
    with pytest.raises(ValueError, match="same name"):
        Saver([a, a])
    clobber = a.assign([5.0, 5.0])
    tf.get_default_graph().finalize()  # save and restore add no ops
    with tf.Session() as sess:
        sess.run([a.initializer, b.initializer, gs.initializer])
        prefix = only_a.save(sess, str(tmp_path / "m"), global_step=gs, write_meta_graph=False)
        assert prefix.endswith("m-00000007")
        assert cm.list_variables(prefix) == [("renamed_a", [2])]
        sess.run(clobber)
        only_a.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(a), [1.0, 1.0])
    sd = only_a.as_saver_def()
    assert sd.restore_op_name.endswith("restore_all") and sd.filename_tensor_name.endswith(":0")


def test_sharded_save_on_cluster_writes_one_shard_per_ps(tmp_path):
    with local_cluster(ps=2, worker=1) as c:
        with tf.device("/job:ps/task:0"):
            a = tf.Variable(np.ones((3, 2), np.float32), name="a")
            gs = tf.Variable(0, dtype=tf.int64, name="global_step")
        with tf.device("/job:ps/task:1"):
            b = tf.Variable(np.arange(4, dtype=np.int32), name="b")
        with tf.device("/job:worker/task:0"):
            step = tf.group(a.assign_add(a), b.assign_add(b), gs.assign_add(1))
        saver = Saver()
        save_ops = [g.save_out[0].op for g in saver._groups]
        placed = place(save_ops + [a.op, b.op], c.spec, "/job:worker/task:0")
        assert [placed[op] for op in save_ops] == ["/job:ps/task:0", "/job:ps/task:1"]
        with tf.Session(c.target("worker", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(step)
            prefix = saver.save(sess, str(tmp_path / "model.ckpt"), global_step=gs)
            shards = sorted(f for f in os.listdir(tmp_path) if ".data-" in f)
            assert shards == ["model.ckpt-1.data-00000-of-00002",
                              "model.ckpt-1.data-00001-of-00002"]
            index = bundle.read_index(prefix)
            assert {n: e.shard_id for n, e in index.entries.items()} == {
                "a": 0, "global_step": 0, "b": 1}
            sess.run(step)
            saver.restore(sess, prefix)
            np.testing.assert_array_equal(sess.run(a), np.full((3, 2), 2.0, np.float32))
            np.testing.assert_array_equal(sess.run(b), np.arange(4) * 2)
            assert sess.run(gs) == 1
            # A damaged shard is reported by the parameter server that reads it.
            with open(tmp_path / shards[1], "r+b") as f:
                f.truncate(8)  # b is 16 bytes at offset 0
            with pytest.raises(errors.DataLossError, match="00001-of-00002"):
                saver.restore(sess, prefix)
    # The two-shard checkpoint of ps 0 restores into a local graph with one group.
    tf.reset_default_graph()
    a = tf.Variable(np.zeros((3, 2), np.float32), name="a")
    local = Saver([a])
    with tf.Session() as sess:
        local.restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(a), np.full((3, 2), 2.0, np.float32))


def test_partitioned_variable_saved_as_slices_of_one_tensor(tmp_path):
    w = tf.get_variable("w", [6, 2], initializer=tf.ones_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    saver = Saver({"emb": w})
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(list(w)[1].assign(np.full((3, 2), 7.0, np.float32)))
        prefix = saver.save(sess, str(tmp_path / "m"))
    assert cm.list_variables(prefix) == [("emb", [6, 2])]
    assert bundle.read_index(prefix).slices("emb") == [([0, 0], [3, 2]), ([3, 0], [3, 2])]
    np.testing.assert_array_equal(cm.load_variable(prefix, "emb"),
                                  np.repeat([1.0, 7.0], 6).reshape(6, 2))
    # Restored into the same partitioning under the variable's own name.
    tf.reset_default_graph()
    w = tf.get_variable("emb", [6, 2], initializer=tf.zeros_initializer(),
                        partitioner=tf.fixed_size_partitioner(2))
    with tf.Session() as sess:
        Saver().restore(sess, prefix)
        np.testing.assert_array_equal(sess.run(list(w)[1]), np.full((3, 2), 7.0))
    # Another partitioning is refused, naming the slices the checkpoint holds.
    tf.reset_default_graph()
    tf.get_variable("emb", [6, 2], partitioner=tf.fixed_size_partitioner(3))
    with tf.Session() as sess, pytest.raises(errors.NotFoundError, match="different partitioning"):
        Saver().restore(sess, prefix)


def test_safetensors_checkpoint_of_earlier_releases_still_restores(tmp_path):
    from tensorfleet.kernels.numpy import io_kernels
    prefix = str(tmp_path / "old-5")
    shard = io_kernels.shard_filename(prefix, 0, 1)
    sha, size = io_kernels.write_shard(shard, {
        "w": np.arange(4, dtype=np.float32), "emb/part_0": np.ones((2, 2), np.float32),
        "emb/part_1": np.full((2, 2), 3.0, np.float32)})
    cm.write_index(cm.CheckpointIndex(
        prefix, {n: {"file": os.path.basename(shard), "dtype": "float32", "shape": s}
                 for n, s in [("w", [4]), ("emb/part_0", [2, 2]), ("emb/part_1", [2, 2])]},
        {os.path.basename(shard): {"sha256": sha, "size": size}}, 5))
    cm.update_checkpoint_state(str(tmp_path), prefix)
    w = tf.Variable(np.zeros(4, np.float32), name="w")
    emb = tf.get_variable("emb", [4, 2], partitioner=tf.fixed_size_partitioner(2))
    saver = Saver()
    with tf.Session() as sess:
        saver.restore(sess, cm.latest_checkpoint(str(tmp_path)))
        np.testing.assert_array_equal(sess.run(w), [0, 1, 2, 3])
        np.testing.assert_array_equal(sess.run(list(emb)[1]), np.full((2, 2), 3.0))
        assert cm.load_variable(str(tmp_path), "w").tolist() == [0, 1, 2, 3]
        # Saving again to that prefix replaces the old files with a bundle.
        saver.save(sess, prefix)
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "old-5.data-00000-of-00001",
                                            "old-5.index", "old-5.meta"]


def test_resave_same_prefix_crash_keeps_previous_checkpoint(tmp_path, monkeypatch):
    """Saving the same step twice, with a failure before the second index is written,
    leaves the first checkpoint intact and loadable, and no shard of the failed save."""
    from tensorfleet.training import checkpoint_management as cm
    v = tf.Variable([1.0, 2.0], name="resaved")
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(v.initializer)
        prefix = saver.save(sess, str(tmp_path / "m"), global_step=7)
        sess.run(v.assign([5.0, 6.0]))

        real = cm.atomic_write

        def crash(path, data):
            if path.endswith(".index"):
                raise OSError("disk full")
            real(path, data)
        monkeypatch.setattr(cm, "atomic_write", crash)
        with pytest.raises(Exception):
            saver.save(sess, str(tmp_path / "m"), global_step=7)
        monkeypatch.undo()
        sess.run(v.assign([0.0, 0.0]))
        saver.restore(sess, prefix)
        np.testing.assert_allclose(sess.run(v), [1.0, 2.0])
        # A successful re-save replaces it and leaves no stray shards behind.
        sess.run(v.assign([3.0, 4.0]))
        assert saver.save(sess, str(tmp_path / "m"), global_step=7) == prefix
        sess.run(v.assign([0.0, 0.0]))
        saver.restore(sess, prefix)
        np.testing.assert_allclose(sess.run(v), [3.0, 4.0])
    assert sorted(os.listdir(tmp_path)) == ["checkpoint", "m-7.data-00000-of-00001",
                                            "m-7.index", "m-7.meta"]
