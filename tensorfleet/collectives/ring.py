"""``RingGroup``: collectives over a ring of ranks, chunked and pipelined.

All-reduce of a large tensor is the bandwidth-optimal ring: the tensor is cut
into ``size`` segments; in ``size - 1`` scatter-reduce steps each rank sends one
segment to its successor and adds the one it receives from its predecessor, so
that rank ``r`` ends up holding the complete reduction of segment ``r``; in
``size - 1`` all-gather steps those segments travel once more around the ring.
Each rank sends ``2 (size-1)/size`` of the tensor, whatever the size.

Pipelining: every segment is cut again into chunks. A sender thread sends chunk
``k`` of step ``t`` as soon as chunk ``k`` of step ``t - 1`` has been reduced, so
sending, receiving and adding run at the same time (all three release the GIL
while they work): a chunk lands straight in its place in the result and a
reducer thread adds this rank's term to it while the next chunk arrives.

Small tensors take a direct path: every rank sends its whole tensor to every
other rank at once and reduces locally, in rank order. That is one network
latency instead of ``2 (size - 1)``, and since every rank adds the same values
in the same order, results are still identical everywhere.

Collectives run one at a time, in call order, on the group's own thread;
``all_reduce_async`` returns a future so that a training step can start a
reduction and go on computing. A failure (a peer that died, stalled or sent
something else) breaks the group: the failing rank tells the others which rank
is to blame, every pending and later call raises, and no rank ever returns a
partial result.
"""

from __future__ import annotations

import concurrent.futures
import logging
import queue
import threading
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.collectives import algorithms
from tensorfleet.collectives import group as _g
from tensorfleet.collectives import shm
from tensorfleet.collectives.grpc_link import GrpcLink
from tensorfleet.collectives.tcp import TcpLink
from tensorfleet.transport import buffers
from tensorfleet.transport.link import FrameLink, LinkFactory, PeerAbort

logger = logging.getLogger(__name__)

DEFAULT_CHUNK_BYTES = 4 << 20
DEFAULT_SMALL_BYTES = 64 << 10
TRANSPORTS = ("tcp", "grpc")


