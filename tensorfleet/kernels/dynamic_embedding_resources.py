"""The storage of a dynamic embedding table: rows created on first use, keyed by id.

A ``DynamicEmbeddingTable`` lives in the resource manager of the task holding it
(a parameter server), like a variable. Its memory follows the live rows:

* ids map to rows through ``_SortedIndex``, a sorted int64 key array with a
  parallel row array, so finding a batch of ids is one vectorised
  ``searchsorted`` and inserting new ids one ``np.insert`` (a memory move);
* the rows (values, frequencies, last-seen steps, optimizer slots) sit in numpy
  arrays that grow by doubling; rows freed by eviction are reused first, so the
  arrays never exceed the peak number of live rows rounded up to a power of two;
* ids seen fewer than ``min_frequency`` times only have a count (no row), in a
  second sorted index.

String ids are keyed by their 64-bit FarmHash fingerprint; the strings themselves
are kept per row so that an export gives them back.
"""

from __future__ import annotations

import threading
import zlib
from typing import Dict, List, Optional, Sequence, Tuple

import farmhash
import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.compat.text import as_bytes

INIT_KINDS = ("zeros", "ones", "constant", "random_uniform", "random_normal",
              "truncated_normal")
OPTIMIZER_SLOTS: Dict[str, Tuple[Tuple[str, int], ...]] = {
    # kind -> (slot name, width: 0 means the embedding dimension)
    "sgd": (),
    "adagrad": (("accumulator", 0),),
    "adam": (("m", 0), ("v", 0), ("t", 1)),
}


def hash_string_keys(keys: np.ndarray) -> np.ndarray:
    """The int64 key of each string id: its FarmHash Fingerprint64."""
    flat = keys.reshape(-1)
    fps = np.fromiter((farmhash.fingerprint64(as_bytes(k)) for k in flat), dtype=np.uint64,
                      count=flat.size)
    return fps.view(np.int64)


def config_of(dim: int, dtype: _dtypes.DType, key_dtype: _dtypes.DType, init_kind: str,
              init_params: Sequence[float], seed: int, min_frequency: int, capacity: int,
              evict_after_steps: int) -> tuple:
    """What two table ops naming the same resource must agree on."""
    return (int(dim), dtype, key_dtype, init_kind, tuple(float(p) for p in init_params),
            int(seed), int(min_frequency), int(capacity), int(evict_after_steps))


