"""The task service's RPC methods: request checking and dispatch to master/worker.

Every request is a (header, tensors) message (see transport/wire.py). Headers
are checked field by field here, so a malformed request becomes an
InvalidArgumentError for its caller and never reaches the services.

The methods every step calls (``BULK_METHODS``: RunStep, RunGraph, RecvTensor
and RecvTensors) may also be called over the servers' bulk side channel instead
of gRPC, as TensorFlow's "grpc+verbs" moves RecvTensor to a faster transport and
keeps gRPC for control. A unary gRPC call costs about half a millisecond of
latency and of CPU on each side even for a tiny message, and a step is one
RunStep plus one RunGraph per remote task: the seeds' two-task step took 1.2 ms
over the side channel against 2.0 ms over gRPC (benchmarks/README.md).
Sessions, graph registration, aborts and status stay on gRPC, and so does
everything with ``TENSORFLEET_BULK=0`` (with TLS the side channel carries TLS). ``handlers``
declares them in the table it returns (``transport.ServiceHandlers``), which
the ``RpcServer`` serving it reads.

The side channel sends a reply straight from the handler's arrays, so RunStep
and RunGraph reply with ``stable_value``s: a fetched variable is copied first
(into pooled memory, whose pages stay mapped from one step to the next), as a
later step may update it in place while the reply is still being sent.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.distributed import direct_fetch
from tensorfleet.runtime.session import stable_value
from tensorfleet.transport import ServiceHandlers, buffers, limits

SERVICE = "tensorfleet.Task"
# Methods that may be called over the bulk side channel: each step's own calls.
BULK_METHODS = frozenset({"RunStep", "RunGraph", "RecvTensor", "RecvTensors"})

Message = Tuple[Dict[str, Any], List[np.ndarray]]
Handler = Callable[[Dict[str, Any], List[np.ndarray]], Message]


def field(header: Dict[str, Any], name: str, kind: Any, method: str) -> Any:
    """``header[name]`` checked to be of ``kind``; InvalidArgumentError otherwise."""
    if name not in header:
        raise errors.InvalidArgumentError(None, None, f"{method}: request lacks field {name!r}")
    v = header[name]
    if kind is int and isinstance(v, bool):
        v = None
    if not isinstance(v, kind):
        raise errors.InvalidArgumentError(
            None, None, f"{method}: field {name!r} must be {getattr(kind, '__name__', kind)}, "
            f"got {type(v).__name__}")
    if isinstance(v, int) and not _INT64_MIN <= v <= _INT64_MAX:
        # Every integer of the protocol (step ids, codes, timeouts) is an int64, as in
        # TensorFlow's messages; JSON would carry any size.
        raise errors.InvalidArgumentError(
            None, None, f"{method}: field {name!r} is outside the int64 range "
                        f"({len(str(abs(v)))} digits)")
    return v


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1


def str_list(header: Dict[str, Any], name: str, method: str) -> List[str]:
    v = field(header, name, list, method)
    if not all(isinstance(s, str) for s in v):
        raise errors.InvalidArgumentError(None, None, f"{method}: {name!r} must be strings")
    return v


class Traffic:
    """Tensor bytes this task's handlers received in requests and sent in replies.

    A task also receives tensors as replies to its own calls (RecvTensor pulls,
    RunGraph fetches), which the serving peer counts: each reply is also added to
    ``sent_to`` under the task it goes to (from the rendezvous key, or the session
    that registered the graph), and ``tensorfleet status`` adds those up into the
    receiver's bytes in.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.bytes_in = 0
        self.bytes_out = 0
        self.sent_to: Dict[str, int] = {}
        # Calls served, by method: with the bytes, the messages a step costs.
        self.calls: Dict[str, int] = {}
        self._graph_callers: Dict[str, Tuple[str, str]] = {}  # handle -> (session, task)

    def registered(self, handle: str, session: str) -> None:
        with self._lock:
            self._graph_callers[handle] = (session, session.split("/session/")[0])

    def forget_session(self, session: str) -> None:
        with self._lock:
            for h in [h for h, (s, _) in self._graph_callers.items() if s == session]:
                del self._graph_callers[h]

    def add(self, method: str, h: Dict[str, Any], n_in: int, n_out: int) -> None:
        key, handle = h.get("key"), h.get("handle")
        keys = h.get("keys")
        if key is None and isinstance(keys, list) and keys:
            key = keys[0]  # a RecvTensors batch: every key goes to the same task
        with self._lock:
            self.calls[method] = self.calls.get(method, 0) + 1
            self.bytes_in += n_in
            self.bytes_out += n_out
            dst = None
            if isinstance(key, str):
                dst = key.rsplit(";", 1)[-1]
            elif isinstance(handle, str) and handle in self._graph_callers:
                dst = self._graph_callers[handle][1]
            if n_out and dst and dst.startswith("/job:"):
                self.sent_to[dst] = self.sent_to.get(dst, 0) + n_out

    def snapshot(self) -> Dict[str, Any]:
        with self._lock:
            return {"bytes_in": self.bytes_in, "bytes_out": self.bytes_out,
                    "bytes_sent_to": dict(self.sent_to), "calls": dict(self.calls)}


