"""``tf.distribute.cluster_resolver``: the resolvers beside ``TFConfigClusterResolver``.

``SimpleClusterResolver`` holds a given cluster; ``UnionResolver`` merges several;
``SlurmClusterResolver`` reads a Slurm job step's environment (``SLURM_PROCID``,
``SLURM_STEP_NODELIST``, ``SLURM_STEP_TASKS_PER_NODE``) and gives each task of the step a
``host:port``; ``KubernetesClusterResolver`` lists the running pods of each job by label
through the Kubernetes API (the ``kubernetes`` client package, or an ``override_client``
with the same ``list_pod_for_all_namespaces`` call).
"""

from __future__ import annotations

import enum
import os
import re
from typing import Any, Dict, List, Mapping, Optional

from tensorfleet.distributed.cluster import ClusterSpec


class ClusterResolver:
    """The interface: ``cluster_spec()``, ``master()``, ``num_accelerators()``, and the
    ``task_type``, ``task_id``, ``rpc_layer`` and ``environment`` of this task."""

    task_type: Optional[str] = None
    task_id: Optional[int] = None
    rpc_layer: Optional[str] = None
    environment: str = ""

    def cluster_spec(self) -> ClusterSpec:
        raise TypeError(f"{type(self).__name__} must define cluster_spec()")

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """``<rpc_layer>://host:port`` of a task (this one by default); "" when unknown."""
        ttype = task_type if task_type is not None else self.task_type
        tid = task_id if task_id is not None else self.task_id
        spec = self.cluster_spec()
        if ttype is None or tid is None or ttype not in spec.jobs:
            return ""
        address = spec.task_address(ttype, tid)
        layer = rpc_layer if rpc_layer is not None else self.rpc_layer
        return f"{layer}://{address}" if layer else address

    def num_accelerators(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
                         config_proto: Any = None) -> Dict[str, int]:
        """Accelerators per kind on a task: none, tensorfleet runs on CPUs."""
        return {}


class SimpleClusterResolver(ClusterResolver):
    """A resolver returning what it was given."""

    def __init__(self, cluster_spec: Any, master: str = "", task_type: Optional[str] = None,
                 task_id: Optional[int] = None, environment: str = "",
                 num_accelerators: Optional[Dict[str, int]] = None,
                 rpc_layer: Optional[str] = None):
        self._spec = cluster_spec if isinstance(cluster_spec, ClusterSpec) \
            else ClusterSpec(cluster_spec)
        self._master = master
        self.task_type, self.task_id = task_type, task_id
        self.environment, self.rpc_layer = environment, rpc_layer
        self._accelerators = dict(num_accelerators or {})
        if any(n for n in self._accelerators.values()):
            raise ValueError(f"num_accelerators {self._accelerators}: tensorfleet has no "
                             f"accelerators")

    def cluster_spec(self) -> ClusterSpec:
        return self._spec

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        """The given master, unless another task is asked for."""
        if task_type is None and task_id is None:
            layer = rpc_layer if rpc_layer is not None else self.rpc_layer
            if layer and self._master and "://" not in self._master:
                return f"{layer}://{self._master}"
            return self._master
        return super().master(task_type, task_id, rpc_layer)


