"""The ``Group`` interface: a fixed set of ranks that run collectives together.

A group has ``size`` members numbered ``0..size-1``; this process is ``rank``.
Every member must call the same collectives in the same order with tensors of
the same dtype (and, except for ``all_gather``, the same shape): collectives are
matched by their position in that sequence, and a member that calls something
else gets an ``InvalidArgumentError`` naming the rank that disagreed.

Results are identical, bit for bit, on every rank: each element of a reduction
is computed once, by one rank, and then copied to the others.

This module holds what every implementation shares: the reduction names, the
argument checks, how a tensor is cut into per-rank segments, and ``LocalGroup``
(a group of one, where every collective is a copy).
"""

from __future__ import annotations

import abc
import concurrent.futures
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors

SUM = "sum"
MEAN = "mean"
MAX = "max"
MIN = "min"
REDUCTIONS = (SUM, MEAN, MAX, MIN)

NO_COMPRESSION = "none"
FP16 = "fp16"
COMPRESSIONS = (NO_COMPRESSION, FP16)

DEFAULT_TIMEOUT = 30.0

# The binary ufunc that merges two partial results; MEAN sums and scales once at the end.
_MERGE: Dict[str, Callable[..., Any]] = {SUM: np.add, MEAN: np.add, MAX: np.maximum,
                                         MIN: np.minimum}


def merge_fn(reduction: str) -> Callable[..., Any]:
    """The numpy ufunc that combines two contributions under ``reduction``."""
    return _MERGE[check_reduction(reduction)]


def check_reduction(reduction: str) -> str:
    """``reduction`` lower-cased if it is one of sum/mean/max/min; InvalidArgumentError if not."""
    name = str(reduction).lower()
    aliases = {"add": SUM, "average": MEAN, "avg": MEAN, "adasum": None}
    name = aliases.get(name, name) or name
    if name not in REDUCTIONS:
        raise errors.InvalidArgumentError(
            None, None, f"unknown reduction {reduction!r}; use one of {list(REDUCTIONS)}")
    return name


def check_compression(compression: Optional[str]) -> str:
    """``compression`` normalized to "none" or "fp16"; InvalidArgumentError otherwise."""
    name = NO_COMPRESSION if compression in (None, "", False) else str(compression).lower()
    if name not in COMPRESSIONS:
        raise errors.InvalidArgumentError(
            None, None, f"unknown compression {compression!r}; use one of {list(COMPRESSIONS)}")
    return name


def as_array(value: Any, what: str) -> np.ndarray:
    """``value`` as a numeric numpy array; InvalidArgumentError for strings or objects."""
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    if arr.dtype.kind not in "biufc":
        raise errors.InvalidArgumentError(
            None, None, f"{what}: collectives move numeric tensors, got dtype {arr.dtype}")
    return arr


def contiguous(arr: np.ndarray) -> np.ndarray:
    """``arr`` in C order (``np.ascontiguousarray`` would turn a 0-d array into 1-d)."""
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def wire_dtype(dtype: np.dtype, compression: str) -> np.dtype:
    """The dtype a tensor travels as: float16 for fp16-compressed float32/float64."""
    if compression == FP16 and dtype.kind == "f" and dtype.itemsize > 2:
        return np.dtype(np.float16)
    return dtype


def segment_bounds(count: int, parts: int, unit: int = 1) -> List[int]:
    """``parts + 1`` offsets cutting ``count`` elements into near-equal pieces.

    Pieces are whole multiples of ``unit`` elements (rows, for ``reduce_scatter``)
    and follow numpy's ``array_split``: the first ``rows % parts`` pieces get one
    row more.
    """
    rows = count // unit if unit else 0
    base, extra = divmod(rows, parts)
    out = [0]
    for i in range(parts):
        out.append(out[-1] + (base + (1 if i < extra else 0)) * unit)
    return out


