"""``tf.distribute.InputContext``, ``InputReplicationMode`` and ``tf.distribute.Server``."""

import pytest

import tensorfleet as tf


def test_input_context():
    ctx = tf.distribute.InputContext(num_input_pipelines=4, input_pipeline_id=1,
                                     num_replicas_in_sync=8)
    assert (ctx.num_input_pipelines, ctx.input_pipeline_id, ctx.num_replicas_in_sync) == \
        (4, 1, 8)
    assert ctx.get_per_replica_batch_size(64) == 8
    with pytest.raises(ValueError, match="not divisible"):
        ctx.get_per_replica_batch_size(60)
    with pytest.raises(ValueError, match="not below"):
        tf.distribute.InputContext(2, 2)
    with tf.Graph().as_default():
        ds = tf.data.Dataset.range(8).shard(ctx.num_input_pipelines, ctx.input_pipeline_id)
        nxt = ds.make_one_shot_iterator().get_next()
        with tf.Session() as sess:
            assert [sess.run(nxt) for _ in range(2)] == [1, 5]
    assert tf.distribute.InputReplicationMode.PER_WORKER.value == "PER_WORKER"
    assert tf.distribute.Server is tf.train.Server