class _SortedIndex:
    """Unique int64 keys kept sorted, each with an int64 payload (a row or a count)."""

    def __init__(self) -> None:
        self.keys = np.empty(0, np.int64)
        self.vals = np.empty(0, np.int64)

    def __len__(self) -> int:
        return int(self.keys.size)

    def positions(self, q: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
        """``(pos, found)``: where each query key sits and whether it is present."""
        if not self.keys.size:
            return np.zeros(q.size, np.int64), np.zeros(q.size, bool)
        pos = np.minimum(np.searchsorted(self.keys, q), self.keys.size - 1)
        return pos, self.keys[pos] == q

    def find(self, q: np.ndarray) -> np.ndarray:
        """The payload of each key, -1 where absent."""
        pos, found = self.positions(q)
        return np.where(found, self.vals[pos] if self.vals.size else -1, -1)

    def insert(self, keys: np.ndarray, vals: np.ndarray) -> None:
        """Adds keys (unique and absent) with their payloads."""
        if not keys.size:
            return
        order = np.argsort(keys, kind="stable")
        keys, vals = keys[order], vals[order]
        at = np.searchsorted(self.keys, keys)
        self.keys = np.insert(self.keys, at, keys)
        self.vals = np.insert(self.vals, at, vals)

    def keep(self, mask: np.ndarray) -> None:
        """Keeps only the entries where ``mask`` (over the sorted order) is True."""
        self.keys = self.keys[mask]
        self.vals = self.vals[mask]


class DynamicEmbeddingTable:
    """One shard of a dynamic embedding: id -> row of ``dim`` values, made on first use.

    Args:
      name: the resource name (the table op's shared name).
      dim: the row width.
      dtype: the value dtype (a float dtype).
      key_dtype: int32, int64 or string.
      init_kind, init_params, seed: how a new row is filled (see ``INIT_KINDS``).
      min_frequency: an id gets a row once it was looked up this many times.
      capacity: at most this many rows (0: unbounded); the least recently used go.
      evict_after_steps: a row not looked up during this many consecutive steps goes
        (0: never).
    """

    def __init__(self, name: str, dim: int, dtype: _dtypes.DType, key_dtype: _dtypes.DType,
                 init_kind: str, init_params: Sequence[float], seed: int,
                 min_frequency: int, capacity: int, evict_after_steps: int):
        self.name = name
        self.dim = int(dim)
        self.dtype = dtype
        self.key_dtype = key_dtype
        self.config = config_of(dim, dtype, key_dtype, init_kind, init_params, seed,
                                min_frequency, capacity, evict_after_steps)
        self.init_kind, self.init_params = init_kind, [float(p) for p in init_params]
        self.min_frequency = max(1, int(min_frequency))
        self.capacity = int(capacity)
        self.evict_after_steps = int(evict_after_steps)
        self.lock = threading.Lock()
        self.step = 0
        # The shard's name joins the seed: shards of one variable draw different rows.
        self._rng = np.random.default_rng([int(seed) & 0xFFFFFFFF,
                                           zlib.crc32(name.encode("utf-8"))])
        self._reset()

    def _reset(self) -> None:
        self._index = _SortedIndex()
        self._pending = _SortedIndex()  # id -> count, for ids below min_frequency
        self._pending_seen = np.empty(0, np.int64)
        self._values = np.empty((0, self.dim), self.dtype.np)
        self._freq = np.empty(0, np.int64)
        self._seen = np.empty(0, np.int64)
        self._strings = np.empty(0, object) if self.key_dtype is _dtypes.string else None
        self._slots: Dict[str, np.ndarray] = {}
        self._slot_init: Dict[str, float] = {}
        self._free = np.empty(0, np.int64)
        self._high = 0  # rows [0, _high) have been handed out at least once

    # -- bookkeeping ---------------------------------------------------------------------
    def size(self) -> int:
        """The number of live rows."""
        return len(self._index)

    def pending_size(self) -> int:
        """The number of ids counted but still below ``min_frequency``."""
        return len(self._pending)

    def allocated_rows(self) -> int:
        """The row capacity of the arrays (a power of two, or 0)."""
        return int(self._freq.size)

    def nbytes(self) -> int:
        """Bytes held by the arrays of this table."""
        arrays = [self._values, self._freq, self._seen, self._free, self._index.keys,
                  self._index.vals, self._pending.keys, self._pending.vals,
                  self._pending_seen] + list(self._slots.values())
        return int(sum(a.nbytes for a in arrays))

    def keys_of(self, ids: np.ndarray) -> np.ndarray:
        """The int64 keys of a batch of ids (fingerprints for strings)."""
        if self.key_dtype is _dtypes.string:
            return hash_string_keys(np.asarray(ids, dtype=object))
        return np.asarray(ids).astype(np.int64, copy=False).reshape(-1)

    def _grow(self, need: int) -> None:
        cap = self._freq.size
        if need <= cap:
            return
        new = max(16, cap)
        while new < need:
            new *= 2

        def grown(a: np.ndarray) -> np.ndarray:
            out = np.zeros((new,) + a.shape[1:], a.dtype)
            out[:a.shape[0]] = a
            return out
        self._values, self._freq, self._seen = (grown(self._values), grown(self._freq),
                                                grown(self._seen))
        if self._strings is not None:
            self._strings = grown(self._strings)
        for k in list(self._slots):
            self._slots[k] = grown(self._slots[k])

    def _initial_values(self, n: int) -> np.ndarray:
        shape, p, rng = (n, self.dim), self.init_params, self._rng
        kind = self.init_kind
        if kind == "zeros":
            out = np.zeros(shape)
        elif kind == "ones":
            out = np.ones(shape)
        elif kind == "constant":
            out = np.full(shape, p[0])
        elif kind == "random_uniform":
            out = rng.uniform(p[0], p[1], shape)
        elif kind == "random_normal":
            out = rng.normal(p[0], p[1], shape)
        else:  # truncated_normal: values beyond two standard deviations are drawn again
            out = rng.standard_normal(shape)
            bad = np.abs(out) > 2.0
            while bad.any():
                out[bad] = rng.standard_normal(int(bad.sum()))
                bad = np.abs(out) > 2.0
            out = p[0] + p[1] * out
        return out.astype(self.dtype.np, copy=False)

    def _allocate(self, n: int) -> np.ndarray:
        """``n`` fresh rows (freed ones first), their slots at the slot initial values."""
        reuse = self._free[:n]
        self._free = self._free[n:]
        extra = n - reuse.size
        if extra:
            self._grow(self._high + extra)
            reuse = np.concatenate([reuse, np.arange(self._high, self._high + extra)])
            self._high += extra
        for k, arr in self._slots.items():
            arr[reuse] = self._slot_init[k]
        return reuse.astype(np.int64, copy=False)

    def _drop_rows(self, rows: np.ndarray) -> None:
        if not rows.size:
            return
        dead = np.zeros(self._high, bool)
        dead[rows] = True
        self._index.keep(~dead[self._index.vals])
        if self._strings is not None:
            self._strings[rows] = None
        self._free = np.concatenate([self._free, rows])

    # -- the kernels' entry points --------------------------------------------------------
    def lookup(self, ids: np.ndarray, training: bool) -> np.ndarray:
        """The rows of ``ids`` (zeros for ids without one), shape ``ids.shape + [dim]``.

        In training, ids are counted, rows are created for ids that reach
        ``min_frequency`` and the last-seen step of every looked-up row is updated.
        """
        ids = np.asarray(ids)
        keys = self.keys_of(ids)
        with self.lock:
            uniq, first, inv, counts = np.unique(keys, return_index=True, return_inverse=True,
                                                 return_counts=True)
            rows = self._index.find(uniq)
            if training:
                self._count(uniq, counts, rows, ids.reshape(-1)[first])
            hit = rows >= 0
            out = np.zeros((uniq.size, self.dim), self.dtype.np)
            out[hit] = self._values[rows[hit]]
        return out[inv.reshape(-1)].reshape(ids.shape + (self.dim,))

    def _count(self, uniq: np.ndarray, counts: np.ndarray, rows: np.ndarray,
               originals: np.ndarray) -> None:
        hit = rows >= 0
        self._freq[rows[hit]] += counts[hit]
        missing = ~hit
        if missing.any():
            mk, mc = uniq[missing], counts[missing]
            if self.min_frequency > 1:
                mc = self._count_pending(mk, mc)
                ready = mc >= self.min_frequency
            else:
                ready = np.ones(mk.size, bool)
            new_keys = mk[ready]
            if new_keys.size:
                new_rows = self._allocate(new_keys.size)
                self._values[new_rows] = self._initial_values(new_keys.size)
                self._freq[new_rows] = mc[ready]
                if self._strings is not None:
                    # Kept as bytes, as every string tensor is.
                    self._strings[new_rows] = [as_bytes(k) for k in originals[missing][ready]]
                self._index.insert(new_keys, new_rows)
                where = np.flatnonzero(missing)[ready]
                rows[where] = new_rows
        live = rows[rows >= 0]
        self._seen[live] = self.step
        if self.capacity and self.size() > self.capacity:
            self._evict_lru(live)

    def _count_pending(self, keys: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Adds ``counts`` to the pending ids ``keys``; returns their totals. Ids that
        reach ``min_frequency`` leave the pending index (they get a row)."""
        p = self._pending
        pos, found = p.positions(keys)
        totals = counts.copy()
        totals[found] += p.vals[pos[found]]
        p.vals[pos[found]] = totals[found]
        self._pending_seen[pos[found]] = self.step
        new = ~found & (totals < self.min_frequency)
        if new.any():
            order = np.argsort(keys[new], kind="stable")
            nk, nc = keys[new][order], totals[new][order]
            at = np.searchsorted(p.keys, nk)
            p.keys = np.insert(p.keys, at, nk)
            p.vals = np.insert(p.vals, at, nc)
            self._pending_seen = np.insert(self._pending_seen, at,
                                           np.full(nk.size, self.step, np.int64))
        graduated = found & (totals >= self.min_frequency)
        if graduated.any():
            pos2, _ = p.positions(keys[graduated])
            keep = np.ones(len(p), bool)
            keep[pos2] = False
            p.keep(keep)
            self._pending_seen = self._pending_seen[keep]
        return totals

    def _evict_lru(self, protected: np.ndarray) -> None:
        excess = self.size() - self.capacity
        rows = self._index.vals
        guard = np.zeros(self._high, bool)
        guard[protected] = True
        cand = rows[~guard[rows]]
        if cand.size < excess:
            raise errors.InvalidArgumentError(
                None, None, f"Dynamic embedding {self.name!r}: one batch holds "
                f"{protected.size} distinct ids with rows, more than capacity "
                f"{self.capacity}")
        # Oldest last-seen step first; among equals, the least frequent.
        order = np.lexsort((self._freq[cand], self._seen[cand]))
        self._drop_rows(cand[order[:excess]])

    def ensure_slots(self, kind: str, init: Dict[str, float]) -> List[np.ndarray]:
        """The slot arrays of optimizer ``kind``, created (for every live row) if new."""
        out = []
        for name, width in OPTIMIZER_SLOTS[kind]:
            arr = self._slots.get(name)
            if arr is None:
                shape = (self._freq.size, width or self.dim)
                arr = self._slots[name] = np.full(shape, init.get(name, 0.0), self.dtype.np)
                self._slot_init[name] = init.get(name, 0.0)
            out.append(arr)
        return out

    def apply(self, kind: str, ids: np.ndarray, grads: np.ndarray, hyper: Dict[str, float],
              slot_init: Dict[str, float]) -> None:
        """Applies one step of optimizer ``kind`` to the rows of ``ids``; the gradient
        rows of a repeated id are summed, ids without a row are skipped. Then the
        table's step advances and rows unused for too long are dropped."""
        keys = self.keys_of(ids)
        grads = np.asarray(grads, self.dtype.np).reshape(keys.size, self.dim)
        with self.lock:
            slots = self.ensure_slots(kind, slot_init)
            if keys.size:
                uniq, inv = np.unique(keys, return_inverse=True)
                order = np.argsort(inv, kind="stable")
                starts = np.searchsorted(inv[order], np.arange(uniq.size))
                g = np.add.reduceat(grads[order], starts, axis=0)
                rows = self._index.find(uniq)
                ok = rows >= 0
                self._update(kind, rows[ok], g[ok], slots, hyper)
            self.step += 1
            if self.evict_after_steps:
                self._evict_old()

    def _update(self, kind: str, rows: np.ndarray, g: np.ndarray, slots: List[np.ndarray],
                h: Dict[str, float]) -> None:
        lr = h["learning_rate"]
        if kind == "sgd":
            self._values[rows] -= (lr * g).astype(self.dtype.np)
        elif kind == "adagrad":
            acc = slots[0][rows] + g * g
            slots[0][rows] = acc
            self._values[rows] -= (lr * g / np.sqrt(acc)).astype(self.dtype.np)
        else:
            # Bias correction counts the updates of each row: a row made late in
            # training starts its moments from zero like any other.
            b1, b2, eps = h["beta1"], h["beta2"], h["epsilon"]
            m_s, v_s, t_s = slots
            t = t_s[rows] + 1.0
            t_s[rows] = t
            m = b1 * m_s[rows] + (1.0 - b1) * g
            v = b2 * v_s[rows] + (1.0 - b2) * g * g
            m_s[rows], v_s[rows] = m, v
            lr_t = lr * np.sqrt(1.0 - b2 ** t) / (1.0 - b1 ** t)
            self._values[rows] -= (lr_t * m / (np.sqrt(v) + eps)).astype(self.dtype.np)

    def _evict_old(self) -> None:
        limit = self.step - self.evict_after_steps
        rows = self._index.vals
        self._drop_rows(rows[self._seen[rows] < limit])
        if len(self._pending):
            keep = self._pending_seen >= limit
            self._pending.keep(keep)
            self._pending_seen = self._pending_seen[keep]

    # -- checkpoints ---------------------------------------------------------------------
    def export(self, slot_names: Sequence[str], slot_inits: Sequence[float],
               slot_widths: Sequence[int]) -> List[np.ndarray]:
        """``[keys, values, frequencies, last_seen, step, pending_keys, pending_counts,
        pending_last_seen, *slots]``, rows in key order; a slot the table does not
        have yet comes out at its initial value."""
        with self.lock:
            rows = self._index.vals
            keys = (self._strings[rows] if self._strings is not None
                    else self._index.keys.astype(self.key_dtype.np))
            out = [keys, self._values[rows], self._freq[rows], self._seen[rows],
                   np.array(self.step, np.int64), self._pending.keys.copy(),
                   self._pending.vals.copy(), self._pending_seen.copy()]
            for name, init, width in zip(slot_names, slot_inits, slot_widths):
                arr = self._slots.get(name)
                out.append(arr[rows] if arr is not None else
                           np.full((rows.size, width or self.dim), init, self.dtype.np))
        return out

    def load(self, keys: np.ndarray, values: np.ndarray, freqs: np.ndarray,
             seen: np.ndarray, step: np.ndarray, pending_keys: np.ndarray,
             pending_counts: np.ndarray, pending_seen: np.ndarray,
             slots: Dict[str, Tuple[np.ndarray, float]]) -> None:
        """Replaces the whole content (a checkpoint restore)."""
        n = int(np.asarray(keys).size)
        values = np.asarray(values, self.dtype.np)
        if values.size != n * self.dim:
            raise errors.InvalidArgumentError(
                None, None, f"Dynamic embedding {self.name!r}: cannot restore values of shape "
                f"{list(values.shape)} for {n} keys of dimension {self.dim}")
        values = values.reshape(n, self.dim)
        for name, (arr, _) in slots.items():
            if np.asarray(arr).shape[:1] != (n,):
                raise errors.InvalidArgumentError(
                    None, None, f"Dynamic embedding {self.name!r}: slot {name!r} to restore "
                    f"has shape {list(np.asarray(arr).shape)}, not {n} rows")
        for what, a in (("frequencies", freqs), ("last-seen steps", seen)):
            if np.asarray(a).size != n:
                raise errors.InvalidArgumentError(
                    None, None, f"Dynamic embedding {self.name!r}: {n} keys but "
                    f"{np.asarray(a).size} {what} to restore")
        if not (np.asarray(pending_keys).size == np.asarray(pending_counts).size
                == np.asarray(pending_seen).size):
            raise errors.InvalidArgumentError(
                None, None, f"Dynamic embedding {self.name!r}: pending keys, counts and "
                f"steps to restore differ in length")
        with self.lock:
            self._reset()
            self._grow(n)
            self._high = n
            rows = np.arange(n, dtype=np.int64)
            self._values[:n] = values
            self._freq[:n] = np.asarray(freqs, np.int64).reshape(-1)
            self._seen[:n] = np.asarray(seen, np.int64).reshape(-1)
            if self._strings is not None:
                self._strings[:n] = np.asarray(keys, object).reshape(-1)
            self._index.insert(self.keys_of(keys), rows)
            if self._index.keys.size != n:
                raise errors.InvalidArgumentError(
                    None, None, f"Dynamic embedding {self.name!r}: repeated keys to restore")
            pk = np.asarray(pending_keys, np.int64).reshape(-1)
            order = np.argsort(pk, kind="stable")
            self._pending.keys = pk[order]
            self._pending.vals = np.asarray(pending_counts, np.int64).reshape(-1)[order]
            self._pending_seen = np.asarray(pending_seen, np.int64).reshape(-1)[order]
            for name, (arr, init) in slots.items():
                full = np.full((self._freq.size,) + np.asarray(arr).shape[1:], init,
                               self.dtype.np)
                full[:n] = arr
                self._slots[name], self._slot_init[name] = full, float(init)
            self.step = int(step)


def find_table(resources: object, container: str, name: str
               ) -> Optional[DynamicEmbeddingTable]:
    """The table ``name`` of a resource manager, or None (for inspection and tests)."""
    r = resources.find(container, name)  # type: ignore[attr-defined]
    return r if isinstance(r, DynamicEmbeddingTable) else None


__all__ = ["DynamicEmbeddingTable", "config_of", "INIT_KINDS", "OPTIMIZER_SLOTS",
           "hash_string_keys", "find_table"]