def _nbytes(tensors: Any) -> int:
    return sum(int(getattr(x, "nbytes", 0) or 0) for x in tensors or ())


def _counted(method: str, fn: Handler, traffic: Traffic) -> Handler:
    def call(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        out = fn(h, t)
        traffic.add(method, h, _nbytes(t), _nbytes(out[1]))
        return out
    return call


def handlers(server: Any) -> ServiceHandlers:
    """The methods a task serves, bound to its master and worker; ``BULK_METHODS``
    are declared as callable over the bulk side channel too."""
    master, worker = server.master, server.worker
    traffic = Traffic()

    def create_session(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        graph = h.get("graph")
        return {"session": master.create_session(graph, h.get("config"))}, []

    def extend_session(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        master.extend_session(field(h, "session", str, "ExtendSession"),
                              field(h, "graph", dict, "ExtendSession"))
        return {}, []

    def run_step(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "RunStep"
        feeds = str_list(h, "feeds", m)
        if len(feeds) != len(t):
            raise errors.InvalidArgumentError(None, None, f"{m}: {len(feeds)} feed names but "
                                              f"{len(t)} tensors")
        timeout_ms = field(h, "timeout_ms", int, m) if "timeout_ms" in h else 0
        if timeout_ms < 0:
            raise errors.InvalidArgumentError(None, None, f"{m}: timeout_ms must not be "
                                              f"negative, got {timeout_ms}")
        args = (field(h, "session", str, m), feeds, t, str_list(h, "fetches", m),
                str_list(h, "targets", m), timeout_ms)
        if h.get("direct_pull") is True:
            out = master.run_step(*args, park_min_bytes=direct_fetch.DIRECT_PULL_MIN_BYTES)
        else:
            out = master.run_step(*args)
        remote = [[i, v.to_plain()] for i, v in enumerate(out)
                  if isinstance(v, direct_fetch.ParkedTensor)]
        if not remote:
            return {}, [stable_value(v, buffers.copy_of) for v in out]
        return {"remote": remote}, [stable_value(v, buffers.copy_of) for v in out
                                    if not isinstance(v, direct_fetch.ParkedTensor)]

    def fetch_parked(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        # The relay for a client that cannot reach the task holding its fetch.
        def client_of(address: str) -> Any:
            for task in master.cluster.all_tasks():
                if master.cluster.address_of(task) == address and task != master.task:
                    return master.worker(task).client
            return None
        return {}, direct_fetch.relay(client_of, h.get("parked"), limits.MAX_WAIT_SECS)

    def close_session(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        master.close_session(field(h, "session", str, "CloseSession"))
        return {}, []

    def reset(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        master.reset(h.get("containers") or None)
        return {}, []

    def register_graph(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "RegisterGraph"
        session = field(h, "session", str, m)
        handle = worker.register_graph(session, field(h, "partition", dict, m))
        traffic.registered(handle, session)
        return {"handle": handle}, []

    def run_graph(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "RunGraph"
        names = str_list(h, "feeds", m)
        if len(names) != len(t):
            raise errors.InvalidArgumentError(None, None, f"{m}: feed names and tensors differ")
        park = direct_fetch.parse_park_request(h.get("park"))
        out = worker.run_graph(field(h, "handle", str, m), field(h, "step_id", int, m),
                               dict(zip(names, t)))
        rpc = getattr(server, "_rpc", None)
        if park is None or rpc is None:
            return {"fetches": list(out)}, [stable_value(v, buffers.copy_of)
                                            for v in out.values()]
        fetches, values, parked = [], [], []
        for name, v in out.items():
            if name in park["names"] and isinstance(v, np.ndarray) and not v.dtype.hasobject \
                    and v.nbytes >= park["min_bytes"]:
                # Parked as a snapshot (a copy), so no stable_value copy first.
                key, total, port = rpc.park({}, [v])
                parked.append([name, key.hex(), total, port])
            else:
                fetches.append(name)
                values.append(stable_value(v, buffers.copy_of))
        return {"fetches": fetches, "parked": parked}, values

    def recv_tensor(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "RecvTensor"
        timeout = float(field(h, "timeout", (int, float), m))
        v = worker.recv_tensor(field(h, "step_id", int, m), field(h, "key", str, m), timeout)
        return {}, [v]

    def recv_tensors(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "RecvTensors"
        timeout = float(field(h, "timeout", (int, float), m))
        return {}, worker.recv_tensors(field(h, "step_id", int, m), str_list(h, "keys", m),
                                       timeout)

    def abort_step(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        m = "AbortStep"
        worker.abort_step(field(h, "step_id", int, m), field(h, "code", int, m),
                          field(h, "message", str, m))
        return {}, []

    def cleanup_session(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        session = field(h, "session", str, "CleanupSession")
        worker.cleanup_session(session)
        traffic.forget_session(session)
        return {}, []

    def reset_worker(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        worker.reset(h.get("containers") or None)
        return {}, []

    def get_status(h: Dict[str, Any], t: List[np.ndarray]) -> Message:
        st = worker.status()
        st["cluster"] = server.cluster_spec.to_plain()
        st.update(traffic.snapshot())
        # Whether the fast path is in use: a side channel that clients cannot reach
        # (a firewall, say) shows as a port with no calls while steps still run.
        listener = getattr(getattr(server, "_rpc", None), "bulk_listener", None)
        stats = listener.stats if listener is not None else {}
        st["side_channel"] = {"port": listener.port if listener is not None else 0,
                              "calls": stats.get("calls", 0),
                              "fetches": stats.get("served", 0),
                              # Big replies its same-host clients read from its memory.
                              "local_reads": stats.get("local_reads", 0)}
        return st, []

    methods = {
        "CreateSession": create_session, "ExtendSession": extend_session, "RunStep": run_step,
        "CloseSession": close_session, "Reset": reset, "RegisterGraph": register_graph,
        "RunGraph": run_graph, "RecvTensor": recv_tensor, "RecvTensors": recv_tensors,
        "AbortStep": abort_step, "FetchParked": fetch_parked,
        "CleanupSession": cleanup_session, "ResetWorker": reset_worker, "GetStatus": get_status,
    }
    # Counted the same whichever way a call arrives, gRPC or the side channel.
    return ServiceHandlers({name: _counted(name, fn, traffic) for name, fn in methods.items()},
                           bulk_methods=BULK_METHODS)


__all__ = ["SERVICE", "BULK_METHODS", "Traffic", "handlers", "field", "str_list"]
