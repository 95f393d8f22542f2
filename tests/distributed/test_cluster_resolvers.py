"""``tf.distribute.cluster_resolver``: Simple, Union, Slurm and Kubernetes resolvers."""

import types

import pytest

import tensorfleet as tf

cr = tf.distribute.cluster_resolver


def test_simple_and_union():
    a = cr.SimpleClusterResolver(tf.train.ClusterSpec({"worker": ["w0:1", "w1:1"]}),
                                 master="w0:1", task_type="worker", task_id=1,
                                 rpc_layer="grpc")
    assert a.master() == "grpc://w0:1"
    assert a.master("worker", 1) == "grpc://w1:1"
    assert a.num_accelerators() == {}
    b = cr.SimpleClusterResolver({"ps": ["p0:2"]})
    u = cr.UnionResolver(a, b)
    assert u.cluster_spec().as_dict() == {"worker": ["w0:1", "w1:1"], "ps": ["p0:2"]}
    assert u.task_type == "worker" and u.task_id == 1 and u.master() == "grpc://w0:1"
    assert u.master("ps", 0) == "grpc://p0:2"
    clash = cr.SimpleClusterResolver({"ps": ["other:2"]})
    with pytest.raises(KeyError, match="two addresses"):
        cr.UnionResolver(b, clash).cluster_spec()
    with pytest.raises(ValueError, match="at least one"):
        cr.UnionResolver()
    assert isinstance(a, cr.ClusterResolver)


def test_slurm(monkeypatch):
    monkeypatch.setenv("SLURM_PROCID", "3")
    monkeypatch.setenv("SLURM_STEP_NUM_TASKS", "4")
    monkeypatch.setenv("SLURM_STEP_NODELIST", "node[1-2]")
    monkeypatch.setenv("SLURM_STEP_TASKS_PER_NODE", "2(x2)")
    r = cr.SlurmClusterResolver(jobs={"ps": 1, "worker": 3}, port_base=9000)
    assert r.cluster_spec().as_dict() == {"ps": ["node1:9000"],
                                          "worker": ["node1:9001", "node2:9000", "node2:9001"]}
    assert (r.task_type, r.task_id) == ("worker", 2)
    assert r.master() == "grpc://node2:9001"
    with pytest.raises(ValueError, match="ask for 3 tasks"):
        cr.SlurmClusterResolver(jobs={"worker": 3})
    with pytest.raises(ValueError, match="GPUs"):
        cr.SlurmClusterResolver(gpus_per_node=2)
    monkeypatch.delenv("SLURM_PROCID")
    with pytest.raises(RuntimeError, match="not inside a Slurm job step"):
        cr.SlurmClusterResolver()


class _FakeCoreV1:
    def __init__(self, pods):
        self.pods = pods

    def list_pod_for_all_namespaces(self, label_selector, watch):
        items = [types.SimpleNamespace(metadata=types.SimpleNamespace(name=n),
                                       status=types.SimpleNamespace(phase=ph, pod_ip=ip))
                 for sel, n, ph, ip in self.pods if sel == label_selector]
        return types.SimpleNamespace(items=items)


def test_kubernetes_with_a_client():
    client = _FakeCoreV1([("job=ps", "ps-0", "Running", "10.0.0.5"),
                          ("job=w", "w-1", "Running", "10.0.0.7"),
                          ("job=w", "w-0", "Running", "10.0.0.6")])
    r = cr.KubernetesClusterResolver({"ps": ["job=ps"], "worker": ["job=w"]},
                                     tf_server_port=2222, override_client=client)
    assert r.cluster_spec().as_dict() == {"ps": ["10.0.0.5:2222"],
                                          "worker": ["10.0.0.6:2222", "10.0.0.7:2222"]}
    assert r.master("worker", 1) == "grpc://10.0.0.7:2222"
    pending = cr.KubernetesClusterResolver(
        {"worker": ["job=w"]}, override_client=_FakeCoreV1([("job=w", "w-0", "Pending", "")]))
    with pytest.raises(RuntimeError, match="not running"):
        pending.cluster_spec()
    assert cr.KubernetesExecutableLocation.OFF_CLUSTER.value == 1
