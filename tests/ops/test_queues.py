"""FIFOQueue and PaddingFIFOQueue through a local Session, and the queue resource itself."""

import threading
import time

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.placement import place
from tensorfleet.kernels.registry import StepState
from tensorfleet.runtime.executor import prune
from tensorfleet.kernels.queue_resources import FIFOQueueResource, PaddingFIFOQueueResource
from tensorfleet.runtime.resource_mgr import ResourceManager
from tensorfleet.runtime.session import LocalBackend


def _in_thread(fn):
    """Runs ``fn`` on a new thread; returns the thread and a box for its outcome."""
    box = {}

    def target():
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - inspected by the test
            box["error"] = e

    t = threading.Thread(target=target, daemon=True)
    t.start()
    return t, box


def _session_on(graph, resources):
    """A Session over ``graph`` whose steps use the given resource manager."""
    sess = tf.Session(graph=graph)
    sess._backend = LocalBackend(graph, resources=resources)
    return sess


def test_enqueue_dequeue_values_order_and_size():
    q = tf.FIFOQueue(10, tf.float32, shapes=[[2]])
    x = tf.placeholder(tf.float32, [2])
    enq = q.enqueue(x)
    deq = q.dequeue()
    assert isinstance(deq, tf.Tensor) and deq.shape.as_list() == [2]
    assert q.name == "fifo_queue" and q.dtypes == [tf.float32]
    size = q.size()
    with tf.Session() as sess:
        for i in range(3):
            sess.run(enq, {x: [i, -i]})
        assert sess.run(size) == 3
        for i in range(3):
            np.testing.assert_array_equal(sess.run(deq), [i, -i])
        assert sess.run(size) == 0


def test_multiple_components_and_names():
    q = tf.FIFOQueue(4, [tf.int32, tf.string], shapes=[[], []])
    enq = q.enqueue([7, "seven"])
    a, b = q.dequeue()
    named = tf.FIFOQueue(4, [tf.int32, tf.float32], names=["label", "x"], name="named")
    enq2 = named.enqueue({"label": 1, "x": 2.5})
    out = named.dequeue()
    assert sorted(out) == ["label", "x"]
    with tf.Session() as sess:
        sess.run([enq, enq2])
        assert sess.run([a, b]) == [7, b"seven"]
        assert sess.run(out) == {"label": 1, "x": 2.5}
    with pytest.raises(ValueError, match="dictionary"):
        named.enqueue([1, 2.0])
    with pytest.raises(ValueError, match="do not match"):
        named.enqueue({"label": 1})


def test_enqueue_many_dequeue_many_and_static_shapes():
    q = tf.FIFOQueue(10, [tf.int32, tf.float32], shapes=[[], [2]])
    enq = q.enqueue_many([[1, 2, 3, 4], np.arange(8, dtype=np.float32).reshape(4, 2)])
    ints, floats = q.dequeue_many(3)
    assert ints.shape.as_list() == [3] and floats.shape.as_list() == [3, 2]
    rest = q.dequeue_up_to(5)
    assert rest[1].shape.as_list() == [None, 2]
    with tf.Session() as sess:
        sess.run(enq)
        i, f = sess.run([ints, floats])
        np.testing.assert_array_equal(i, [1, 2, 3])
        np.testing.assert_array_equal(f, [[0, 1], [2, 3], [4, 5]])
        sess.run(enq)
        sess.run(q.close())
        i, f = sess.run(rest)  # 5 requested, the closed queue has 5: 4 then the last
        np.testing.assert_array_equal(i, [4, 1, 2, 3, 4])
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(rest)


def test_close_drains_then_out_of_range_and_refuses_enqueue():
    q = tf.FIFOQueue(5, tf.int32)
    enq = q.enqueue_many([[1, 2]])
    deq = q.dequeue()
    closed = q.is_closed()
    with tf.Session() as sess:
        sess.run(enq)
        assert not sess.run(closed)
        sess.run(q.close())
        assert sess.run(closed)
        with pytest.raises(tf.errors.CancelledError, match="is closed"):
            sess.run(enq)
        assert [sess.run(deq), sess.run(deq)] == [1, 2]
        with pytest.raises(tf.errors.OutOfRangeError, match="fifo_queue.*closed"):
            sess.run(deq)
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(q.dequeue_many(1))


