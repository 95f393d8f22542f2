"""TF1 graph-level names programs call: TensorShape rank checks, Graph.prevent_feeding /
prevent_fetching enforced by Session.run, Saver.saver_def and Saver.export_meta_graph."""

import os

import numpy as np
import pytest

import tensorfleet as tf


def test_tensor_shape_rank_checks():
    s = tf.TensorShape([2, None, 3])
    assert s.with_rank_at_least(2) is s and s.with_rank_at_most(3) is s
    with pytest.raises(ValueError, match="at least 4"):
        s.with_rank_at_least(4)
    with pytest.raises(ValueError, match="at most 2"):
        s.with_rank_at_most(2)
    s.assert_has_rank(3)
    with pytest.raises(ValueError, match="rank 2"):
        s.assert_has_rank(2)
    unknown = tf.TensorShape(None)
    assert unknown.with_rank_at_least(5) is unknown
    unknown.assert_has_rank(7)
    s.assert_same_rank([1, 1, 1])
    unknown.assert_same_rank([1])
    with pytest.raises(ValueError, match="same rank"):
        s.assert_same_rank([1, 1])
    tf.TensorShape([1, 2]).assert_is_fully_defined()
    with pytest.raises(ValueError, match="not fully defined"):
        s.assert_is_fully_defined()
    assert s.most_specific_compatible_shape([2, 5, 4]).as_list() == [2, None, None]
    assert s.most_specific_compatible_shape([2, 5]).ndims is None


def test_prevented_feeds_and_fetches_are_refused_and_the_rest_runs():
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [])
        c = tf.constant(3.0)
        y = x * 2.0
        z = c + 1.0
        g.prevent_feeding(c)
        g.prevent_fetching(y.op)
        assert not g.is_feedable(c) and g.is_feedable(x)
        assert not g.is_fetchable(y) and not g.is_fetchable(y.op) and g.is_fetchable(z)
        with tf.Session() as sess:
            with pytest.raises(ValueError, match="may not be fed"):
                sess.run(z, {c: 1.0})
            with pytest.raises(ValueError, match="not fetchable"):
                sess.run([z, y], {x: 1.0})
            # The refused calls left the session usable.
            assert sess.run(z) == 4.0
            assert sess.run(y + 1.0, {x: 2.0}) == 5.0
    # Another graph has its own rules.
    assert tf.Graph().is_feedable(c)


def test_saver_def_and_export_meta_graph_round_trip(tmp_path):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(np.arange(3, dtype=np.float32), name="v")
        tf.add_to_collection("mine", v)
        saver = tf.train.Saver()
        sd = saver.saver_def
        assert sd.filename_tensor_name == saver.as_saver_def().filename_tensor_name
        path = str(tmp_path / "model.meta")
        meta = saver.export_meta_graph(path, collection_list=["mine"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            ckpt = saver.save(sess, str(tmp_path / "model"), write_meta_graph=False)
    assert os.path.exists(path)
    assert meta.saver_def["restore_op_name"] == sd.restore_op_name
    assert sorted(meta.collection_def) == ["mine"]
    with tf.Graph().as_default():
        restorer = tf.train.import_meta_graph(path)
        with tf.Session() as sess:
            restorer.restore(sess, ckpt)
            (mine,) = tf.get_collection("mine")
            np.testing.assert_array_equal(sess.run(mine), [0.0, 1.0, 2.0])
