"""``tf.train.ClusterDef``, ``JobDef`` and ``ServerDef``: a cluster and a task as protocol
buffers, and their conversion to and from the plain forms ``ClusterSpec`` and ``Server``
work with."""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Tuple

from google.protobuf import unknown_fields

from tensorfleet.protos.cluster_pb2 import ClusterDef, JobDef
from tensorfleet.protos.tensorflow_server_pb2 import ServerDef

# TensorFlow's ServerDef fields that tensorfleet does not declare (see
# tensorflow_server.proto): a serialized ServerDef that sets them is refused.
_UNDECLARED_SERVER_FIELDS = {4: "default_session_config", 7: "cluster_device_filters"}


def jobs_of_cluster_def(cluster_def: ClusterDef) -> Dict[str, Dict[int, str]]:
    """``{job: {task index: address}}`` of a ``ClusterDef``, jobs in the order given.

    Raises:
      ValueError: a job is named twice.
    """
    jobs: Dict[str, Dict[int, str]] = {}
    for job in cluster_def.job:
        if job.name in jobs:
            raise ValueError(f"Duplicate job name {job.name!r} in ClusterDef")
        jobs[job.name] = dict(job.tasks)
    return jobs


def cluster_def_of_jobs(jobs: Mapping[str, Mapping[int, str]]) -> ClusterDef:
    """The ``ClusterDef`` of ``{job: {task index: address}}``."""
    out = ClusterDef()
    for name, tasks in jobs.items():
        job = out.job.add(name=name)
        for index, address in tasks.items():
            job.tasks[int(index)] = address
    return out


def unpack_server_def(server_def: ServerDef) -> Tuple[ClusterDef, str, Optional[int], str]:
    """The cluster, job name, task index and protocol a ``ServerDef`` starts.

    Raises:
      ValueError: the ServerDef asks for what tensorfleet's servers do not do (a replica
        other than 0, a port other than the cluster's, or TensorFlow's session config or
        device filters).
    """
    undeclared = sorted({_UNDECLARED_SERVER_FIELDS[f.field_number]
                         for f in unknown_fields.UnknownFieldSet(server_def)
                         if f.field_number in _UNDECLARED_SERVER_FIELDS})
    if undeclared:
        raise ValueError(f"ServerDef.{undeclared[0]} is not supported by tensorfleet: give the "
                         f"session config to tf.train.Server(config=...) instead")
    if server_def.replica != 0:
        raise ValueError(f"ServerDef.replica={server_def.replica} is not supported: "
                         f"tensorfleet's jobs have a single replica (0)")
    task_index = server_def.task_index
    if server_def.port:
        jobs = jobs_of_cluster_def(server_def.cluster)
        address = jobs.get(server_def.job_name, {}).get(task_index, "")
        if address.rpartition(":")[2] != str(server_def.port):
            raise ValueError(f"ServerDef.port={server_def.port} differs from the port of "
                             f"/job:{server_def.job_name}/task:{task_index} in the cluster "
                             f"({address!r}); tensorfleet binds the cluster's address, so "
                             f"put the port there")
    return server_def.cluster, server_def.job_name, task_index, server_def.protocol or "grpc"


def make_server_def(cluster_def: ClusterDef, job_name: str, task_index: int,
                    protocol: str) -> ServerDef:
    """The ``ServerDef`` of one task of ``cluster_def``."""
    return ServerDef(cluster=cluster_def, job_name=job_name, task_index=task_index,
                     protocol=protocol)


__all__ = ["ClusterDef", "JobDef", "ServerDef", "cluster_def_of_jobs", "jobs_of_cluster_def",
           "make_server_def", "unpack_server_def"]
