"""A ``_Send`` of a variable read hands over the variable's buffer itself when nothing
in the step can write it before the receiver has read it (distributed/variable_sends.py),
and copies it otherwise."""

import threading

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.partition import partition
from tensorfleet.distributed.placement import place
from tensorfleet.distributed.rendezvous import Rendezvous, StepRendezvous
from tensorfleet.kernels.numpy.sendrecv_kernels import SEND_BUFFER_ATTR
from tensorfleet.kernels.registry import KernelContext, StepState, get_kernel, set_current_step
from tensorfleet.ops.state_ops import variable_op_v2
from tensorfleet.runtime.executor import prune
from tensorfleet.testing.cluster import LocalCluster

N = 512 * 1024  # 2 MiB of float32: big enough for the read-order analysis
ROWS, COLS = 256, 1024
CLUSTER = ClusterSpec({"local": ["localhost:1", "localhost:2"]})
T0, T1 = "/job:local/task:0", "/job:local/task:1"


@pytest.fixture(scope="module")
def two_tasks():
    c = LocalCluster({"local": 2})
    yield c
    c.stop()


def _sends(fetches, targets=(), feeds=()):
    """``{sent tensor name: whether its _Send hands over the buffer}`` of task 1."""
    ops = prune(list(fetches), list(targets), set(feeds))
    parts = partition(ops, place(ops, CLUSTER, T0), list(feeds), list(fetches), list(targets))
    return {n["input"][0]: SEND_BUFFER_ATTR in n["attr"]
            for n in parts[T1].graph_def()["node"] if n["op"] == "_Send"}


def _matmul_model():
    """A worker's step on a ps-held weight: its gradient, applied on task 1, needs
    what task 0 computed from the weight it received."""
    with tf.device(T1):
        w = tf.Variable(tf.zeros([ROWS, COLS], tf.float32), name="w")
    with tf.device(T0):
        x = tf.placeholder(tf.float32, [4, ROWS], name="x")
        y = tf.matmul(x, w)
        loss = 0.5 * tf.reduce_sum(y * y)
        train = tf.train.GradientDescentOptimizer(1.0 / 1024).minimize(loss)
    return w, x, y, train


def test_a_read_that_nothing_in_the_step_writes_is_sent_without_a_copy():
    with tf.Graph().as_default():
        with tf.device(T1):
            big = tf.Variable(tf.ones([N], tf.float32), name="big")
        with tf.device(T0):
            total = tf.reduce_sum(big + 1.0)
        assert _sends([total]) == {"big/read:0": True}


def test_a_read_before_an_update_the_worker_waits_for_is_sent_without_a_copy():
    with tf.Graph().as_default():
        w, x, y, train = _matmul_model()
        assert _sends([y], [train], [x]) == {"w/read:0": True}


def test_a_read_beside_an_unordered_update_of_its_variable_copies():
    with tf.Graph().as_default():
        with tf.device(T1):
            v = tf.Variable(tf.zeros([N], tf.float32), name="v")
            bump = tf.assign_add(v, tf.ones([N], tf.float32))
        with tf.device(T0):
            doubled = v * 2.0
        assert _sends([doubled], [bump.op]) == {"v/read:0": False}


def test_an_update_through_another_op_naming_the_same_variable_is_seen():
    with tf.Graph().as_default():
        with tf.device(T1):
            v = tf.Variable(tf.zeros([N], tf.float32), name="v")
            same = variable_op_v2([N], tf.float32, name="same", shared_name="v")
            bump = tf.assign_add(same, tf.ones([N], tf.float32))
        with tf.device(T0):
            doubled = v * 2.0
        assert _sends([doubled], [bump.op]) == {"v/read:0": False}
        assert _sends([doubled]) == {"v/read:0": True}


