"""The collective algorithms of ``RingGroup``, written against its send/recv primitives.

Each function runs on the group's thread for one collective with sequence
number ``seq``; every frame of that collective carries the same small header
(sequence number, kind, element count), so a rank that runs something else is
caught on the first frame. Segment and chunk boundaries are computed the same
way on every rank, which is what lets a receiver know the exact size of every
frame before it arrives.

Naming: ``n`` ranks, this one is ``r``; ring successor ``(r + 1) % n`` and
predecessor ``(r - 1) % n``. In scatter-reduce step ``t`` rank ``r`` sends
segment ``(r - t - 1) % n`` and receives segment ``(r - t - 2) % n``; after
``n - 1`` steps it holds the full reduction of segment ``r``. In all-gather step
``u`` it sends segment ``(r - u) % n`` and receives ``(r - u - 1) % n``.
"""

from __future__ import annotations

import collections
import concurrent.futures
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.collectives import group as _g

# Direct sends up to this size go out from the group's thread before it
# receives; they fit in the sockets' buffers, so no rank can block another.
INLINE_SEND_BYTES = 16 << 10

Chunks = List[Tuple[int, int]]
SendStep = Tuple[int, Chunks, Callable[[int, int], np.ndarray], Optional[int]]
RecvStep = Tuple[Chunks, Callable[[int, int], None]]


def split(lo: int, hi: int, chunk: int) -> Chunks:
    """``[lo, hi)`` cut into pieces of at most ``chunk`` elements."""
    return [(a, min(a + chunk, hi)) for a in range(lo, hi, chunk)]


def _pipelined(g: Any, timeout: float, sends: Sequence[SendStep],
               recvs: Sequence[RecvStep]) -> None:
    """Runs chunked send steps on the sender thread and receive steps here.

    A send step ``(peer, chunks, get, dep)`` sends ``get(a, b)`` for each chunk;
    with ``dep`` set, chunk ``k`` waits until receive step ``dep`` has finished
    its chunk ``k`` (the data it forwards). A receive step ``(chunks, handle)``
    calls ``handle(a, b)``, which receives and consumes one chunk, or receives it
    and returns the future of its consumption (the chunk counts as finished once
    that future is done; such futures must complete in submission order).
    """
    prog = g.progress(max(1, len(recvs)))

    def do_sends() -> None:
        for peer, chunks, get, dep in sends:
            for k, (a, b) in enumerate(chunks):
                if dep is not None:
                    prog.wait(dep, k + 1)
                g._send(peer, _header(g), get(a, b), timeout)

    def do_recvs() -> None:
        for t, (chunks, handle) in enumerate(recvs):
            for k, (a, b) in enumerate(chunks):
                pending = handle(a, b)
                if pending is None:
                    prog.mark(t, k + 1)
                else:
                    pending.add_done_callback(
                        lambda f, t=t, k=k: f.exception() is None and prog.mark(t, k + 1))

    if sends:
        g._run_with_sender(do_sends, do_recvs)
    else:
        do_recvs()


def _header(g: Any) -> Dict[str, Any]:
    return g._hdr


def _set_header(g: Any, seq: int, kind: str, count: int, **extra: Any) -> Dict[str, Any]:
    g._hdr = dict({"seq": seq, "op": kind, "count": int(count)}, **extra)
    return g._hdr


def _exchange(g: Any, timeout: float, outgoing: Dict[int, np.ndarray],
              incoming: Dict[int, np.ndarray]) -> None:
    """Sends each ``outgoing[peer]`` and fills each ``incoming[peer]``, all at once."""
    hdr = _header(g)
    r, n = g.rank, g.size
    order = [(r + i) % n for i in range(1, n)]
    send_list = [(p, outgoing[p]) for p in order if p in outgoing]
    # Receive from the predecessor first: in a ring of starts it is the first to send.
    recv_list = [(p, incoming[p]) for p in reversed(order) if p in incoming]

    def do_sends() -> None:
        for p, arr in send_list:
            g._send(p, hdr, arr, timeout)

    def do_recvs() -> None:
        for p, arr in recv_list:
            g._recv(p, hdr, arr, timeout)

    if sum(a.nbytes for _, a in send_list) <= INLINE_SEND_BYTES:
        do_sends()
        do_recvs()
    else:
        g._run_with_sender(do_sends, do_recvs)


