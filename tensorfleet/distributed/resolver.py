"""Cluster resolvers: where a task learns the cluster and its own role.

Two sources name the same thing: the ``TF_CONFIG`` environment variable that
Kubeflow's TFJob and estimator programs use, and the seed programs'
``--ps_hosts/--worker_hosts/--job_name/--task_index`` flags. Both resolve to a
``ClusterSpec`` plus a task type and index.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Mapping, Optional, Tuple

from tensorfleet.distributed.cluster import ClusterSpec

TF_CONFIG = "TF_CONFIG"
ROLES = ("chief", "worker", "ps", "evaluator")
# The evaluator is not part of the training cluster: it only reads checkpoints.
TRAINING_JOBS = ("chief", "master", "worker", "ps")


def _bad(msg: str) -> ValueError:
    return ValueError(f"Invalid {TF_CONFIG}: {msg}")


def parse_tf_config(raw: Optional[str]) -> Dict[str, Any]:
    """Parses and checks a ``TF_CONFIG`` JSON string (empty/None -> ``{}``)."""
    if not raw:
        return {}
    try:
        cfg = json.loads(raw)
    except json.JSONDecodeError as e:
        raise _bad(f"not JSON ({e})") from None
    if not isinstance(cfg, dict):
        raise _bad("must be a JSON object")
    cluster = cfg.get("cluster", {})
    if not isinstance(cluster, dict):
        raise _bad("'cluster' must map job names to lists of host:port")
    task = cfg.get("task", {})
    if not isinstance(task, dict):
        raise _bad("'task' must be an object with 'type' and 'index'")
    if task:
        ttype, index = task.get("type"), task.get("index", 0)
        if not isinstance(ttype, str) or not ttype:
            raise _bad("task.type must be a non-empty string")
        if isinstance(index, bool) or not isinstance(index, int) or index < 0:
            raise _bad(f"task.index must be a non-negative integer, got {index!r}")
        if cluster and ttype != "evaluator":
            if ttype not in cluster:
                raise _bad(f"task type {ttype!r} is not a job of the cluster {sorted(cluster)}")
            if index >= len(cluster[ttype]):
                raise _bad(f"task {ttype}:{index} is out of range: job {ttype!r} has "
                           f"{len(cluster[ttype])} tasks")
    return cfg


class TFConfigClusterResolver:
    """Reads the cluster and this task's role from ``TF_CONFIG``."""

    def __init__(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                 rpc_layer: str = "grpc", environment: Optional[str] = None,
                 tf_config: Optional[str] = None):
        self._cfg = parse_tf_config(tf_config if tf_config is not None
                                    else os.environ.get(TF_CONFIG))
        task = self._cfg.get("task", {})
        self.task_type = task_type if task_type is not None else task.get("type")
        self.task_id = task_id if task_id is not None else task.get("index", 0)
        self.rpc_layer = rpc_layer
        self.environment = environment or self._cfg.get("environment", "")

    def cluster_spec(self) -> ClusterSpec:
        """The training cluster (the evaluator, which trains nothing, is left out)."""
        cluster = {j: t for j, t in self._cfg.get("cluster", {}).items() if j != "evaluator"}
        return ClusterSpec(cluster)

    def full_cluster_spec(self) -> ClusterSpec:
        return ClusterSpec(self._cfg.get("cluster", {}))

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """``grpc://host:port`` of a task (this one by default); "" with no cluster."""
        ttype = task_type if task_type is not None else self.task_type
        tid = task_id if task_id is not None else self.task_id
        spec = self.full_cluster_spec()
        if not spec or ttype is None or ttype not in spec.jobs:
            return ""
        return f"{rpc_layer or self.rpc_layer}://{spec.task_address(ttype, tid)}"

    @property
    def is_chief(self) -> bool:
        """The chief job's task, or worker 0 when the cluster has no chief job."""
        jobs = self._cfg.get("cluster", {})
        if self.task_type in ("chief", "master"):
            return True
        return "chief" not in jobs and "master" not in jobs and self.task_type == "worker" \
            and self.task_id == 0

    def num_accelerators(self, *args: Any, **kwargs: Any) -> Dict[str, int]:
        return {}


def cluster_from_flags(ps_hosts: str, worker_hosts: str, job_name: str,
                       task_index: int, chief_hosts: str = "") -> Tuple[ClusterSpec, str, int]:
    """The seed's flags as (cluster, job name, task index); ValueError on bad values."""
    def hosts(s: str, flag: str) -> List[str]:
        out = [h.strip() for h in (s or "").split(",") if h.strip()]
        for h in out:
            if ":" not in h:
                raise ValueError(f"--{flag}: {h!r} is not host:port")
        return out
    cluster: Dict[str, List[str]] = {}
    if chief_hosts:
        cluster["chief"] = hosts(chief_hosts, "chief_hosts")
    if ps_hosts:
        cluster["ps"] = hosts(ps_hosts, "ps_hosts")
    cluster["worker"] = hosts(worker_hosts, "worker_hosts")
    if job_name not in cluster:
        raise ValueError(f"--job_name={job_name!r} must be one of {sorted(cluster)}")
    if not 0 <= int(task_index) < len(cluster[job_name]):
        raise ValueError(f"--task_index={task_index} is out of range for job {job_name!r} with "
                         f"{len(cluster[job_name])} tasks")
    return ClusterSpec(cluster), job_name, int(task_index)


def tf_config_for(cluster: Mapping[str, List[str]], task_type: str, index: int) -> str:
    """The ``TF_CONFIG`` value for one task (used by the launcher and manifests)."""
    return json.dumps({"cluster": dict(cluster), "task": {"type": task_type, "index": index}})


__all__ = ["TFConfigClusterResolver", "cluster_from_flags", "parse_tf_config", "tf_config_for"]