class _Sender:
    """One thread that runs a collective's sends while the group's thread receives."""

    def __init__(self, name: str):
        self._jobs: "queue.Queue[Optional[Tuple[Callable[[], None], concurrent.futures.Future]]]" \
            = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name=name, daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], None]) -> "concurrent.futures.Future":
        fut: "concurrent.futures.Future" = concurrent.futures.Future()
        self._jobs.put((fn, fut))
        return fut

    def _loop(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                return
            fn, fut = job
            try:
                fn()
            except BaseException as e:  # noqa: BLE001 - handed to the receiving thread
                fut.set_exception(e)
            else:
                fut.set_result(None)

    def stop(self) -> None:
        self._jobs.put(None)


class _Progress:
    """How many chunks of each step the receiver has finished; the sender waits on it."""

    def __init__(self, steps: int, is_failed: Callable[[], Optional[BaseException]]):
        self.done = [0] * steps
        self._cond = threading.Condition()
        self._is_failed = is_failed

    def mark(self, step: int, count: int) -> None:
        with self._cond:
            self.done[step] = count
            self._cond.notify_all()

    def wait(self, step: int, count: int) -> None:
        with self._cond:
            while self.done[step] < count:
                failed = self._is_failed()
                if failed is not None:
                    raise failed
                self._cond.wait(0.1)

    def wake(self) -> None:
        with self._cond:
            self._cond.notify_all()


class RingGroup(_g.Group):
    """A group of ``len(addresses)`` ranks connected by a ``TcpLink`` (or a ``GrpcLink``).

    Args:
      addresses: ``host:port`` of every rank, in rank order; each rank listens
        on its own entry (a port of its own, not a ``tf.train.Server``'s).
      rank: this process's index.
      name: the group's name (peers check it when connecting).
      token: the cluster token; None reads ``$TENSORFLEET_TOKEN``.
      timeout: seconds a peer may stay silent inside a collective before it is
        reported (also the default per-call deadline).
      connect_timeout: the formation deadline: how long ranks keep trying to
        connect to each other (a rank may start this much later than the others).
      chunk_bytes: the largest frame of the ring's pipeline (a segment is cut into
        about four frames, at least 256 KiB each, at most this).
      small_bytes: tensors up to this size take the direct (one latency) path.
      buffer_bytes: fixed socket buffer size (None lets the kernel tune it).
      transport: "tcp" (the raw TCP data plane, ``tcp.py``) or "grpc" (the
        project's ``RpcServer``/``RpcClient``, ``grpc_link.py``; slower).
      shared_memory: with the "tcp" transport, let big all-reduces of ranks that
        share a host go through shared memory (``shm.py``); the group finds out on
        its first big all-reduce whether they do.
    """

    def __init__(self, addresses: Sequence[str], rank: int, name: str = "default", *,
                 token: Optional[str] = None, timeout: float = _g.DEFAULT_TIMEOUT,
                 connect_timeout: float = 120.0, chunk_bytes: int = DEFAULT_CHUNK_BYTES,
                 small_bytes: int = DEFAULT_SMALL_BYTES, buffer_bytes: Optional[int] = None,
                 transport: str = "tcp", shared_memory: bool = True):
        addrs, self._rank = _g.check_peers(addresses, rank)
        self._size = len(addrs)
        self.name = name
        self.addresses = addrs
        self.timeout = float(timeout)
        self.chunk_bytes = max(4096, int(chunk_bytes))
        self.small_bytes = int(small_bytes)
        self._failure: Optional[errors.OpError] = None
        self._failure_lock = threading.Lock()
        self._send_error: Optional[BaseException] = None
        self._seq = 0
        self._closed = False
        if transport not in TRANSPORTS:
            raise errors.InvalidArgumentError(
                None, None, f"unknown collective transport {transport!r}; use one of "
                f"{list(TRANSPORTS)}")
        link_cls: LinkFactory = GrpcLink if transport == "grpc" else TcpLink
        self.transport = transport
        self.shm = shm.SharedSegments(enabled=shared_memory and transport == "tcp")
        self.link: FrameLink = link_cls(addrs, self._rank, name, token=token,
                             connect_timeout=connect_timeout, is_failed=self._failed,
                             buffer_bytes=buffer_bytes)
        self._ops: "queue.Queue[Optional[Tuple[Callable[[int], Any], concurrent.futures.Future]]]" \
            = queue.Queue()
        self._sender = _Sender(f"tf-coll-send-{name}-{rank}")
        # Adds received chunks, in order, while the group's thread receives the next.
        self._reducer = _Sender(f"tf-coll-reduce-{name}-{rank}")
        self._worker = threading.Thread(target=self._loop, name=f"tf-coll-{name}-{rank}",
                                        daemon=True)
        self._worker.start()

    @property
    def rank(self) -> int:
        return self._rank

    @property
    def size(self) -> int:
        return self._size

    def _failed(self) -> Optional[BaseException]:
        return self._failure or self._send_error

    # ------------------------------------------------------------------ op queue
    def _submit(self, fn: Callable[[int], Any]) -> "concurrent.futures.Future":
        fut: "concurrent.futures.Future" = concurrent.futures.Future()
        if self._closed:
            fut.set_exception(errors.FailedPreconditionError(
                None, None, f"collective group {self.name!r} is closed"))
            return fut
        self._ops.put((fn, fut))
        return fut

    def _loop(self) -> None:
        while True:
            item = self._ops.get()
            if item is None:
                return
            fn, fut = item
            if not fut.set_running_or_notify_cancel():
                continue
            seq = self._seq
            self._seq += 1
            if self._failure is not None:
                fut.set_exception(self._broken_error())
                continue
            try:
                result = fn(seq)
            except PeerAbort as e:
                fut.set_exception(self._fail_from_abort(e))
            except errors.OpError as e:
                fut.set_exception(self._fail(e))
            except BaseException as e:  # noqa: BLE001 - a bug must not leave peers waiting
                logger.exception("collective #%d failed", seq)
                fut.set_exception(self._fail(errors.InternalError(
                    None, None, f"{type(e).__name__}: {e}"), culprit=self._rank))
            else:
                fut.set_result(result)

    def _broken_error(self) -> errors.OpError:
        f = self._failure
        assert f is not None
        return type(f)(None, None, f"collective group {self.name!r} failed earlier and "
                       f"cannot be used: {f.message}")

    # ------------------------------------------------------------------ failures
    def _culprit_of(self, e: errors.OpError) -> int:
        return getattr(e, "_coll_peer", self._rank)

    def _fail(self, e: errors.OpError, culprit: Optional[int] = None) -> errors.OpError:
        """Records the group's failure, tells the peers who is to blame, closes links."""
        culprit = self._culprit_of(e) if culprit is None else culprit
        code, message = e.error_code, e.message
        if isinstance(e, errors.DeadlineExceededError) and culprit != self._rank:
            # The silent peer may itself be waiting on a dead rank further up the
            # ring. Tell every peer at once whom this rank suspects (a rank waiting
            # on this one then learns it too), then give the suspect's own verdict
            # a moment to arrive: if it names another rank, blame that one instead.
            self.link.send_abort({"culprit": culprit, "code": code, "message": message,
                                  "reporter": self._rank})
            grace = min(max(self.timeout * 0.5, 0.5), 5.0)
            for ab in self.link.poll_aborts(grace):
                c = ab.payload.get("culprit")
                if ab.sender == culprit and isinstance(c, int) and c != self._rank:
                    return self._record(ab.payload, via=ab.sender)
        err = self._record({"culprit": culprit, "code": code, "message": message,
                            "reporter": self._rank}, via=None)
        return err

    def _fail_from_abort(self, ab: PeerAbort) -> errors.OpError:
        return self._record(ab.payload, via=ab.sender)

    def _record(self, payload: Dict[str, Any], via: Optional[int]) -> errors.OpError:
        with self._failure_lock:
            if self._failure is not None:
                return self._failure
            code = payload.get("code") if isinstance(payload.get("code"), int) \
                else errors.UNAVAILABLE
            message = str(payload.get("message", ""))[:2000]
            if via is not None:
                message += f" (reported by {self.link.describe(via)})"
            err = errors.make_error(code, f"collective group {self.name!r} rank {self._rank}: "
                                    f"{message}")
            self._failure = err
        self.link.send_abort(dict(payload, reporter=payload.get("reporter", self._rank)))
        self.link.shutdown_sockets()
        logger.error("%s", err.message)
        return err

    def _recv(self, peer: int, header: Dict[str, Any], out: np.ndarray, timeout: float) -> None:
        """Receives one frame from ``peer``; errors remember which peer they concern."""
        try:
            self.link.recv_into(peer, header, out, timeout)
        except errors.OpError as e:
            if e is not self._failure and not hasattr(e, "_coll_peer"):
                e._coll_peer = peer  # type: ignore[attr-defined]
            raise

    def _send(self, peer: int, header: Dict[str, Any], arr: np.ndarray, timeout: float) -> None:
        """Sends one frame to ``peer``; errors remember which peer they concern."""
        try:
            self.link.send(peer, header, arr, timeout)
        except errors.OpError as e:
            if e is not self._failure and not hasattr(e, "_coll_peer"):
                e._coll_peer = peer  # type: ignore[attr-defined]
            raise

    def _run_with_sender(self, sends: Callable[[], None], receives: Callable[[], None]) -> None:
        """Runs ``sends`` on the sender thread while this thread runs ``receives``.

        A send that fails is raised here: the receiving side polls the failure
        flag, so it stops waiting for data that the broken ring will not deliver.
        """
        def guarded() -> None:
            try:
                sends()
            except PeerAbort:
                raise
            except BaseException as e:  # noqa: BLE001 - surfaced by the receiving thread
                if self._send_error is None and self._failure is None:
                    self._send_error = e
                raise
        fut = self._sender.submit(guarded)
        receives()
        try:
            fut.result()
        except errors.OpError:
            raise
        except PeerAbort:
            raise

    def reduce_async(self, fn: Callable[[], None]) -> "concurrent.futures.Future":
        """Runs ``fn`` on the reducer thread after the reductions submitted before it."""
        return self._reducer.submit(fn)

    def progress(self, steps: int) -> _Progress:
        """A progress board for one collective's pipelined sends."""
        return _Progress(steps, self._failed)

    # ------------------------------------------------------------------ public API
    def _timeout(self, timeout: Optional[float]) -> float:
        if timeout is None:
            return self.timeout
        if not timeout or timeout <= 0:
            raise errors.InvalidArgumentError(None, None, f"bad collective timeout {timeout!r}")
        return float(timeout)

    def all_reduce_async(self, value: Any, reduction: str = _g.SUM, *,
                         compression: Optional[str] = None, timeout: Optional[float] = None,
                         out: Optional[np.ndarray] = None) -> "concurrent.futures.Future":
        red = _g.check_reduction(reduction)
        comp = _g.check_compression(compression)
        src = _g.as_array(value, "all_reduce")
        if red == _g.MEAN and src.dtype.kind not in "fc":
            raise errors.InvalidArgumentError(
                None, None, f"a mean all-reduce needs a floating tensor, got {src.dtype}")
        if out is None:
            # Pooled memory: a result dropped before the next call of the same size
            # lends that call pages already mapped (a fresh 64 MiB faults 16k pages).
            out = (buffers.take(src.nbytes).view(src.dtype).reshape(src.shape)
                   if src.nbytes and not src.dtype.hasobject else np.empty(src.shape, src.dtype))
        elif out.shape != src.shape or out.dtype != src.dtype or not out.flags.c_contiguous:
            raise errors.InvalidArgumentError(
                None, None, "all_reduce: out must be a contiguous array of the input's shape "
                "and dtype")
        src = _g.contiguous(src)
        t = self._timeout(timeout)

        def run(seq: int) -> np.ndarray:
            flat_src, flat_out = src.reshape(-1), out.reshape(-1)
            if not (shm.usable(self, src, comp)
                    and shm.all_reduce(self, seq, flat_src, flat_out, red, t)):
                algorithms.all_reduce(self, seq, flat_src, flat_out, red, comp, t)
            return out
        return self._submit(run)

    def all_gather(self, value: Any, *, timeout: Optional[float] = None) -> np.ndarray:
        src = _g.contiguous(_g.as_array(value, "all_gather"))
        if src.ndim == 0:
            raise errors.InvalidArgumentError(None, None, "all_gather needs a tensor of rank >= 1")
        t = self._timeout(timeout)

        def run(seq: int) -> np.ndarray:
            return algorithms.all_gather(self, seq, src, t)
        return self._submit(run).result()

    def broadcast(self, value: Any, root: int = 0, *,
                  timeout: Optional[float] = None) -> np.ndarray:
        if isinstance(root, bool) or not isinstance(root, (int, np.integer)) \
                or not 0 <= root < self._size:
            raise errors.InvalidArgumentError(
                None, None, f"broadcast root {root!r} is not a rank of a group of {self._size}")
        src = _g.contiguous(_g.as_array(value, "broadcast"))
        t = self._timeout(timeout)

        def run(seq: int) -> np.ndarray:
            return algorithms.broadcast(self, seq, src, int(root), t)
        return self._submit(run).result()

    def reduce_scatter(self, value: Any, reduction: str = _g.SUM, *,
                       timeout: Optional[float] = None) -> np.ndarray:
        red = _g.check_reduction(reduction)
        src = _g.contiguous(_g.as_array(value, "reduce_scatter"))
        if src.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, "reduce_scatter needs a tensor of rank >= 1")
        if red == _g.MEAN and src.dtype.kind not in "fc":
            raise errors.InvalidArgumentError(
                None, None, f"a mean reduce_scatter needs a floating tensor, got {src.dtype}")
        t = self._timeout(timeout)

        def run(seq: int) -> np.ndarray:
            return algorithms.reduce_scatter(self, seq, src, red, t)
        return self._submit(run).result()

    def barrier(self, *, timeout: Optional[float] = None) -> None:
        t = self._timeout(timeout)

        def run(seq: int) -> None:
            algorithms.barrier(self, seq, t)
        self._submit(run).result()

    def close(self) -> None:
        """Stops the group's threads and closes its connections (peers see end of stream)."""
        if self._closed:
            return
        self._closed = True
        self._ops.put(None)
        self._worker.join(max(5.0, self.timeout))
        self._sender.stop()
        self._reducer.stop()
        self.link.close()
        self.shm.close()


__all__ = ["RingGroup", "DEFAULT_CHUNK_BYTES", "DEFAULT_SMALL_BYTES", "TRANSPORTS"]
