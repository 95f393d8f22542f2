"""Value stages of ``tf.data`` pipelines: stages that must see element values.

Most pipelines stream row indices (see ``dataset_kernels.py``); a pipeline switches
to values at the first stage that needs them (``filter``, ``padded_batch``,
``unbatch``, a map run in the kernel) or starts with values (``zip``,
``concatenate``, ``from_generator``). In value mode an element is a tuple of numpy
arrays, one per flat component, and ``batch`` stacks them.

Functions (map and filter) arrive as ``SubGraph`` attrs and are compiled into
executor plans once per iterator initialisation; a Python generator
(``from_generator``) cannot travel as plain data, so it stays in a registry of the
process that built the graph and the source names it by token.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import uuid
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.kernels.registry import plan_builder
from tensorfleet.kernels.registry import DEAD

logger = logging.getLogger(__name__)

Element = Tuple[np.ndarray, ...]
VALUE_STAGES = ("filter", "padded_batch", "unbatch", "map", "group_by_window",
                "bucket_by_sequence_length", "unique", "take_while")

_GENERATORS: Dict[str, Callable[[], Iterable[Element]]] = {}
_GEN_LOCK = threading.Lock()


def register_generator(make: Callable[[], Iterable[Element]]) -> str:
    """Keeps ``make`` (a callable returning an iterable of flat element tuples) in this
    process and returns the token a ``generator`` source names it by."""
    token = f"{os.getpid()}:{uuid.uuid4().hex}"
    with _GEN_LOCK:
        _GENERATORS[token] = make
    return token


def unregister_generator(token: str) -> None:
    """Forgets a generator (when the graph that uses it is gone)."""
    with _GEN_LOCK:
        _GENERATORS.pop(token, None)


def lookup_generator(token: Any, op_name: Optional[str]) -> Callable[[], Iterable[Element]]:
    """The generator registered under ``token``; FailedPreconditionError when the
    iterator runs in a process other than the one whose graph called from_generator."""
    with _GEN_LOCK:
        make = _GENERATORS.get(token) if isinstance(token, str) else None
    if make is None:
        owner = token.split(":", 1)[0] if isinstance(token, str) else "?"
        raise errors.FailedPreconditionError(
            op_name, None, f"Dataset.from_generator: the Python generator lives in process "
            f"{owner}, which built the graph, but this iterator runs in process "
            f"{os.getpid()}. Place the iterator on a device of the building process's task "
            f"(for example with tf.device on the local worker).")
    return make


class Gather:
    """Index elements turned into value elements by ``gather``."""

    def __init__(self, up: Iterable[Any], gather: Callable[[Any, Optional[str]], List[Any]]):
        self.up, self.gather = up, gather

    def __iter__(self) -> Iterator[Element]:
        for x in self.up:
            yield tuple(self.gather(x, None))


class Generator:
    """The elements of a registered Python generator, restarted on every iteration."""

    def __init__(self, make: Callable[[], Iterable[Element]]):
        self.make = make

    def __iter__(self) -> Iterator[Element]:
        return iter(self.make())


class Zip:
    """Elements of several pipelines taken in step, their components concatenated."""

    def __init__(self, children: Sequence[Iterable[Element]]):
        self.children = children

    def __iter__(self) -> Iterator[Element]:
        for parts in zip(*self.children):
            yield tuple(c for part in parts for c in part)


class Concatenate:
    """The elements of several pipelines, one after the other."""

    def __init__(self, children: Sequence[Iterable[Element]]):
        self.children = children

    def __iter__(self) -> Iterator[Element]:
        return itertools.chain.from_iterable(self.children)


def _stack(parts: List[np.ndarray], i: int) -> np.ndarray:
    try:
        return np.stack(parts)
    except ValueError:
        raise errors.InvalidArgumentError(
            None, None, f"Cannot batch tensors with different shapes in component {i}: "
            f"{sorted({tuple(p.shape) for p in parts})}. Use padded_batch.") from None


class ValueBatch:
    """``batch`` in value mode: stacks each component of consecutive elements."""

    def __init__(self, up: Iterable[Element], size: int, drop: bool):
        self.up, self.size, self.drop = up, size, drop

    def __iter__(self) -> Iterator[Element]:
        it = iter(self.up)
        while True:
            chunk = list(itertools.islice(it, self.size))
            if not chunk or (self.drop and len(chunk) < self.size):
                return
            yield tuple(_stack([e[i] for e in chunk], i) for i in range(len(chunk[0])))


class PaddedBatch:
    """Batches, padding each component to ``shapes`` (-1: the batch's largest size)
    with its padding value."""

    def __init__(self, up: Iterable[Element], size: int, drop: bool,
                 shapes: List[List[int]], values: List[Any]):
        self.up, self.size, self.drop = up, size, drop
        self.shapes, self.values = shapes, values

    def __iter__(self) -> Iterator[Element]:
        it = iter(self.up)
        while True:
            chunk = list(itertools.islice(it, self.size))
            if not chunk or (self.drop and len(chunk) < self.size):
                return
            yield tuple(self._pad([e[i] for e in chunk], i) for i in range(len(chunk[0])))

    def _pad(self, parts: List[np.ndarray], i: int) -> np.ndarray:
        want = self.shapes[i]
        if any(p.ndim != len(want) for p in parts):
            raise errors.InvalidArgumentError(
                None, None, f"padded_batch: component {i} has elements of rank "
                f"{sorted({p.ndim for p in parts})}, but its padded shape {want} has rank "
                f"{len(want)}")
        sizes = np.array([p.shape for p in parts], dtype=np.int64).reshape(len(parts), -1)
        biggest = sizes.max(axis=0) if len(want) else np.zeros(0, np.int64)
        dims = [int(b) if d < 0 else d for d, b in zip(want, biggest)]
        for d, b, k in zip(dims, biggest, range(len(want))):
            if b > d:
                raise errors.InvalidArgumentError(
                    None, None, f"padded_batch: component {i} has an element of size {b} "
                    f"in dimension {k}, larger than its padded size {d}")
        out = np.full([len(parts)] + dims, self.values[i], dtype=parts[0].dtype)
        for j, p in enumerate(parts):
            # p[()] for a scalar: an object array would otherwise hold the array itself.
            out[(j,) + tuple(slice(0, s) for s in p.shape)] = p if p.ndim else p[()]
        return out


class Unbatch:
    """Splits every element along its first dimension."""

    def __init__(self, up: Iterable[Element]):
        self.up = up

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            if any(c.ndim == 0 for c in e):
                raise errors.InvalidArgumentError(None, None, "unbatch needs components of "
                                                              "rank >= 1")
            n = e[0].shape[0]
            if any(c.shape[0] != n for c in e):
                raise errors.InvalidArgumentError(
                    None, None, f"unbatch: components differ in their first dimension: "
                    f"{[c.shape[0] for c in e]}")
            for j in range(n):
                yield tuple(c[j] for c in e)


class Function:
    """A traced map function or filter predicate compiled into an executor plan."""

    def __init__(self, stage: Dict[str, Any], resources: Any, owner: Any,
                 op_name: Optional[str]):
        build = plan_builder()
        sub = stage.get("fn")
        if not isinstance(sub, SubGraph):
            raise errors.InvalidArgumentError(op_name, None, f"Dataset {stage.get('op')} "
                                                             f"stage needs a sub-graph")
        g = sub.graph()
        try:
            feeds = [g.get_tensor_by_name(n) for n in stage["inputs"]]
            fetches = [g.get_tensor_by_name(n) for n in stage["outputs"]]
        except (KeyError, ValueError, TypeError) as e:
            raise errors.InvalidArgumentError(op_name, None, f"Dataset {stage.get('op')} "
                                                             f"names a missing tensor: {e}") \
                from None
        self.types = [t.dtype.np for t in fetches]
        targets = [op for op in g.get_operations() if op.op_def.stateful]
        states: Dict[str, Dict[str, Any]] = {}
        self.plan = build(fetches, targets, feeds, resources,
                          lambda op: states.setdefault(op.name, {}), owner)
        self.what = stage.get("op")

    def __call__(self, element: Element) -> List[np.ndarray]:
        out = self.plan.run(list(element), None)
        if any(v is DEAD for v in out):
            raise errors.InvalidArgumentError(None, None, f"Dataset {self.what} function "
                                                          f"returned no value")
        return [np.asarray(v) for v in out]


class Map:
    """Runs a compiled map function on every element."""

    def __init__(self, up: Iterable[Element], fn: Function):
        self.up, self.fn = up, fn

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            yield tuple(self.fn(e))


class Filter:
    """Keeps the elements for which a compiled predicate returns true."""

    def __init__(self, up: Iterable[Element], fn: Function):
        self.up, self.fn = up, fn

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            keep = self.fn(e)[0]
            if keep.shape != () or keep.dtype != np.bool_:
                raise errors.InvalidArgumentError(
                    None, None, f"filter predicate must return a scalar bool, got "
                    f"{keep.dtype} of shape {list(keep.shape)}")
            if keep:
                yield e


_END = object()


class Sample:
    """Elements drawn at random from several pipelines, by weight; an exhausted one leaves
    the draw (or ends it all with ``stop_on_empty``). One Generator per iterator, so every
    repetition draws anew."""

    def __init__(self, children: Sequence[Iterable[Element]], weights: Sequence[float],
                 seed: Optional[Sequence[int]], stop_on_empty: bool):
        self.children, self.stop = children, stop_on_empty
        self.weights = np.asarray(weights, dtype=np.float64)
        self.rng = np.random.default_rng(list(seed) if seed is not None else None)

    def __iter__(self) -> Iterator[Element]:
        its: List[Optional[Iterator[Element]]] = [iter(c) for c in self.children]
        while True:
            live = [i for i, it in enumerate(its) if it is not None and self.weights[i] > 0]
            if not live:
                return
            p = self.weights[live] / self.weights[live].sum()
            i = live[int(self.rng.choice(len(live), p=p))]
            x = next(its[i], _END)
            if x is _END:
                if self.stop:
                    return
                its[i] = None
                continue
            yield x


class Choose:
    """For every index the choice pipeline yields, the next element of that child."""

    def __init__(self, choices: Iterable[Element], children: Sequence[Iterable[Element]],
                 stop_on_empty: bool):
        self.choices, self.children, self.stop = choices, children, stop_on_empty

    def __iter__(self) -> Iterator[Element]:
        its = [iter(c) for c in self.children]
        for choice in self.choices:
            i = int(np.asarray(choice[0]))
            if not 0 <= i < len(its):
                raise errors.InvalidArgumentError(
                    None, None, f"choose_from_datasets: choice {i} is outside [0, {len(its)})")
            x = next(its[i], _END)
            if x is _END:
                if self.stop:
                    return
                continue
            yield x


class GroupByWindow:
    """``group_by_window``: elements collected per key; a group that reaches its window
    size is reduced at once, the rest in ascending key order when the input ends."""

    def __init__(self, up: Iterable[Element], key: Callable[[Element], int],
                 size_for: Callable[[int], int],
                 reduce: Callable[[int, List[Element]], Iterable[Element]]):
        self.up, self.key, self.size_for, self.reduce = up, key, size_for, reduce

    def __iter__(self) -> Iterator[Element]:
        groups: Dict[int, List[Element]] = {}
        for e in self.up:
            k = self.key(e)
            group = groups.setdefault(k, [])
            group.append(e)
            if len(group) >= self.size_for(k):
                del groups[k]
                yield from self.reduce(k, group)
        for k in sorted(groups):
            yield from self.reduce(k, groups.pop(k))


def scalar_int(fn: Function, element: Element, what: str) -> int:
    """The scalar integer ``fn`` returns for ``element``."""
    out = fn(element)[0]
    if out.shape != () or out.dtype.kind not in "iu":
        raise errors.InvalidArgumentError(None, None, f"{what} must return a scalar integer, "
                                                      f"got {out.dtype} of shape "
                                                      f"{list(out.shape)}")
    return int(out)


class TakeWhile:
    """The elements before the first for which a compiled predicate returns false."""

    def __init__(self, up: Iterable[Element], fn: Function):
        self.up, self.fn = up, fn

    def __iter__(self) -> Iterator[Element]:
        for e in self.up:
            keep = self.fn(e)[0]
            if keep.shape != () or keep.dtype != np.bool_:
                raise errors.InvalidArgumentError(
                    None, None, f"take_while predicate must return a scalar bool, got "
                    f"{keep.dtype} of shape {list(keep.shape)}")
            if not keep:
                return
            yield e


class Unique:
    """Each distinct element once, at its first occurrence (one scalar component)."""

    def __init__(self, up: Iterable[Element]):
        self.up = up

    def __iter__(self) -> Iterator[Element]:
        seen: set = set()
        for e in self.up:
            if len(e) != 1 or np.ndim(e[0]) != 0:
                raise errors.InvalidArgumentError(None, None, "unique needs elements that are "
                                                              "one scalar")
            key = e[0].item()
            if key not in seen:
                seen.add(key)
                yield e


def values_out(element: Element, op_name: Optional[str]) -> List[np.ndarray]:
    """The components an iterator emits for a value element."""
    return list(element)


__all__ = ["VALUE_STAGES", "register_generator", "unregister_generator", "lookup_generator", "Gather", "Generator",
           "Zip", "Concatenate", "ValueBatch", "PaddedBatch", "Unbatch", "Function", "Map",
           "GroupByWindow", "scalar_int", "Sample", "Choose", "TakeWhile", "Unique",
           "Filter", "values_out"]