class Group(abc.ABC):
    """A set of ranks running collectives; implementations differ in transport.

    Every method blocks until the collective is complete on this rank, and
    raises an ``OpError`` naming the rank (and its address) that failed or
    stopped answering within the deadline. After such a failure the group is
    broken: later calls raise at once, and a new group must be created.
    """

    @property
    @abc.abstractmethod
    def rank(self) -> int:
        """This process's index in the group."""

    @property
    @abc.abstractmethod
    def size(self) -> int:
        """The number of ranks."""

    @abc.abstractmethod
    def all_reduce_async(self, value: Any, reduction: str = SUM, *,
                         compression: Optional[str] = None, timeout: Optional[float] = None,
                         out: Optional[np.ndarray] = None) -> "concurrent.futures.Future":
        """Starts an all-reduce and returns a future of its result.

        Collectives start in call order on a background thread, so several can be
        in flight while the caller computes. ``out`` (same shape and dtype, may be
        ``value`` itself) receives the result in place of a new array.
        """

    def all_reduce(self, value: Any, reduction: str = SUM, *,
                   compression: Optional[str] = None, timeout: Optional[float] = None,
                   out: Optional[np.ndarray] = None) -> np.ndarray:
        """The element-wise sum/mean/max/min of ``value`` over all ranks."""
        return self.all_reduce_async(value, reduction, compression=compression,
                                     timeout=timeout, out=out).result()

    def all_reduce_many_async(self, values: Sequence[Any], reduction: str = SUM, *,
                              compression: Optional[str] = None,
                              timeout: Optional[float] = None
                              ) -> "concurrent.futures.Future":
        """Starts one fused all-reduce per dtype of ``values``; a future of the result list.

        Tensors of one dtype are packed back to back into a fresh buffer that is
        reduced in place, so a list of small tensors costs one collective, not
        one each. The results are views of that buffer.
        """
        arrays = [contiguous(as_array(v, "all_reduce")) for v in values]
        parts = []
        for idxs in group_by_dtype(arrays):
            members = [arrays[i] for i in idxs]
            buf = pack(members) if len(idxs) > 1 else members[0]
            fut = self.all_reduce_async(buf, reduction, compression=compression,
                                        timeout=timeout, out=buf if len(idxs) > 1 else None)
            parts.append((idxs, [a.shape for a in members], fut))
        return _combine(parts, len(arrays))

    def broadcast_many(self, values: Sequence[Any], root: int = 0, *,
                       timeout: Optional[float] = None) -> List[np.ndarray]:
        """``broadcast`` of several tensors, fused into one buffer per dtype."""
        arrays = [contiguous(as_array(v, "broadcast")) for v in values]
        out: List[Any] = [None] * len(arrays)
        for idxs in group_by_dtype(arrays):
            members = [arrays[i] for i in idxs]
            res = self.broadcast(pack(members), root, timeout=timeout)
            for i, piece in zip(idxs, unpack(res, [a.shape for a in members])):
                out[i] = piece
        return out

    @abc.abstractmethod
    def all_gather(self, value: Any, *, timeout: Optional[float] = None) -> np.ndarray:
        """Every rank's ``value`` concatenated along axis 0, in rank order.

        The first dimension may differ between ranks; the others and the dtype
        may not.
        """

    @abc.abstractmethod
    def broadcast(self, value: Any, root: int = 0, *,
                  timeout: Optional[float] = None) -> np.ndarray:
        """``root``'s ``value`` on every rank (others pass a tensor of the same shape)."""

    @abc.abstractmethod
    def reduce_scatter(self, value: Any, reduction: str = SUM, *,
                       timeout: Optional[float] = None) -> np.ndarray:
        """This rank's piece of the reduction, cut along axis 0 as ``np.array_split`` does."""

    @abc.abstractmethod
    def barrier(self, *, timeout: Optional[float] = None) -> None:
        """Returns once every rank has entered the barrier."""

    def close(self) -> None:
        """Releases connections and threads; the group cannot be used afterwards."""

    def __enter__(self) -> "Group":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _combine(parts: List[Tuple[List[int], List[Tuple[int, ...]], "concurrent.futures.Future"]],
             count: int) -> "concurrent.futures.Future":
    """One future for several per-dtype reductions, resolving to the unpacked list."""
    result: "concurrent.futures.Future" = concurrent.futures.Future()
    remaining = [len(parts)]

    def finish(_: Any) -> None:
        remaining[0] -= 1
        if remaining[0]:
            return
        out: List[Any] = [None] * count
        try:
            for idxs, shapes, fut in parts:
                buf = fut.result()
                pieces = unpack(buf.reshape(-1), shapes) if len(idxs) > 1 else [buf]
                for i, piece in zip(idxs, pieces):
                    out[i] = piece
        except BaseException as e:  # noqa: BLE001 - delivered through the future
            result.set_exception(e)
        else:
            result.set_result(out)

    if not parts:
        result.set_result([])
    for _, _, fut in parts:
        fut.add_done_callback(finish)
    return result


def _done(value: Any) -> "concurrent.futures.Future":
    fut: "concurrent.futures.Future" = concurrent.futures.Future()
    fut.set_result(value)
    return fut


