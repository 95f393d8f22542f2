"""Clients of the task service: a remote worker, and the ``grpc://`` session backend."""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.distributed import direct_fetch, protocol
from tensorfleet.distributed.cluster import ConfigProto
from tensorfleet.framework.graph import Graph, Operation, Tensor
from tensorfleet.framework.serialization import graph_to_plain
from tensorfleet.runtime import process
from tensorfleet.runtime.session import register_session_factory
from tensorfleet.transport import RpcClient, auth

# Steps may block for a long time by design (a queue dequeue, a synchronous
# replica waiting for its peers); control calls should answer quickly.
STEP_TIMEOUT = float(os.environ.get("TENSORFLEET_STEP_TIMEOUT", "86400"))
OPERATION_TIMEOUT_GRACE = 2.0
CONTROL_TIMEOUT = 60.0

class _Clients:
    """The task-service clients of one ``ProcessRuntime``, by (address, token, credentials)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_key: Dict[Tuple[str, Optional[str], int], RpcClient] = {}


def client_for(address: str, token: Optional[str] = None, credentials: Any = None) -> RpcClient:
    """A cached client of the task service at ``address`` (cached in the current runtime)."""
    token = token if token is not None else os.environ.get("TENSORFLEET_TOKEN")
    key = (address, token, id(credentials))
    clients = process.current().component("distributed.task_clients", _Clients)
    with clients.lock:
        c = clients.by_key.get(key)
        if c is None:
            c = clients.by_key[key] = RpcClient(address, protocol.SERVICE, token=token,
                                                credentials=credentials)
        return c


def _session_credentials(server: Any = None) -> Any:
    """The TLS credentials of the server in this process, else those of
    ``$TENSORFLEET_TLS_CA_FILE`` and friends, else none."""
    credentials = getattr(server, "_channel_credentials", None) if server is not None else None
    if credentials is None:
        credentials = auth.channel_credentials_from_env()
    return credentials


def _session_client(address: str, server: Any = None) -> RpcClient:
    """The client of a session's master, with ``_session_credentials``."""
    return client_for(address, credentials=_session_credentials(server))


