"""``tf.train.ClusterSpec`` and ``tf.ConfigProto``: what a cluster is and how to run on it."""

from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from tensorfleet import errors
from tensorfleet.distributed.cluster_def import (ClusterDef, cluster_def_of_jobs,
    jobs_of_cluster_def)
from tensorfleet.framework.config_options import GPUOptions, GraphOptions
from tensorfleet.framework.device import DeviceSpec

TaskAddresses = Union[Sequence[str], Mapping[int, str]]


class ClusterSpec:
    """A cluster as a map of job names to task addresses.

    ``ClusterSpec({"ps": ["ps0:2222"], "worker": {0: "w0:2222", 3: "w3:2222"}})``;
    every task of the cluster is ``/job:<job>/task:<index>``. The same spec is
    given to every task, and a task checks at connection time that its peers
    were started with the same one.
    """

    def __init__(self, cluster: Any):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster.as_dict()
        elif isinstance(cluster, ClusterDef):
            cluster = jobs_of_cluster_def(cluster)
        elif isinstance(cluster, dict) and "job" in cluster and isinstance(cluster["job"], list):
            cluster = {j["name"]: {int(k): v for k, v in j["tasks"].items()}
                       for j in cluster["job"]}
        if not isinstance(cluster, Mapping):
            raise TypeError("ClusterSpec must be built from a dict of job name -> list or dict "
                            f"of addresses, a ClusterSpec or a cluster_def; got "
                            f"{type(cluster).__name__}")
        self._jobs: Dict[str, Dict[int, str]] = {}
        seen: Dict[str, str] = {}
        for job, tasks in cluster.items():
            if not isinstance(job, str) or not job or "/" in job or ":" in job:
                raise ValueError(f"Invalid job name {job!r} in cluster spec")
            if isinstance(tasks, str):
                tasks = [tasks]
            if isinstance(tasks, Mapping):
                items = {}
                for k, v in tasks.items():
                    try:
                        items[int(k)] = v
                    except (TypeError, ValueError):
                        raise ValueError(f"Task index {k!r} of job {job!r} is not an int") from None
            elif isinstance(tasks, (list, tuple)):
                items = dict(enumerate(tasks))
            else:
                raise TypeError(f"Tasks of job {job!r} must be a list or dict of addresses")
            for idx, addr in items.items():
                if idx < 0:
                    raise ValueError(f"Negative task index {idx} in job {job!r}")
                if not isinstance(addr, str) or not addr:
                    raise ValueError(f"Address of /job:{job}/task:{idx} must be a non-empty "
                                     f"string, got {addr!r}")
                if addr in seen:
                    raise ValueError(f"Duplicate address {addr!r} for /job:{job}/task:{idx} and "
                                     f"{seen[addr]} in cluster spec")
                seen[addr] = f"/job:{job}/task:{idx}"
            self._jobs[job] = dict(sorted(items.items()))

    @property
    def jobs(self) -> List[str]:
        """The job names, in the order given."""
        return list(self._jobs)

    def _job(self, job_name: str) -> Dict[int, str]:
        try:
            return self._jobs[job_name]
        except KeyError:
            raise ValueError(f"No such job in cluster: {job_name!r} (jobs: {self.jobs})") from None

    def num_tasks(self, job_name: str) -> int:
        return len(self._job(job_name))

    def task_indices(self, job_name: str) -> List[int]:
        return list(self._job(job_name))

    def task_address(self, job_name: str, task_index: int) -> str:
        """The ``host:port`` of a task; ValueError for an unknown job or index."""
        tasks = self._job(job_name)
        try:
            return tasks[int(task_index)]
        except KeyError:
            raise ValueError(f"No task with index {task_index} in job {job_name!r} "
                             f"(indices: {sorted(tasks)})") from None

    def job_tasks(self, job_name: str) -> List[Optional[str]]:
        """Addresses by index, with None for indices missing from a sparse job."""
        tasks = self._job(job_name)
        if not tasks:
            return []
        return [tasks.get(i) for i in range(max(tasks) + 1)]

    def as_dict(self) -> Dict[str, Any]:
        """Jobs as lists when their indices are dense, else as dicts."""
        out: Dict[str, Any] = {}
        for job, tasks in self._jobs.items():
            if list(tasks) == list(range(len(tasks))):
                out[job] = list(tasks.values())
            else:
                out[job] = dict(tasks)
        return out

    def as_cluster_def(self) -> ClusterDef:
        """The cluster as a ``tf.train.ClusterDef`` protocol buffer."""
        return cluster_def_of_jobs(self._jobs)

    def to_plain(self) -> Dict[str, Any]:
        """Plain-data form: ``{"job": [{"name": ..., "tasks": {index: address}}]}``."""
        return {"job": [{"name": j, "tasks": {str(i): a for i, a in t.items()}}
                        for j, t in self._jobs.items()]}

    def all_tasks(self) -> List[str]:
        """Every task name, ``/job:x/task:n``."""
        return [f"/job:{j}/task:{i}" for j, t in self._jobs.items() for i in t]

    def address_of(self, task_name: str) -> str:
        spec = DeviceSpec.from_string(task_name)
        return self.task_address(spec.job or "", spec.task or 0)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, ClusterSpec) and self._jobs == other._jobs

    def __ne__(self, other: Any) -> bool:
        return not self == other

    def __bool__(self) -> bool:
        return bool(self._jobs)

    def __repr__(self) -> str:
        return f"ClusterSpec({self.as_dict()!r})"


