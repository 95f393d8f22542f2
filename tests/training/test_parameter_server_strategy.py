"""ParameterServerStrategy and CentralStorageStrategy: devices, chief duties and config
filters as TensorFlow 1.x reports them, and training a model on an in-process
ps/worker cluster through the strategy's scope."""

import json

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.cluster import local_cluster

E = tf.distribute.experimental


def _resolver(cluster, task_type, index):
    return tf.distribute.cluster_resolver.TFConfigClusterResolver(
        tf_config=json.dumps({"cluster": cluster, "task": {"type": task_type,
                                                          "index": index}}))


_CLUSTER = {"chief": ["h0:1"], "worker": ["h1:1", "h2:1"], "ps": ["p0:1", "p1:1"]}


def test_worker_devices_and_duties_as_tensorflow():
    # TensorFlow 2.15, tf.compat.v1.distribute.experimental.ParameterServerStrategy with
    # the same TF_CONFIG, worker 1.
    s = E.ParameterServerStrategy(_resolver(_CLUSTER, "worker", 1))
    e = s.extended
    assert s.num_replicas_in_sync == 1
    assert list(e.worker_devices) == ["/job:worker/replica:0/task:1/device:CPU:0"]
    assert e.parameter_devices == ("/job:ps/task:0", "/job:ps/task:1")
    assert (e.should_checkpoint, e.should_save_summary, e.experimental_should_init,
            e.experimental_between_graph) == (False, False, False, True)
    with tf.Graph().as_default():
        with s.scope():
            a = tf.get_variable("a", [2])
            b = tf.get_variable("b", [3])
            c = tf.get_variable("c", [4])
            k = tf.constant(1.0)
            r = s.extended.call_for_each_replica(lambda: a * 2)
            total = s.reduce(tf.distribute.ReduceOp.SUM, r)
        assert [a.device, b.device, c.device, k.op.device] == [
            "/job:ps/task:0", "/job:ps/task:1", "/job:ps/task:0", "/job:worker/task:1"]
        assert r.op.device == "/job:worker/replica:0/task:1/device:CPU:0"
        assert s.experimental_local_results(r) == (r,) and total is not None
    assert list(s.update_config_proto(tf.ConfigProto()).device_filters) == [
        "/job:worker/task:1", "/job:ps"]
    chief = E.ParameterServerStrategy(_resolver(_CLUSTER, "chief", 0))
    assert chief.extended.should_checkpoint and chief.extended.experimental_should_init


def test_without_a_cluster_everything_is_local(monkeypatch):
    monkeypatch.delenv("TF_CONFIG", raising=False)
    s = E.ParameterServerStrategy()
    assert s.extended.worker_devices == ("/replica:0/task:0/device:CPU:0",)
    assert s.extended.parameter_devices == ("/replica:0/task:0/device:CPU:0",)
    with pytest.raises(ValueError, match="needs a 'ps' job"):
        E.ParameterServerStrategy(_resolver({"worker": ["h:1"]}, "worker", 0))


def test_training_on_a_ps_worker_cluster():
    with local_cluster(ps=2, worker=1) as c:
        resolver = _resolver(c.spec.as_dict(), "worker", 0)
        s = E.ParameterServerStrategy(resolver)
        with tf.Graph().as_default():
            with s.scope():
                w = tf.get_variable("w", [3], initializer=tf.zeros_initializer())
                b = tf.get_variable("b", [], initializer=tf.zeros_initializer())
                x = tf.constant([[1.0, 2.0, 3.0], [0.0, 1.0, 0.0]])
                y = tf.constant([1.0, -1.0])
                loss = tf.reduce_mean(tf.square(tf.reduce_sum(x * w, 1) + b - y))
                train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            assert (w.device, b.device) == ("/job:ps/task:0", "/job:ps/task:1")
            config = s.update_config_proto(tf.ConfigProto())
            with tf.Session(c.target("worker", 0), config=config) as sess:
                sess.run(tf.global_variables_initializer())
                first = sess.run(loss)
                for _ in range(20):
                    sess.run(train)
                assert sess.run(loss) < first / 4


def test_central_storage_strategy():
    # TensorFlow 2.15 on a CPU-only machine: one replica on CPU:0, variables there.
    s = E.CentralStorageStrategy()
    e = s.extended
    assert s.num_replicas_in_sync == 1
    assert e.worker_devices == ("/replica:0/task:0/device:CPU:0",)
    assert e.parameter_devices == ("/replica:0/task:0/device:CPU:0",)
    assert e.should_checkpoint and e.experimental_between_graph
    s2 = E.CentralStorageStrategy(["/cpu:0"], parameter_device="/cpu:0")
    assert s2.extended.parameter_devices == ("/cpu:0",)
    with tf.Graph().as_default():
        with s2.scope():
            v = tf.get_variable("v", [2], initializer=tf.ones_initializer())
            k = tf.constant(1.0)
            r = s2.run(lambda: v * 2)
        assert "CPU:0" in v.device and k.op.device == ""
        assert r.op.device == "/replica:0/task:0/device:CPU:0"
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            np.testing.assert_allclose(sess.run(r), [2.0, 2.0])
    with pytest.raises(ValueError, match="one replica per process"):
        E.CentralStorageStrategy(["/cpu:0", "/cpu:1"])
