"""Receive buffers are reused, and never while anything still views them."""

import gc

import numpy as np

from tensorfleet.transport import wire
from tensorfleet.transport.buffers import BufferPool, size_class

MIB = 1 << 20


def test_size_classes_round_up_by_at_most_an_eighth():
    for n in (1, 7, 1000, MIB, MIB + 1, 3 * MIB + 5, 64 * MIB, 67_108_865):
        c = size_class(n)
        assert n <= c <= n + n // 8 + 1
    assert size_class(64 * MIB) == 64 * MIB
    assert size_class(0) == 0


def test_a_buffer_comes_back_only_when_every_view_of_it_is_gone():
    pool = BufferPool()
    a = pool.take(4 * MIB)
    assert a.nbytes == 4 * MIB and a.dtype == np.uint8
    view = a[100:][:100]  # a slice of a slice still holds the memory
    first = a.__array_interface__["data"][0]
    del a
    gc.collect()
    assert pool.idle_bytes == 0  # ``view`` still uses the memory
    b = pool.take(4 * MIB)
    assert b.__array_interface__["data"][0] != first
    del view, b
    gc.collect()
    assert pool.idle_bytes == 2 * size_class(4 * MIB)
    c = pool.take(4 * MIB - 3)  # same size class: reused, no new memory
    assert pool.reused == 1 and pool.allocated == 2
    assert c.nbytes == 4 * MIB - 3


def test_tensors_decoded_from_a_pooled_buffer_keep_it_alive():
    pool = BufferPool()
    payload = np.arange(MIB, dtype=np.float32)
    frame = wire.encode({"k": 1}, [payload])
    buf = pool.take(len(frame))
    buf[:] = np.frombuffer(frame, np.uint8)
    _, (tensor,) = wire.decode(buf)
    del buf
    gc.collect()
    assert pool.idle_bytes == 0
    other = pool.take(len(frame))
    other[:] = 0  # a second buffer: writing it must not touch the decoded tensor
    np.testing.assert_array_equal(tensor, payload)
    del tensor, other
    gc.collect()
    assert pool.idle_bytes > 0


def test_idle_memory_is_bounded_and_small_buffers_are_not_pooled():
    pool = BufferPool(max_idle_bytes=6 * MIB)
    bufs = [pool.take(4 * MIB) for _ in range(3)]
    del bufs
    gc.collect()
    assert pool.idle_bytes <= 6 * MIB
    small = pool.take(1000)
    assert small.nbytes == 1000
    del small
    gc.collect()
    assert pool.idle_bytes <= 6 * MIB
    pool.clear()
    assert pool.idle_bytes == 0



def test_a_remote_tensor_reaches_the_user_without_a_copy_and_its_memory_is_reused():
    import tensorfleet as tf
    from tensorfleet.testing.cluster import local_cluster
    from tensorfleet.transport import buffers

    with local_cluster(local=2) as c:
        with tf.device("/job:local/task:1"):
            var = tf.Variable(tf.ones([1 << 20], tf.float32))  # 4 MiB: a parked reply
            part = tf.identity(var[:10])
        with tf.Session(c.target("local", 0)) as sess:
            sess.run(tf.global_variables_initializer())
            got = sess.run(var)
            assert buffers.is_message_buffer(got) and got.flags.writeable
            got[:] = 5.0  # the user's own memory: the variable is untouched
            assert float(sess.run(var)[0]) == 1.0
            del got
            gc.collect()
            reused = buffers.POOL.reused
            for _ in range(3):
                sess.run(var)
            assert buffers.POOL.reused >= reused + 3
            # A small tensor rides back on task 1's RunGraph reply, a side-channel
            # call: it lands in a message buffer as well, and is the user's alone.
            small = sess.run(part)
            assert buffers.is_message_buffer(small) and small.flags.writeable
            small[:] = 7.0
            assert float(sess.run(var)[0]) == 1.0