class ConfigProto:
    """Session configuration, with the fields of TensorFlow's ``ConfigProto``.

    ``log_device_placement``, ``allow_soft_placement``, ``device_filters``,
    ``operation_timeout_in_ms`` and the thread counts change how sessions run. The GPU
    settings (``gpu_options``, ``device_count={"GPU": n}``) are accepted and kept with no
    effect, as TensorFlow does on a machine without GPUs; so are the scheduling hints
    (``use_per_session_threads``, ``placement_period``, ``session_inter_op_thread_pool``).
    A field TensorFlow lacks raises ValueError, as protobuf does; settings tensorfleet
    cannot honour (``cluster_def``, ``rpc_options``, ``isolate_session_state``) raise
    ValueError saying so.
    """

    def __init__(self, log_device_placement: bool = False, allow_soft_placement: bool = False,
                 device_filters: Optional[Sequence[str]] = None,
                 inter_op_parallelism_threads: int = 0, intra_op_parallelism_threads: int = 0,
                 operation_timeout_in_ms: int = 0, gpu_options: Optional[GPUOptions] = None,
                 graph_options: Optional[GraphOptions] = None,
                 device_count: Optional[Mapping[str, int]] = None,
                 use_per_session_threads: bool = False, placement_period: int = 0,
                 session_inter_op_thread_pool: Optional[Sequence[Any]] = None,
                 isolate_session_state: bool = False,
                 share_cluster_devices_in_session: bool = False,
                 rpc_options: Any = None, cluster_def: Any = None, experimental: Any = None,
                 **unknown: Any):
        if unknown:
            raise ValueError(f'Protocol message ConfigProto has no "{sorted(unknown)[0]}" '
                             f'field.')
        for what, value in (("rpc_options", rpc_options), ("cluster_def", cluster_def),
                            ("experimental", experimental)):
            if value is not None:
                raise ValueError(f"ConfigProto.{what} is not supported by tensorfleet; give "
                                 f"the cluster to tf.train.Server as a ClusterSpec")
        if isolate_session_state:
            raise ValueError("ConfigProto.isolate_session_state is not supported: sessions "
                             "of one server share its variables")
        self.log_device_placement = bool(log_device_placement)
        self.allow_soft_placement = bool(allow_soft_placement)
        self.device_filters = list(device_filters or [])
        self.inter_op_parallelism_threads = int(inter_op_parallelism_threads)
        self.intra_op_parallelism_threads = int(intra_op_parallelism_threads)
        self.operation_timeout_in_ms = int(operation_timeout_in_ms)
        if gpu_options is not None and not isinstance(gpu_options, GPUOptions):
            raise TypeError(f"ConfigProto.gpu_options must be a GPUOptions, got "
                            f"{type(gpu_options).__name__}")
        self.gpu_options = gpu_options if gpu_options is not None else GPUOptions()
        if graph_options is not None and not isinstance(graph_options, GraphOptions):
            raise TypeError(f"ConfigProto.graph_options must be a GraphOptions, got "
                            f"{type(graph_options).__name__}")
        self.graph_options = graph_options if graph_options is not None else GraphOptions()
        counts = dict(device_count or {})
        for dev, n in counts.items():
            if not isinstance(dev, str) or isinstance(n, bool) or not isinstance(n, int) \
                    or n < 0:
                raise ValueError(f"ConfigProto.device_count maps device types to counts >= 0, "
                                 f"got {dev!r}: {n!r}")
        self.device_count = counts
        self.use_per_session_threads = bool(use_per_session_threads)
        self.placement_period = int(placement_period)
        self.session_inter_op_thread_pool = list(session_inter_op_thread_pool or [])
        self.isolate_session_state = False
        self.share_cluster_devices_in_session = bool(share_cluster_devices_in_session)

    def to_plain(self) -> Dict[str, Any]:
        return {"log_device_placement": self.log_device_placement,
                "allow_soft_placement": self.allow_soft_placement,
                "device_filters": list(self.device_filters),
                "operation_timeout_in_ms": self.operation_timeout_in_ms}

    @classmethod
    def from_plain(cls, d: Any) -> "ConfigProto":
        if not isinstance(d, dict):
            return cls()
        filters = d.get("device_filters") or []
        if not isinstance(filters, list) or not all(isinstance(f, str) for f in filters):
            raise errors.InvalidArgumentError(None, None, "device_filters must be strings")
        return cls(log_device_placement=bool(d.get("log_device_placement")),
                   allow_soft_placement=bool(d.get("allow_soft_placement")),
                   device_filters=filters,
                   operation_timeout_in_ms=int(d.get("operation_timeout_in_ms") or 0))


