"""ClusterSpec, placement and partitioning, driven directly (no servers)."""

import pytest

import tensorfleet as tf
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.partition import partition
from tensorfleet.distributed.placement import place
from tensorfleet.runtime.executor import prune


def test_cluster_spec_forms_and_queries():
    spec = ClusterSpec({"worker": ["w0:2222", "w1:2222", "w2:2222"],
                        "ps": ["ps0:2222", "ps1:2222"]})
    assert spec.jobs == ["worker", "ps"]
    assert spec.num_tasks("worker") == 3
    assert spec.task_address("ps", 1) == "ps1:2222"
    assert spec.task_indices("ps") == [0, 1]
    assert ClusterSpec(spec) == spec
    assert ClusterSpec(spec.as_dict()) == spec
    assert ClusterSpec(spec.as_cluster_def()) == spec
    sparse = ClusterSpec({"worker": {0: "a:1", 3: "b:1"}})
    assert sparse.task_indices("worker") == [0, 3]
    assert sparse.job_tasks("worker") == ["a:1", None, None, "b:1"]
    assert sparse.as_dict() == {"worker": {0: "a:1", 3: "b:1"}}


def test_cluster_spec_errors_name_the_problem():
    spec = ClusterSpec({"local": ["localhost:2222", "localhost:2223"]})
    with pytest.raises(ValueError, match="No such job in cluster: 'ps'"):
        spec.task_address("ps", 0)
    with pytest.raises(ValueError, match="No task with index 5 in job 'local'"):
        spec.task_address("local", 5)
    with pytest.raises(ValueError, match="Duplicate address 'h:1'"):
        ClusterSpec({"a": ["h:1"], "b": ["h:1"]})
    with pytest.raises(TypeError):
        ClusterSpec(["h:1"])


CLUSTER = ClusterSpec({"ps": ["p0:1", "p1:1"], "worker": ["w0:1", "w1:1"]})


def test_placement_follows_scopes_defaults_and_variables():
    with tf.device("/job:ps/task:1"):
        v = tf.add(tf.constant(1.0), 2.0, name="on_ps1")
    with tf.device("/job:worker"):
        w = tf.add(v, 1.0, name="on_worker0")
    u = tf.add(w, 1.0, name="unplaced")
    with tf.device("/cpu:0"):
        c = tf.add(u, 1.0, name="cpu_only")
    ops = prune([c], [], set())
    p = place(ops, CLUSTER, "/job:worker/task:1")
    g = tf.get_default_graph()
    assert p[g.get_operation_by_name("on_ps1")] == "/job:ps/task:1"
    assert p[g.get_operation_by_name("on_worker0")] == "/job:worker/task:0"
    assert p[g.get_operation_by_name("unplaced")] == "/job:worker/task:1"
    assert p[g.get_operation_by_name("cpu_only")] == "/job:worker/task:1"


def test_colocation_with_class_attr():
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1.0, name="anchor")
    with tf.device("/job:worker/task:0"):
        with tf.colocate_with(a):
            b = tf.add(a, 1.0, name="follower")
    p = place(prune([b], [], set()), CLUSTER, "/job:worker/task:0")
    assert p[b.op] == "/job:ps/task:1"


def test_placement_errors():
    with tf.device("/job:nosuch/task:0"):
        a = tf.constant(1.0, name="lost")
    with pytest.raises(tf.errors.InvalidArgumentError, match="job 'nosuch' is not in the cluster"):
        place(prune([a], [], set()), CLUSTER, "/job:worker/task:0")
    tf.reset_default_graph()
    with tf.device("/job:ps/task:7"):
        b = tf.constant(1.0, name="far")
    with pytest.raises(tf.errors.InvalidArgumentError, match="no task 7"):
        place(prune([b], [], set()), CLUSTER, "/job:worker/task:0")
    tf.reset_default_graph()
    with tf.device("/gpu:0"):
        g = tf.constant(1.0, name="gpu_op")
    with pytest.raises(tf.errors.InvalidArgumentError, match="allow_soft_placement"):
        place(prune([g], [], set()), CLUSTER, "/job:worker/task:0")
    p = place(prune([g], [], set()), CLUSTER, "/job:worker/task:0", allow_soft_placement=True)
    assert p[g.op] == "/job:worker/task:0"


def test_device_filters_exclude_tasks():
    with tf.device("/job:ps/task:1"):
        a = tf.constant(1.0, name="filtered")
    with pytest.raises(tf.errors.InvalidArgumentError, match="device_filters"):
        place(prune([a], [], set()), CLUSTER, "/job:worker/task:0",
              device_filters=["/job:ps/task:0", "/job:worker"])


def test_partition_inserts_one_send_recv_per_edge_and_task():
    x = tf.placeholder(tf.float32, [3], name="x")
    with tf.device("/job:ps/task:0"):
        a = tf.add(x, 1.0, name="a")
    with tf.device("/job:worker/task:0"):
        b = tf.add(a, 1.0, name="b")
        c = tf.add(a, 2.0, name="c")
        d = tf.add_n([b, c], name="d")
    ops = prune([d], [], {x})
    parts = partition(ops, place(ops, CLUSTER, "/job:worker/task:0"), [x], [d], [])
    assert set(parts) == {"/job:ps/task:0", "/job:worker/task:0"}
    ps, wk = parts["/job:ps/task:0"], parts["/job:worker/task:0"]
    ps_ops = [n["op"] for n in ps.graph_def()["node"]]
    wk_ops = [n["op"] for n in wk.graph_def()["node"]]
    assert ps_ops.count("_Send") == 1 and wk_ops.count("_Recv") == 1
    assert ps.feeds == {"x:0": "_feed/x_0:0"} and wk.feeds == {}
    assert wk.fetches == ["d:0"]
    # Every partition imports cleanly (inputs come before their readers).
    for p in parts.values():
        tf.import_graph_def(p.graph_def(), graph=tf.Graph())
