"""numpy kernels of the input pipeline ops (``tf.data`` iterators).

A pipeline reaches a task as plain data: the source components arrive as the
op's inputs, the source kind and the stages (shard, shuffle, repeat, batch,
take, skip) as attrs. Nothing executable travels with it; the kernel rebuilds
the pipeline here from that description.

The pipeline streams row *indices*, not values: a stage moves ints (or, after
``batch``, nested lists of ints) and only the element that leaves the iterator
is gathered from the source arrays. Shuffle buffers therefore hold ints, and a
data set of any row size costs the same to shuffle. Stages that need values
(filter, padded_batch, unbatch, maps run here) and the zip, concatenate and
generator sources switch the pipeline to value tuples (``dataset_values.py``).

The iteration state (each stage's position, the shuffle buffers and their
numpy Generators) lives in an ``IteratorResource`` in the task's resource
manager, under the iterator's shared name, rather than in ``ctx.state``: on a
cluster the master compiles one partition per distinct fetch list, each with
its own ``ctx.state``, and all of them must advance the same iterator. A local
session has its own resource manager, so there the state is per session.
"""

from __future__ import annotations

import bisect
import itertools
import logging
import threading
from typing import Any, Dict, Iterable, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.serialization import SubGraph
from tensorfleet.kernels import dataset_values as dv
from tensorfleet.kernels.numpy.reader_kernels import FileRecords, Interleave, check_reader
from tensorfleet.kernels.registry import KernelContext, register_kernel

logger = logging.getLogger(__name__)

# Iterators share the default container with variables and queues; the prefix
# keeps their names apart from those.
RESOURCE_PREFIX = "_iterator/"
STAGE_OPS = ("shard", "shuffle", "repeat", "batch", "take", "skip", "interleave",
             "padded_batch", "unbatch", "filter", "map", "group_by_window",
             "bucket_by_sequence_length", "unique", "take_while")
COMPOSITE_SOURCES = ("zip", "concatenate", "sample", "choose")
_MAX_INT = 2 ** 62
# Value stages defined by other kernel modules: kind -> (check, build). ``check(stage,
# op_name)`` validates a received stage and returns it; ``build(node, stage, compile_fn)``
# gives the node that runs it over value elements.
_REGISTERED_STAGES: Dict[str, Tuple[Any, Any]] = {}


def register_stage(kind: str, check: Any, build: Any) -> None:
    """Adds the value stage ``kind`` to every pipeline the kernels build."""
    _REGISTERED_STAGES[kind] = (check, build)