class RemoteWorker:
    """The worker service of another task, with the same methods as ``WorkerService``."""

    def __init__(self, client: RpcClient, task: str):
        self.client = client
        self.task = task

    def _call(self, method: str, header: Dict[str, Any], tensors: Sequence[Any] = (),
              timeout: float = CONTROL_TIMEOUT,
              wait_for_ready: bool = False) -> Tuple[Dict[str, Any], List[Any]]:
        try:
            return self.client.call(method, header, list(tensors), timeout=timeout,
                                    wait_for_ready=wait_for_ready)
        except errors.OpError as e:
            if e.task is None:
                e.task = self.task
            raise

    def register_graph(self, session: str, plain: Dict[str, Any]) -> str:
        # Tasks of a cluster start in any order: the first contact waits (up to the
        # control deadline) for the peer to come up, as TensorFlow's CreateSession does.
        h, _ = self._call("RegisterGraph", {"session": session, "partition": plain},
                          wait_for_ready=True)
        return h["handle"]

    def run_graph(self, handle: str, step_id: int, feeds: Dict[str, Any]) -> Dict[str, Any]:
        h, t = self._call("RunGraph", {"handle": handle, "step_id": step_id,
                                       "feeds": list(feeds)}, list(feeds.values()), STEP_TIMEOUT)
        return dict(zip(h["fetches"], t))

    def _recv(self, method: str, header: Dict[str, Any], timeout: float) -> List[Any]:
        # RecvTensor(s) go over the task's bulk side channel when it has one (the
        # service declares them in protocol.BULK_METHODS); client.call decides.
        try:
            return self._call(method, header, (), timeout + CONTROL_TIMEOUT)[1]
        except errors.UnavailableError as e:
            if not getattr(e, "unreachable", False):
                raise  # the task answered: an error about some other task
            # A receive runs inside a step's partition, whose error reaches the user
            # as it is: say which task stopped answering, as a failed ping does.
            err = errors.UnavailableError(
                e.node_def, e.op, f"Task {self.task} stopped responding during the step "
                f"(UnavailableError: {e.message})", task=self.task)
            err.unreachable = True
            raise err from None

    def run_graph_async(self, handle: str, step_id: int, feeds: Dict[str, Any],
                        park: Optional[Dict[str, Any]] = None) -> Future:
        """``run_graph`` without waiting: a Future of the fetches by name. With ``park``
        (``direct_fetch.park_request``), big fetches among its names stay on the task
        and come back as ``direct_fetch.ParkedTensor``s."""
        header = {"handle": handle, "step_id": step_id, "feeds": list(feeds)}
        if park is not None:
            header["park"] = park
        call = self.client.call_async("RunGraph", header, list(feeds.values()), STEP_TIMEOUT)
        out: Future = Future()

        def done(f: Future) -> None:
            exc = f.exception()
            if exc is None:
                h, t = f.result()
                try:
                    result = _fetches(h, t, self.task)
                    if h.get("parked"):
                        result.update(direct_fetch.parked_results(self.client.address,
                                                                  h["parked"]))
                except errors.OpError as e:
                    out.set_exception(e)
                    return
                out.set_result(result)
                return
            if isinstance(exc, errors.OpError) and exc.task is None:
                exc.task = self.task
            out.set_exception(exc)
        call.add_done_callback(done)
        return out

    def recv_tensor(self, step_id: int, key: str, timeout: float) -> Any:
        t = self._recv("RecvTensor", {"step_id": step_id, "key": key, "timeout": timeout},
                       timeout)
        return t[0]

    def recv_tensors(self, step_id: int, keys: List[str], timeout: float) -> List[Any]:
        t = self._recv("RecvTensors", {"step_id": step_id, "keys": keys, "timeout": timeout},
                       timeout)
        if len(t) != len(keys):
            raise errors.InternalError(None, None, f"RecvTensors from {self.task}: asked for "
                                       f"{len(keys)} tensors, got {len(t)}", task=self.task)
        return t

    def abort_step(self, step_id: int, code: int, message: str) -> None:
        self._call("AbortStep", {"step_id": step_id, "code": code, "message": message},
                   timeout=5.0)

    def ping(self, timeout: float) -> Dict[str, Any]:
        """A cheap call that answers only if the task is alive and serving."""
        return self._call("GetStatus", {"brief": True}, (), timeout)[0]

    def cleanup_session(self, session: str) -> None:
        self._call("CleanupSession", {"session": session})

    def reset(self, containers: Optional[List[str]]) -> None:
        self._call("ResetWorker", {"containers": containers or []})

    def status(self) -> Dict[str, Any]:
        return self._call("GetStatus", {})[0]


def _fetches(h: Dict[str, Any], t: List[Any], task: str) -> Dict[str, Any]:
    names = h.get("fetches")
    if not isinstance(names, list) or len(names) != len(t):
        raise errors.InternalError(None, None, f"RunGraph reply from {task}: fetch names "
                                   f"and tensors differ", task=task)
    return dict(zip(names, t))


def _address(target: str) -> str:
    if not target.startswith("grpc://"):
        raise errors.InvalidArgumentError(None, None, f"Session target {target!r} is not "
                                          f"'grpc://host:port'")
    return target[len("grpc://"):]