def test_blocking_dequeue_released_by_enqueue_from_another_thread():
    q = tf.FIFOQueue(3, tf.float32)
    x = tf.placeholder(tf.float32, [])
    enq = q.enqueue(x)
    deq = q.dequeue()
    with tf.Session() as sess:
        t, box = _in_thread(lambda: sess.run(deq))
        t.join(0.3)
        assert t.is_alive()  # nothing to dequeue yet
        sess.run(enq, {x: 4.5})
        t.join(5)
        assert not t.is_alive() and box == {"value": 4.5}


def test_capacity_blocks_enqueue_until_dequeue_and_cancel_pending():
    q = tf.FIFOQueue(2, tf.int32)
    x = tf.placeholder(tf.int32, [])
    enq = q.enqueue(x)
    deq = q.dequeue()
    with tf.Session() as sess:
        sess.run(enq, {x: 1})
        sess.run(enq, {x: 2})
        t, box = _in_thread(lambda: sess.run(enq, {x: 3}))
        t.join(0.3)
        assert t.is_alive()  # full: the third enqueue waits
        assert sess.run(deq) == 1
        t.join(5)
        assert not t.is_alive() and "error" not in box
        assert sess.run(q.size()) == 2
        t, box = _in_thread(lambda: sess.run(enq, {x: 4}))
        t.join(0.3)
        assert t.is_alive()
        sess.run(q.close(cancel_pending_enqueues=True))
        t.join(5)
        assert isinstance(box.get("error"), tf.errors.CancelledError)
        assert [sess.run(deq), sess.run(deq)] == [2, 3]


def test_plain_close_lets_a_pending_enqueue_land():
    q = tf.FIFOQueue(1, tf.int32)
    x = tf.placeholder(tf.int32, [])
    enq = q.enqueue(x)
    deq = q.dequeue()
    with tf.Session() as sess:
        sess.run(enq, {x: 1})
        t, box = _in_thread(lambda: sess.run(enq, {x: 2}))
        t.join(0.3)
        sess.run(q.close())
        assert [sess.run(deq), sess.run(deq)] == [1, 2]
        t.join(5)
        assert not t.is_alive() and "error" not in box
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(deq)


def test_batches_larger_than_capacity_flow_through():
    q = tf.FIFOQueue(2, tf.int32, shapes=[[]])
    enq = q.enqueue_many([tf.range(7)])
    deq = q.dequeue_many(7)
    with tf.Session() as sess:
        t, box = _in_thread(lambda: sess.run(enq))
        np.testing.assert_array_equal(sess.run(deq), np.arange(7))
        t.join(5)
        assert not t.is_alive() and "error" not in box


def test_padding_fifo_queue_pads_to_largest_in_batch():
    q = tf.PaddingFIFOQueue(5, [tf.int32, tf.float32], shapes=[[None], [None, 2]])
    a = tf.placeholder(tf.int32, [None])
    b = tf.placeholder(tf.float32, [None, 2])
    enq = q.enqueue([a, b])
    ints, floats = q.dequeue_many(2)
    assert ints.shape.as_list() == [2, None] and floats.shape.as_list() == [2, None, 2]
    with tf.Session() as sess:
        sess.run(enq, {a: [1, 2, 3], b: [[1, 1]]})
        sess.run(enq, {a: [4], b: [[2, 2], [3, 3]]})
        i, f = sess.run([ints, floats])
    np.testing.assert_array_equal(i, [[1, 2, 3], [4, 0, 0]])
    np.testing.assert_array_equal(f, [[[1, 1], [0, 0]], [[2, 2], [3, 3]]])
    with pytest.raises(ValueError, match="known rank"):
        tf.PaddingFIFOQueue(5, [tf.int32], shapes=[tf.TensorShape(None)])
    with pytest.raises(ValueError, match="needs a shape"):
        tf.PaddingFIFOQueue(5, [tf.int32], shapes=None)


def test_shared_name_shares_one_queue_between_graphs_and_sessions():
    rm = ResourceManager()
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        q1 = tf.FIFOQueue(5, tf.int32, shared_name="shared_q", name="producer_side")
        enq = q1.enqueue_many([[10, 20, 30]])
    with g2.as_default():
        q2 = tf.FIFOQueue(5, tf.int32, shared_name="shared_q", name="consumer_side")
        deq = q2.dequeue()
        size = q2.size()
    s1, s2 = _session_on(g1, rm), _session_on(g2, rm)
    try:
        t, box = _in_thread(lambda: [s2.run(deq) for _ in range(4)])
        s1.run(enq)
        s1.run(enq)
        t.join(5)
        assert box == {"value": [10, 20, 30, 10]}
        assert s2.run(size) == 2
    finally:
        s1.close()
        s2.close()


