"""ClusterDef / JobDef / ServerDef as protocol buffers, and ClusterSpec / Server built from
them, as TensorFlow does."""

import pytest

import tensorfleet as tf
from tensorfleet.distributed.server import free_ports

# ``tf.train.ClusterSpec({"ps": ["a:1"], "worker": {0: "b:1", 3: "c:1"}})
# .as_cluster_def().SerializeToString(deterministic=True)`` in TensorFlow 2.21.
_TF_CLUSTER_BYTES = (b"\n\r\n\x02ps\x12\x07\x08\x00\x12\x03a:1\n\x1a\n\x06worker\x12\x07"
                     b"\x08\x03\x12\x03c:1\x12\x07\x08\x00\x12\x03b:1")


def test_as_cluster_def_matches_tensorflow_bytes():
    spec = tf.train.ClusterSpec({"ps": ["a:1"], "worker": {0: "b:1", 3: "c:1"}})
    cluster_def = spec.as_cluster_def()
    assert isinstance(cluster_def, tf.train.ClusterDef)
    parsed = tf.train.ClusterDef.FromString(_TF_CLUSTER_BYTES)
    assert parsed == cluster_def
    assert tf.train.ClusterSpec(parsed) == spec
    assert tf.train.ClusterSpec(parsed).as_dict() == {"ps": ["a:1"],
                                                     "worker": {0: "b:1", 3: "c:1"}}


def test_job_def_fields_and_duplicate_jobs():
    job = tf.train.JobDef(name="worker", tasks={0: "h:1", 2: "h:2"})
    assert [f.number for f in tf.train.JobDef.DESCRIPTOR.fields] == [1, 2]
    spec = tf.train.ClusterSpec(tf.train.ClusterDef(job=[job]))
    assert spec.task_indices("worker") == [0, 2]
    with pytest.raises(ValueError, match="Duplicate job name 'worker'"):
        tf.train.ClusterSpec(tf.train.ClusterDef(job=[job, job]))


def test_server_def_field_numbers_are_tensorflows():
    numbers = {f.name: f.number for f in tf.train.ServerDef.DESCRIPTOR.fields}
    assert numbers == {"cluster": 1, "job_name": 2, "replica": 8, "task_index": 3,
                       "protocol": 5, "port": 6}


def test_server_from_server_def_and_back():
    port = free_ports(1)[0]
    spec = tf.train.ClusterSpec({"local": [f"localhost:{port}"]})
    sd = tf.train.ServerDef(cluster=spec.as_cluster_def(), job_name="local", task_index=0,
                            protocol="grpc")
    server = tf.train.Server(sd, start=False)
    try:
        assert server.server_def == sd
        assert server.cluster_spec == spec
        assert server.target == f"grpc://localhost:{port}"
    finally:
        server.stop()


def test_server_def_refuses_what_it_cannot_honour():
    spec = tf.train.ClusterSpec({"local": ["localhost:2222"]})
    base = dict(cluster=spec.as_cluster_def(), job_name="local", task_index=0)
    with pytest.raises(ValueError, match="replica=1 is not supported"):
        tf.train.Server(tf.train.ServerDef(replica=1, **base), start=False)
    with pytest.raises(ValueError, match="port=3333 differs"):
        tf.train.Server(tf.train.ServerDef(port=3333, **base), start=False)
    # A TensorFlow ServerDef with default_session_config (field 4) set.
    sd = tf.train.ServerDef.FromString(tf.train.ServerDef(**base).SerializeToString()
                                       + b"\x22\x02\x08\x01")
    with pytest.raises(ValueError, match="default_session_config is not supported"):
        tf.train.Server(sd, start=False)