class GrpcSessionBackend:
    """Runs a client's steps on the master at ``grpc://host:port``.

    The graph is sent once and then extended with the ops added since, so a step
    only carries feed and fetch names and the feed tensors.
    """

    def __init__(self, target: str, graph: Graph, config: Any = None):
        self.target = target
        self.graph = graph
        self.config = config if config is not None else ConfigProto()
        address = _address(target)
        server = process.current().local_servers.get(address)
        self.client = _session_client(address, server)
        self._credentials = _session_credentials(server)
        self._master = server.master if server is not None else None
        self.handle: Optional[str] = None
        self._sent = 0
        self._lock = threading.Lock()

    def _sync_graph(self) -> None:
        ops = self.graph._ops
        if self.handle is not None and len(ops) == self._sent:
            return
        with self._lock:
            n = len(ops)
            delta = graph_to_plain(self.graph, ops[self._sent:n])
            if self.handle is None:
                cfg = self.config.to_plain() if hasattr(self.config, "to_plain") else {}
                if self._master is not None:
                    self.handle = self._master.create_session(delta, cfg)
                else:
                    h, _ = self.client.call("CreateSession", {"graph": delta, "config": cfg},
                                            [], timeout=CONTROL_TIMEOUT)
                    self.handle = h["session"]
            elif n > self._sent:
                if self._master is not None:
                    self._master.extend_session(self.handle, delta)
                else:
                    self.client.call("ExtendSession", {"session": self.handle, "graph": delta},
                                     [], timeout=CONTROL_TIMEOUT)
            self._sent = n

    def run(self, fetches: Tuple[Tensor, ...], targets: Tuple[Operation, ...],
            feeds: Tuple[Tensor, ...], feed_values: Sequence[Any],
            timeout_ms: int = 0) -> List[Any]:
        self._sync_graph()
        if self._master is not None:
            return self._master.run_step(self.handle, [t.name for t in feeds], list(feed_values),
                                         [t.name for t in fetches], [o.name for o in targets],
                                         timeout_ms)
        header = {"session": self.handle, "feeds": [t.name for t in feeds],
                  "fetches": [t.name for t in fetches], "targets": [o.name for o in targets]}
        timeout = STEP_TIMEOUT
        op_ms = getattr(self.config, "operation_timeout_in_ms", 0)
        if timeout_ms > 0:
            header["timeout_ms"] = op_ms = timeout_ms
        if op_ms:
            # The master cancels the step at op_ms and says so; the call gives up a
            # little later, for a master that cannot answer at all.
            timeout = op_ms / 1000.0 + OPERATION_TIMEOUT_GRACE
        # Big fetches that another task computes come from that task directly.
        header["direct_pull"] = True
        h, out = self.client.call("RunStep", header, list(feed_values), timeout=timeout)
        remote = h.get("remote")
        if remote is None:
            return out
        if not isinstance(remote, list) or len(remote) + len(out) != len(fetches):
            raise errors.InternalError(None, None, "RunStep reply: fetched and parked tensors "
                                       "do not add up to the fetches")
        full: List[Any] = [None] * len(fetches)
        at = {e[0] for e in remote if isinstance(e, list) and e and isinstance(e[0], int)}
        rest = iter(out)
        for i in range(len(fetches)):
            if i not in at:
                full[i] = next(rest, None)
        direct_fetch.pull(self.client,
                          lambda address: client_for(address, credentials=self._credentials),
                          remote, full, timeout)
        return full

    def close(self) -> None:
        if self.handle is not None and self._master is not None:
            self._master.close_session(self.handle)
            self.handle = None
        if self.handle is not None:
            try:
                self.client.call("CloseSession", {"session": self.handle}, [],
                                 timeout=CONTROL_TIMEOUT)
            except errors.OpError:
                pass  # the master may already be gone; nothing is left to release here
            self.handle = None

    def list_devices(self) -> List[str]:
        st = self.client.call("GetStatus", {}, [], timeout=CONTROL_TIMEOUT)[0]
        out = []
        for job in st.get("cluster", {}).get("job", []):
            for idx in job.get("tasks", {}):
                out.append(f"/job:{job['name']}/replica:0/task:{idx}/device:CPU:0")
        return out


def reset_target(target: str, containers: Optional[List[str]], config: Any = None) -> None:
    """``tf.Session.reset``: clears resource containers on every task of the cluster."""
    address = _address(target)
    client = _session_client(address, process.current().local_servers.get(address))
    client.call("Reset", {"containers": containers or []}, [], timeout=CONTROL_TIMEOUT)


register_session_factory("grpc://", GrpcSessionBackend, reset_target)

__all__ = ["RemoteWorker", "GrpcSessionBackend", "client_for", "reset_target"]