def test_shared_queue_declared_with_other_types_is_refused():
    rm = ResourceManager()
    g1, g2 = tf.Graph(), tf.Graph()
    with g1.as_default():
        size1 = tf.FIFOQueue(5, tf.int32, shared_name="q").size()
    with g2.as_default():
        size2 = tf.FIFOQueue(5, tf.float32, shared_name="q").size()
    s1, s2 = _session_on(g1, rm), _session_on(g2, rm)
    assert s1.run(size1) == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"int32.*float32"):
        s2.run(size2)
    s1.close()
    s2.close()


def test_wrong_dtypes_and_shapes_are_errors():
    q = tf.FIFOQueue(5, [tf.float32], shapes=[[2]], name="typed")
    with pytest.raises(ValueError):
        q.enqueue(tf.constant([1, 2]))  # int32 into a float32 queue
    with pytest.raises(ValueError, match="incompatible"):
        q.enqueue([[1.0, 2.0, 3.0]])
    with pytest.raises(ValueError, match="3 values"):
        q.enqueue([1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="fully defined"):
        tf.FIFOQueue(5, tf.float32, shapes=[[None]])
    loose = tf.placeholder(tf.float32)
    enq = q.enqueue(loose)  # unknown shape passes at build time, checked when it runs
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="typed.*component 0"):
            sess.run(enq, {loose: [1.0, 2.0, 3.0]})
    res = FIFOQueueResource("direct", [tf.int32], [[]], 3)
    with pytest.raises(tf.errors.InvalidArgumentError, match="'direct'.*float64.*int32"):
        res.enqueue([np.float64(1.0)])
    with pytest.raises(tf.errors.InvalidArgumentError, match="2 components"):
        res.enqueue([1, 2])
    with pytest.raises(tf.errors.InvalidArgumentError, match="known rank"):
        PaddingFIFOQueueResource("p", [tf.int32], [None], 3)


def test_enqueued_values_do_not_alias_variables():
    v = tf.Variable([1.0, 2.0])
    q = tf.FIFOQueue(3, tf.float32)
    enq = q.enqueue(v)
    bump = tf.assign_add(v, [10.0, 10.0])
    deq = q.dequeue()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(enq)
        sess.run(bump)
        np.testing.assert_array_equal(sess.run(deq), [1.0, 2.0])


def test_container_reset_wakes_blocked_dequeue_with_cancelled():
    rm = ResourceManager()
    g = tf.Graph()
    with g.as_default():
        deq = tf.FIFOQueue(2, tf.int32).dequeue()
    sess = _session_on(g, rm)
    t, box = _in_thread(lambda: sess.run(deq))
    t.join(0.3)
    assert t.is_alive()
    rm.clear()
    t.join(5)
    assert not t.is_alive()
    assert isinstance(box.get("error"), tf.errors.CancelledError)
    sess.close()


def test_cancelled_step_does_not_hang_a_blocked_dequeue():
    deq = tf.FIFOQueue(2, tf.int32).dequeue()
    backend = LocalBackend(tf.get_default_graph())
    plan = backend.plan_for((deq,), (), ())
    step = StepState(1)
    t, box = _in_thread(lambda: plan.run([], step))
    t.join(0.2)
    assert t.is_alive()
    started = time.monotonic()
    step.cancelled = True
    t.join(10)
    # Without the cancel the dequeue blocks forever.
    assert not t.is_alive() and time.monotonic() - started < 10.0
    assert isinstance(box.get("error"), tf.errors.CancelledError)


def test_queue_ops_are_colocated_with_the_queue():
    with tf.device("/job:ps/task:0"):
        q = tf.FIFOQueue(5, tf.float32)
    with tf.device("/job:worker/task:1"):
        enq = q.enqueue(tf.constant(1.0))
        deq = q.dequeue()
        y = deq * 2.0
    assert enq.device == deq.op.device == q.queue_ref.device
    cluster = ClusterSpec({"ps": ["p:1"], "worker": ["w0:1", "w1:1"]})
    placement = place(prune([y], [enq], set()), cluster, "/job:worker/task:0")
    assert placement[enq] == placement[deq.op] == "/job:ps/task:0"
    assert placement[y.op] == "/job:worker/task:1"


