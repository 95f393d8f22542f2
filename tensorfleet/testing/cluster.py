"""An in-process cluster: every task's server in this process, talking real gRPC.

Tests use one fixture for clusters so that each one starts and stops them the
same way; a cluster of a ps and two workers starts in a fraction of a second.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, Optional, Tuple

from tensorfleet.distributed.server import free_ports


class LocalCluster:
    """Servers for every task of ``jobs`` (job name -> number of tasks), in-process."""

    def __init__(self, jobs: Dict[str, int], config: Any = None, token: Optional[str] = None,
                 start: bool = True):
        from tensorfleet.distributed.cluster import ClusterSpec
        from tensorfleet.distributed.server import Server

        total = sum(jobs.values())
        ports = iter(free_ports(total))
        self.spec = ClusterSpec({job: [f"localhost:{next(ports)}" for _ in range(n)]
                                 for job, n in jobs.items()})
        self.servers: Dict[Tuple[str, int], Server] = {}
        try:
            for job, n in jobs.items():
                for i in range(n):
                    self.servers[(job, i)] = Server(self.spec, job_name=job, task_index=i,
                                                    config=config, token=token, start=start)
        except BaseException:
            self.stop()
            raise

    def server(self, job: str, index: int = 0) -> Any:
        return self.servers[(job, index)]

    def target(self, job: str, index: int = 0) -> str:
        """``grpc://host:port`` of a task's master."""
        return self.servers[(job, index)].target

    def stop(self) -> None:
        for s in self.servers.values():
            s.stop()


@contextlib.contextmanager
def local_cluster(**jobs: int) -> Iterator[LocalCluster]:
    """``with local_cluster(ps=1, worker=2) as c:`` starts and always stops a cluster."""
    c = LocalCluster(jobs)
    try:
        yield c
    finally:
        c.stop()


__all__ = ["LocalCluster", "local_cluster", "free_ports"]
