"""Services over gRPC without protoc: bytes in, bytes out, messages coded by ``wire``.

A service is a name and a dict ``method -> fn(header, tensors) -> (header, tensors)``.
``RpcServer`` serves one or more services on one port; ``RpcClient`` (in
``rpc_client``, re-exported here) calls one service of one address; what both
agree on is in ``rpc_protocol``. Per method,
the server registers two gRPC methods, and per service two more:

* ``/<service>/<method>`` unary-unary, for requests up to ``STREAM_THRESHOLD``;
* ``/<service>/<method>.Stream`` stream-unary, for bigger requests, sent as a
  chunk stream (``wire.stream_header`` then ``CHUNK_BYTES`` chunks);
* ``/<service>/_Fetch`` unary-stream, which pulls a big response;
* ``/<service>/_SideChannel`` unary-unary, which answers the port of the
  server's bulk side channel (0 when off) and the methods of the service that
  may be called over it (``bulk_methods``).

The methods a service names in ``bulk_methods`` (the calls of every step)
may also be called over the bulk side channel: one raw-TCP round trip on a
pooled, authenticated connection instead of a gRPC call, which costs about
half a millisecond of latency and of CPU even for a tiny message. The handler
runs on the side channel's connection thread and its reply goes out straight
from the tensors' memory. Every other method, and every method when the side
channel is off, is served over gRPC only; a side channel call of a method not
allowed is refused without running it.

A response up to ``BULK_THRESHOLD`` (``STREAM_THRESHOLD`` on a server without
a side channel) is the unary reply itself. A bigger one is parked on the server
as one contiguous snapshot and the reply is a *handle* (magic b"TFLH", version,
flags, total size, random id; 32 bytes, or 36 with the port of the server's bulk
side channel) that the client redeems over that side channel (``bulk``: raw TCP
straight into a preallocated buffer; with TLS inside TLS) or, with
``TENSORFLEET_BULK=0``, TLS credentials not made by ``auth`` or a side channel it
cannot reach (a Kubernetes Service that forwards one port), with
``_Fetch``. Small calls thus cost one unary round trip (an always-streaming reply
measured about twice as slow here) and big ones one extra round trip.

Where the cut lies (benchmarks/transport_bench.py, two processes on loopback):
up to 1.25 MiB a unary reply is 3-25% faster than the side channel, which pays
an extra round trip; at 1.5 MiB they tie; from 2 MiB on the side channel wins
(1.3x at 2 MiB, 1.5x at 4 MiB against a unary reply; 1.5-2x against ``_Fetch``).
So ``BULK_THRESHOLD`` is 1.5 MiB; a server without a side channel keeps parking
replies above ``STREAM_THRESHOLD``, as a 1.5 MiB unary reply would then make a
client with a 1 MiB limit receive it before refusing it.

Errors: an ``OpError`` raised by a handler becomes a gRPC status with the same
code plus JSON trailing metadata (message, op, task), from which the client
re-raises the same subclass; over the side channel the same JSON is the error
reply. Any other exception becomes INTERNAL with its text.

Limits (``limits``): the server caps its connections and drops those that do not
finish their handshake within seconds, and runs each handler in a
``limits.CallScope``, so that its waits end at the caller's deadline.
"""

from __future__ import annotations

import errno
import json
import logging
import secrets
import socket
import threading
import time
from concurrent import futures
from typing import (Any, Callable, Dict, FrozenSet, Iterable, Iterator, List, Mapping, Optional,
                    Sequence, Tuple)

import grpc
import numpy as np

from tensorfleet import errors
from tensorfleet.transport import auth, buffers, bulk, limits, wire
# What client and server agree on (re-exported here, where it has always been found).
from tensorfleet.transport.rpc_protocol import (  # noqa: F401
    BULK_THRESHOLD, DEFAULT_TIMEOUT, ERROR_METADATA_KEY, FETCH_METHOD, HANDLE_MAGIC,
    KEEPALIVE_MS, PROTOCOL_VERSION, SIDE_CHANNEL_METHOD, STREAM_SUFFIX, STREAM_THRESHOLD,
    _BULK_HANDLE, _CLIENT_KEEPALIVE, _COMMON_OPTIONS, _FLAG_BULK, _GRPC_MESSAGE_LIMIT,
    _HANDLE, _MAX_ERROR_CHARS, _METHOD_RE, _SERVICE_RE, _STATUS_BY_CODE, _error_payload,
    _parse_error_payload, _remote_error, _too_big, _version_mismatch, tune_malloc)