class UnionResolver(ClusterResolver):
    """The union of the clusters of ``resolvers``; the first resolver gives the master,
    task and environment. A job in several resolvers must not give one task two
    addresses."""

    def __init__(self, *resolvers: ClusterResolver, **kwargs: Any):
        if not resolvers:
            raise ValueError("UnionResolver needs at least one resolver")
        for r in resolvers:
            if not hasattr(r, "cluster_spec"):
                raise TypeError(f"UnionResolver takes cluster resolvers, got {r!r}")
        unknown = set(kwargs) - {"task_type", "task_id", "rpc_layer"}
        if unknown:
            raise ValueError(f"UnionResolver: unexpected arguments {sorted(unknown)}")
        self._resolvers = resolvers
        first = resolvers[0]
        self.task_type = kwargs.get("task_type", first.task_type)
        self.task_id = kwargs.get("task_id", first.task_id)
        self.rpc_layer = kwargs.get("rpc_layer", first.rpc_layer)
        self.environment = first.environment

    def cluster_spec(self) -> ClusterSpec:
        merged: Dict[str, Dict[int, str]] = {}
        for r in self._resolvers:
            spec = r.cluster_spec()
            for job in spec.jobs:
                tasks = merged.setdefault(job, {})
                for i, addr in enumerate(spec.job_tasks(job)):
                    if addr is None:
                        continue
                    if tasks.get(i, addr) != addr:
                        raise KeyError(f"UnionResolver: task {job}:{i} has two addresses, "
                                       f"{tasks[i]} and {addr}")
                    tasks[i] = addr
        return ClusterSpec({j: dict(t) for j, t in merged.items()})

    def master(self, task_type: Optional[str] = None, task_id: Optional[int] = None,
               rpc_layer: Optional[str] = None) -> str:
        if task_type is None and task_id is None:
            return self._resolvers[0].master(rpc_layer=rpc_layer)
        return super().master(task_type, task_id, rpc_layer)


def expand_hostlist(hostlist: str) -> List[str]:
    """Slurm's compact host list (``n[1-3,7],gpu[01-02]``) as host names.

    Raises:
      ValueError: a malformed list.
    """
    hosts: List[str] = []
    for part in re.findall(r"[^,\[]+(?:\[[^\]]*\])?[^,]*", hostlist):
        m = re.fullmatch(r"([^\[]*)\[([^\]]+)\](.*)", part)
        if not m:
            if "[" in part or "]" in part:
                raise ValueError(f"malformed Slurm host list {hostlist!r}")
            hosts.append(part)
            continue
        prefix, ranges, suffix = m.groups()
        for r in ranges.split(","):
            lo, _, hi = r.partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise ValueError(f"malformed Slurm host list {hostlist!r}")
            for i in range(int(lo), int(hi or lo) + 1):
                hosts.append(f"{prefix}{str(i).zfill(len(lo))}{suffix}")
    return hosts


def expand_tasks_per_node(spec: str) -> List[int]:
    """Slurm's tasks-per-node list (``2(x3),1``) as one count per node."""
    out: List[int] = []
    for part in spec.split(","):
        m = re.fullmatch(r"(\d+)(?:\(x(\d+)\))?", part.strip())
        if not m:
            raise ValueError(f"malformed Slurm tasks-per-node list {spec!r}")
        out += [int(m.group(1))] * int(m.group(2) or 1)
    return out


