"""`tensorfleet k8s`: TFJob and plain manifests, parsed back as YAML (or checked as data),
and checked against schemas: the plain manifests with kubernetes-validate (Kubernetes'
own OpenAPI schemas, strict: unknown fields refused), the TFJob with the structure of
Kubeflow's TFJob CRD (tests/fixtures/tfjob-v1.schema.json), whose pod template is checked
against Kubernetes' PodTemplateSpec from the same definitions."""

import copy
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import jsonschema
import kubernetes_validate
import pytest
from kubernetes_validate.utils import latest_version, schema_contents
from referencing import Registry, Resource

from tensorfleet.cli import k8s
from tensorfleet.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "fixtures"
K8S_VERSION = latest_version()  # the newest Kubernetes release kubernetes-validate knows
K8S_DEFINITIONS = "https://kubernetes.io/api/_definitions.json"

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


# -- schemas ---------------------------------------------------------------------------------

# Layouts worth checking: the default, every replica type with resources and a namespace,
# a ps-less job without a Secret.
LAYOUTS = [["--ps", "1", "--workers", "2"],
           ["--ps", "2", "--workers", "3", "--chief", "--evaluator", "--cpu", "2", "--memory",
            "4Gi", "--namespace", "ml"],
           ["--ps", "0", "--workers", "1", "--no-secret", "--name", "solo"]]
LAYOUT_IDS = ["default", "every-role", "no-ps-no-secret"]


def _manifests(capsys, *args):
    """The documents `tensorfleet k8s ARGS` prints."""
    assert main(["k8s", "--image", "registry.example.com/trainer:1", *args, "trainer.py",
                 "--steps", "100"]) == 0
    docs = _parse(capsys.readouterr().out)
    assert docs, "PyYAML comes with kubernetes-validate"
    return docs


@pytest.fixture(scope="module")
def tfjob_validator():
    schema = json.loads((DATA / "tfjob-v1.schema.json").read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    definitions = schema_contents(
        f"kubernetes-json-schema/v{K8S_VERSION}-local-strict/_definitions.json", K8S_VERSION)
    registry = Registry().with_resource(K8S_DEFINITIONS, Resource.from_contents(definitions))
    return jsonschema.Draft202012Validator(schema, registry=registry)


def _errors_at(validator, doc):
    """The instance paths of ``doc``'s schema errors (empty when it is valid)."""
    return [list(e.absolute_path) for e in validator.iter_errors(doc)]


@pytest.mark.parametrize("args", LAYOUTS, ids=LAYOUT_IDS)
def test_plain_manifests_pass_kubernetes_validate(capsys, args):
    docs = _manifests(capsys, "--plain", *args)
    assert {d["kind"] for d in docs} >= {"Service", "Pod"}
    for doc in docs:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


@pytest.mark.parametrize("args", LAYOUTS, ids=LAYOUT_IDS)
def test_tfjob_passes_the_tfjob_crd_schema(capsys, tfjob_validator, args):
    docs = _manifests(capsys, *args)
    job = docs[-1]
    assert _errors_at(tfjob_validator, job) == []
    for doc in docs[:-1]:  # the Secret
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)


def _container(doc):
    spec = doc["spec"]
    if "tfReplicaSpecs" in spec:
        spec = spec["tfReplicaSpecs"]["Worker"]["template"]["spec"]
    return spec["containers"][0]


def _rename(d, old, new):
    d[new] = d.pop(old)


# Each breaks one thing the schema says; the error must be reported at that field.
PLAIN_BREAKS = {
    "port-as-text": ("Pod", lambda d: _container(d)["ports"][0].update(containerPort="2222"),
                     "containerPort"),
    "misspelt-field": ("Pod", lambda d: _rename(_container(d), "image", "imagee"), "imagee"),
    "restart-policy-list": ("Pod", lambda d: d["spec"].update(restartPolicy=["OnFailure"]),
                            "restartPolicy"),
    "service-port-name": ("Service", lambda d: d["spec"]["ports"][0].update(port="grpc"),
                          "port"),
    "secret-data-number": ("Secret", lambda d: d["stringData"].update(token=7), "token"),
}

TFJOB_BREAKS = {
    "restart-policy": (lambda d: d["spec"]["tfReplicaSpecs"]["PS"].update(
        restartPolicy="Sometimes"), "restartPolicy"),
    "replica-type": (lambda d: _rename(d["spec"]["tfReplicaSpecs"], "Worker", "Workers"),
                     "tfReplicaSpecs"),
    "replicas-as-text": (lambda d: d["spec"]["tfReplicaSpecs"]["Worker"].update(replicas="2"),
                         "replicas"),
    "container-name": (lambda d: _container(d).update(name="trainer"), "containers"),
    "misspelt-container-field": (lambda d: _rename(_container(d), "command", "comand"),
                                 "comand"),
    "api-version": (lambda d: d.update(apiVersion="kubeflow.org/v1beta2"), "apiVersion"),
    "clean-pod-policy": (lambda d: d["spec"]["runPolicy"].update(cleanPodPolicy="Some"),
                         "cleanPodPolicy"),
    "no-replicas": (lambda d: d["spec"].update(tfReplicaSpecs={}), "tfReplicaSpecs"),
}


@pytest.mark.parametrize("name", sorted(PLAIN_BREAKS))
def test_kubernetes_validate_refuses_a_broken_plain_manifest(capsys, name):
    kind, breaks, field = PLAIN_BREAKS[name]
    doc = copy.deepcopy(next(d for d in _manifests(capsys, "--plain") if d["kind"] == kind))
    kubernetes_validate.validate(doc, K8S_VERSION, strict=True)  # valid as written
    breaks(doc)
    with pytest.raises(kubernetes_validate.ValidationError) as err:
        kubernetes_validate.validate(doc, K8S_VERSION, strict=True)
    where = list(err.value.absolute_path) + [str(err.value.message)]
    assert any(field in str(part) for part in where), (name, where)


@pytest.mark.parametrize("name", sorted(TFJOB_BREAKS))
def test_the_tfjob_schema_refuses_a_broken_tfjob(capsys, tfjob_validator, name):
    breaks, field = TFJOB_BREAKS[name]
    job = copy.deepcopy(_manifests(capsys)[-1])
    breaks(job)
    paths = _errors_at(tfjob_validator, job)
    assert paths, f"{name}: the broken TFJob passed"
    assert any(field in map(str, path) for path in paths) or any(
        field in e.message for e in tfjob_validator.iter_errors(job)), (name, paths)