from tensorfleet.transport.rpc_client import ChannelCache, RpcClient, channel_cache  # noqa: F401

logger = logging.getLogger(__name__)

DEFAULT_MAX_WORKERS = 64
RESPONSE_TTL = 120.0
_SERVER_KEEPALIVE = [
    ("grpc.keepalive_permit_without_calls", 1),
    ("grpc.http2.min_ping_interval_without_data_ms", KEEPALIVE_MS // 2),
    ("grpc.http2.max_ping_strikes", 0),
]


Handler = Callable[[Dict[str, Any], List[np.ndarray]], Tuple[Dict[str, Any], Sequence[Any]]]


class ServiceHandlers(dict):
    """A method table (name -> ``Handler``) that names the methods that may also be
    called over the bulk side channel.

    ``RpcServer`` and ``RpcServer.add_service`` read ``bulk_methods`` from the
    table they are given when no ``bulk_methods`` argument says otherwise, so a
    service that builds its table in one place declares its data-plane methods
    there too, and whoever starts the server needs no change.

    The handlers of these methods run on a side channel connection's thread and
    their reply tensors are sent from their own memory after they return, so
    they must return arrays that nothing changes afterwards.
    """

    def __init__(self, handlers: Mapping[str, Handler], bulk_methods: Iterable[str] = ()):
        super().__init__(handlers)
        self.bulk_methods: FrozenSet[str] = frozenset(bulk_methods)


class _PendingResponses:
    """Big responses (contiguous uint8 snapshots) waiting to be fetched; dropped after ``ttl``."""

    def __init__(self, ttl: float):
        self._ttl = ttl
        self._lock = threading.Lock()
        self._items: Dict[bytes, Tuple[float, np.ndarray]] = {}

    def put(self, buf: np.ndarray) -> bytes:
        now = time.monotonic()
        key = secrets.token_bytes(16)
        with self._lock:
            for k in [k for k, (expiry, _) in self._items.items() if expiry < now]:
                logger.warning("dropped a %d-byte response that no client fetched within %g s",
                               self._items.pop(k)[1].nbytes, self._ttl)
            self._items[key] = (now + self._ttl, buf)
        return key

    def pop(self, key: bytes) -> Optional[np.ndarray]:
        """The response parked under ``key``, removed; None if unknown or expired."""
        with self._lock:
            item = self._items.pop(key, None)
        if item is None or item[0] < time.monotonic():
            return None
        return item[1]

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def _check_port_free(address: str) -> None:
    """Raises if another socket listens on ``address``; gRPC would bind a subset silently."""
    host, port = auth.split_address(address)
    if port == 0:
        return
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM,
                                   flags=socket.AI_PASSIVE)
    except socket.gaierror as e:
        raise errors.UnavailableError(
            None, None, f"cannot resolve address {address}: {e}") from None
    for family, kind, proto, _, sockaddr in infos:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(sockaddr)
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise errors.UnavailableError(
                        None, None, f"address {address} is already in use") from None


