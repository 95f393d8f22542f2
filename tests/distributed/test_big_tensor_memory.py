"""A big tensor sent between tasks, and what is computed on it, reuse memory across
steps: nothing of a finished step stays alive until the cyclic GC runs."""

import gc
import threading
import weakref

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.rendezvous import Rendezvous
from tensorfleet.distributed.worker import WorkerService
from tensorfleet.kernels.numpy.pooled_output import pooled_ufunc
from tensorfleet.testing.cluster import LocalCluster
from tensorfleet.transport import buffers

N = 512 * 1024  # 2 MiB of float32: above buffers.MIN_POOLED_BYTES


@pytest.fixture(scope="module")
def two_tasks():
    c = LocalCluster({"local": 2})
    yield c
    c.stop()


def test_remote_compute_steps_reuse_pooled_memory(two_tasks):
    pool = buffers.pool()
    with tf.Graph().as_default():
        with tf.device("/job:local/task:1"):
            big = tf.Variable(tf.ones([N], tf.float32), name="big")
        with tf.device("/job:local/task:0"):
            total = tf.reduce_sum(big + 1.0)
        with tf.Session(two_tasks.target("local", 0)) as sess:
            sess.run(big.initializer)
            for _ in range(3):
                assert sess.run(total) == 2.0 * N
            gc.collect()
            was_enabled = gc.isenabled()
            gc.disable()  # memory must come back by reference counting alone
            try:
                before = pool.allocated
                for _ in range(5):
                    assert sess.run(total) == 2.0 * N
                grown = pool.allocated - before
            finally:
                if was_enabled:
                    gc.enable()
    # Each step copies the variable for sending, receives it and adds to it: with
    # every buffer back in the pool when its step ends, steps take no new memory. A
    # serving thread can still hold the last buffer of a step for a moment after
    # run() returns on a loaded machine, so one buffer may be new, never one a step.
    assert grown <= 1, f"{grown} new buffers over 5 steps"


def test_send_copy_is_independent_of_later_variable_updates(two_tasks):
    with tf.Graph().as_default():
        with tf.device("/job:local/task:1"):
            v = tf.Variable(tf.zeros([N], tf.float32), name="v")
            bump = tf.assign_add(v, tf.ones([N], tf.float32))
        with tf.device("/job:local/task:0"):
            doubled = v * 2.0
        with tf.Session(two_tasks.target("local", 0)) as sess:
            sess.run(v.initializer)
            first = sess.run(doubled)
            sess.run(bump)
            second = sess.run(doubled)
    np.testing.assert_array_equal(first, np.zeros(N, np.float32))
    np.testing.assert_array_equal(second, np.full(N, 2.0, np.float32))


def test_pooled_ufunc_matches_numpy_and_keeps_small_or_mixed_inputs_plain():
    add = pooled_ufunc(np.add)
    x = np.arange(N, dtype=np.float32)
    one = np.array(1.0, np.float32)
    got = add(x, one)
    np.testing.assert_array_equal(got, x + 1.0)
    assert got.dtype == np.float32 and got.shape == (N,)
    assert buffers.is_message_buffer(got)  # big float result: pooled memory
    small = add(x[:10], one)
    assert small.flags.owndata  # below the pooled size: numpy's own result
    ints = add(np.arange(N, dtype=np.int64), np.array(1, np.int64))
    assert ints.dtype == np.int64 and ints.flags.owndata
    with pytest.raises(ValueError):
        add(x, np.ones(3, np.float32))  # the ufunc reports the shape mismatch


def test_a_tensor_pulled_before_it_was_sent_is_freed_without_the_gc():
    worker = WorkerService("/job:local/task:1")
    value = np.ones(16, np.float32)
    gone = weakref.ref(value)

    def handler():
        # Like the service's handler, the reply sits in a local of the calling frame.
        out = worker.recv_tensors(1, ["k"], 5.0)
        return out[0]

    threading.Timer(0.2, worker.rendezvous.send, (1, "k", value)).start()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        got = handler()  # asks before the send ran: the wait path
        del value
        assert got is not None and gone() is not None
        del got
        # A wait that raised and caught its own error must leave no reference cycle
        # holding the calling frames, whose locals hold the tensor.
        assert gone() is None
    finally:
        if was_enabled:
            gc.enable()


def test_take_ready_removes_nothing_until_every_key_is_there():
    r = Rendezvous("/job:ps/task:0")
    r.send(3, "a", 1)
    assert r.take_ready(3, ["a", "b"]) == (None, "b")
    r.send(3, "b", 2)
    assert r.take_ready(3, ["a", "b"]) == ([1, 2], "")
    assert r.take_ready(3, ["a"]) == (None, "a")
