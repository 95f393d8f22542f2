"""Reusable receive buffers for big messages.

A big tensor that arrives from another task lands in a fresh buffer, and a big
reply is snapshotted into one before it is sent. Fresh memory is not free: the
kernel maps and zeroes every page on first touch, and on a virtual machine that
lazily backs guest memory a first touch can cost far more. Measured on this
project's 2-core VM, receiving a 64 MiB tensor into fresh memory took 1,088 page
faults and anywhere from 26 to 230 ms of CPU for the same faults, so fetch times
swung from 50 to 400 ms from one step to the next. A step that moves the same
tensors every time should reuse the same, already-mapped memory.

``BufferPool.take(n)`` returns an uninitialised ``uint8`` array of ``n`` bytes.
Its memory goes back to the pool by itself when that array and every array
viewing it (the tensors ``wire.decode`` made of it, the user's fetched values)
are gone, so nothing is ever handed out twice while still in use. The pool
keeps at most ``max_bytes`` of idle memory; buffers below ``min_bytes`` are
plain ``np.empty`` (small allocations come from malloc's heap and fault little).
"""

from __future__ import annotations

import threading
import weakref
from typing import Dict, List

import numpy as np

from tensorfleet.runtime import process

MIN_POOLED_BYTES = 1 << 20
DEFAULT_MAX_IDLE_BYTES = 512 << 20


def size_class(nbytes: int) -> int:
    """``nbytes`` rounded up so a size class wastes at most 1/8 of a buffer: a tensor
    of a slightly different size next time still reuses the same memory."""
    if nbytes <= 0:
        return 0
    step = 1 << max(0, nbytes.bit_length() - 4)
    return -(-nbytes // step) * step


class BufferPool:
    """Idle big buffers by size class, handed out again once nothing views them."""

    def __init__(self, max_idle_bytes: int = DEFAULT_MAX_IDLE_BYTES,
                 min_bytes: int = MIN_POOLED_BYTES):
        self.max_idle_bytes = int(max_idle_bytes)
        self.min_bytes = int(min_bytes)
        self._lock = threading.Lock()
        self._idle: Dict[int, List[np.ndarray]] = {}
        self._idle_bytes = 0
        # Every buffer handed out and still alive, by identity: ``is_message_buffer``.
        self._live: Dict[int, "weakref.ref[np.ndarray]"] = {}
        self.reused = 0
        self.allocated = 0

    def take(self, nbytes: int) -> np.ndarray:
        """An uninitialised ``uint8`` array of exactly ``nbytes`` bytes."""
        nbytes = int(nbytes)
        if nbytes < self.min_bytes or self.max_idle_bytes <= 0:
            out = np.empty(nbytes, dtype=np.uint8)
            self._remember(out)
            return out
        cls = size_class(nbytes)
        slab = None
        with self._lock:
            free = self._idle.get(cls)
            if free:
                slab = free.pop()
                self._idle_bytes -= cls
                self.reused += 1
            else:
                self.allocated += 1
        if slab is None:
            slab = np.empty(cls, dtype=np.uint8)
        # Through a memoryview, not a slice: numpy points a view of a view at the
        # memory's owner, so a slice of a slice of ``slab`` would outlive ``out``
        # without keeping it alive. A view of ``out`` here keeps ``out`` alive.
        out = np.frombuffer(memoryview(slab)[:nbytes], dtype=np.uint8)
        weakref.finalize(out, self._give_back, slab)
        self._remember(out)
        return out

    def _remember(self, out: np.ndarray) -> None:
        key = id(out)
        self._live[key] = weakref.ref(out, lambda _ref: self._live.pop(key, None))

    def is_message_buffer(self, arr: np.ndarray) -> bool:
        """Whether ``arr`` views memory that came from ``take``: a received message
        that nothing else refers to, so the array may be handed on without a copy."""
        obj: object = arr
        for _ in range(8):  # decode makes arrays two or three hops from the buffer
            base = getattr(obj, "base", None) if isinstance(obj, np.ndarray) else \
                getattr(obj, "obj", None)
            if base is None:
                return False
            if isinstance(base, np.ndarray):
                ref = self._live.get(id(base))
                if ref is not None and ref() is base:
                    return True
            obj = base
        return False

    def _give_back(self, slab: np.ndarray) -> None:
        with self._lock:
            if self._idle_bytes + slab.nbytes > self.max_idle_bytes:
                return  # over the bound: let it be freed
            self._idle.setdefault(slab.nbytes, []).append(slab)
            self._idle_bytes += slab.nbytes

    @property
    def idle_bytes(self) -> int:
        """Bytes of memory the pool holds for reuse right now."""
        with self._lock:
            return self._idle_bytes

    def clear(self) -> None:
        """Drops every idle buffer (their memory is freed)."""
        with self._lock:
            self._idle.clear()
            self._idle_bytes = 0


def pool() -> BufferPool:
    """The process's buffer pool (a ``ProcessRuntime`` component, made on first use)."""
    return process.current().component("transport.buffers", BufferPool, BufferPool.clear)


def take(nbytes: int) -> np.ndarray:
    """``pool().take``: the buffer a big received message or reply snapshot goes into."""
    return pool().take(nbytes)


def copy_of(arr: np.ndarray) -> np.ndarray:
    """A copy of ``arr`` in the process's pooled memory (a plain copy when small or
    of object dtype): a reply snapshotted every step then reuses mapped pages."""
    if arr.nbytes < MIN_POOLED_BYTES or arr.dtype.hasobject:
        return arr.copy()
    out = take(arr.nbytes).view(arr.dtype).reshape(arr.shape)
    np.copyto(out, arr)
    return out


def is_message_buffer(arr: np.ndarray) -> bool:
    """``pool().is_message_buffer``."""
    return pool().is_message_buffer(arr)


def __getattr__(name: str) -> object:
    # ``buffers.POOL`` still names the current runtime's pool.
    if name == "POOL":
        return pool()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["BufferPool", "pool", "take", "copy_of", "is_message_buffer", "size_class",
           "MIN_POOLED_BYTES"]