class RpcServer:
    """A gRPC server for one or more services of tensor message handlers.

    Args:
      address: ``host:port`` to bind; port 0 picks a free port (see ``port``).
      service_name: e.g. ``"tensorfleet.Worker"``.
      handlers: method name -> ``fn(header, tensors) -> (header, tensors)``.
        Handlers run in a pool of ``max_workers`` threads and may block.
      token: cluster token; None reads ``$TENSORFLEET_TOKEN``. Required unless
        ``address`` is loopback.
      max_message_bytes: the largest request this server accepts.
      credentials: ``grpc.ServerCredentials`` for TLS (see ``auth.server_credentials``).
      task: this task's name (``/job:ps/task:0``), attached to errors it returns.
      bulk_methods: methods of ``handlers`` that may also be called over the bulk
        side channel; None takes ``handlers.bulk_methods`` (see ``ServiceHandlers``),
        or none.
    """

    def __init__(self, address: str, service_name: str, handlers: Mapping[str, Handler], *,
                 token: Optional[str] = None,
                 max_message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES,
                 credentials: Optional[grpc.ServerCredentials] = None,
                 max_workers: int = DEFAULT_MAX_WORKERS, task: Optional[str] = None,
                 bulk_methods: Optional[Iterable[str]] = None):
        auth.split_address(address)
        self._token = auth.require_token_for(address, token)
        self._address = address
        self._max_message_bytes = int(max_message_bytes)
        self._credentials = credentials
        self._max_workers = int(max_workers)
        self.task = task
        self._services: Dict[str, Dict[str, Handler]] = {}
        self._bulk_methods: Dict[str, FrozenSet[str]] = {}
        self._pending = _PendingResponses(RESPONSE_TTL)
        self._bulk: Optional[bulk.BulkListener] = None
        self._server: Optional[grpc.Server] = None
        self._executor: Optional[futures.ThreadPoolExecutor] = None
        self._port = 0
        self.add_service(service_name, handlers, bulk_methods=bulk_methods)

    def add_service(self, service_name: str, handlers: Mapping[str, Handler],
                    bulk_methods: Optional[Iterable[str]] = None) -> None:
        """Adds another service to serve on the same port; only before ``start``.

        ``bulk_methods``: as for the constructor.
        """
        if self._server is not None:
            raise errors.FailedPreconditionError(None, None, "add_service after start")
        if not _SERVICE_RE.match(service_name) or service_name in self._services:
            raise errors.InvalidArgumentError(
                None, None, f"bad or duplicate service name {service_name!r}")
        for name, fn in handlers.items():
            if not _METHOD_RE.match(name) or not callable(fn):
                raise errors.InvalidArgumentError(
                    None, None, f"service {service_name}: method {name!r} needs a name of "
                    "letters, digits and underscores and a callable handler")
        if bulk_methods is None:
            bulk_methods = getattr(handlers, "bulk_methods", ())
        allowed = frozenset(bulk_methods)
        unknown = sorted(m for m in allowed if m not in handlers)
        if unknown:
            raise errors.InvalidArgumentError(
                None, None, f"service {service_name}: bulk_methods {unknown} are not among "
                "its methods")
        self._services[service_name] = dict(handlers)
        self._bulk_methods[service_name] = allowed

    @property
    def port(self) -> int:
        """The bound port (0 before ``start``)."""
        return self._port

    @property
    def bulk_listener(self) -> Optional[bulk.BulkListener]:
        """The bulk side channel (None when off: TLS credentials not made by ``auth``,
        ``TENSORFLEET_BULK=0``, not started)."""
        return self._bulk

    @property
    def address(self) -> str:
        """``host:port`` with the bound port."""
        host, _ = auth.split_address(self._address)
        host = f"[{host}]" if ":" in host else host
        return f"{host}:{self._port}"

    def start(self) -> "RpcServer":
        """Binds the address and starts serving; returns self.

        Raises:
          UnavailableError: the address is in use or cannot be bound.
        """
        if self._server is not None:
            raise errors.FailedPreconditionError(None, None, "RpcServer.start called twice")
        _check_port_free(self._address)
        tune_malloc()
        limits.raise_fd_limit()  # before the connection caps are derived from it
        executor = futures.ThreadPoolExecutor(self._max_workers, thread_name_prefix="tf-rpc")
        interceptors = [auth.TokenInterceptor(self._token)] if self._token else []
        server = grpc.server(
            executor, interceptors=interceptors,
            options=_COMMON_OPTIONS + _SERVER_KEEPALIVE + limits.grpc_server_options()
            + [("grpc.so_reuseport", 0)])
        for service, methods in self._services.items():
            server.add_generic_rpc_handlers((self._generic_handler(service, methods),))
        try:
            if self._credentials is None:
                port = server.add_insecure_port(self._address)
            else:
                port = server.add_secure_port(self._address, self._credentials)
        except RuntimeError as e:
            port, reason = 0, str(e)
        else:
            reason = "gRPC could not bind it"
        if not port:
            server.stop(None)
            executor.shutdown(wait=False)
            raise errors.UnavailableError(None, None, f"cannot serve on address {self._address}: "
                                          f"{reason} (is it already in use?)")
        server.start()
        self._server, self._executor, self._port = server, executor, port
        # With TLS the side channel carries TLS from the same certificates; with
        # credentials whose certificates it cannot know, it stays off.
        tls = auth.side_channel_tls(self._credentials)
        if (self._credentials is None or tls is not None) and bulk.enabled():
            host, _ = auth.split_address(self._address)
            try:
                self._bulk = bulk.BulkListener(host, self._token, self._pending.pop,
                                               call=self._bulk_call, tls=tls).start()
            except OSError as e:
                logger.warning("no bulk side channel on %s (%s); big replies go over gRPC",
                               host, e)
        logger.info("serving %s on %s", ", ".join(self._services), self.address)
        return self

    def stop(self, grace: Optional[float] = 1.0) -> None:
        """Stops serving; calls still running after ``grace`` seconds are cancelled."""
        server, self._server = self._server, None
        if server is None:
            return
        server.stop(grace).wait()
        # After gRPC: handles returned during the grace period stay redeemable until here.
        listener, self._bulk = self._bulk, None
        if listener is not None:
            listener.stop()
        if self._executor is not None:
            self._executor.shutdown(wait=False)
        self._pending.clear()
        logger.info("stopped serving on %s", self.address)

    def wait_for_termination(self, timeout: Optional[float] = None) -> bool:
        """Blocks until the server stops (True) or ``timeout`` passes (False)."""
        server = self._server
        return True if server is None else server.wait_for_termination(timeout)

    def __enter__(self) -> "RpcServer":
        return self.start() if self._server is None else self

    def __exit__(self, *exc: Any) -> None:
        self.stop(0)

    def _generic_handler(self, service: str, methods: Dict[str, Handler]) -> grpc.GenericRpcHandler:
        table: Dict[str, grpc.RpcMethodHandler] = {
            FETCH_METHOD: grpc.unary_stream_rpc_method_handler(self._fetch),
            SIDE_CHANNEL_METHOD: grpc.unary_unary_rpc_method_handler(
                self._side_channel_behavior(service))}
        for name, fn in methods.items():
            table[name] = grpc.unary_unary_rpc_method_handler(self._unary_behavior(name, fn))
            table[name + STREAM_SUFFIX] = grpc.stream_unary_rpc_method_handler(
                self._stream_behavior(name, fn))
        return grpc.method_handlers_generic_handler(service, table)

    def _unary_behavior(self, name: str, fn: Handler) -> Callable[[bytes, Any], bytes]:
        def behavior(request: bytes, context: grpc.ServicerContext) -> bytes:
            def frame() -> wire.Buffer:
                if len(request) > self._max_message_bytes:
                    raise _too_big(len(request), self._max_message_bytes, "the server")
                return request
            return self._serve(name, fn, frame, context)
        return behavior

    def _stream_behavior(self, name: str, fn: Handler) -> Callable[[Iterator[bytes], Any], bytes]:
        def behavior(requests: Iterator[bytes], context: grpc.ServicerContext) -> bytes:
            def frame() -> wire.Buffer:
                first = next(requests, None)
                if first is None:
                    raise errors.DataLossError(None, None, "empty request stream")
                self._check_version(first)
                total = wire.parse_stream_header(first, 1 << 64)
                if total > self._max_message_bytes:
                    raise _too_big(total, self._max_message_bytes, "the server")
                return wire.reassemble(requests, total, self._max_message_bytes)
            return self._serve(name, fn, frame, context)
        return behavior

    @staticmethod
    def _check_version(buf: wire.Buffer) -> None:
        version = wire.peek_version(buf)
        if version is not None and version != PROTOCOL_VERSION:
            raise _version_mismatch(version, "the client")

    def _side_channel_behavior(self, service: str) -> Callable[[bytes, Any], bytes]:
        def behavior(request: bytes, context: grpc.ServicerContext) -> bytes:
            listener = self._bulk
            port = listener.port if listener is not None else 0
            methods = sorted(self._bulk_methods.get(service, ())) if port else []
            return wire.encode({"port": port, "methods": methods})
        return behavior

    def _run(self, name: str, fn: Handler, buf: wire.Buffer) -> Tuple[List[wire.Buffer], int]:
        """Decodes a request frame, runs its handler and encodes the reply: (parts, total)."""
        self._check_version(buf)
        header, tensors = wire.decode(buf, self._max_message_bytes)
        result = fn(header, tensors)
        if not (isinstance(result, tuple) and len(result) == 2):
            raise errors.InternalError(
                None, None, f"handler {name} returned {type(result).__name__}, "
                "expected a (header, tensors) tuple")
        try:
            return wire.encode_parts(result[0], result[1])
        except errors.InvalidArgumentError as e:
            # The request was fine; a reply that cannot be coded is this server's bug.
            raise errors.InternalError(
                None, None, f"handler {name} returned an unsendable reply: {e.message}") from None

    def _serve(self, name: str, fn: Handler, frame: Callable[[], wire.Buffer],
               context: grpc.ServicerContext) -> bytes:
        try:
            # The handler's waits end at the caller's deadline (limits.CallScope).
            with limits.serving(limits.CallScope.of_grpc(context)):
                parts, total = self._run(name, fn, frame())
            return self._reply(parts, total)
        except errors.OpError as e:
            failure = e
        except Exception as e:  # noqa: BLE001 - any handler bug must reach the caller
            logger.exception("handler %s failed", name)
            failure = errors.InternalError(None, None, f"{type(e).__name__}: {e}")
        _abort(context, failure, self.task)
        raise AssertionError("unreachable: context.abort raises")

    def _bulk_call(self, name: str, frame: memoryview) -> Tuple[int, Sequence[wire.Buffer], int]:
        """Serves a side channel call of ``service/method`` (``bulk.CallHandler``)."""
        service, _, method = name.partition("/")
        try:
            fn = self._services.get(service, {}).get(method)
            if fn is None or method not in self._bulk_methods.get(service, ()):
                # Refused before anything runs: only declared methods are served here.
                raise errors.UnimplementedError(
                    None, None, f"{name} cannot be called over the bulk side channel of "
                    f"{self.address}")
            if len(frame) > self._max_message_bytes:
                raise _too_big(len(frame), self._max_message_bytes, "the server")
            parts, total = self._run(name, fn, frame)
            return bulk.STATUS_OK, parts, total
        except errors.OpError as e:
            failure = e
        except Exception as e:  # noqa: BLE001 - any handler bug must reach the caller
            logger.exception("handler %s failed", name)
            failure = errors.InternalError(None, None, f"{type(e).__name__}: {e}")
        payload = json.dumps(_error_payload(failure, self.task)).encode("utf-8")
        return bulk.STATUS_ERROR, [payload], len(payload)

    def park(self, header: Dict[str, Any], tensors: Sequence[Any]) -> Tuple[bytes, int, int]:
        """Parks the message ``(header, tensors)`` as a snapshot that any client holding
        the cluster token and the returned key may fetch once, within
        ``RESPONSE_TTL``, from this server (its side channel or ``_Fetch``), as it
        fetches a big reply: ``(key, total bytes, side channel port or 0)``.

        A master hands such a key to its client so that a big fetched tensor goes
        from the task holding it to the client directly.
        """
        parts, total = wire.encode_parts(header, tensors)
        key = self._pending.put(self._snapshot(parts, total))
        return key, total, self._bulk.port if self._bulk is not None else 0

    @staticmethod
    def _snapshot(parts: List[wire.Buffer], total: int) -> np.ndarray:
        # Copied now rather than during the fetch: the tensors (a variable, say) may
        # be updated in place once the handler has returned, and the client must
        # get the values as they were at this moment. One contiguous buffer serves
        # both the side channel (one send) and ``_Fetch`` (slices of it).
        buf = buffers.take(total)
        pos = 0
        for part in parts:
            piece = np.frombuffer(part, dtype=np.uint8)
            buf[pos:pos + piece.size] = piece
            pos += piece.size
        return buf

    def _reply(self, parts: List[wire.Buffer], total: int) -> bytes:
        """The unary reply for an encoded reply: the frame itself, or a handle to it."""
        listener = self._bulk
        if total <= (STREAM_THRESHOLD if listener is None else BULK_THRESHOLD):
            return b"".join(parts)
        key = self._pending.put(self._snapshot(parts, total))
        if listener is None:
            return _HANDLE.pack(HANDLE_MAGIC, PROTOCOL_VERSION, 0, total, key)
        return _BULK_HANDLE.pack(HANDLE_MAGIC, PROTOCOL_VERSION, _FLAG_BULK, total, key,
                                 listener.port, 0)

    def _fetch(self, request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        buf = self._pending.pop(request) if len(request) == 16 else None
        if buf is None:
            _abort(context, errors.AbortedError(
                None, None, f"the response was not found: it expired after {RESPONSE_TTL:g} s "
                "or was already fetched"), self.task)
        for start in range(0, buf.size, wire.CHUNK_BYTES):
            yield buf[start:start + wire.CHUNK_BYTES].tobytes()


def _abort(context: grpc.ServicerContext, error: errors.OpError, task: Optional[str]) -> None:
    payload = _error_payload(error, task)
    context.set_trailing_metadata(((ERROR_METADATA_KEY, json.dumps(payload)),))
    status = _STATUS_BY_CODE.get(error.error_code, grpc.StatusCode.UNKNOWN)
    context.abort(status, payload["message"][:1000])


__all__ = [
    "PROTOCOL_VERSION", "STREAM_THRESHOLD", "BULK_THRESHOLD", "DEFAULT_TIMEOUT",
    "DEFAULT_MAX_WORKERS", "SIDE_CHANNEL_METHOD",
    "ERROR_METADATA_KEY", "Handler", "ServiceHandlers", "tune_malloc", "RpcServer",
    "RpcClient", "ChannelCache", "channel_cache",
]


