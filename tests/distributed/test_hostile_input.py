"""Hostile and malformed input reaching a task's server: each is refused with a clear
error, nothing runs, and the server keeps serving other clients."""

import json

import grpc
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import tensorfleet as tf
from tensorfleet.distributed import protocol
from tensorfleet.framework.serialization import import_graph_def
from tensorfleet.testing.cluster import LocalCluster
from tensorfleet.transport import RpcClient, wire

TOKEN = "s3cret-token-for-tests-0123456789"


@pytest.fixture(scope="module")
def cluster(monkeypatch_module):
    monkeypatch_module.setenv("TENSORFLEET_TOKEN", TOKEN)
    c = LocalCluster({"ps": 1, "worker": 1}, token=TOKEN)
    yield c
    c.stop()


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


def _client(c, token=TOKEN):
    return RpcClient(c.server("ps", 0).address, protocol.SERVICE, token=token)


def _still_serves(c):
    h, _ = _client(c).call("GetStatus", {}, [], timeout=10)
    assert h["task"] == "/job:ps/task:0"


@pytest.mark.parametrize("token", [None, "wrong-token-wrong-token-wrong-token"])
def test_missing_or_wrong_token_is_rejected(cluster, token, monkeypatch):
    monkeypatch.delenv("TENSORFLEET_TOKEN", raising=False)
    with pytest.raises(tf.errors.UnauthenticatedError):
        _client(cluster, token=token).call("GetStatus", {}, [], timeout=10)
    _still_serves(cluster)


@pytest.mark.parametrize("payload", [b"", b"garbage", b"TFLT" + b"\xff" * 40,
                                     wire.encode({"a": 1}, [np.zeros(4)])[:-5]])
def test_malformed_frames_are_rejected(cluster, payload):
    channel = grpc.insecure_channel(cluster.server("ps", 0).address)
    call = channel.unary_unary(f"/{protocol.SERVICE}/GetStatus")
    with pytest.raises(grpc.RpcError) as info:
        call(payload, metadata=(("x-tensorfleet-token", TOKEN),), timeout=10)
    assert info.value.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.DATA_LOSS,
                                 grpc.StatusCode.FAILED_PRECONDITION)
    channel.close()
    _still_serves(cluster)


def test_unknown_op_in_registered_graph(cluster):
    bad = {"graph": {"version": 1, "node": [
        {"name": "evil", "op": "SystemShell", "input": [], "device": "", "attr": {}, "out": []}]},
        "feeds": {}, "fetches": [], "targets": ["evil"]}
    with pytest.raises(tf.errors.NotFoundError, match="SystemShell"):
        _client(cluster).call("RegisterGraph", {"session": "s", "partition": bad}, [],
                              timeout=10)
    _still_serves(cluster)


@pytest.mark.parametrize("attr", [
    {"value": {"tensor": {"dtype": "float32", "shape": [1 << 30, 1 << 30], "data": "AAAA"}}},
    {"value": {"tensor": {"dtype": "float32", "shape": [2], "data": "AAAA"}}},
    {"value": {"list": [{"list": [{"list": []}]}] * 3, "extra": 1}},
    {"value": {"pickle": "gASVAAAAAAAAAAA="}},
])
def test_absurd_attrs_are_rejected(cluster, attr):
    node = {"name": "c", "op": "Const", "input": [], "device": "", "attr": attr,
            "out": [["float32", [2]]]}
    part = {"graph": {"version": 1, "node": [node]}, "feeds": {}, "fetches": ["c:0"],
            "targets": []}
    with pytest.raises(tf.errors.InvalidArgumentError):
        _client(cluster).call("RegisterGraph", {"session": "s", "partition": part}, [],
                              timeout=10)
    _still_serves(cluster)


def test_feed_of_wrong_dtype_or_shape_over_the_wire(cluster):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.identity(x, name="y")
    part = {"graph": g.as_graph_def(), "feeds": {"x:0": "x:0"}, "fetches": [y.name],
            "targets": []}
    c = _client(cluster)
    handle = c.call("RegisterGraph", {"session": "s", "partition": part}, [], timeout=10)[0][
        "handle"]
    for bad in (np.zeros(3, np.int64), np.zeros(4, np.float32)):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Feed 'x:0'"):
            c.call("RunGraph", {"handle": handle, "step_id": 1, "feeds": ["x:0"]}, [bad],
                   timeout=10)
    _, out = c.call("RunGraph", {"handle": handle, "step_id": 2, "feeds": ["x:0"]},
                    [np.arange(3, dtype=np.float32)], timeout=10)
    np.testing.assert_array_equal(out[0], [0, 1, 2])


def test_request_fields_of_wrong_type(cluster):
    with pytest.raises(tf.errors.InvalidArgumentError, match="step_id"):
        _client(cluster).call("RunGraph", {"handle": "h", "step_id": "1", "feeds": []}, [],
                              timeout=10)
    _still_serves(cluster)


def test_cluster_spec_mismatch_is_detected_at_connection(cluster):
    other = dict(cluster.spec.to_plain())
    other["job"] = other["job"] + [{"name": "intruder", "tasks": {"0": "localhost:1"}}]
    g = tf.Graph()
    with g.as_default():
        tf.constant(1.0, name="c")
    part = {"graph": g.as_graph_def(), "feeds": {}, "fetches": ["c:0"], "targets": [],
            "cluster": other}
    with pytest.raises(tf.errors.FailedPreconditionError, match="Cluster spec mismatch"):
        _client(cluster).call("RegisterGraph", {"session": "s", "partition": part}, [],
                              timeout=10)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
              st.text(max_size=8)),
    lambda children: st.one_of(st.lists(children, max_size=4),
                               st.dictionaries(st.sampled_from(
                                   ["version", "node", "name", "op", "input", "attr", "out",
                                    "device", "i", "s", "list", "tensor", "shape", "dtype"]),
                                   children, max_size=5)),
    max_leaves=25))
def test_graph_deserializer_fuzz(doc):
    """Arbitrary JSON-like documents never do anything but import or raise OpError."""
    for candidate in (doc, {"version": 1, "node": doc}, {"version": 1, "node": [doc]}):
        try:
            import_graph_def(json.loads(json.dumps(candidate)))
        except tf.errors.OpError:
            pass