class LocalGroup(Group):
    """A group of one rank: every collective returns (a copy of) its input.

    It is what a single process without a cluster uses, so that a program
    written for all-reduce also runs alone, with the same arithmetic
    (``mean`` of one value is that value).
    """

    def __init__(self, name: str = "local"):
        self.name = name

    @property
    def rank(self) -> int:
        return 0

    @property
    def size(self) -> int:
        return 1

    def all_reduce_async(self, value: Any, reduction: str = SUM, *,
                         compression: Optional[str] = None, timeout: Optional[float] = None,
                         out: Optional[np.ndarray] = None) -> "concurrent.futures.Future":
        check_reduction(reduction)
        comp = check_compression(compression)
        arr = as_array(value, "all_reduce")
        if out is None:
            out = np.empty_like(arr)
        np.copyto(out, arr)
        wdt = wire_dtype(arr.dtype, comp)
        if wdt != arr.dtype:
            # The same rounding a multi-rank group applies, so results do not depend on size.
            np.copyto(out, out.astype(wdt))
        return _done(out)

    def all_gather(self, value: Any, *, timeout: Optional[float] = None) -> np.ndarray:
        arr = as_array(value, "all_gather")
        if arr.ndim == 0:
            raise errors.InvalidArgumentError(None, None, "all_gather needs a tensor of rank >= 1")
        return arr.copy()

    def broadcast(self, value: Any, root: int = 0, *,
                  timeout: Optional[float] = None) -> np.ndarray:
        if root != 0:
            raise errors.InvalidArgumentError(
                None, None, f"broadcast root {root} is not a rank of a group of 1")
        return as_array(value, "broadcast").copy()

    def reduce_scatter(self, value: Any, reduction: str = SUM, *,
                       timeout: Optional[float] = None) -> np.ndarray:
        check_reduction(reduction)
        arr = as_array(value, "reduce_scatter")
        if arr.ndim == 0:
            raise errors.InvalidArgumentError(
                None, None, "reduce_scatter needs a tensor of rank >= 1")
        return arr.copy()

    def barrier(self, *, timeout: Optional[float] = None) -> None:
        return None


# ---------------------------------------------------------------------------- tensor fusion
# A reduction of a few kilobytes costs about as much as one of a megabyte (round
# trips dominate), so tensors of one dtype travel packed back to back in one buffer.


def pack(arrays: Sequence[np.ndarray], out: Optional[np.ndarray] = None) -> np.ndarray:
    """The arrays' elements back to back in one flat buffer (``out`` reused if it fits).

    Raises:
      InvalidArgumentError: the arrays do not share one dtype.
    """
    if not arrays:
        return np.empty(0, np.float32)
    dtype = arrays[0].dtype
    total = 0
    for a in arrays:
        if a.dtype != dtype:
            raise errors.InvalidArgumentError(
                None, None, f"a fused buffer holds one dtype, got {dtype} and {a.dtype}")
        total += a.size
    if out is None or out.dtype != dtype or out.size != total:
        out = np.empty(total, dtype)
    pos = 0
    for a in arrays:
        out[pos:pos + a.size] = a.reshape(-1)
        pos += a.size
    return out


def unpack(buffer: np.ndarray, shapes: Sequence[Sequence[int]]) -> List[np.ndarray]:
    """Views of ``buffer`` with the given shapes, in order.

    Raises:
      InvalidArgumentError: the shapes do not add up to the buffer's size.
    """
    out: List[np.ndarray] = []
    pos = 0
    for shape in shapes:
        n = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
        out.append(buffer[pos:pos + n].reshape(shape))
        pos += n
    if pos != buffer.size:
        raise errors.InvalidArgumentError(
            None, None, f"fused buffer of {buffer.size} elements does not match the shapes "
            f"{[list(s) for s in shapes]} ({pos} elements)")
    return out


def group_by_dtype(arrays: Sequence[np.ndarray]) -> List[List[int]]:
    """Indices of ``arrays`` grouped by dtype, in order of first appearance."""
    groups: dict = {}
    for i, a in enumerate(arrays):
        groups.setdefault(a.dtype.str, []).append(i)
    return list(groups.values())


def check_peers(addresses: Sequence[str], rank: int) -> Tuple[List[str], int]:
    """Validates a peer list and a rank; InvalidArgumentError with the reason."""
    addrs = [str(a) for a in addresses]
    if not addrs:
        raise errors.InvalidArgumentError(None, None, "a group needs at least one address")
    if isinstance(rank, bool) or not isinstance(rank, (int, np.integer)) \
            or not 0 <= int(rank) < len(addrs):
        raise errors.InvalidArgumentError(
            None, None, f"rank {rank!r} is not in 0..{len(addrs) - 1} for {len(addrs)} addresses")
    if len(set(addrs)) != len(addrs):
        raise errors.InvalidArgumentError(
            None, None, f"the group's addresses must be distinct, got {addrs}")
    return addrs, int(rank)


__all__ = [
    "SUM", "MEAN", "MAX", "MIN", "REDUCTIONS", "NO_COMPRESSION", "FP16", "COMPRESSIONS",
    "DEFAULT_TIMEOUT", "Group", "LocalGroup", "merge_fn", "contiguous", "check_reduction",
    "check_compression", "as_array", "wire_dtype", "segment_bounds", "check_peers", "pack",
    "unpack", "group_by_dtype",
]
