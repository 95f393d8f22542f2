"""TF_CONFIG and the seed's flags resolve to the same cluster and role."""

import json

import pytest

from tensorfleet.distributed.resolver import (TFConfigClusterResolver, cluster_from_flags,
                                              tf_config_for)

CLUSTER = {"chief": ["h0:2222"], "ps": ["h1:2222", "h2:2222"],
           "worker": ["h3:2222", "h4:2222"], "evaluator": ["h5:2222"]}


def test_tf_config_roles():
    r = TFConfigClusterResolver(tf_config=json.dumps(
        {"cluster": CLUSTER, "task": {"type": "worker", "index": 1}}))
    assert r.task_type == "worker" and r.task_id == 1
    assert r.master() == "grpc://h4:2222"
    assert not r.is_chief
    assert "evaluator" not in r.cluster_spec().jobs
    assert r.cluster_spec().num_tasks("ps") == 2
    chief = TFConfigClusterResolver(tf_config=tf_config_for(CLUSTER, "chief", 0))
    assert chief.is_chief and chief.master() == "grpc://h0:2222"
    ev = TFConfigClusterResolver(tf_config=tf_config_for(CLUSTER, "evaluator", 0))
    assert ev.task_type == "evaluator" and not ev.is_chief


def test_worker0_is_chief_without_chief_job():
    cfg = {"cluster": {"ps": ["a:1"], "worker": ["b:1", "c:1"]},
           "task": {"type": "worker", "index": 0}}
    assert TFConfigClusterResolver(tf_config=json.dumps(cfg)).is_chief


@pytest.mark.parametrize("raw,msg", [
    ("{not json", "not JSON"),
    ("[1]", "JSON object"),
    (json.dumps({"cluster": {"worker": ["a:1"]}, "task": {"type": "ps", "index": 0}}),
     "not a job"),
    (json.dumps({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": 3}}),
     "out of range"),
    (json.dumps({"cluster": {"worker": ["a:1"]}, "task": {"type": "worker", "index": -1}}),
     "non-negative"),
])
def test_bad_tf_config_is_named(raw, msg):
    with pytest.raises(ValueError, match=msg):
        TFConfigClusterResolver(tf_config=raw)


def test_flags_and_tf_config_agree():
    spec, job, idx = cluster_from_flags("h1:2222,h2:2222", "h3:2222,h4:2222", "worker", 1)
    r = TFConfigClusterResolver(tf_config=json.dumps(
        {"cluster": {"ps": ["h1:2222", "h2:2222"], "worker": ["h3:2222", "h4:2222"]},
         "task": {"type": "worker", "index": 1}}))
    assert spec == r.cluster_spec() and (job, idx) == (r.task_type, r.task_id)
    with pytest.raises(ValueError, match="--job_name"):
        cluster_from_flags("a:1", "b:1", "boss", 0)
    with pytest.raises(ValueError, match="--task_index"):
        cluster_from_flags("a:1", "b:1", "worker", 2)
    with pytest.raises(ValueError, match="host:port"):
        cluster_from_flags("a", "b:1", "worker", 0)
