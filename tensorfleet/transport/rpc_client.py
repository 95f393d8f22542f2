"""The client half of ``rpc``: the channel cache and ``RpcClient``.

A call goes one of two ways:

* over gRPC: a unary call, or a chunk stream for a request over
  ``STREAM_THRESHOLD``; a big reply comes back as a handle redeemed over the
  bulk side channel or with ``_Fetch`` (see ``rpc``);
* over the server's bulk side channel, for the methods its service allows
  there (the calls of every step), when the request is small: one raw-TCP
  round trip on a pooled connection, the reply received straight into place.

Which methods a server allows, and its side channel's port, the client learns
from ``/<service>/_SideChannel``, asked once per client in the background (the
calls made meanwhile go over gRPC) and asked again after a failure, so that a
restarted server's new port is found. With TLS the side channel carries TLS
too (the client context of ``auth.side_channel_tls``); with ``TENSORFLEET_BULK=0``,
or TLS credentials not made by ``auth.channel_credentials``, it is never used.
A side channel that cannot be reached sends calls back to gRPC for
``bulk.RETRY_AFTER`` seconds, then is tried again.

``rpc`` re-exports ``RpcClient``; what client and server agree on is in
``rpc_protocol``.
"""

from __future__ import annotations

import logging
import math
import threading
import time
from concurrent.futures import Future
from typing import Any, Dict, FrozenSet, Iterator, List, Optional, Sequence, Tuple

import grpc
import numpy as np

from tensorfleet import errors
from tensorfleet.runtime import process
from tensorfleet.runtime.threads import DaemonPool
from tensorfleet.transport import auth, bulk, bulk_client, rpc_protocol, wire

logger = logging.getLogger(__name__)

# A discovery answer is tiny; one slower than this means the server is in trouble.
DISCOVERY_TIMEOUT = 10.0
# At most one discovery per client this often, however many calls need one.
DISCOVERY_INTERVAL = 2.0
_MAX_DISCOVERY_REPLY = 64 << 10
_MAX_BULK_METHODS = 1024
# Runs the calls ``call_async`` cannot leave to gRPC's own thread (streamed requests,
# side-channel calls, and fetching a parked reply once its handle arrived). A
# RunGraph may block for as long as its step waits (on a queue, say), so the pool
# must not run out while tasks wait on each other: the pool starts a thread only
# when none is idle, and this bound is far above any real cluster's fan-out. Its
# threads are daemons: a call still waiting when the program ends (a chief's
# aggregation step waiting for gradients) does not keep the process alive.
ASYNC_THREADS = 1024


def async_pool() -> DaemonPool:
    """The process's pool for calls gRPC cannot run alone (a ``ProcessRuntime`` component)."""
    return process.current().component(
        "transport.rpc_async", lambda: DaemonPool(ASYNC_THREADS, "tf-rpc-async"),
        lambda p: p.shutdown(wait=False))

SideChannel = Tuple[int, FrozenSet[str]]


class ChannelCache:
    """One gRPC channel per (address, credentials), shared by every client in the process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._channels: Dict[Tuple[str, int], Tuple[Any, grpc.Channel]] = {}

    def get(self, address: str, credentials: Optional[grpc.ChannelCredentials] = None
            ) -> grpc.Channel:
        """The shared channel to ``address``, created on first use."""
        # Keyed by identity: credentials objects do not compare by value, and the
        # entry keeps them alive so the id cannot be reused.
        key = (address, id(credentials))
        with self._lock:
            entry = self._channels.get(key)
            if entry is None:
                options = rpc_protocol._COMMON_OPTIONS + rpc_protocol._CLIENT_KEEPALIVE + [
                    ("grpc.min_reconnect_backoff_ms", 100),
                    ("grpc.max_reconnect_backoff_ms", 2000)]
                channel = (grpc.insecure_channel(address, options=options) if credentials is None
                           else grpc.secure_channel(address, credentials, options=options))
                entry = self._channels[key] = (credentials, channel)
            return entry[1]

    def close_all(self) -> None:
        """Closes every cached channel (calls in flight on them fail)."""
        with self._lock:
            entries, self._channels = list(self._channels.values()), {}
        for _, channel in entries:
            channel.close()


def channel_cache() -> ChannelCache:
    """The process's gRPC channels (a ``ProcessRuntime`` component, made on first use)."""
    return process.current().component("transport.channels", ChannelCache,
                                       ChannelCache.close_all)