def test_two_clients_on_two_tasks_share_a_queue_on_the_ps():
    from tensorfleet.testing.cluster import local_cluster

    def client_graph(build):
        g = tf.Graph()
        with g.as_default():
            with tf.device("/job:ps/task:0"):
                q = tf.FIFOQueue(4, tf.float32, shapes=[[2]], shared_name="ps_queue")
            return g, build(q)

    def consumer(q):
        with tf.device("/job:worker/task:0"):
            return q.dequeue() + 1.0

    def producer(q):
        with tf.device("/job:worker/task:1"):
            return q.enqueue(tf.constant([1.0, 2.0]) * 10.0)

    with local_cluster(ps=1, worker=2) as c:
        g_cons, out = client_graph(consumer)
        g_prod, enq = client_graph(producer)
        with tf.Session(c.target("worker", 0), graph=g_cons) as s_cons, \
                tf.Session(c.target("worker", 1), graph=g_prod) as s_prod:
            t, box = _in_thread(lambda: s_cons.run(out))
            t.join(0.5)
            assert t.is_alive()  # blocked on the ps until the other client enqueues
            s_prod.run(enq)
            t.join(10)
            assert not t.is_alive()
            np.testing.assert_array_equal(box.get("value"), [11.0, 21.0])


def test_resource_timeouts_and_failed_batches_lose_nothing():
    q = FIFOQueueResource("res", [tf.int32], [[]], 5)
    with pytest.raises(tf.errors.DeadlineExceededError, match="'res'"):
        q.dequeue(timeout=0.05)
    q.enqueue_many([np.array([1, 2], dtype=np.int32)])
    q.close()
    with pytest.raises(tf.errors.OutOfRangeError, match="requested 3, current size 2"):
        q.dequeue_many(3)
    assert q.size() == 2  # the two claimed elements went back, in order
    np.testing.assert_array_equal(q.dequeue_many(3, allow_smaller=True)[0], [1, 2])
    np.testing.assert_array_equal(q.dequeue_many(0)[0], np.zeros([0], np.int32))
    with pytest.raises(tf.errors.InvalidArgumentError, match="different shapes"):
        loose = FIFOQueueResource("loose", [tf.float32], [], 5)
        loose.enqueue([np.zeros(2, np.float32)])
        loose.enqueue([np.zeros(3, np.float32)])
        loose.dequeue_many(2)
    assert q.read() == b"res"


def test_operation_timeout_ends_a_blocked_local_step_and_loses_nothing():
    q = tf.FIFOQueue(3, tf.float32, shapes=[[]])
    take = q.dequeue()
    put = q.enqueue([tf.constant(4.0)])
    with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=200)) as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"operation_timeout_in_ms \(200 ms\).*dequeueing"):
            sess.run(take)
        assert time.monotonic() - start < 5
        sess.run(put)
        assert sess.run(take) == 4.0  # the timed-out dequeue took nothing
    with tf.Session() as sess:  # without the option a step may wait as long as it needs
        result = {}
        t = threading.Thread(target=lambda: result.update(v=sess.run(take)))
        t.start()
        t.join(0.8)
        assert t.is_alive()
        sess.run(put)
        t.join(10)
        assert result == {"v": 4.0}


def test_run_options_timeout_ends_one_step_and_is_checked():
    q = tf.FIFOQueue(3, tf.float32, shapes=[[]])
    take = q.dequeue()
    put = q.enqueue([tf.constant(6.0)])
    with tf.Session() as sess:
        start = time.monotonic()
        with pytest.raises(tf.errors.DeadlineExceededError,
                           match=r"RunOptions.timeout_in_ms \(200 ms\)"):
            sess.run(take, options=tf.RunOptions(timeout_in_ms=200),
                     run_metadata=tf.RunMetadata())
        assert time.monotonic() - start < 5
        sess.run(put)
        assert sess.run({"v": take}, options=tf.RunOptions(timeout_in_ms=5000)) == {"v": 6.0}
        with pytest.raises(TypeError, match="timeout_in_ms must be an integer"):
            sess.run(take, options=tf.RunOptions(timeout_in_ms="1"))
        # Tracing is accepted for TensorFlow programs; nothing is collected.
        meta = tf.RunMetadata()
        sess.run(put, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
        assert meta.partition_graphs == [] and sess.run(take) == 6.0
