"""`tensorfleet k8s`: TFJob and plain manifests, parsed back as YAML (or checked as data)."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from tensorfleet.cli import k8s

ROOT = Path(__file__).resolve().parents[1]

try:
    import yaml
except ImportError:  # PyYAML is not a dependency; the structure is still checked
    yaml = None


def _parse(text):
    if yaml is not None:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    return None


def _roundtrip(docs):
    """The YAML we print reads back as the documents we built."""
    text = k8s.dump_yaml(docs)
    parsed = _parse(text)
    if parsed is not None:
        assert parsed == docs
    # Every document is also plain data (strings, numbers, lists, dicts).
    json.dumps(docs)
    return text


def test_tfjob_structure():
    docs = k8s.build_tfjob("mnist", "me/trainer:1", "trainer.py", ["--steps", "100"], ps=2,
                           workers=3, chief=True, token="secret-token", namespace="ml")
    _roundtrip(docs)
    secret, job = docs
    assert secret["kind"] == "Secret" and secret["stringData"] == {"token": "secret-token"}
    assert job["apiVersion"] == "kubeflow.org/v1" and job["kind"] == "TFJob"
    assert job["metadata"] == {"name": "mnist", "namespace": "ml"}
    specs = job["spec"]["tfReplicaSpecs"]
    assert {k: v["replicas"] for k, v in specs.items()} == {"Chief": 1, "PS": 2, "Worker": 3}
    for spec in specs.values():
        assert spec["restartPolicy"] == "OnFailure"
        (container,) = spec["template"]["spec"]["containers"]
        assert container["name"] == "tensorflow"
        assert container["image"] == "me/trainer:1"
        assert container["command"] == ["python", "trainer.py", "--steps", "100"]
        token = [e for e in container["env"] if e["name"] == "TENSORFLEET_TOKEN"][0]
        assert token["valueFrom"]["secretKeyRef"] == {"name": "mnist-token", "key": "token"}


def test_plain_manifest_has_a_headless_service_and_a_pod_per_task():
    docs = k8s.build_plain("mnist", "img", "trainer.py", [], ps=1, workers=2, token="t")
    _roundtrip(docs)
    kinds = [d["kind"] for d in docs]
    assert kinds == ["Secret", "Service", "Pod", "Pod", "Pod"]
    svc = docs[1]
    assert svc["spec"]["clusterIP"] == "None"
    assert svc["spec"]["selector"] == {"tensorfleet/cluster": "mnist"}
    cluster = {"ps": ["mnist-ps-0.mnist:2222"],
               "worker": ["mnist-worker-0.mnist:2222", "mnist-worker-1.mnist:2222"]}
    for pod, (job, idx) in zip(docs[2:], [("ps", 0), ("worker", 0), ("worker", 1)]):
        spec = pod["spec"]
        assert pod["metadata"]["name"] == spec["hostname"] == f"mnist-{job}-{idx}"
        assert spec["subdomain"] == "mnist" and spec["restartPolicy"] == "OnFailure"
        (c,) = spec["containers"]
        env = {e["name"]: e.get("value") for e in c["env"]}
        assert json.loads(env["TF_CONFIG"]) == {"cluster": cluster,
                                                "task": {"type": job, "index": idx}}
        assert c["command"][-2:] == [f"--job_name={job}", f"--task_index={idx}"]
        assert pod["metadata"]["labels"]["tensorfleet/cluster"] == "mnist"


def test_yaml_quoting_of_awkward_strings():
    docs = [{"a": ["yes", "no", "null", "1", "x: y", "#c", "multi\nline", 'q"uote', ""],
             "empty": {}, "none": [], "on": True, "n": 3}]
    _roundtrip(docs)
    if yaml is None:
        pytest.skip("PyYAML is not installed")


def test_bad_name_is_refused():
    with pytest.raises(ValueError):
        k8s.build_tfjob("Bad_Name", "img", "t.py", [], 1, 1)
    assert k8s.default_name("my_Trainer.py") == "my-trainer"


def test_k8s_command_writes_a_private_file(tmp_path):
    out = tmp_path / "job.yaml"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "k8s", "--ps", "1",
                        "--workers", "2", "--image", "me/img:1", "-o", str(out), "train.py",
                        "--epochs", "3"], env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    text = out.read_text()
    assert "kind: \"TFJob\"" in text and "--epochs" in text
    parsed = _parse(text)
    if parsed is not None:
        assert [d["kind"] for d in parsed] == ["Secret", "TFJob"]
        worker = parsed[1]["spec"]["tfReplicaSpecs"]["Worker"]
        assert worker["replicas"] == 2
        assert worker["template"]["spec"]["containers"][0]["command"] == [
            "python", "train.py", "--epochs", "3"]
