"""Executable plans: the primitives of one kernel call and their cache.

A plan is built once per (op, shapes, dtype, attributes, thread limit) and then only
run: each run binds the caller's numpy arrays to the plan's memory objects and
executes its primitives in order. Where a primitive wants a layout other than the
caller's (oneDNN's blocked filter layouts, say), the plan holds a buffer in that
layout and a reorder primitive into or out of it, both built with the plan, so a
training step builds nothing after its first run.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Any, Callable, Dict, Hashable, List, Optional, Tuple

import numpy as np

from tensorfleet.kernels.onednn import library as dnnl
from tensorfleet.kernels.onednn import threads

logger = logging.getLogger(__name__)

# Plans kept per process; a program with varying shapes (a last, shorter batch) keeps
# its few recent ones, the oldest go first.
CACHE_SIZE = 512


class Plan:
    """The primitives of one kernel call, with the memory objects they read and write."""

    def __init__(self, lib: dnnl.Library):
        self.lib = lib
        self.user: Dict[str, dnnl.Memory] = {}
        self.steps: List[Tuple[dnnl.Primitive, List[Tuple[int, dnnl.Memory]]]] = []
        self._after: List[Tuple[dnnl.Primitive, List[Tuple[int, dnnl.Memory]]]] = []
        self.impl = ""
        # Objects the primitives refer to without owning (a backward pass's forward hint).
        self.keep: Any = None
        # Bytes of the workspace a training-mode pooling writes (0: none).
        self.workspace_bytes = 0

    def _user(self, name: str, user_md: dnnl.MemoryDesc) -> dnnl.Memory:
        m = dnnl.Memory(self.lib, user_md)
        self.user[name] = m
        return m

    def input(self, name: str, user_md: dnnl.MemoryDesc, want: Any) -> dnnl.Memory:
        """The memory a primitive reads ``name`` from: the caller's array itself when
        the layouts agree, else a buffer filled by a reorder run before it."""
        um = self._user(name, user_md)
        if dnnl.same_layout(self.lib, user_md, want):
            return um
        m = dnnl.Memory(self.lib, want).own(self.lib.dll.dnnl_memory_desc_get_size(want))
        self.steps.append((dnnl.reorder(self.lib, user_md, want),
                           [(dnnl.ARG_FROM, um), (dnnl.ARG_TO, m)]))
        return m

    def output(self, name: str, user_md: dnnl.MemoryDesc, have: Any) -> dnnl.Memory:
        """The memory a primitive writes ``name`` to: the caller's array itself when
        the layouts agree, else a buffer reordered into it after the primitives."""
        um = self._user(name, user_md)
        if dnnl.same_layout(self.lib, user_md, have):
            return um
        m = dnnl.Memory(self.lib, have).own(self.lib.dll.dnnl_memory_desc_get_size(have))
        self._after.append((dnnl.reorder(self.lib, have, user_md),
                            [(dnnl.ARG_FROM, m), (dnnl.ARG_TO, um)]))
        return m

    def scratch(self, md: Any) -> dnnl.Memory:
        """A buffer of the plan's own (a pooling workspace, an intermediate result)."""
        return dnnl.Memory(self.lib, md).own(self.lib.dll.dnnl_memory_desc_get_size(md))

    def add(self, prim: dnnl.Primitive, args: List[Tuple[int, dnnl.Memory]]) -> None:
        """Appends a primitive run after the input reorders added so far."""
        self.steps.append((prim, args))
        self.impl = self.impl or prim.impl

    def finish(self) -> "Plan":
        self.steps.extend(self._after)
        self._after = []
        return self

    def run(self, n_threads: int, **arrays: np.ndarray) -> None:
        """Runs the plan over C-contiguous float32 ``arrays`` (one per user slot)."""
        lib = self.lib
        with lib.lock:
            lib.set_threads(n_threads)
            for name, arr in arrays.items():
                self.user[name].bind(arr)
            for prim, args in self.steps:
                prim.execute(args)
            lib.call("dnnl_stream_wait", lib.stream)

    def run_alone(self, **arrays: np.ndarray) -> None:
        """Runs a plan that only the calling thread uses (from ``cached_here``) on
        one OpenMP thread and the thread's own stream, beside other such runs."""
        lib = self.lib
        lib.set_threads(1)
        stream = lib.thread_stream()
        for name, arr in arrays.items():
            self.user[name].bind(arr)
        for prim, args in self.steps:
            prim.execute(args, stream)
        lib.call("dnnl_stream_wait", stream)


_cache: "collections.OrderedDict[Hashable, Optional[Plan]]" = collections.OrderedDict()
_cache_lock = threading.Lock()
_failed_logged: set = set()


def _build(lib: dnnl.Library, key: Hashable, build: Callable[[dnnl.Library, int], Plan],
           n: int) -> Optional[Plan]:
    try:
        return build(lib, n).finish()
    except dnnl.OneDNNError as e:
        # A shape or attribute combination oneDNN does not implement: the reference
        # kernel runs it, and the same key does not try again.
        if key[0] not in _failed_logged:
            _failed_logged.add(key[0])
            logger.info("oneDNN cannot run %s %s (%s); using the numpy kernel for it",
                        key[0], key[1:], e)
        return None


def cached(key: Hashable, build: Callable[[dnnl.Library, int], Plan]) -> Tuple[Optional[Plan], int]:
    """The plan for ``key`` at the current thread limit, built by ``build`` on a miss;
    (None, n) when oneDNN cannot run it (the caller falls back to the reference kernel).

    Raises:
      LibraryUnavailable: oneDNN could not be loaded.
    """
    lib = dnnl.load()
    n = threads.limit()
    full = (key, n)
    with _cache_lock:
        if full in _cache:
            _cache.move_to_end(full)
            return _cache[full], n
    # Primitives fix their thread partitioning when built, from this thread's OpenMP
    # setting: it must be the one they will run with.
    lib.set_threads(n)
    plan = _build(lib, key, build, n)
    with _cache_lock:
        _cache[full] = plan
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    if plan is not None:
        logger.debug("oneDNN plan for %s: %s", key, plan.impl)
    return plan, n


def cached_here(key: Hashable, build: Callable[[dnnl.Library, int], Plan]) -> Optional[Plan]:
    """The calling thread's own one-thread plan for ``key``, for ``Plan.run_alone``;
    None when oneDNN cannot run it. Built in the thread that runs it: oneDNN's default
    scratchpad is shared by the primitives of a thread, so a primitive may run beside
    others only in the thread that created it."""
    lib = dnnl.load()
    full = (key, "thread", threading.get_ident())
    with _cache_lock:
        if full in _cache:
            _cache.move_to_end(full)
            return _cache[full]
    lib.set_threads(1)
    plan = _build(lib, key, build, 1)
    with _cache_lock:
        _cache[full] = plan
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
    return plan


def cache_info() -> Dict[str, int]:
    """How many plans the cache holds (and how many are reference fallbacks)."""
    with _cache_lock:
        return {"plans": sum(p is not None for p in _cache.values()),
                "fallbacks": sum(p is None for p in _cache.values())}


def clear_cache() -> None:
    """Drops every cached plan (they are rebuilt on their next use)."""
    with _cache_lock:
        _cache.clear()


__all__ = ["Plan", "cached", "cached_here", "cache_info", "clear_cache", "CACHE_SIZE"]
