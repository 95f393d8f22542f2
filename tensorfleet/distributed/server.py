"""``tf.train.Server``: one task of a cluster, serving a master and a worker over gRPC."""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.platform.logs import configure_from_env
from tensorfleet.distributed import protocol
from tensorfleet.distributed.cluster import ClusterSpec, ConfigProto
from tensorfleet.distributed.cluster_def import ServerDef, make_server_def, unpack_server_def
from tensorfleet.distributed.master import MasterService
from tensorfleet.distributed.remote import RemoteWorker, client_for
from tensorfleet.distributed.worker import WorkerService
from tensorfleet.runtime import process
from tensorfleet.runtime.session import register_private_value_check
from tensorfleet.runtime.threads import apply_config, local_task_count
from tensorfleet.transport import RpcServer, buffers, bulk_client

# A fetched tensor that arrived from another task is returned without a copy.
register_private_value_check(buffers.is_message_buffer)

logger = logging.getLogger(__name__)

Message = Tuple[Dict[str, Any], List[np.ndarray]]


def _ephemeral_range() -> Tuple[int, int]:
    """The ports the kernel hands out for ``bind(0)`` and outgoing connections."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            low, high = (int(v) for v in f.read().split())
        return low, high
    except (OSError, ValueError):
        return 32768, 60999  # Linux's default


def free_ports(n: int) -> List[int]:
    """``n`` distinct free TCP ports on localhost (bound together, then released).

    They are taken below the kernel's ephemeral range when there is room: a port
    from that range, once released, may be handed to another socket (an outgoing
    connection, a server's side channel) before the task it was meant for binds it.
    """
    socks: List[socket.socket] = []
    low, _ = _ephemeral_range()
    lowest = max(10000, low - 20000)
    candidates = random.sample(range(lowest, low), min(max(0, low - lowest), 64 + 4 * n))
    try:
        for port in candidates:
            if len(socks) == n:
                break
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            try:
                s.bind(("localhost", port))
            except OSError:
                s.close()
                continue
            socks.append(s)
        while len(socks) < n:  # no room below the range, or all taken: any free port
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("localhost", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


def _resolve(server_or_cluster_def: Any, job_name: Optional[str],
             task_index: Optional[int]) -> Tuple[ClusterSpec, str, int, str]:
    protocol_name = "grpc"
    if isinstance(server_or_cluster_def, ServerDef):
        cluster_def, sd_job, sd_index, protocol_name = unpack_server_def(server_or_cluster_def)
        job_name = job_name if job_name is not None else sd_job
        task_index = task_index if task_index is not None else sd_index
        server_or_cluster_def = cluster_def
    elif isinstance(server_or_cluster_def, dict) and "cluster" in server_or_cluster_def:
        sd = server_or_cluster_def
        job_name = job_name or sd.get("job_name")
        task_index = task_index if task_index is not None else sd.get("task_index")
        protocol_name = sd.get("protocol") or "grpc"
        server_or_cluster_def = sd["cluster"]
    cluster = ClusterSpec(server_or_cluster_def)
    if job_name is None:
        if len(cluster.jobs) != 1:
            raise ValueError(f"job_name must be given for a cluster with several jobs "
                             f"({cluster.jobs})")
        job_name = cluster.jobs[0]
    if task_index is None:
        indices = cluster.task_indices(job_name)
        if len(indices) != 1:
            raise ValueError(f"task_index must be given: job {job_name!r} has tasks {indices}")
        task_index = indices[0]
    cluster.task_address(job_name, int(task_index))  # validates job and index
    return cluster, job_name, int(task_index), protocol_name


class Server:
    """An in-process server of one task: ``Server(cluster, job_name, task_index)``.

    It binds the address that the cluster spec gives its own task. Calls must carry
    the cluster token (``TENSORFLEET_TOKEN`` or ``token=``); a server bound to a
    non-loopback address refuses to start without one. With TLS, ``credentials`` are the
    server credentials of its own port (``transport.server_credentials``) and
    ``channel_credentials`` those of its calls to the other tasks
    (``transport.channel_credentials``).
    """

    def __init__(self, server_or_cluster_def: Any, job_name: Optional[str] = None,
                 task_index: Optional[int] = None, protocol: Optional[str] = None,
                 config: Optional[ConfigProto] = None, start: bool = True,
                 token: Optional[str] = None, credentials: Any = None,
                 channel_credentials: Any = None):
        configure_from_env()  # TENSORFLEET_LOG_LEVEL reaches every task's own logs
        cluster, job, idx, proto = _resolve(server_or_cluster_def, job_name, task_index)
        proto = protocol or proto
        if proto not in ("grpc", "grpc+verbs", "grpc+mpi"):
            raise ValueError(f"Unsupported protocol {proto!r}; tensorfleet speaks 'grpc'")
        self._cluster = cluster
        self._job, self._index = job, idx
        self._protocol = proto
        self._config = config or ConfigProto()
        # This process's share of the host's cores, divided among the cluster's tasks
        # that run here (unless the config or the environment says otherwise).
        apply_config(self._config, local_task_count(
            cluster.address_of(t) for t in cluster.all_tasks()))
        self.task = f"/job:{job}/task:{idx}"
        self.address = cluster.task_address(job, idx)
        self._token = token if token is not None else os.environ.get("TENSORFLEET_TOKEN")
        if credentials is not None and channel_credentials is None \
                and len(cluster.all_tasks()) > 1:
            # gRPC server credentials cannot open client channels: without these the
            # first call to a peer task would fail mid-step instead of here.
            raise ValueError(
                "a TLS server in a cluster of several tasks needs channel_credentials= "
                "(transport.channel_credentials(ca_file=...)) for its calls to the other "
                "tasks as well as credentials= for its own port")
        self._credentials = credentials
        self._channel_credentials = channel_credentials
        self.worker = WorkerService(self.task, peer=self._worker_client)
        self.worker.cluster_def = cluster.to_plain()
        self.master = MasterService(self.task, cluster, self._worker_client)
        self._peers: Dict[str, Any] = {}
        self._peers_lock = threading.Lock()
        self._rpc: Optional[RpcServer] = None
        self._stopped = threading.Event()
        self._started = False
        # Servers running in this process, by address (``ProcessRuntime.local_servers``):
        # a session whose target is one of them talks to its master directly instead
        # of through gRPC (as TensorFlow's in-process master does).
        self._runtime = process.current()
        if start:
            self.start()

    # -- lifecycle -------------------------------------------------------------------------
    @property
    def target(self) -> str:
        """The session target for this server's master: ``grpc://host:port``."""
        return f"grpc://{self.address}"

    @property
    def server_def(self) -> ServerDef:
        """This task as a ``tf.train.ServerDef``."""
        return make_server_def(self._cluster.as_cluster_def(), self._job, self._index,
                               self._protocol)

    @property
    def cluster_spec(self) -> ClusterSpec:
        return self._cluster

    def start(self) -> None:
        """Binds the task's address and starts serving; fails fast if the port is taken."""
        if self._started:
            return
        handlers = protocol.handlers(self)
        self._rpc = RpcServer(self.address, protocol.SERVICE, handlers, token=self._token,
                              credentials=self._credentials, task=self.task)
        self._rpc.start()
        self.worker.stopped = False
        self._started = True
        self._runtime.local_servers[self.address] = self
        logger.info("Started server for %s at %s", self.task, self.address)

    def join(self) -> None:
        """Blocks until the server is stopped."""
        self._stopped.wait()

    def stop(self) -> None:
        """Stops serving and releases the port."""
        if self._runtime.local_servers.get(self.address) is self:
            del self._runtime.local_servers[self.address]
        if self._rpc is not None:
            self._rpc.stop(0)
            self._rpc = None
            # This process's pooled connections to the server are dead now.
            bulk_client.pool().discard(self.address)
        self.master.shutdown()
        self.worker.stopped = True
        self.worker.stop_watching()
        self.worker.rendezvous.abort_all(errors.CancelledError(None, None, "server stopped"))
        # Wakes threads blocked on this task's queues.
        self.worker.resources.clear()
        self._started = False
        self._stopped.set()

    @staticmethod
    def create_local_server(config: Optional[ConfigProto] = None, start: bool = True) -> "Server":
        """A single-task cluster on a free localhost port, in this process."""
        return Server({"localhost": [f"localhost:{free_ports(1)[0]}"]}, job_name="localhost",
                      task_index=0, config=config, start=start)

    # -- peers ---------------------------------------------------------------------------------
    def _worker_client(self, task: str) -> Any:
        if task == self.task:
            return self.worker
        with self._peers_lock:
            peer = self._peers.get(task)
            if peer is None:
                peer = self._peers[task] = RemoteWorker(
                    client_for(self._cluster.address_of(task), self._token,
                               self._channel_credentials),
                    task)
        return peer


__all__ = ["Server", "free_ports"]