class RunOptions:
    """Options of one ``Session.run``: ``timeout_in_ms`` cancels the step on every task
    once it has run that long (``DeadlineExceededError``), as the session's
    ``operation_timeout_in_ms`` does for every step. With ``trace_level`` above
    ``NO_TRACE`` an in-process session times every op of the step into the
    ``RunMetadata``'s ``step_stats`` (see ``runtime/step_stats.py``); a session on a
    cluster's master runs the step untimed."""

    NO_TRACE, SOFTWARE_TRACE, HARDWARE_TRACE, FULL_TRACE = 0, 1, 2, 3

    def __init__(self, trace_level: int = 0, timeout_in_ms: int = 0,
                 inter_op_thread_pool: int = 0, output_partition_graphs: bool = False,
                 report_tensor_allocations_upon_oom: bool = False, **other: Any):
        self.trace_level = trace_level
        self.timeout_in_ms = timeout_in_ms
        self.inter_op_thread_pool = inter_op_thread_pool
        self.output_partition_graphs = output_partition_graphs
        self.report_tensor_allocations_upon_oom = report_tensor_allocations_upon_oom
        self.other = other


class RunMetadata:
    """What a step reports besides its results: ``step_stats`` (per-op timings) when
    the step was traced in an in-process session; cost graphs and partition graphs
    are not collected."""

    def __init__(self) -> None:
        self.step_stats: Any = None
        self.cost_graph: Any = None
        self.partition_graphs: List[Any] = []


__all__ = ["ClusterSpec", "ConfigProto", "GPUOptions", "RunOptions", "RunMetadata"]
