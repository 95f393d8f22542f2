"""``tensorfleet k8s``: Kubernetes manifests for a training script.

Two forms:

* a Kubeflow ``TFJob`` (``kubeflow.org/v1``): the training operator creates the
  pods and services and sets ``TF_CONFIG`` in each; tensorfleet reads it.
* ``--plain``: no operator needed. A headless Service plus one Pod per task;
  each Pod's hostname and the Service give it a stable DNS name
  (``NAME-worker-0.NAME``), from which every Pod's ``TF_CONFIG`` (and the seed's
  flags) are computed here.

Both take the cluster token from a Secret (written with a fresh token unless
``--no-secret``). The YAML is produced here without dependencies; strings are
JSON-quoted, which YAML reads as double-quoted scalars.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import sys
from typing import Any, Dict, List, Optional
from tensorfleet.cli.launch import seed_flags, tf_config_for

TFJOB_ROLES = (("chief", "Chief"), ("ps", "PS"), ("worker", "Worker"),
               ("evaluator", "Evaluator"))
DEFAULT_PORT = 2222  # the port TFJob gives every task
_NAME_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_PLAIN_KEY = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-/]*$")


# -- YAML ---------------------------------------------------------------------------------------

def _scalar(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return json.dumps(v)
    return json.dumps(str(v))


def _key(k: str) -> str:
    return k if _PLAIN_KEY.match(k) and k.lower() not in ("true", "false", "null", "yes",
                                                           "no", "on", "off") else json.dumps(k)


def _block(obj: Any, indent: int) -> List[str]:
    pad = " " * indent
    out: List[str] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (dict, list)) and v:
                out.append(f"{pad}{_key(k)}:")
                out += _block(v, indent + 2)
            else:
                out.append(f"{pad}{_key(k)}: {_inline(v)}")
    elif isinstance(obj, list):
        for item in obj:
            if isinstance(item, (dict, list)) and item:
                lines = _block(item, indent + 2)
                # The first line of the item goes on the dash line.
                out.append(f"{pad}- {lines[0][indent + 2:]}")
                out += lines[1:]
            else:
                out.append(f"{pad}- {_inline(item)}")
    else:
        out.append(pad + _scalar(obj))
    return out


def _inline(v: Any) -> str:
    if isinstance(v, dict):
        return "{}"
    if isinstance(v, list):
        return "[]"
    return _scalar(v)


def dump_yaml(docs: List[Dict[str, Any]]) -> str:
    """Block-style YAML for several documents, separated by ``---``."""
    return "".join("---\n" + "\n".join(_block(d, 0)) + "\n" for d in docs)


# -- manifests ----------------------------------------------------------------------------------

def _check_name(name: str) -> str:
    if not _NAME_RE.match(name) or len(name) > 40:
        raise ValueError(f"--name {name!r} must be a DNS label: lowercase letters, digits and "
                         "'-', at most 40 characters")
    return name


def default_name(script: str) -> str:
    """``train_mnist.py`` -> ``train-mnist``."""
    base = re.sub(r"\.py$", "", script.rsplit("/", 1)[-1]).lower()
    base = re.sub(r"[^a-z0-9]+", "-", base).strip("-") or "tensorfleet"
    return base[:40].strip("-") or "tensorfleet"


def _secret(name: str, namespace: Optional[str], token: str) -> Dict[str, Any]:
    meta: Dict[str, Any] = {"name": f"{name}-token"}
    if namespace:
        meta["namespace"] = namespace
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": "Opaque",
            "stringData": {"token": token}}


def _env(name: str, extra: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    env = [{"name": "TENSORFLEET_TOKEN",
            "valueFrom": {"secretKeyRef": {"name": f"{name}-token", "key": "token"}}},
           {"name": "PYTHONUNBUFFERED", "value": "1"}]
    for k, v in (extra or {}).items():
        env.append({"name": k, "value": v})
    return env


def _container(name: str, image: str, command: List[str], port: int,
               env_extra: Optional[Dict[str, str]], resources: Dict[str, Any]) -> Dict[str, Any]:
    c: Dict[str, Any] = {"name": "tensorflow", "image": image, "command": command,
                         "env": _env(name, env_extra),
                         "ports": [{"name": "tfjob-port", "containerPort": port}]}
    if resources:
        c["resources"] = resources
    return c


def _resources(cpu: Optional[str], memory: Optional[str]) -> Dict[str, Any]:
    req = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    return {"requests": req, "limits": dict(req)} if req else {}


def build_tfjob(name: str, image: str, script: str, args: List[str], ps: int, workers: int,
                chief: bool = False, evaluator: bool = False, namespace: Optional[str] = None,
                token: Optional[str] = None, cpu: Optional[str] = None,
                memory: Optional[str] = None, python: str = "python") -> List[Dict[str, Any]]:
    """A Secret (if ``token``) and a TFJob; the operator sets TF_CONFIG in every pod."""
    _check_name(name)
    counts = {"chief": int(chief), "ps": ps, "worker": workers, "evaluator": int(evaluator)}
    specs: Dict[str, Any] = {}
    for role, kind in TFJOB_ROLES:
        if counts[role] <= 0:
            continue
        container = _container(name, image, [python, script] + list(args), DEFAULT_PORT,
                               {"TENSORFLEET_BLAS_THREADS": "1"}, _resources(cpu, memory))
        specs[kind] = {"replicas": counts[role], "restartPolicy": "OnFailure",
                       "template": {"spec": {"containers": [container]}}}
    meta: Dict[str, Any] = {"name": name}
    if namespace:
        meta["namespace"] = namespace
    job = {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": meta,
           "spec": {"runPolicy": {"cleanPodPolicy": "Running"}, "tfReplicaSpecs": specs}}
    return ([_secret(name, namespace, token)] if token else []) + [job]


def plain_cluster(name: str, ps: int, workers: int, chief: bool = False,
                  port: int = DEFAULT_PORT) -> Dict[str, List[str]]:
    """The cluster spec of ``--plain``: ``NAME-<job>-<i>.NAME:<port>`` per task."""
    counts = [("chief", int(chief)), ("ps", ps), ("worker", workers)]
    return {job: [f"{name}-{job}-{i}.{name}:{port}" for i in range(n)] for job, n in counts if n}


def build_plain(name: str, image: str, script: str, args: List[str], ps: int, workers: int,
                chief: bool = False, evaluator: bool = False, namespace: Optional[str] = None,
                token: Optional[str] = None, cpu: Optional[str] = None,
                memory: Optional[str] = None, python: str = "python", port: int = DEFAULT_PORT,
                flags: bool = True) -> List[Dict[str, Any]]:
    """A Secret (if ``token``), a headless Service, and one Pod per task with its TF_CONFIG."""
    _check_name(name)
    cluster = plain_cluster(name, ps, workers, chief, port)
    full = dict(cluster)
    if evaluator:
        full["evaluator"] = [f"{name}-evaluator-0.{name}:{port}"]
    meta_ns = {"namespace": namespace} if namespace else {}
    docs: List[Dict[str, Any]] = [_secret(name, namespace, token)] if token else []
    docs.append({"apiVersion": "v1", "kind": "Service",
                 "metadata": {"name": name, **meta_ns, "labels": {"app": name}},
                 "spec": {"clusterIP": "None", "selector": {"tensorfleet/cluster": name},
                          # Peers must resolve each other before they report ready.
                          "publishNotReadyAddresses": True,
                          "ports": [{"name": "grpc", "port": port, "targetPort": port}]}})
    for job, addrs in full.items():
        for i, _ in enumerate(addrs):
            pod = f"{name}-{job}-{i}"
            command = [python, script] + list(args)
            if flags:
                command += seed_flags(cluster, job, i)
            env = {"TF_CONFIG": tf_config_for(full if job == "evaluator" else cluster, job, i),
                   "TENSORFLEET_BLAS_THREADS": "1"}
            docs.append({
                "apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": pod, **meta_ns,
                             "labels": {"tensorfleet/cluster": name, "tensorfleet/job": job,
                                        "tensorfleet/task-index": str(i)}},
                "spec": {"hostname": pod, "subdomain": name, "restartPolicy": "OnFailure",
                         "containers": [_container(name, image, command, port, env,
                                                   _resources(cpu, memory))]}})
    return docs


# -- command line --------------------------------------------------------------------------------

def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "k8s", help="write a Kubeflow TFJob (or plain Kubernetes) manifest for a script",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Print a Kubernetes manifest that runs SCRIPT as a cluster of ps and "
                    "worker tasks.\n\nBy default a Kubeflow TFJob (the training operator "
                    "sets TF_CONFIG in each pod);\nwith --plain a headless Service and one "
                    "Pod per task, with TF_CONFIG and the seed's\nflags computed from the "
                    "Service's DNS names. A Secret with a fresh cluster token comes\nfirst "
                    "unless --no-secret.",
        epilog="examples:\n"
               "  tensorfleet k8s --ps 2 --workers 4 --image me/trainer:1 trainer.py "
               "--steps 10000 | kubectl apply -f -\n"
               "  tensorfleet k8s --plain --ps 1 --workers 2 --image me/trainer:1 -o job.yaml "
               "trainer.py")
    p.add_argument("--ps", type=int, default=1, metavar="N", help="ps replicas (default 1)")
    p.add_argument("--workers", type=int, default=2, metavar="M",
                   help="worker replicas (default 2)")
    p.add_argument("--chief", action="store_true", help="add a Chief replica")
    p.add_argument("--evaluator", action="store_true", help="add an Evaluator replica")
    p.add_argument("--image", required=True, help="container image holding the script and "
                                                  "tensorfleet")
    p.add_argument("--name", default=None, help="job name (default: from the script name)")
    p.add_argument("--namespace", default=None, help="namespace (default: kubectl's)")
    p.add_argument("--plain", action="store_true",
                   help="plain Kubernetes (Service + Pods) instead of a Kubeflow TFJob")
    p.add_argument("--cpu", default=None, help="CPU request and limit per task, e.g. 2")
    p.add_argument("--memory", default=None, help="memory request and limit, e.g. 4Gi")
    p.add_argument("--python", default="python", help="interpreter in the image "
                                                      "(default python)")
    p.add_argument("--no-secret", action="store_true",
                   help="do not write the token Secret (create NAME-token yourself: kubectl "
                        "create secret generic NAME-token --from-literal=token=...)")
    p.add_argument("--no-flags", action="store_true",
                   help="--plain: do not append the seed's flags to the command")
    p.add_argument("-o", "--output", default=None, metavar="FILE",
                   help="write to FILE instead of stdout")
    p.add_argument("script", help="path of the script inside the image")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    p.set_defaults(func=run_command)
    return p


def run_command(args: argparse.Namespace) -> int:
    """``tensorfleet k8s``."""
    name = args.name or default_name(args.script)
    if args.ps < 0 or args.workers < 0 or args.workers + int(args.chief) < 1:
        print("tensorfleet k8s: need --ps >= 0 and at least one worker or a chief",
              file=sys.stderr)
        return 2
    token = None if args.no_secret else secrets.token_urlsafe(32)
    common = dict(ps=args.ps, workers=args.workers, chief=args.chief, evaluator=args.evaluator,
                  namespace=args.namespace, token=token, cpu=args.cpu, memory=args.memory,
                  python=args.python)
    try:
        if args.plain:
            docs = build_plain(name, args.image, args.script, args.args, flags=not args.no_flags,
                               **common)
        else:
            docs = build_tfjob(name, args.image, args.script, args.args, **common)
    except ValueError as e:
        print(f"tensorfleet k8s: {e}", file=sys.stderr)
        return 2
    kind = "plain Kubernetes" if args.plain else "Kubeflow TFJob"
    text = (f"# {kind} manifest written by `tensorfleet k8s` for {args.script}: "
            f"{args.ps} ps, {args.workers} workers{', a chief' if args.chief else ''}\n"
            + dump_yaml(docs))
    if args.output:
        # The Secret holds the token: keep the file private to its owner.
        fd = os.open(args.output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        print(f"wrote {args.output}; apply it with: kubectl apply -f {args.output}",
              file=sys.stderr)
    else:
        sys.stdout.write(text)
    return 0


__all__ = ["add_parser", "run_command", "build_tfjob", "build_plain", "plain_cluster",
           "dump_yaml", "default_name"]