def _invalid(op_name: Optional[str], msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(op_name, None, msg)


def _int(stage: Dict[str, Any], key: str, lo: int, op_name: Optional[str]) -> int:
    v = stage.get(key)
    if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not lo <= v < _MAX_INT:
        raise _invalid(op_name, f"Dataset stage {stage.get('op')!r}: {key} must be an integer "
                                f">= {lo}, got {v!r}")
    return int(v)


def validate_stages(stages: Any, op_name: Optional[str] = None,
                    inner: bool = False) -> List[Dict[str, Any]]:
    """Checks a stage list received as attrs; InvalidArgumentError naming the bad field.

    The same checks run when a ``Dataset`` is built, so a user sees the error at
    graph-build time; here they guard against a malformed or hostile graph.
    """
    if not isinstance(stages, (list, tuple)):
        raise _invalid(op_name, "Dataset stages must be a list")
    out = []
    for st in stages:
        if not isinstance(st, dict) or (st.get("op") not in STAGE_OPS and
                                        st.get("op") not in _REGISTERED_STAGES):
            raise _invalid(op_name, f"Unknown dataset stage {st!r}; known: "
                                    f"{STAGE_OPS + tuple(_REGISTERED_STAGES)}")
        kind = st["op"]
        if kind in _REGISTERED_STAGES:
            st = _REGISTERED_STAGES[kind][0](st, op_name)
        elif kind == "shard":
            n = _int(st, "num_shards", 1, op_name)
            i = _int(st, "index", 0, op_name)
            if i >= n:
                raise _invalid(op_name, f"Shard index must be in [0, {n}), got {i}")
        elif kind == "shuffle":
            _int(st, "buffer_size", 1, op_name)
            seed = st.get("seed")
            if seed is not None and (not isinstance(seed, (list, tuple)) or not all(
                    isinstance(s, (int, np.integer)) and 0 <= s < 2 ** 64 for s in seed)):
                raise _invalid(op_name, f"Shuffle seed must be None or a list of "
                                        f"non-negative ints, got {seed!r}")
        elif kind == "batch":
            _int(st, "batch_size", 1, op_name)
        elif kind == "padded_batch":
            _int(st, "batch_size", 1, op_name)
            shapes, values = st.get("padded_shapes"), st.get("padding_values")
            if not isinstance(shapes, (list, tuple)) or not all(
                    isinstance(sh, (list, tuple)) and all(
                        isinstance(d, (int, np.integer)) and d >= -1 for d in sh)
                    for sh in shapes):
                raise _invalid(op_name, f"padded_batch: padded_shapes must be lists of ints "
                                        f">= -1, got {shapes!r}")
            if not isinstance(values, (list, tuple)) or len(values) != len(shapes):
                raise _invalid(op_name, "padded_batch: one padding value per component needed")
        elif kind in ("filter", "map", "take_while"):
            if not isinstance(st.get("fn"), SubGraph) or not all(
                    isinstance(st.get(k), (list, tuple)) for k in ("inputs", "outputs")):
                raise _invalid(op_name, f"Dataset {kind} stage needs a sub-graph and the "
                                        f"names of its inputs and outputs")
        elif kind in ("unbatch", "unique"):
            pass
        elif kind == "group_by_window":
            fns = [st.get("key")] + ([st["window_size_fn"]] if st.get("window_size_fn")
                                     else [])
            validate_stages([dict(f or {}, op="map") for f in fns], op_name, inner=True)
            if not st.get("window_size_fn"):
                _int(st, "window_size", 1, op_name)
            st = dict(st, reduce=validate_stages(st.get("reduce"), op_name, inner=True))
        elif kind == "bucket_by_sequence_length":
            validate_stages([dict(st.get("length") or {}, op="map")], op_name, inner=True)
            _bucket_layout(st, op_name)
        elif kind == "interleave":
            if inner:
                raise _invalid(op_name, "Dataset.interleave cannot be nested")
            check_reader(st.get("reader"), op_name)
            _int(st, "cycle_length", 1, op_name)
            _int(st, "block_length", 1, op_name)
            st = dict(st, stages=validate_stages(st.get("stages"), op_name, inner=True))
        else:  # repeat, take, skip: -1 means "all" / "forever"
            _int(st, "count", -1, op_name)
        out.append(dict(st))
    return out


# -- the stages: re-iterable, each iteration a fresh generator over its upstream ------------

class _Rows:
    def __init__(self, n: int):
        self.n = n

    def __iter__(self) -> Iterator[Any]:
        return iter(range(self.n))


class _Shard:
    def __init__(self, up: Iterable[Any], num: int, index: int):
        self.up, self.num, self.index = up, num, index

    def __iter__(self) -> Iterator[Any]:
        return itertools.islice(iter(self.up), self.index, None, self.num)


class _Shuffle:
    """A buffered shuffle: the buffer fills, then each new element displaces a random one.

    One Generator lives as long as the iterator, so with ``reshuffle`` every
    epoch (every re-iteration by an outer ``repeat``) gets a new order; without
    it every epoch starts from the seed again.
    """

    def __init__(self, up: Iterable[Any], buffer_size: int, seed: Optional[Sequence[int]],
                 reshuffle: bool):
        self.up, self.size, self.reshuffle = up, buffer_size, reshuffle
        # No seed: fresh OS entropy, kept so that non-reshuffling epochs repeat it.
        self.seed = list(seed) if seed is not None else np.random.SeedSequence().entropy
        self.rng = np.random.default_rng(self.seed)

    def __iter__(self) -> Iterator[Any]:
        rng = self.rng if self.reshuffle else np.random.default_rng(self.seed)
        return self._gen(rng)

    def _gen(self, rng: np.random.Generator) -> Iterator[Any]:
        buf: List[Any] = []
        for x in self.up:
            buf.append(x)
            if len(buf) >= self.size:
                yield _pop_random(buf, rng)
        while buf:
            yield _pop_random(buf, rng)


def _pop_random(buf: List[Any], rng: np.random.Generator) -> Any:
    i = int(rng.integers(len(buf)))
    buf[i], buf[-1] = buf[-1], buf[i]
    return buf.pop()


class _Repeat:
    def __init__(self, up: Iterable[Any], count: int):
        self.up, self.count = up, count

    def __iter__(self) -> Iterator[Any]:
        epoch = 0
        while self.count < 0 or epoch < self.count:
            produced = False
            for x in self.up:
                produced = True
                yield x
            epoch += 1
            if not produced:  # repeating an empty data set forever is still empty
                return


class _Batch:
    def __init__(self, up: Iterable[Any], size: int, drop_remainder: bool):
        self.up, self.size, self.drop = up, size, drop_remainder

    def __iter__(self) -> Iterator[Any]:
        it = iter(self.up)
        while True:
            chunk = list(itertools.islice(it, self.size))
            if not chunk or (self.drop and len(chunk) < self.size):
                return
            yield chunk


class _Take:
    def __init__(self, up: Iterable[Any], count: int):
        self.up, self.count = up, count

    def __iter__(self) -> Iterator[Any]:
        it = iter(self.up)
        return it if self.count < 0 else itertools.islice(it, self.count)


class _Skip:
    def __init__(self, up: Iterable[Any], count: int):
        self.up, self.count = up, count

    def __iter__(self) -> Iterator[Any]:
        if self.count < 0:
            return iter(())
        return itertools.islice(iter(self.up), self.count, None)


def build_pipeline(num_rows: Any, stages: Sequence[Dict[str, Any]],
                   resolve: Any = None) -> Iterable[Any]:
    """The re-iterable chain of index ``stages`` over rows ``0 .. num_rows-1`` (or over the
    re-iterable ``num_rows``, e.g. file records). ``resolve(row)`` gives the file name an
    ``interleave`` stage opens for an upstream row."""
    node, _ = build_mixed(_Rows(num_rows) if isinstance(num_rows, int) else num_rows,
                          stages, _values_gather, resolve, None)
    return node


def build_mixed(node: Iterable[Any], stages: Sequence[Dict[str, Any]], gather: Any,
                resolve: Any, compile_fn: Any) -> Tuple[Iterable[Any], Any]:
    """The chain of ``stages`` over ``node``, and how its elements become outputs.

    With ``gather`` set, ``node`` streams indices (``gather`` turns them into values);
    with ``gather`` None it already streams value tuples. The chain switches from
    indices to values at the first stage that needs values.
    """
    for st in stages:
        kind = st["op"]
        if (kind in dv.VALUE_STAGES or kind in _REGISTERED_STAGES) and gather is not None:
            node, gather = dv.Gather(node, gather), None
        if kind in _REGISTERED_STAGES:
            node = _REGISTERED_STAGES[kind][1](node, st, compile_fn)
        elif kind == "shard":
            node = _Shard(node, int(st["num_shards"]), int(st["index"]))
        elif kind == "shuffle":
            node = _Shuffle(node, int(st["buffer_size"]), st.get("seed"),
                            bool(st.get("reshuffle", True)))
        elif kind == "repeat":
            node = _Repeat(node, int(st["count"]))
        elif kind == "batch":
            size, drop = int(st["batch_size"]), bool(st.get("drop_remainder", False))
            node = _Batch(node, size, drop) if gather is not None else \
                dv.ValueBatch(node, size, drop)
        elif kind == "take":
            node = _Take(node, int(st["count"]))
        elif kind == "skip":
            node = _Skip(node, int(st["count"]))
        elif kind == "interleave":
            if gather is None:
                raise _invalid(None, "Dataset.interleave must come before filter, "
                                     "padded_batch, unbatch and zip/concatenate/from_generator")
            node = Interleave(node, _inner_maker(st, resolve), int(st["cycle_length"]),
                              int(st["block_length"]))
            gather = _values_gather
        elif kind == "padded_batch":
            node = dv.PaddedBatch(node, int(st["batch_size"]), bool(st["drop_remainder"]),
                                  [list(map(int, sh)) for sh in st["padded_shapes"]],
                                  list(st["padding_values"]))
        elif kind == "unbatch":
            node = dv.Unbatch(node)
        elif kind == "map":
            node = dv.Map(node, compile_fn(st))
        elif kind == "take_while":
            node = dv.TakeWhile(node, compile_fn(st))
        elif kind == "unique":
            node = dv.Unique(node)
        elif kind in ("group_by_window", "bucket_by_sequence_length"):
            node = _group_node(node, st, compile_fn)
        else:  # filter
            node = dv.Filter(node, compile_fn(st))
    return node, (gather if gather is not None else dv.values_out)


def _bucket_layout(st: Dict[str, Any], op_name: Optional[str]) -> None:
    bounds, sizes = st.get("boundaries"), st.get("batch_sizes")
    ints = (int, np.integer)
    if not isinstance(bounds, (list, tuple)) or not isinstance(sizes, (list, tuple)) or \
            len(sizes) != len(bounds) + 1 or \
            not all(isinstance(b, ints) and 0 < b < _MAX_INT for b in list(bounds) + list(sizes)) \
            or any(a >= b for a, b in zip(bounds, bounds[1:])):
        raise _invalid(op_name, f"bucket_by_sequence_length: boundaries must increase and "
                                f"there must be one more positive batch size: {bounds!r}, "
                                f"{sizes!r}")
    if not st.get("no_padding"):
        probe = {"op": "padded_batch", "batch_size": 1, "drop_remainder": False,
                 "padded_shapes": st.get("padded_shapes"),
                 "padding_values": st.get("padding_values")}
        validate_stages([probe], op_name, inner=True)


def _group_node(node: Iterable[Any], st: Dict[str, Any], compile_fn: Any) -> Iterable[Any]:
    """The ``group_by_window`` or ``bucket_by_sequence_length`` node over value tuples."""
    if st["op"] == "group_by_window":
        key_fn = compile_fn(dict(st["key"], op="map"))
        size_fn = compile_fn(dict(st["window_size_fn"], op="map")) \
            if st.get("window_size_fn") else None
        sizes: Dict[int, int] = {}

        def size_for(k: int) -> int:
            if size_fn is None:
                return int(st["window_size"])
            if k not in sizes:
                n = dv.scalar_int(size_fn, (np.int64(k),), "window_size_func")
                if not 1 <= n < _MAX_INT:
                    raise _invalid(None, f"group_by_window: window_size_func gave {n} for "
                                         f"key {k}; it must be positive")
                sizes[k] = n
            return sizes[k]

        def reduce(k: int, elements: List[Any]) -> Iterable[Any]:
            out, _ = build_mixed(elements, st["reduce"], None, None, compile_fn)
            return out

        return dv.GroupByWindow(node, lambda e: dv.scalar_int(key_fn, e, "key_func"),
                                size_for, reduce)
    length_fn = compile_fn(dict(st["length"], op="map"))
    bounds = [int(b) for b in st["boundaries"]]
    batch_sizes = [int(b) for b in st["batch_sizes"]]
    drop = bool(st.get("drop_remainder"))

    def bucket(e: Any) -> int:
        n = dv.scalar_int(length_fn, e, "element_length_func")
        b = bisect.bisect_right(bounds, n)
        if st.get("pad_to_bucket_boundary") and b == len(bounds):
            raise _invalid(None, f"bucket_by_sequence_length: with pad_to_bucket_boundary an "
                                 f"element's length must be below the last boundary "
                                 f"{bounds[-1]}, got {n}")
        return b

    def batch_of(b: int, elements: List[Any]) -> Iterable[Any]:
        size = batch_sizes[b]
        if st.get("no_padding"):
            return dv.ValueBatch(elements, size, drop)
        shapes = [[(bounds[b] - 1 if st.get("pad_to_bucket_boundary") else -1) if d < 0
                   else int(d) for d in sh] for sh in st["padded_shapes"]]
        return dv.PaddedBatch(elements, size, drop, shapes, list(st["padding_values"]))

    return dv.GroupByWindow(node, bucket, lambda b: batch_sizes[b], batch_of)


def _inner_maker(st: Dict[str, Any], resolve: Any) -> Any:
    reader = st["reader"]
    if resolve is None:
        raise _invalid(None, "Dataset.interleave needs a data set of file names upstream")

    def make(row: Any) -> Iterable[Any]:
        files = FileRecords([resolve(row)], reader["reader"], reader.get("compression"),
                            reader.get("layout"))
        return build_pipeline(files, st["stages"])
    return make


def _string_scalars(components: Sequence[Any], op_name: Optional[str]) -> List[Any]:
    if len(components) != 1:
        raise _invalid(op_name, f"A file data set takes one component (the file names), got "
                                f"{len(components)}")
    names = np.asarray(components[0], dtype=object).reshape(-1)
    for n in names:
        if not isinstance(n, (bytes, str)):
            raise _invalid(op_name, f"File names must be strings, got {type(n).__name__}")
    return list(names)


def _root(source: Dict[str, Any], components: List[Any],
          op_name: Optional[str]) -> Tuple[Iterable[Any], Any, Any]:
    """The index (or record) root of a simple source, its gather and its resolver."""
    kind = source.get("kind") if isinstance(source, dict) else None
    if kind == "files":
        check_reader(source, op_name)
        root = FileRecords(_string_scalars(components, op_name), source["reader"],
                           source.get("compression"), source.get("layout"))
        return root, _values_gather, None
    if kind == "slices":
        if not components:
            raise _invalid(op_name, "from_tensor_slices needs at least one component")
        arrays = [np.asarray(c) for c in components]
        if any(a.ndim == 0 for a in arrays):
            raise _invalid(op_name, "Dataset source components must have rank >= 1")
        n = arrays[0].shape[0]
        if any(a.shape[0] != n for a in arrays):
            raise _invalid(op_name, f"Dataset source components differ in their first "
                                    f"dimension: {[a.shape[0] for a in arrays]}")
        return _Rows(n), _slices_gather(arrays), _slices_resolve(arrays)
    if kind == "range":
        try:
            start, stop, step = (int(source[k]) for k in ("start", "stop", "step"))
        except (KeyError, TypeError, ValueError):
            raise _invalid(op_name, f"range source needs int start/stop/step: {source}") \
                from None
        if step == 0:
            raise _invalid(op_name, "Dataset.range step must not be zero")
        return _Rows(len(range(start, stop, step))), _range_gather(start, step), None
    raise _invalid(op_name, f"Unknown dataset source {source!r}")


def _build_source(source: Dict[str, Any], stages: List[Dict[str, Any]], components: List[Any],
                  op_name: Optional[str], ctx: Optional[KernelContext],
                  depth: int = 0) -> Tuple[Iterable[Any], Any]:
    """The pipeline of ``source`` and ``stages`` over the op's ``components`` (a composite
    source consumes them child by child), and its output gather."""
    if depth > 16:
        raise _invalid(op_name, "Dataset sources nested too deeply")

    def compile_fn(st: Dict[str, Any]) -> Any:
        if ctx is None:
            raise _invalid(op_name, "a map or filter stage needs a kernel context")
        return dv.Function(st, ctx.resources, ctx.owner, op_name)

    kind = source.get("kind") if isinstance(source, dict) else None
    if kind == "generator":
        node: Iterable[Any] = dv.Generator(dv.lookup_generator(source.get("token"), op_name))
        return build_mixed(node, stages, None, None, compile_fn)
    if kind in COMPOSITE_SOURCES:
        children = source.get("children")
        if not isinstance(children, list) or not children:
            raise _invalid(op_name, f"{kind} source needs a list of children")
        built = []
        for child in children:
            if not isinstance(child, dict) or not isinstance(child.get("n"), int) or \
                    child["n"] < 0 or child["n"] > len(components):
                raise _invalid(op_name, f"malformed {kind} child {child!r}")
            mine, components = components[:child["n"]], components[child["n"]:]
            sub, gather = _build_source(
                child.get("source"), validate_stages(child.get("stages"), op_name), mine,
                op_name, ctx, depth + 1)
            built.append(dv.Gather(sub, gather) if gather is not dv.values_out else sub)
        if components:
            raise _invalid(op_name, f"{kind} source: {len(components)} components left over")
        node = _composite(source, kind, built, op_name)
        return build_mixed(node, stages, None, None, compile_fn)
    root, gather, resolve = _root(source, components, op_name)
    return build_mixed(root, stages, gather, resolve, compile_fn)


def _composite(source: Dict[str, Any], kind: str, built: List[Iterable[Any]],
               op_name: Optional[str]) -> Iterable[Any]:
    if kind == "zip":
        return dv.Zip(built)
    if kind == "concatenate":
        return dv.Concatenate(built)
    stop = bool(source.get("stop_on_empty", False))
    if kind == "choose":
        if len(built) < 2:
            raise _invalid(op_name, "choose source needs a choice child and data sets")
        return dv.Choose(built[0], built[1:], stop)
    weights, seed = source.get("weights"), source.get("seed")
    if not isinstance(weights, list) or len(weights) != len(built) or not all(
            isinstance(w, (int, float)) and w >= 0 for w in weights) or sum(weights) <= 0:
        raise _invalid(op_name, f"sample source needs one non-negative weight per data set, "
                                f"got {weights!r}")
    if seed is not None and (not isinstance(seed, list) or not all(
            isinstance(v, int) and 0 <= v < 2 ** 64 for v in seed)):
        raise _invalid(op_name, f"sample source seed must be None or non-negative ints, got "
                                f"{seed!r}")
    return dv.Sample(built, weights, seed, stop)


_END_OF_PIPELINE = object()


class IteratorResource:
    """One iterator's position in its pipeline, shared by every op that names it."""

    def __init__(self, name: str):
        self.name = name
        self._lock = threading.Lock()
        self._it: Optional[Iterator[Any]] = None
        self._gather: Any = None
        self._build_args: Optional[tuple] = None
        # Elements produced since the pipeline (re)started: what a checkpoint records.
        self.position = 0

    @property
    def initialized(self) -> bool:
        return self._it is not None

    def initialize(self, source: Dict[str, Any], stages: List[Dict[str, Any]],
                   components: Sequence[np.ndarray], op_name: Optional[str] = None,
                   only_once: bool = False, ctx: Optional[KernelContext] = None) -> None:
        """(Re)starts the iterator at the beginning of the pipeline over ``components``;
        with ``only_once`` an iterator that already started is left where it is.
        ``ctx`` gives map and filter functions the task's resources."""
        pipeline, gather = _build_source(source, stages, list(components), op_name, ctx)
        with self._lock:
            if only_once and self._it is not None:
                return
            self._it = iter(pipeline)
            self._gather = gather
            self._build_args = (source, stages, list(components), ctx)
            self.position = 0

    def restore_position(self, position: int, op_name: Optional[str] = None) -> None:
        """Starts the pipeline afresh and moves past ``position`` elements, so that the
        next element is the one that followed them when the position was saved."""
        with self._lock:
            if self._build_args is None:
                raise errors.FailedPreconditionError(
                    op_name, None, "Restoring an iterator that has not been initialized: run "
                    "its initializer first")
            source, stages, components, ctx = self._build_args
        pipeline, gather = _build_source(source, stages, components, op_name, ctx)
        it = iter(pipeline)
        for n in range(position):
            if next(it, _END_OF_PIPELINE) is _END_OF_PIPELINE:
                raise errors.FailedPreconditionError(
                    op_name, None, f"The checkpoint's iterator position ({position}) is past "
                    f"the end of the data set ({n} elements)")
        with self._lock:
            self._it, self._gather, self.position = it, gather, position

    def get_next(self, op_name: Optional[str] = None) -> List[np.ndarray]:
        """The next element's components; OutOfRangeError at the end of the sequence."""
        with self._lock:
            if self._it is None:
                raise errors.FailedPreconditionError(
                    op_name, None, "GetNext() failed because the iterator has not been "
                    "initialized. Ensure that you have run the initializer operation for this "
                    "iterator before getting the next element.")
            try:
                element = next(self._it)
            except StopIteration:
                raise errors.OutOfRangeError(op_name, None, "End of sequence") from None
            self.position += 1
            gather = self._gather
        return gather(element, op_name)


def _rows(element: Any, op_name: Optional[str]) -> np.ndarray:
    try:
        return np.asarray(element, dtype=np.int64)
    except ValueError:
        raise _invalid(op_name, "Cannot batch tensors with different shapes: an inner "
                                "batch is shorter (use drop_remainder=True)") from None


def _values_gather(element: Any, op_name: Optional[str]) -> List[np.ndarray]:
    if isinstance(element, (bytes, str)):
        out = np.empty((), dtype=object)
        out[()] = element
        return [out]
    try:
        return [np.array(element, dtype=object)]
    except ValueError:
        raise _invalid(op_name, "Cannot batch tensors with different shapes: an inner "
                                "batch is shorter (use drop_remainder=True)") from None


def _slices_resolve(arrays: List[np.ndarray]) -> Any:
    def resolve(row: Any) -> Any:
        if not isinstance(row, (int, np.integer)) or len(arrays) != 1:
            raise _invalid(None, "Dataset.interleave needs an unbatched data set of file "
                                 "names (one string per element) upstream")
        return arrays[0][row]
    return resolve


def _slices_gather(arrays: List[np.ndarray]) -> Any:
    def gather(element: Any, op_name: Optional[str]) -> List[np.ndarray]:
        index = _rows(element, op_name)
        # np.take copies, so no kernel downstream can write into the source constant.
        # (asarray: taking one element of an object array gives the bare object.)
        return [np.asarray(np.take(a, index, axis=0), dtype=a.dtype) for a in arrays]
    return gather


def _range_gather(start: int, step: int) -> Any:
    def gather(element: Any, op_name: Optional[str]) -> List[np.ndarray]:
        index = _rows(element, op_name)
        return [np.asarray(start + index * step, dtype=np.int64)]
    return gather


def iterator_resource(ctx: KernelContext) -> IteratorResource:
    """The iterator resource an iterator op names by its ``shared_name`` attr."""
    name = ctx.attrs.get("shared_name")
    if not isinstance(name, str) or not name:
        raise _invalid(ctx.op_name, "iterator op needs a non-empty shared_name attr")
    cached = ctx.state.get("iterator")
    found = ctx.resources.find("", RESOURCE_PREFIX + name)
    if cached is not None and cached is found:
        return cached
    res = ctx.resources.lookup_or_create("", RESOURCE_PREFIX + name,
                                         lambda: IteratorResource(name))
    if not isinstance(res, IteratorResource):
        raise _invalid(ctx.op_name, f"Resource {name!r} exists and is not an iterator "
                                    f"({type(res).__name__})")
    ctx.state["iterator"] = res
    return res


def _cast_outputs(ctx: KernelContext, values: List[np.ndarray]) -> Any:
    types = ctx.attrs.get("output_types") or []
    if len(types) != len(values):
        raise _invalid(ctx.op_name, f"iterator yields {len(values)} components but the op "
                                    f"declares {len(types)}")
    out = []
    for v, dt in zip(values, types):
        np_dt = getattr(dt, "np", None)
        out.append(v if np_dt is None or v.dtype == np_dt else v.astype(np_dt))
    return out[0] if len(out) == 1 else tuple(out)


def one_shot_resource(ctx: KernelContext, components: Sequence[np.ndarray]) -> IteratorResource:
    """The iterator resource of a one-shot iterator op, started on first use from the
    op's source and stages attrs over its ``components``."""
    res = iterator_resource(ctx)
    if not res.initialized:
        res.initialize(ctx.attrs.get("source"),
                       validate_stages(ctx.attrs.get("stages"), ctx.op_name),
                       components, ctx.op_name, only_once=True, ctx=ctx)
    return res


@register_kernel("OneShotIteratorGetNext")
def _one_shot_get_next(ctx: KernelContext, *components: np.ndarray) -> Any:
    return _cast_outputs(ctx, one_shot_resource(ctx, components).get_next(ctx.op_name))


@register_kernel("InitializeIterator")
def _initialize_iterator(ctx: KernelContext, *components: np.ndarray) -> None:
    iterator_resource(ctx).initialize(ctx.attrs.get("source"),
                              validate_stages(ctx.attrs.get("stages"), ctx.op_name),
                              components, ctx.op_name, ctx=ctx)


@register_kernel("IteratorGetNextV2")
def _iterator_get_next(ctx: KernelContext) -> Any:
    return _cast_outputs(ctx, iterator_resource(ctx).get_next(ctx.op_name))


__all__ = ["IteratorResource", "build_pipeline", "iterator_resource", "one_shot_resource",
           "register_stage",
           "validate_stages",
           "RESOURCE_PREFIX",
           "STAGE_OPS"]
