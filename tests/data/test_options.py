"""``tf.data.Options`` and its groups: typed fields, merging, ``with_options``/``options``
through transformations, and the settings tensorfleet refuses or reports."""

import logging

import numpy as np
import pytest

import tensorfleet as tf

exp = tf.data.experimental


def test_fields_are_typed_and_merge():
    o = tf.data.Options()
    assert o.deterministic is None and o.threading.private_threadpool_size is None
    assert o.experimental_distribute.auto_shard_policy is exp.AutoShardPolicy.AUTO
    o.deterministic = False
    o.threading.private_threadpool_size = 4
    assert o.experimental_threading.private_threadpool_size == 4  # the 1.x name
    with pytest.raises(TypeError, match="must be int"):
        o.threading.max_intra_op_parallelism = "2"
    with pytest.raises(TypeError, match="must be bool"):
        o.deterministic = 1
    with pytest.raises(AttributeError, match="no option 'speed'"):
        o.speed = 3
    p = tf.data.Options()
    p.experimental_optimization.map_fusion = True
    p.deterministic = True
    m = o.merge(p)
    assert m.deterministic is True and m.threading.private_threadpool_size == 4
    assert m.experimental_optimization.map_fusion is True
    assert exp.AutotuneAlgorithm.HILL_CLIMB == 1 and exp.ExternalStatePolicy.FAIL == 2
    assert exp.SHARD_HINT == -1
    assert isinstance(tf.data.ThreadingOptions(), exp.ThreadingOptions)


def test_with_options_keeps_elements_and_travels_with_the_dataset(caplog):
    o = tf.data.Options()
    o.deterministic = False
    o.experimental_distribute.auto_shard_policy = exp.AutoShardPolicy.OFF
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(5).with_options(o).map(lambda x: x * 2).batch(2)
        assert ds.options().deterministic is False
        assert ds.options().experimental_distribute.auto_shard_policy is \
            exp.AutoShardPolicy.OFF
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            got = [sess.run(nxt).tolist() for _ in range(3)]
        assert got == [[0, 2], [4, 6], [8]]
        t = tf.data.Options()
        t.autotune.cpu_budget = 2
        with caplog.at_level(logging.WARNING):
            ds2 = ds.with_options(t)
        assert "autotune.cpu_budget" in caplog.text
        assert ds2.options().deterministic is False and ds2.options().autotune.cpu_budget == 2
        assert tf.data.Dataset.range(1).options() == tf.data.Options()


def test_sharding_policies_tensorfleet_does_not_apply_are_refused():
    o = tf.data.Options()
    o.experimental_distribute.auto_shard_policy = exp.AutoShardPolicy.FILE
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="use Dataset.shard"):
            tf.data.Dataset.range(3).with_options(o)
        with pytest.raises(TypeError, match="needs a tf.data.Options"):
            tf.data.Dataset.range(3).with_options({"deterministic": True})
