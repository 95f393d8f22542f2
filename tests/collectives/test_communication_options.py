"""CommunicationOptions / CollectiveHints / CommunicationImplementation: checked as
TensorFlow checks them, and honoured by the strategy's reductions (packs of at most
``bytes_per_pack`` bytes, the timeout) across two ranks of this process."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet import collectives as coll
from tensorfleet.collectives import registry
from tests.collectives.test_collectives import make_groups
from tests.collectives.test_collectives_ops import per_rank

E = tf.distribute.experimental


def test_fields_and_checks_as_tensorflow():
    o = E.CommunicationOptions(bytes_per_pack=10, timeout_seconds=2.0,
                               implementation=E.CommunicationImplementation.RING)
    assert (o.bytes_per_pack, o.timeout_seconds, o.implementation) == (10, 2.0, "RING")
    h = E.CollectiveHints(bytes_per_pack=5, timeout_seconds=1)
    assert isinstance(h, E.CommunicationOptions) and h.implementation == "AUTO"
    assert [m.value for m in E.CommunicationImplementation] == ["AUTO", "RING", "NCCL"]
    assert E.CollectiveCommunication is E.CommunicationImplementation
    with pytest.raises(ValueError, match="must be >=0, Received -1"):
        E.CommunicationOptions(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="must be >=0"):
        E.CollectiveHints(bytes_per_pack=-1)
    with pytest.raises(ValueError, match="implementation must be"):
        E.CommunicationOptions(implementation="GLOO")


def test_nccl_is_refused_where_collectives_are_built(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    with pytest.raises(ValueError, match="NCCL is not available"):
        E.MultiWorkerMirroredStrategy(E.CommunicationImplementation.NCCL, group_key="nccl")
    strategy = tf.distribute.Strategy(tf.distribute.StrategyExtended(None))
    with pytest.raises(ValueError, match="NCCL is not available"):
        strategy.extended.reduce_to(
            tf.distribute.ReduceOp.SUM, tf.constant(1.0),
            options=E.CommunicationOptions(implementation=E.CommunicationImplementation.NCCL))
    with pytest.raises(TypeError, match="CommunicationOptions"):
        strategy.extended.reduce_to(tf.distribute.ReduceOp.SUM, tf.constant(1.0),
                                    options={"bytes_per_pack": 4})


@pytest.fixture
def two_ranks():
    groups = make_groups(2, name="opts", chunk_bytes=4096, small_bytes=1024)
    for i, g in enumerate(groups):
        coll.register_group(g, f"opts{i}")
    yield 2
    for i in range(2):
        registry.shutdown(f"opts{i}")


@pytest.mark.parametrize("bytes_per_pack,packs", [(0, 1), (16, 2), (4, 3)])
def test_batch_reduce_packs_and_sums_across_ranks(two_ranks, bytes_per_pack, packs):
    def rank_main(i):
        resolver = tf.distribute.cluster_resolver.TFConfigClusterResolver(tf_config="{}")
        strategy = E.MultiWorkerMirroredStrategy(cluster_resolver=resolver,
                                                 group_key=f"opts{i}")
        values = [tf.constant([1.0, 2.0]) * (i + 1), tf.constant([3.0, 4.0]) * (i + 1),
                  tf.constant(5.0) * (i + 1)]
        options = E.CommunicationOptions(bytes_per_pack=bytes_per_pack, timeout_seconds=30)
        out = strategy.extended.batch_reduce_to(tf.distribute.ReduceOp.MEAN,
                                                [(v, None) for v in values], options=options)
        ops = [op for op in tf.get_default_graph().get_operations()
               if op.type == "CollectiveAllReduce"]
        with tf.Session() as sess:
            return len(ops), sess.run(out)

    results = per_rank(2, rank_main)
    for n_ops, (a, b, c) in results:
        assert n_ops == packs
        np.testing.assert_allclose(a, [1.5, 3.0])
        np.testing.assert_allclose(b, [4.5, 6.0])
        np.testing.assert_allclose(c, 7.5)