class SlurmClusterResolver(ClusterResolver):
    """The cluster of a Slurm job step: its tasks in order (by ``SLURM_PROCID``) are dealt
    to ``jobs`` (job name -> number of tasks; default all ``worker``); the ``i``-th task on
    a node listens on ``port_base + i``.

    Raises:
      RuntimeError: outside a Slurm job step (the variables are missing).
      ValueError: ``jobs`` asking for another number of tasks than the step has; GPU
        settings (tensorfleet runs on CPUs).
    """

    def __init__(self, jobs: Optional[Mapping[str, int]] = None, port_base: int = 8888,
                 gpus_per_node: Optional[int] = None, gpus_per_task: Optional[int] = None,
                 tasks_per_node: Optional[Mapping[str, int]] = None, auto_set_gpu: bool = True,
                 rpc_layer: str = "grpc"):
        if gpus_per_node or gpus_per_task:
            raise ValueError("SlurmClusterResolver: GPUs per node/task are not supported; "
                             "tensorfleet runs on CPUs")
        env = os.environ
        missing = [v for v in ("SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_STEP_NODELIST")
                   if v not in env]
        if missing:
            raise RuntimeError(f"SlurmClusterResolver: not inside a Slurm job step ({missing} "
                               f"unset)")
        self.rpc_layer = rpc_layer
        self._port_base = int(port_base)
        rank, total = int(env["SLURM_PROCID"]), int(env["SLURM_STEP_NUM_TASKS"])
        nodes = expand_hostlist(env["SLURM_STEP_NODELIST"])
        if tasks_per_node is not None:
            counts = [int(tasks_per_node[n]) for n in nodes]
        elif "SLURM_STEP_TASKS_PER_NODE" in env:
            counts = expand_tasks_per_node(env["SLURM_STEP_TASKS_PER_NODE"])
        else:
            counts = [total // len(nodes)] * len(nodes)
        if len(counts) != len(nodes) or sum(counts) != total:
            raise ValueError(f"SlurmClusterResolver: {total} tasks do not fit the nodes "
                             f"{nodes} with {counts} tasks each")
        self._addresses = [f"{node}:{self._port_base + i}"
                           for node, n in zip(nodes, counts) for i in range(n)]
        self._jobs = dict(jobs) if jobs else {"worker": total}
        if sum(self._jobs.values()) != total:
            raise ValueError(f"SlurmClusterResolver: jobs {self._jobs} ask for "
                             f"{sum(self._jobs.values())} tasks, the step has {total}")
        start = 0
        for job, n in self._jobs.items():
            if start <= rank < start + n:
                self.task_type, self.task_id = job, rank - start
            start += n

    def cluster_spec(self) -> ClusterSpec:
        out, start = {}, 0
        for job, n in self._jobs.items():
            out[job] = self._addresses[start:start + n]
            start += n
        return ClusterSpec(out)


class KubernetesExecutableLocation(enum.Enum):
    """Where the program runs: inside the cluster (service-account credentials) or outside
    (the kube config file)."""
    WITHIN_CLUSTER = 0
    OFF_CLUSTER = 1


class KubernetesClusterResolver(ClusterResolver):
    """Each job's tasks are the pods matching its label selector (``job_to_label_mapping``,
    default ``{"worker": ["job-name=tensorflow"]}``), sorted by name, at ``pod_ip:
    tf_server_port``.

    Raises:
      ImportError: no ``override_client`` and the ``kubernetes`` package is missing.
      RuntimeError: (from ``cluster_spec``) a matching pod that is not running.
    """

    def __init__(self, job_to_label_mapping: Optional[Dict[str, List[str]]] = None,
                 tf_server_port: int = 8470, rpc_layer: str = "grpc",
                 override_client: Any = None,
                 executable_location: KubernetesExecutableLocation =
                 KubernetesExecutableLocation.WITHIN_CLUSTER):
        if not isinstance(executable_location, KubernetesExecutableLocation):
            raise ValueError(f"executable_location must be a KubernetesExecutableLocation, "
                             f"got {executable_location!r}")
        self._mapping = job_to_label_mapping or {"worker": ["job-name=tensorflow"]}
        self._port = int(tf_server_port)
        self.rpc_layer = rpc_layer
        self.task_type, self.task_id = None, None
        if override_client is None:
            try:
                from kubernetes import client, config  # type: ignore[import-not-found]
            except ImportError:
                raise ImportError("KubernetesClusterResolver needs the kubernetes client "
                                  "package (pip install kubernetes) or an override_client"
                                  ) from None
            if executable_location is KubernetesExecutableLocation.WITHIN_CLUSTER:
                config.load_incluster_config()
            else:
                config.load_kube_config()
            override_client = client.CoreV1Api()
        self._client = override_client

    def cluster_spec(self) -> ClusterSpec:
        out: Dict[str, List[str]] = {}
        for job, selectors in self._mapping.items():
            addresses: List[str] = []
            for selector in selectors:
                pods = self._client.list_pod_for_all_namespaces(label_selector=selector,
                                                                watch=False).items
                for pod in sorted(pods, key=lambda p: p.metadata.name):
                    if pod.status.phase != "Running":
                        raise RuntimeError(f"Pod {pod.metadata.name!r} is not running "
                                           f"(phase {pod.status.phase})")
                    addresses.append(f"{pod.status.pod_ip}:{self._port}")
            out[job] = addresses
        return ClusterSpec(out)


__all__ = ["ClusterResolver", "SimpleClusterResolver", "UnionResolver",
           "SlurmClusterResolver", "KubernetesClusterResolver", "KubernetesExecutableLocation",
           "expand_hostlist", "expand_tasks_per_node"]