def test_a_view_other_than_the_read_copies():
    with tf.Graph().as_default():
        with tf.device(T1):
            v = tf.Variable(tf.zeros([N], tf.float32), name="v")
            part = tf.reshape(v, [N // 2, 2])
        with tf.device(T0):
            doubled = part * 2.0
        assert _sends([doubled]) == {part.name: False}


@pytest.fixture
def sent_buffers(monkeypatch):
    """Every tensor the rendezvous of any task takes, by key."""
    seen = {}
    send = Rendezvous.send

    def spy(self, step_id, key, value):
        seen.setdefault(key.split(";")[0], []).append(value)
        return send(self, step_id, key, value)

    monkeypatch.setattr(Rendezvous, "send", spy)
    return seen


def _stored(cluster, name):
    return cluster.server("local", 1).worker.resources.lookup("", name).value


def test_values_received_without_the_copy_are_right_across_updates(two_tasks, sent_buffers):
    with tf.Graph().as_default():
        with tf.device(T1):
            big = tf.Variable(tf.range(N, dtype=tf.float32), name="big_values")
            bump = tf.assign_add(big, tf.fill([N], 3.0))
        with tf.device(T0):
            doubled = big * 2.0
        with tf.Session(two_tasks.target("local", 0)) as sess:
            sess.run(big.initializer)
            expected = np.arange(N, dtype=np.float32)
            for _ in range(3):
                np.testing.assert_array_equal(sess.run(doubled), 2.0 * expected)
                sess.run(bump)
                expected += 3.0
    sent = sent_buffers["big_values/read:0"]
    assert len(sent) == 3
    # What was sent is the variable's own memory, not a copy of it.
    assert all(np.shares_memory(v, _stored(two_tasks, "big_values")) for v in sent)


def test_training_on_a_ps_weight_sent_without_a_copy_matches_numpy(two_tasks, sent_buffers):
    rng = np.random.RandomState(0)
    batches = [rng.randint(-2, 3, size=(4, ROWS)).astype(np.float32) for _ in range(3)]
    init = rng.randint(-2, 3, size=(ROWS, COLS)).astype(np.float32)
    with tf.Graph().as_default():
        w, x, y, train = _matmul_model()
        with tf.Session(two_tasks.target("local", 0)) as sess:
            sess.run(w.initializer)
            sess.run(tf.assign(w, init))
            expected = init.astype(np.float64)
            for xb in batches:
                got_y, _ = sess.run([y, train], {x: xb})
                # y is computed from the weight as it was before this step's update
                # (one applied too early would move y by about 10 here, not 1e-4).
                want_y = xb.astype(np.float64) @ expected
                np.testing.assert_allclose(got_y, want_y, rtol=1e-4, atol=1e-2)
                expected -= (xb.T.astype(np.float64) @ want_y) / 1024
            np.testing.assert_allclose(sess.run(w), expected, rtol=1e-5, atol=1e-3)
    sent = sent_buffers["w/read:0"]
    assert len(sent) == len(batches)
    # The updates are in place, so every step sent the one buffer the variable holds.
    assert all(np.shares_memory(v, _stored(two_tasks, "w")) for v in sent)


def test_a_marked_send_gives_the_value_at_the_read_an_unmarked_one_at_the_send():
    # A concurrent step's in-place update between the send and the receiver's read
    # (nothing orders them): the buffer handed over shows it, as the read of a
    # TensorFlow reference variable served by RecvTensor does; a copy does not.
    rendezvous = Rendezvous(T1)
    step = StepState(7, StepRendezvous(7, rendezvous, lambda task: None, 5.0))
    stored = np.zeros(N, np.float32)
    send = get_kernel("_Send")
    prev = set_current_step(step)
    try:
        send(KernelContext("marked", "_Send", {"key": "a", SEND_BUFFER_ATTR: True}, None, {}),
             stored.view())
        send(KernelContext("plain", "_Send", {"key": "b"}, None, {}), stored.view())
    finally:
        set_current_step(prev)
    stored += 1.0
    marked, plain = rendezvous.take_many(7, ["a", "b"], 1.0)
    np.testing.assert_array_equal(marked, np.ones(N, np.float32))
    np.testing.assert_array_equal(plain, np.zeros(N, np.float32))


def test_reads_during_concurrent_updates_hold_only_values_the_variable_had(two_tasks):
    # Another session adds 1 to every element, step after step, while this one
    # receives the variable: each element received is one the variable held, and
    # the updates all land.
    rounds = 12
    with tf.Graph().as_default() as graph:
        with tf.device(T1):
            v = tf.Variable(tf.zeros([N], tf.float32), name="raced")
            bump = tf.assign_add(v, tf.ones([N], tf.float32), use_locking=True)
        with tf.device(T0):
            copy = v * 1.0
        target = two_tasks.target("local", 0)
        with tf.Session(target) as sess:
            sess.run(v.initializer)
        failures = []

        def update():
            try:
                with tf.Session(target, graph=graph) as s:
                    for _ in range(rounds):
                        s.run(bump)
            except Exception as e:  # noqa: BLE001 - reported by the test thread
                failures.append(e)

        t = threading.Thread(target=update)
        received = []
        with tf.Session(target) as sess:
            t.start()
            for _ in range(rounds):
                received.append(sess.run(copy))
            t.join(60)
            final = sess.run(copy)
    assert not t.is_alive() and not failures
    np.testing.assert_array_equal(final, np.full(N, rounds, np.float32))
    for got in received:
        assert np.array_equal(got, np.round(got)) and got.min() >= 0 and got.max() <= rounds