# Fewer, larger frames cost less CPU (measured: 4 MiB chunks use about a quarter
# less than 1 MiB ones), but a segment needs a few chunks to pipeline at all.
MIN_PIPELINE_CHUNKS = 4
MIN_CHUNK_BYTES = 256 << 10


def _chunk_elems(g: Any, itemsize: int, segment_elems: Optional[int] = None) -> int:
    """Elements per frame: about a quarter of a segment, within the group's limits."""
    cap = max(1, g.chunk_bytes // itemsize)
    if segment_elems is None:
        return cap
    floor = max(1, min(g.chunk_bytes, MIN_CHUNK_BYTES) // itemsize)
    return min(cap, max(floor, -(-segment_elems // MIN_PIPELINE_CHUNKS)))


def _scale(arr: np.ndarray, n: int) -> None:
    np.multiply(arr, arr.dtype.type(1.0 / n), out=arr)


# ---------------------------------------------------------------------------- all-reduce


def all_reduce(g: Any, seq: int, src: np.ndarray, dst: np.ndarray, reduction: str,
               compression: str, timeout: float) -> None:
    """Reduces flat ``src`` over the group into flat ``dst`` (which may be ``src``)."""
    n = g.size
    wdt = _g.wire_dtype(src.dtype, compression)
    _set_header(g, seq, "all_reduce", src.size)
    if n == 1:
        np.copyto(dst, src)
        if wdt != src.dtype:
            np.copyto(dst, dst.astype(wdt))
        return
    if src.size * wdt.itemsize <= g.small_bytes or src.size < 2 * n:
        _direct_all_reduce(g, src, dst, reduction, wdt, timeout)
    else:
        _ring_all_reduce(g, src, dst, reduction, wdt, timeout)


def _direct_all_reduce(g: Any, src: np.ndarray, dst: np.ndarray, reduction: str,
                       wdt: np.dtype, timeout: float) -> None:
    n, r = g.size, g.rank
    mine = src if wdt == src.dtype else src.astype(wdt)
    if mine is src and np.shares_memory(src, dst):
        # An in-place reduction overwrites dst before this rank's own term is added.
        mine = src.copy()
    bufs: List[np.ndarray] = [np.empty(src.size, wdt) if p != r else mine for p in range(n)]
    _exchange(g, timeout, {p: mine for p in range(n) if p != r},
              {p: bufs[p] for p in range(n) if p != r})
    # Every rank adds the same values in the same (rank) order: identical results.
    merge = _g.merge_fn(reduction)
    np.copyto(dst, bufs[0])
    for p in range(1, n):
        merge(dst, bufs[p], out=dst)
    if reduction == _g.MEAN:
        _scale(dst, n)


def _ring_all_reduce(g: Any, src: np.ndarray, dst: np.ndarray, reduction: str,
                     wdt: np.dtype, timeout: float) -> None:
    n, r = g.size, g.rank
    nxt, prv = (r + 1) % n, (r - 1) % n
    compress = wdt != src.dtype
    merge = _g.merge_fn(reduction)
    bounds = _g.segment_bounds(src.size, n)
    celems = _chunk_elems(g, wdt.itemsize, bounds[1] - bounds[0])
    chunks = [split(bounds[s], bounds[s + 1], celems) for s in range(n)]
    width = min(celems, max(b - a for a, b in zip(bounds, bounds[1:])))
    # A chunk lands in its place in dst and is reduced there, unless dst is src
    # (this rank's term would be overwritten) or the wire dtype differs: then it
    # lands in one of two scratch buffers, one filling while the other is reduced.
    direct = not compress and not np.shares_memory(src, dst)
    slots = [] if direct else [np.empty(width, wdt) for _ in range(2)]
    overlap = _Reductions(g)

    def source(base: np.ndarray) -> Callable[[int, int], np.ndarray]:
        if compress:
            return lambda a, b: base[a:b].astype(wdt)
        return lambda a, b: base[a:b]

    def reduce_into(final: bool) -> Callable[[int, int], Any]:
        def handle(a: int, b: int) -> Any:
            if direct:
                buf = dst[a:b]
            else:
                buf = slots[overlap.reserve_slot(len(slots))][:b - a]
            g._recv(prv, _header(g), buf, timeout)

            def reduce() -> None:
                merge(src[a:b], buf, out=dst[a:b])
                if final:
                    if reduction == _g.MEAN:
                        _scale(dst[a:b], n)
                    if compress:
                        # The owner keeps the rounded value it sends, so all ranks agree.
                        np.copyto(dst[a:b], dst[a:b].astype(wdt))
            return overlap.submit(reduce)
        return handle

    def gather_into(a: int, b: int) -> None:
        overlap.drain()  # the gathered segments overwrite reduced ones
        if compress:
            buf = np.empty(b - a, wdt) if not slots else slots[0][:b - a]
            g._recv(prv, _header(g), buf, timeout)
            np.copyto(dst[a:b], buf)
        else:
            g._recv(prv, _header(g), dst[a:b], timeout)

    sends: List[SendStep] = []
    recvs: List[RecvStep] = []
    for t in range(n - 1):
        sends.append((nxt, chunks[(r - t - 1) % n], source(src if t == 0 else dst),
                      None if t == 0 else t - 1))
        recvs.append((chunks[(r - t - 2) % n], reduce_into(t == n - 2)))
    for u in range(n - 1):
        t = n - 1 + u
        sends.append((nxt, chunks[(r - u) % n], source(dst), t - 1))
        recvs.append((chunks[(r - u - 1) % n], gather_into))
    try:
        _pipelined(g, timeout, sends, recvs)
    finally:
        overlap.drain(raise_errors=False)
    overlap.drain()


class _Reductions:
    """The reductions of one collective, run in order on the group's reducer thread
    (inline for a group without one) while the receiving thread goes on."""

    def __init__(self, g: Any):
        self._submit = getattr(g, "reduce_async", None)
        self._pending: "collections.deque" = collections.deque()
        self._count = 0

    def submit(self, fn: Callable[[], None]) -> Any:
        """Starts ``fn``; returns its future, or None when it already ran here."""
        self._count += 1
        if self._submit is None:
            fn()
            return None
        while self._pending and self._pending[0].done():
            self._pending.popleft().result()
        fut = self._submit(fn)
        self._pending.append(fut)
        return fut

    def reserve_slot(self, slots: int) -> int:
        """The scratch slot for the next chunk, once the reduction that last read it ended."""
        while len(self._pending) >= slots:
            self._pending.popleft().result()
        return self._count % slots

    def drain(self, raise_errors: bool = True) -> None:
        """Waits for every reduction submitted; raises the first one's error."""
        while self._pending:
            fut = self._pending.popleft()
            if raise_errors:
                fut.result()
            else:
                concurrent.futures.wait([fut])


# ---------------------------------------------------------------------------- all-gather


def all_gather(g: Any, seq: int, src: np.ndarray, timeout: float) -> np.ndarray:
    """Every rank's ``src`` concatenated along axis 0, in rank order."""
    n, r = g.size, g.rank
    rest = list(src.shape[1:])
    # First the row counts (the only thing allowed to differ); dtype and trailing
    # shape are in the header, so a rank with other ones is refused here.
    _set_header(g, seq, "all_gather", 1, shape=rest, dtype=src.dtype.str)
    counts = np.zeros(n, np.int64)
    counts[r] = src.shape[0]
    rows = {p: counts[p:p + 1] for p in range(n) if p != r}
    _exchange(g, timeout, {p: counts[r:r + 1] for p in range(n) if p != r}, rows)
    if (counts < 0).any():
        raise errors.InvalidArgumentError(None, None, f"all_gather: bad row counts {counts}")
    row = int(np.prod(rest, dtype=np.int64)) if rest else 1
    offs = [0]
    for c in counts:
        offs.append(offs[-1] + int(c) * row)
    out = np.empty([int(counts.sum())] + rest, src.dtype)
    flat = out.reshape(-1)
    flat[offs[r]:offs[r + 1]] = src.reshape(-1)
    _set_header(g, seq, "all_gather", offs[-1])
    if offs[-1] * src.dtype.itemsize <= g.small_bytes * n:
        mine = flat[offs[r]:offs[r + 1]]
        _exchange(g, timeout, {p: mine for p in range(n) if p != r},
                  {p: flat[offs[p]:offs[p + 1]] for p in range(n) if p != r})
        return out
    nxt, prv = (r + 1) % n, (r - 1) % n
    celems = _chunk_elems(g, src.dtype.itemsize, max(b - a for a, b in zip(offs, offs[1:])))
    chunks = [split(offs[s], offs[s + 1], celems) for s in range(n)]

    def get(a: int, b: int) -> np.ndarray:
        return flat[a:b]

    def put(a: int, b: int) -> None:
        g._recv(prv, _header(g), flat[a:b], timeout)

    sends = [(nxt, chunks[(r - u) % n], get, None if u == 0 else u - 1) for u in range(n - 1)]
    recvs = [(chunks[(r - u - 1) % n], put) for u in range(n - 1)]
    _pipelined(g, timeout, sends, recvs)
    return out


# ---------------------------------------------------------------------------- broadcast


def broadcast(g: Any, seq: int, src: np.ndarray, root: int, timeout: float) -> np.ndarray:
    """``root``'s ``src`` on every rank: direct when small, else pipelined along the ring."""
    n, r = g.size, g.rank
    _set_header(g, seq, "broadcast", src.size, root=root)
    out = src.copy() if r == root else np.empty_like(src)
    if n == 1:
        return out
    flat = out.reshape(-1)
    if src.nbytes <= g.small_bytes:
        if r == root:
            _exchange(g, timeout, {p: flat for p in range(n) if p != r}, {})
        else:
            _exchange(g, timeout, {}, {root: flat})
        return out
    nxt, prv = (r + 1) % n, (r - 1) % n
    chunks = split(0, flat.size, _chunk_elems(g, src.dtype.itemsize, flat.size))

    def get(a: int, b: int) -> np.ndarray:
        return flat[a:b]

    def put(a: int, b: int) -> None:
        g._recv(prv, _header(g), flat[a:b], timeout)

    if r == root:
        _pipelined(g, timeout, [(nxt, chunks, get, None)], [])
    elif nxt == root:
        _pipelined(g, timeout, [], [(chunks, put)])
    else:
        _pipelined(g, timeout, [(nxt, chunks, get, 0)], [(chunks, put)])
    return out


# ---------------------------------------------------------------------------- reduce-scatter


def reduce_scatter(g: Any, seq: int, src: np.ndarray, reduction: str,
                   timeout: float) -> np.ndarray:
    """This rank's rows (``np.array_split`` along axis 0) of the reduction of ``src``."""
    n, r = g.size, g.rank
    rest = list(src.shape[1:])
    row = int(np.prod(rest, dtype=np.int64)) if rest else 1
    flat = src.reshape(-1)
    bounds = _g.segment_bounds(flat.size, n, unit=row)
    _set_header(g, seq, "reduce_scatter", flat.size)
    merge = _g.merge_fn(reduction)
    lo, hi = bounds[r], bounds[r + 1]
    result = np.empty(hi - lo, src.dtype)
    if n == 1 or flat.nbytes <= g.small_bytes:
        pieces = {p: np.empty(hi - lo, src.dtype) for p in range(n) if p != r}
        _exchange(g, timeout, {p: flat[bounds[p]:bounds[p + 1]] for p in range(n) if p != r},
                  pieces)
        pieces[r] = flat[lo:hi]
        np.copyto(result, pieces[0])
        for p in range(1, n):
            merge(result, pieces[p], out=result)
    else:
        nxt, prv = (r + 1) % n, (r - 1) % n
        work = np.empty_like(flat)
        celems = _chunk_elems(g, src.dtype.itemsize, bounds[1] - bounds[0])
        chunks = [split(bounds[s], bounds[s + 1], celems) for s in range(n)]
        tmp = np.empty(celems, src.dtype)

        def source(base: np.ndarray) -> Callable[[int, int], np.ndarray]:
            return lambda a, b: base[a:b]

        def handle(a: int, b: int) -> None:
            buf = tmp[:b - a]
            g._recv(prv, _header(g), buf, timeout)
            merge(flat[a:b], buf, out=work[a:b])

        sends = [(nxt, chunks[(r - t - 1) % n], source(flat if t == 0 else work),
                  None if t == 0 else t - 1) for t in range(n - 1)]
        recvs = [(chunks[(r - t - 2) % n], handle) for t in range(n - 1)]
        _pipelined(g, timeout, sends, recvs)
        np.copyto(result, work[lo:hi])
    if reduction == _g.MEAN:
        _scale(result, n)
    return result.reshape([(hi - lo) // row if row else 0] + rest)


def barrier(g: Any, seq: int, timeout: float) -> None:
    """Returns once a token from every other rank has arrived."""
    n, r = g.size, g.rank
    _set_header(g, seq, "barrier", 1)
    if n == 1:
        return
    token = np.zeros(1, np.uint8)
    _exchange(g, timeout, {p: token for p in range(n) if p != r},
              {p: np.empty(1, np.uint8) for p in range(n) if p != r})


__all__ = ["all_reduce", "all_gather", "broadcast", "reduce_scatter", "barrier", "split",
           "INLINE_SEND_BYTES"]
