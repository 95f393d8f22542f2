"""Kernels are chosen by the device type of an op's placement."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels import registry
from tensorfleet.runtime.executor import Plan, prune
from tensorfleet.testing.cluster import local_cluster

# What the TEST device's Add adds on top of the sum, so its result is told apart.
OFFSET = 1000.0


def _test_add(ctx, a, b):
    return np.add(a, b) + np.asarray(OFFSET, dtype=np.result_type(a, b))


@pytest.fixture
def test_device():
    """A second device type, TEST, with its own kernel for Add only."""
    registry.register_device_type("test")
    registry.register_kernel("Add", "TEST")(_test_add)
    try:
        yield "TEST"
    finally:
        registry.unregister_device_type("TEST")


def test_op_on_registered_device_runs_that_devices_kernel(test_device):
    a = tf.constant([1.0, 2.0])
    two = tf.constant(2.0)
    with tf.device("/device:TEST:0"):
        on_test = tf.add(a, two, name="on_test")
    on_cpu = tf.add(a, 2.0, name="on_cpu")
    with tf.device("/cpu:0"):
        on_cpu0 = tf.add(a, 2.0, name="on_cpu0")
    with tf.Session() as sess:
        t, c, c0 = sess.run([on_test, on_cpu, on_cpu0])
    np.testing.assert_allclose(t, [3.0 + OFFSET, 4.0 + OFFSET])
    np.testing.assert_allclose(c, [3.0, 4.0])
    np.testing.assert_allclose(c0, [3.0, 4.0])


def test_kernel_is_chosen_when_the_plan_is_built(test_device):
    one, two = tf.constant(1.0), tf.constant(2.0)
    with tf.device("/job:localhost/replica:0/task:0/device:TEST:0"):
        s = tf.add(one, two, name="s")
    plan = Plan(prune([s], [], set()), [], [s], None, lambda op: {})
    kernels = {step[5].name: step[0] for step in plan.steps}
    assert kernels["s"] is _test_add
    assert kernels[one.op.name] is registry.get_kernel("Const", "CPU")
    assert plan.run([]) == [3.0 + OFFSET]


def test_op_without_kernel_on_device_needs_soft_placement(test_device):
    three, two = tf.constant(3.0), tf.constant(2.0)
    with tf.device("/device:TEST:0"):
        m = tf.multiply(three, two, name="mul_on_test")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"No OpKernel was registered to support Op 'Mul' used by node "
                                 r"mul_on_test on device /device:TEST:0.*\['CPU'\]"):
            sess.run(m)
    config = tf.ConfigProto(allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        assert sess.run(m) == 6.0


def test_unregistered_device_type_keeps_placement_behaviour():
    one = tf.constant(1.0)
    with tf.device("/gpu:0"):
        g = tf.add(one, one, name="gpu_add")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"gpu_add.*/device:GPU:0.*allow_soft_placement"):
            sess.run(g)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(g) == 2.0


def test_registration_errors():
    with pytest.raises(ValueError, match="not a registered device type"):
        registry.register_kernel("Add", "NOSUCH")
    with pytest.raises(ValueError, match="cannot be removed"):
        registry.unregister_device_type("CPU")
    with pytest.raises(ValueError, match="device type is a name"):
        registry.register_device_type("TE ST")


def test_unregistering_removes_the_device_kernels(test_device):
    assert "TEST" in registry.registered_device_types()
    assert registry.has_kernel("Add", "TEST")
    registry.unregister_device_type("TEST")
    assert "TEST" not in registry.registered_device_types()
    assert not registry.has_kernel("Add", "TEST")
    assert registry.has_kernel("Add", "CPU")


def test_cluster_task_dispatches_by_device_type(test_device):
    with local_cluster(worker=2) as c:
        with tf.device("/job:worker/task:1"):
            one, two = tf.constant(1.0), tf.constant(2.0)
            plain = tf.add(one, two, name="remote_cpu_add")
        with tf.device("/job:worker/task:1/device:TEST:0"):
            remote = tf.add(one, two, name="remote_test_add")
        with tf.Session(c.target("worker", 0)) as sess:
            assert sess.run([remote, plain]) == [3.0 + OFFSET, 3.0]
