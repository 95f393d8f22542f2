"""An in-process cluster: every task's server in this process, talking real gRPC.

Tests use one fixture for clusters so that each one starts and stops them the
same way; a cluster of a ps and two workers starts in a fraction of a second.

Each cluster runs in a runtime of its own (``runtime.process.ProcessRuntime``):
the pools, channels and connections made while it runs belong to it and close
with it, so what one test starts cannot be mistaken for what the next one
leaks. Stopping a cluster checks that no thread, socket or port outlived it
(``testing.leaks``) and raises ``LeakError`` naming them otherwise, which fails
the test that caused the leak.
"""

from __future__ import annotations

import contextlib
from typing import Any, Dict, Iterator, Optional, Tuple

from tensorfleet.distributed.cluster import ClusterSpec
from tensorfleet.distributed.server import Server, free_ports
from tensorfleet.runtime import process
from tensorfleet.testing import leaks
from tensorfleet.testing.leaks import LeakError


class LocalCluster:
    """Servers for every task of ``jobs`` (job name -> number of tasks), in-process.

    Args:
      jobs: job name -> number of tasks.
      config: the servers' ConfigProto.
      token: the cluster token every call must carry.
      start: whether the servers start serving now.
      check_leaks: whether ``stop`` checks for leaked threads, sockets and ports.
      leak_grace: how long ``stop`` gives them to go before they count as leaked
        (default ``leaks.GRACE_SECS``).
    """

    def __init__(self, jobs: Dict[str, int], config: Any = None, token: Optional[str] = None,
                 start: bool = True, check_leaks: bool = True,
                 leak_grace: Optional[float] = None):
        self._check = check_leaks
        self._grace = leak_grace
        self._before = leaks.snapshot()
        total = sum(jobs.values())
        ports = free_ports(total)
        self.ports: Tuple[int, ...] = tuple(ports)
        it = iter(ports)
        self.spec = ClusterSpec({job: [f"localhost:{next(it)}" for _ in range(n)]
                                 for job, n in jobs.items()})
        name = "cluster " + ",".join(f"{job}={n}" for job, n in jobs.items())
        self.runtime = process.ProcessRuntime(name, inherit=process.current())
        self._previous = process.set_current(self.runtime)
        self._stopped = False
        self.servers: Dict[Tuple[str, int], Server] = {}
        try:
            for job, n in jobs.items():
                for i in range(n):
                    self.servers[(job, i)] = Server(self.spec, job_name=job, task_index=i,
                                                    config=config, token=token, start=start)
        except BaseException:
            self.stop(check_leaks=False)
            raise

    def server(self, job: str, index: int = 0) -> Any:
        """The server of task ``index`` of ``job``."""
        return self.servers[(job, index)]

    def target(self, job: str, index: int = 0) -> str:
        """``grpc://host:port`` of a task's master."""
        return self.servers[(job, index)].target

    def stop(self, check_leaks: Optional[bool] = None) -> None:
        """Stops every server and closes the cluster's runtime; then, unless
        ``check_leaks`` (default: the constructor's) is False, raises ``LeakError``
        when a thread, socket or port made since the cluster started is still held."""
        if self._stopped:
            return
        self._stopped = True
        try:
            for s in self.servers.values():
                s.stop()
        finally:
            replaced = process.set_current(self._previous)
            if replaced is not None and replaced is not self.runtime:
                # A runtime made after this one (a cluster started inside this
                # cluster's lifetime and still running) stays the current one.
                process.set_current(replaced)
            self.runtime.close()
        if self._check if check_leaks is None else check_leaks:
            leaks.check(self._before, self.ports, what=f"the cluster {self.spec.as_dict()}",
                        grace=leaks.GRACE_SECS if self._grace is None else self._grace)


@contextlib.contextmanager
def local_cluster(**jobs: int) -> Iterator[LocalCluster]:
    """``with local_cluster(ps=1, worker=2) as c:`` starts and always stops a cluster,
    then fails with ``LeakError`` if it left threads, sockets or ports behind (not
    when the body raised: its error is the one to see)."""
    c = LocalCluster(jobs)
    try:
        yield c
    except BaseException:
        c.stop(check_leaks=False)
        raise
    c.stop()


__all__ = ["LocalCluster", "LeakError", "local_cluster", "free_ports"]