def __getattr__(name: str) -> object:
    # ``rpc_client.CHANNELS`` still names the current runtime's channel cache.
    if name == "CHANNELS":
        return channel_cache()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class RpcClient:
    """Calls the methods of one service at one address.

    Args:
      address: ``host:port`` of the server.
      service_name: the service to call, as given to ``RpcServer``.
      token: cluster token; None reads ``$TENSORFLEET_TOKEN`` (no token if unset).
      credentials: ``grpc.ChannelCredentials`` for TLS (see ``auth.channel_credentials``).
      default_timeout: deadline in seconds of calls that give none.
      max_message_bytes: the largest response this client accepts.
      channels: the channel cache (default: the process's ``channel_cache()``).
      bulk_pool: the side channel connections (default: the process's ``bulk_client.pool()``).

    Big replies, and the calls of the methods the server allows there, go over
    the server's bulk side channel (over TLS when the channel uses TLS) unless
    ``TENSORFLEET_BULK=0`` or the credentials were not made by
    ``auth.channel_credentials``; if that side channel cannot be reached, they go over
    gRPC (logged once per server) and the side channel is tried again later.
    """

    def __init__(self, address: str, service_name: str, *, token: Optional[str] = None,
                 credentials: Optional[grpc.ChannelCredentials] = None,
                 default_timeout: float = rpc_protocol.DEFAULT_TIMEOUT,
                 max_message_bytes: int = wire.DEFAULT_MAX_MESSAGE_BYTES,
                 channels: Optional[ChannelCache] = None,
                 bulk_pool: Optional[bulk_client.BulkPool] = None):
        auth.split_address(address)
        self.address = address
        self.service_name = service_name
        self.default_timeout = self._check_timeout(default_timeout)
        self._max_message_bytes = int(max_message_bytes)
        self._token = auth.resolve_token(token)
        self._metadata = auth.token_metadata(self._token)
        # The side channel carries TLS from the same files; credentials made some
        # other way give no certificates to use there, and keep it off.
        self._side_tls = auth.side_channel_tls(credentials)
        self._side_off = credentials is not None and self._side_tls is None
        self._bulk_pool = bulk_pool or bulk_client.pool()
        rpc_protocol.tune_malloc()
        self._channel = (channels or channel_cache()).get(address, credentials)
        self._unary: Dict[str, Any] = {}
        self._stream: Dict[str, Any] = {}
        self._fetch = self._channel.unary_stream(f"/{service_name}/{rpc_protocol.FETCH_METHOD}")
        self._discover = self._channel.unary_unary(
            f"/{service_name}/{rpc_protocol.SIDE_CHANNEL_METHOD}")
        # What the server said of its side channel: (port, methods); None: not known.
        self._side: Optional[SideChannel] = None
        self._side_lock = threading.Lock()
        self._side_asking = False
        self._side_next_ask = 0.0

    @staticmethod
    def _check_timeout(timeout: Any) -> float:
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) \
                or not math.isfinite(timeout) or timeout <= 0:
            raise errors.InvalidArgumentError(
                None, None,
                f"a call deadline must be a positive number of seconds, got {timeout!r}")
        return float(timeout)

    def call(self, method: str, header: Optional[Dict[str, Any]] = None,
             tensors: Sequence[Any] = (), timeout: Optional[float] = None,
             wait_for_ready: bool = False) -> wire.Message:
        """Calls ``method`` with ``(header, tensors)`` and returns the response message.

        A method the server allows on its side channel goes there (see the module
        docstring); any other, or when the side channel cannot be used, over gRPC.

        Args:
          timeout: deadline in seconds for the whole call, including streaming a
            big response; None means ``default_timeout``. A long-poll may block
            for all of it.
          wait_for_ready: wait (until the deadline) for the server to come up
            instead of failing at once when it cannot be reached.

        Raises:
          The ``OpError`` subclass the handler raised (with its message, op and
          task); UnavailableError when the server cannot be reached or stops
          answering; DeadlineExceededError when the deadline passes;
          UnauthenticatedError on a token mismatch; ResourceExhaustedError for a
          message over a limit.
        """
        timeout = self.default_timeout if timeout is None else self._check_timeout(timeout)
        deadline = time.monotonic() + timeout
        parts, total = wire.encode_parts({} if header is None else header, tensors)
        port = self._bulk_port(method, total)
        if port:
            try:
                return self._call_bulk(method, port, parts, total, deadline, timeout)
            except bulk.BulkUnavailable:
                # Nothing was sent; the pool logged it. Its port may have changed
                # (a restart), so ask again; meanwhile gRPC carries the call.
                self._forget_side_channel()
        try:
            if total <= rpc_protocol.STREAM_THRESHOLD:
                fn = self._unary.get(method)
                if fn is None:
                    fn = self._unary[method] = self._channel.unary_unary(
                        f"/{self.service_name}/{method}")
                reply = fn(b"".join(parts), timeout=timeout, metadata=self._metadata,
                           wait_for_ready=wait_for_ready)
            else:
                fn = self._stream.get(method)
                if fn is None:
                    fn = self._stream[method] = self._channel.stream_unary(
                        f"/{self.service_name}/{method}{rpc_protocol.STREAM_SUFFIX}")
                chunks = _request_stream(parts, total)
                reply = fn(chunks, timeout=timeout, metadata=self._metadata,
                           wait_for_ready=wait_for_ready)
            buf = self._read_reply(reply, deadline)
        except grpc.RpcError as e:
            raise self._translate(e, method, timeout) from None
        except TimeoutError:
            raise self._deadline_error(method, timeout) from None
        return wire.decode(buf, self._max_message_bytes)

    def call_async(self, method: str, header: Optional[Dict[str, Any]] = None,
                   tensors: Sequence[Any] = (), timeout: Optional[float] = None) -> Future:
        """``call`` without waiting for the reply: a Future of the response message.

        A small request that goes over gRPC is sent from the calling thread and
        completes on gRPC's own thread, so no thread wakes up just to send it; any
        other call runs ``call`` on a pool thread. The Future's exception is what
        ``call`` would raise.
        """
        timeout = self.default_timeout if timeout is None else self._check_timeout(timeout)
        deadline = time.monotonic() + timeout
        parts, total = wire.encode_parts({} if header is None else header, tensors)
        if total > rpc_protocol.STREAM_THRESHOLD or self._bulk_port(method, total):
            return async_pool().submit(self.call, method, header, tensors, timeout)
        fn = self._unary.get(method)
        if fn is None:
            fn = self._unary[method] = self._channel.unary_unary(
                f"/{self.service_name}/{method}")
        out: Future = Future()
        pending = fn.future(b"".join(parts), timeout=timeout, metadata=self._metadata)

        def finish(reply: bytes) -> None:
            try:
                buf = self._read_reply(reply, deadline)
                out.set_result(wire.decode(buf, self._max_message_bytes))
            except grpc.RpcError as e:
                out.set_exception(self._translate(e, method, timeout))
            except TimeoutError:
                out.set_exception(self._deadline_error(method, timeout))
            except BaseException as e:  # noqa: BLE001 - handed to the waiter
                out.set_exception(e)

        def done(call: Any) -> None:
            try:
                reply = call.result()
            except grpc.RpcError as e:
                out.set_exception(self._translate(e, method, timeout))
                return
            except BaseException as e:  # noqa: BLE001 - cancelled, or gRPC's own failure
                out.set_exception(errors.UnavailableError(
                    None, None, f"{self.service_name}/{method} on {self.address} failed: {e}"))
                return
            if reply[:4] == rpc_protocol.HANDLE_MAGIC:
                # Fetching a parked reply blocks: not on gRPC's thread.
                async_pool().submit(finish, reply)
            else:
                finish(reply)

        pending.add_done_callback(done)
        return out

    # -- the side channel -----------------------------------------------------------------
    def side_channel(self, timeout: float = DISCOVERY_TIMEOUT) -> int:
        """Asks the server now (rather than in the background) about its side channel.

        Returns the port calls may use, 0 when none (off on either side, TLS, an
        older server, or no answer within ``timeout``).
        """
        if self._side_off or not bulk.enabled():
            return 0
        try:
            reply = self._discover(b"", timeout=self._check_timeout(timeout),
                                   metadata=self._metadata)
        except grpc.RpcError as e:
            side = _side_channel_of_failure(e)
        else:
            side = self._parse_side_channel(reply)
        if side is not None:
            with self._side_lock:
                self._side = side
        return side[0] if side is not None and side[1] else 0

    def _bulk_port(self, method: str, total: int) -> int:
        """The side channel's port if this call should go there, else 0."""
        # The environment is read per call so that TENSORFLEET_BULK=0 acts at once.
        if self._side_off or total > bulk.MAX_CALL_REQUEST or not bulk.enabled():
            return 0
        side = self._side
        if side is None:
            self._ask_side_channel()
            return 0
        port, methods = side
        if not port or method not in methods:
            return 0
        if not self._bulk_pool.usable(self.address, port):
            self._ask_side_channel()  # a restarted server listens on another port
            return 0
        return port

    def _ask_side_channel(self) -> None:
        """Starts one discovery call in the background, unless one ran just now."""
        now = time.monotonic()
        with self._side_lock:
            if self._side_asking or now < self._side_next_ask:
                return
            self._side_asking, self._side_next_ask = True, now + DISCOVERY_INTERVAL
        try:
            future = self._discover.future(b"", timeout=DISCOVERY_TIMEOUT,
                                           metadata=self._metadata)
        except Exception as e:  # noqa: BLE001 - a closed channel, say: stay on gRPC
            logger.debug("asking %s about its side channel failed: %s", self.address, e)
            with self._side_lock:
                self._side_asking = False
            return
        future.add_done_callback(self._on_side_channel)

    def _on_side_channel(self, future: Any) -> None:
        try:
            side = self._parse_side_channel(future.result())
        except grpc.RpcError as e:
            side = _side_channel_of_failure(e)
        except Exception as e:  # noqa: BLE001 - runs on a gRPC thread: never raise there
            logger.debug("asking %s about its side channel failed: %s", self.address, e)
            side = None
        with self._side_lock:
            self._side_asking = False
            if side is not None:
                self._side = side

    def _parse_side_channel(self, reply: bytes) -> SideChannel:
        """(port, methods) from a discovery reply, checked; (0, {}) if malformed."""
        try:
            header, _ = wire.decode(reply, _MAX_DISCOVERY_REPLY)
        except errors.OpError as e:
            logger.warning("malformed side channel answer from %s: %s", self.address, e.message)
            return 0, frozenset()
        port, methods = header.get("port"), header.get("methods")
        if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535 \
                or not isinstance(methods, list) or len(methods) > _MAX_BULK_METHODS \
                or not all(isinstance(m, str) and rpc_protocol._METHOD_RE.fullmatch(m) for m in methods):
            logger.warning("malformed side channel answer from %s", self.address)
            return 0, frozenset()
        return port, frozenset(methods)

    def _forget_side_channel(self) -> None:
        with self._side_lock:
            self._side = None

    def _call_bulk(self, method: str, port: int, parts: List[wire.Buffer], total: int,
                   deadline: float, timeout: float) -> wire.Message:
        try:
            status, buf = self._bulk_pool.call(
                self.address, port, self._token, f"{self.service_name}/{method}", parts, total,
                deadline, self._max_message_bytes, self._side_tls)
        except TimeoutError:
            raise self._deadline_error(method, timeout) from None
        except errors.UnavailableError as e:
            # Gone or silent: ask again (a restart moves the port); the master
            # reads ``unreachable`` as "this task stopped responding".
            self._forget_side_channel()
            err = errors.UnavailableError(
                None, None, f"cannot reach {self.service_name}/{method} on {self.address}: "
                f"{e.message}")
            err.unreachable = True
            raise err from None
        if status == bulk.STATUS_ERROR:
            raise self._bulk_error(buf, method)
        return wire.decode(buf, self._max_message_bytes)

    def _bulk_error(self, payload: np.ndarray, method: str) -> errors.OpError:
        """The error a side channel call answered with, as the handler raised it."""
        remote = rpc_protocol._parse_error_payload(payload.tobytes())
        if remote is None:
            return errors.InternalError(
                None, None, f"{self.service_name}/{method} on {self.address} failed with a "
                "malformed error reply")
        code, message, node, task = remote
        return errors.make_error(code, message, node_def=node, task=task)

    # -- gRPC -------------------------------------------------------------------------------
    def _deadline_error(self, method: str, timeout: float) -> errors.DeadlineExceededError:
        return errors.DeadlineExceededError(
            None, None, f"{self.service_name}/{method} on {self.address} did not finish "
            f"within its deadline of {timeout:g} s")

    def _read_reply(self, reply: bytes, deadline: float) -> wire.Buffer:
        version = wire.peek_version(reply)
        if reply[:4] != rpc_protocol.HANDLE_MAGIC:
            if version is not None and version != rpc_protocol.PROTOCOL_VERSION:
                raise rpc_protocol._version_mismatch(version, f"the server at {self.address}")
            if len(reply) > self._max_message_bytes:
                raise rpc_protocol._too_big(len(reply), self._max_message_bytes, "this client")
            return reply
        total, key, port = self._parse_handle(reply)
        return self._fetch_parked(key, total, port, deadline)

    def redeem(self, key: bytes, total: int, port: int, timeout: float) -> wire.Message:
        """The message the server parked under ``key`` (``RpcServer.park``): ``total``
        bytes, over its side channel on ``port`` when that can be used, else with
        ``_Fetch``.

        Raises:
          AbortedError: the server does not have it (expired or fetched already).
          UnavailableError: the server cannot be reached.
          ResourceExhaustedError: ``total`` is over this client's message limit.
          DeadlineExceededError: ``timeout`` passed.
        """
        timeout = self._check_timeout(timeout)
        if not isinstance(key, bytes) or len(key) != 16 or isinstance(total, bool) \
                or not isinstance(total, int) or total <= 0 or isinstance(port, bool) \
                or not isinstance(port, int) or not 0 <= port <= 65535:
            raise errors.InvalidArgumentError(
                None, None, f"a parked message needs a 16-byte key, a positive size and a "
                f"port, got {len(key) if isinstance(key, bytes) else key!r}, {total!r}, "
                f"{port!r}")
        deadline = time.monotonic() + timeout
        try:
            buf = self._fetch_parked(key, total, port, deadline)
        except grpc.RpcError as e:
            raise self._translate(e, rpc_protocol.FETCH_METHOD, timeout) from None
        except TimeoutError:
            raise self._deadline_error(rpc_protocol.FETCH_METHOD, timeout) from None
        return wire.decode(buf, self._max_message_bytes)

    def _fetch_parked(self, key: bytes, total: int, port: int, deadline: float) -> wire.Buffer:
        if total > self._max_message_bytes:
            raise rpc_protocol._too_big(total, self._max_message_bytes, "this client")
        if port and self._may_use_bulk(port):
            try:
                return self._bulk_pool.fetch(self.address, port, self._token, key, total,
                                             deadline, self._side_tls)
            except bulk.BulkUnavailable:
                pass  # the pool logged it; replies come over gRPC until it is retried
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise _DeadlineBeforeFetch()
        stream = self._fetch(key, timeout=remaining, metadata=self._metadata)
        try:
            return wire.reassemble(stream, total, self._max_message_bytes)
        except errors.OpError:
            stream.cancel()
            raise

    def _parse_handle(self, reply: bytes) -> Tuple[int, bytes, int]:
        """(total, key, bulk port or 0) of a response handle, checked field by field."""
        if len(reply) >= 6:
            version = int.from_bytes(reply[4:6], "little")
            if version != rpc_protocol.PROTOCOL_VERSION:
                raise rpc_protocol._version_mismatch(version, f"the server at {self.address}")
        if len(reply) == rpc_protocol._HANDLE.size:
            _, _, flags, total, key = rpc_protocol._HANDLE.unpack(reply)
            port = reserved = 0
            ok = flags == 0
        elif len(reply) == rpc_protocol._BULK_HANDLE.size:
            _, _, flags, total, key, port, reserved = rpc_protocol._BULK_HANDLE.unpack(reply)
            ok = flags == rpc_protocol._FLAG_BULK and port != 0 and reserved == 0
        else:
            ok = False
        if not ok or total <= 0:
            raise errors.InvalidArgumentError(
                None, None, f"malformed response handle of {len(reply)} bytes from {self.address}")
        return total, key, port

    def _may_use_bulk(self, port: int) -> bool:
        # The environment is read per reply so that TENSORFLEET_BULK=0 acts at once.
        return not self._side_off and bulk.enabled() and self._bulk_pool.usable(self.address, port)

    def _translate(self, e: grpc.RpcError, method: str, timeout: float) -> errors.OpError:
        code = e.code() if callable(getattr(e, "code", None)) else grpc.StatusCode.UNKNOWN
        details = (e.details() if callable(getattr(e, "details", None)) else None) or ""
        where = f"{self.service_name}/{method} on {self.address}"
        remote = rpc_protocol._remote_error(e)
        if remote is not None:
            message, node, task = remote
            return errors.make_error(code.value[0], message, node_def=node, task=task)
        if code == grpc.StatusCode.DEADLINE_EXCEEDED:
            return errors.DeadlineExceededError(
                None, None, f"{where} did not finish within its deadline of {timeout:g} s")
        if code == grpc.StatusCode.UNAVAILABLE:
            # It may come back elsewhere (a restart): its side channel too.
            self._forget_side_channel()
            err = errors.UnavailableError(None, None, f"cannot reach {where}: {details}")
            # The peer itself is out of reach, as opposed to a handler that raised
            # UnavailableError about some other task.
            err.unreachable = True
            return err
        return errors.make_error(code.value[0], f"{where}: {details}")

    def wait_ready(self, timeout: float) -> None:
        """Blocks until the channel is connected.

        Raises:
          UnavailableError: no connection within ``timeout`` seconds.
        """
        try:
            grpc.channel_ready_future(self._channel).result(self._check_timeout(timeout))
        except grpc.FutureTimeoutError:
            raise errors.UnavailableError(
                None, None, f"{self.address} did not accept a connection within "
                f"{timeout:g} s") from None


def _side_channel_of_failure(e: grpc.RpcError) -> Optional[SideChannel]:
    """What a failed discovery says: an older server has none; otherwise unknown."""
    code = e.code() if callable(getattr(e, "code", None)) else None
    return (0, frozenset()) if code == grpc.StatusCode.UNIMPLEMENTED else None


class _DeadlineBeforeFetch(grpc.RpcError):
    """The deadline ran out between a response handle and its fetch."""

    def code(self) -> grpc.StatusCode:
        return grpc.StatusCode.DEADLINE_EXCEEDED

    def details(self) -> str:
        return "deadline exceeded before the response was fetched"


def _request_stream(parts: List[wire.Buffer], total: int) -> Iterator[bytes]:
    yield wire.stream_header(total)
    yield from wire.iter_chunks(parts)


__all__ = ["channel_cache", "async_pool", "ChannelCache", "RpcClient", "DISCOVERY_TIMEOUT"]
