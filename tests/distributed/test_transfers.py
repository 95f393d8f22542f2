"""Relaying and grouping of cross-task transfers: fewer round trips, never a deadlock."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.partition import partition
from tensorfleet.distributed.placement import place
from tensorfleet.distributed.transfers import TransferGraph, plan_transfers
from tensorfleet.runtime.executor import prune
from tensorfleet.testing.cluster import local_cluster

PS, PS1, WK = "/job:ps/task:0", "/job:ps/task:1", "/job:worker/task:0"
CLUSTER = ClusterSpec({"ps": ["localhost:1", "localhost:2"], "worker": ["localhost:3"]})


def _plan(fetches, master=WK):
    ops = prune(fetches, [], set())
    parts = partition(ops, place(ops, CLUSTER, master), [], fetches, [])
    plan_transfers(parts, master)
    return parts


def _groups(part):
    out = {}
    for nd in part.head:
        if nd["op"] == "_Recv" and "group" in nd["attr"]:
            out.setdefault(nd["attr"]["group"]["s"], set()).add(nd["attr"]["key"]["s"].split(";")[0])
    return sorted(sorted(g) for g in out.values())


def _sync_like():
    """Parameters on a ps; the worker sends gradients and a counter that needs no
    receive; the ps answers with a value the worker only uses itself."""
    with tf.device(PS):
        w = tf.Variable(np.ones(3, np.float32), name="w")
    with tf.device(WK):
        step = tf.Variable(5.0, name="step")
        g = tf.multiply(w, 2.0, name="g")
    with tf.device(PS):
        acc = tf.add(g, step, name="acc")
        tok = tf.reduce_sum(acc, name="tok")
    with tf.device(WK):
        out = tf.add(tok, 1.0, name="out")
    return out


def test_counter_joins_the_gradients_and_the_answer_rides_on_the_reply():
    with tf.Graph().as_default():
        parts = _plan([_sync_like()])
        ps, wk = parts[PS], parts[WK]
        # The parameters cannot ride on the ps's reply (the ps waits for the
        # gradients computed from them); the answer at the end can.
        assert list(ps.relays) == ["tok:0"]
        assert [nd["op"] for nd in ps.tail].count("_Send") == 1  # w only
        # The counter needs no receive; everything the ps does with it also needs g.
        assert _groups(ps) == [["g:0", "step/read:0"]]


def test_sync_like_step_computes_the_same_values_on_a_cluster():
    with tf.Graph().as_default(), local_cluster(ps=2, worker=1) as c:
        out = _sync_like()
        with tf.Session(c.target("worker")) as sess:
            sess.run(tf.global_variables_initializer())
            for _ in range(3):
                assert sess.run(out) == pytest.approx(3 * (2.0 + 5.0) + 1.0)


def _cycle():
    """The worker's counter ``a`` is what the ps needs to make ``r``, and the
    worker's ``b`` needs ``r``: waiting for a and b together would never end."""
    with tf.device(WK):
        a = tf.Variable(2.0, name="a")
    with tf.device(PS):
        r = tf.multiply(a, 3.0, name="r")
    with tf.device(WK):
        b = tf.add(r, 1.0, name="b")
    with tf.device(PS):
        c = tf.add(a, b, name="c")
    with tf.device(WK):
        out = tf.identity(c, name="out")
    return out


def test_a_group_that_would_deadlock_is_not_made():
    with tf.Graph().as_default():
        parts = _plan([_cycle()])
        assert _groups(parts[PS]) == []


def test_a_step_with_crossing_dependencies_still_finishes():
    with tf.Graph().as_default(), local_cluster(ps=2, worker=1) as c:
        out = _cycle()
        with tf.Session(c.target("worker")) as sess:
            sess.run(tf.global_variables_initializer())
            assert sess.run(out) == pytest.approx(2.0 + 7.0)


def _passed_on():
    """ps0 answers the worker with y, which the worker passes on to ps1."""
    with tf.device(WK):
        v = tf.Variable(1.5, name="v")
    with tf.device(PS):
        y = tf.multiply(v, 2.0, name="y")
    with tf.device(WK):
        z = tf.add(y, 1.0, name="z")
    with tf.device(PS1):
        q = tf.multiply(z, 3.0, name="q")
    return q


def test_a_tensor_the_master_passes_on_is_not_held_back():
    with tf.Graph().as_default():
        parts = _plan([_passed_on()])
        assert parts[PS].relays == {}
        with local_cluster(ps=2, worker=1) as c:
            with tf.Session(c.target("worker")) as sess:
                sess.run(tf.global_variables_initializer())
                assert sess.run(tf.get_default_graph().get_tensor_by_name("q:0")) == \
                    pytest.approx((1.5 * 2 + 1) * 3)


def test_transfer_graph_finds_cycles_through_groups():
    with tf.Graph().as_default():
        parts = _plan([_cycle()])
    graph = TransferGraph(parts)
    assert graph.acyclic()
    graph.deps = {"b": {"r"}, "r": {"a"}, "a": set()}
    assert graph.acyclic()
    assert not graph.acyclic(group_of={"a": "a", "b": "a"})  # b waits for r, r for a
    assert graph.acyclic(group_of={"a": "a", "r": "a"}) is False
    assert not graph.acyclic(deps={"a": {"b"}, "b": {"a"}}, group_of={})


def test_a_big_tensor_is_pulled_rather_than_relayed():
    with tf.Graph().as_default():
        with tf.device(PS):
            big = tf.Variable(tf.zeros([1 << 19], tf.float32), name="big")  # 2 MiB
            small = tf.Variable(tf.zeros([4], tf.float32), name="small")
        with tf.device(WK):
            out = tf.reduce_sum(big) + tf.reduce_sum(small)
        parts = _plan([out])
        assert list(parts[PS].relays) == ["small/read:0"]
        assert [nd["attr"]["key"]["s"].split(";")[0] for nd in parts[PS].tail
                if nd["op"] == "_Send"] == ["big/read:0"]


def test_gathers_waiting_on_ids_that_arrive_together_travel_together():
    """A ps gathers rows for two id tensors that come in one group from the worker:
    the gathered tensors, each waiting for its own ids, travel back together."""
    with tf.Graph().as_default():
        with tf.device(PS):
            emb = tf.Variable(np.ones([10, 4], np.float32), name="emb")
        with tf.device(WK):
            ids_a = tf.constant([1, 2], name="ids_a")
            ids_b = tf.constant([3], name="ids_b")
        with tf.device(PS):
            rows_a = tf.gather(emb, ids_a, name="rows_a")
            rows_b = tf.gather(emb, ids_b, name="rows_b")
            scale = tf.reduce_sum(emb, name="scale")
        with tf.device(WK):
            out = tf.reduce_sum(rows_a) + tf.reduce_sum(rows_b) + scale
        master = CLUSTER
        ops = prune([out], [], set())
        parts = partition(ops, place(ops, master, PS), [], [out], [])
        plan_transfers(parts, PS)  # the master on the ps: nothing rides a reply there
        assert _groups(parts[PS]) == [["ids_a:0", "ids_b:0"]]
        # rows_a and rows_b wait for different ids, which arrive in one group; the
        # sum, which waits for nothing, joins them: one RecvTensors call back.
        assert _groups(parts[WK]) == [["rows_a:0", "rows_b:0", "scale:0"]]
