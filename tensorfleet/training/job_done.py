"""Ending a job cleanly: parameter servers that return when the workers are done.

A parameter server that calls ``server.join()`` waits forever, so a finished
job leaves its ps processes behind. Here each ps owns a shared "done" queue;
every worker enqueues one token into each ps's queue when it finishes, and the
ps returns once it has a token from every worker::

    if job_name == "ps":
        tf.train.join_until_workers_done(server)      # instead of server.join()
    else:
        ...train...
        tf.train.signal_workers_done(server.target, cluster)
"""

from __future__ import annotations

import logging
from typing import Any, Optional

from tensorfleet import dtypes, errors
from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.framework.graph import Graph
from tensorfleet.ops.data_flow_ops import FIFOQueue
from tensorfleet.runtime.session import Session

logger = logging.getLogger(__name__)

DONE_QUEUE = "tensorfleet_done_queue_ps{}"


def _queue_on(graph: Graph, ps_index: int, capacity: int) -> Any:
    with graph.as_default(), graph.device(f"/job:ps/task:{ps_index}"):
        return FIFOQueue(capacity, [dtypes.int32], shapes=[[]],
                         shared_name=DONE_QUEUE.format(ps_index), name=f"done_queue_ps{ps_index}")


def _num_workers(cluster: ClusterSpec) -> int:
    return sum(cluster.num_tasks(j) for j in ("chief", "master", "worker") if j in cluster.jobs)


def join_until_workers_done(server: Any, num_workers: Optional[int] = None,
                            stop: bool = True) -> None:
    """Blocks a ps task until every worker called ``signal_workers_done``, then stops
    the server (unless ``stop`` is False)."""
    cluster: ClusterSpec = server.cluster_spec
    spec_job, _, spec_task = server.task.strip("/").partition("/")
    if spec_job != "job:ps":
        raise ValueError(f"join_until_workers_done runs on a ps task, not {server.task}")
    index = int(spec_task.split(":")[1])
    n = num_workers if num_workers is not None else _num_workers(cluster)
    g = Graph()
    q = _queue_on(g, index, max(n, 1))
    with g.as_default():
        take = q.dequeue()
    with Session(server.target, graph=g) as sess:
        for i in range(n):
            who = sess.run(take)
            logger.info("%s: worker %d reported done (%d/%d)", server.task, who, i + 1, n)
    if stop:
        server.stop()


def signal_workers_done(target: str, cluster: Any, worker_index: int = 0) -> None:
    """Tells every ps task that this worker has finished (one token per ps)."""
    cluster = ClusterSpec(cluster)
    if "ps" not in cluster.jobs:
        return
    g = Graph()
    ops = []
    for i in cluster.task_indices("ps"):
        q = _queue_on(g, i, max(_num_workers(cluster), 1))
        with g.as_default():
            ops.append(q.enqueue([worker_index]))
    with Session(target, graph=g) as sess:
        for op in ops:
            try:
                sess.run(op)
            except errors.OpError as e:  # a ps that is already gone needs no token
                logger.warning("Could not signal done to a ps: %s", e)


__all__ = ["join_until_workers_done", "signal_workers_done"]
