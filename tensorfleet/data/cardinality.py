"""How many elements a data set has (``tf.data.experimental.cardinality``), worked out
from its description: the sizes of its sources and what each stage does to a count.

A data set built from arrays, ranges and counted stages has a known count; ``repeat()``
without a count makes it infinite; a file source, a generator, ``filter``, ``unbatch``
or ``interleave`` make it unknown, as in TensorFlow.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.tensor_shape import as_shape

INFINITE_CARDINALITY = -1
UNKNOWN_CARDINALITY = -2
# A parallelism or buffer size left to the runtime (tensorfleet's pipelines run in the
# iterator's kernel, so every such value means "as the kernel does").
AUTOTUNE = -1

_INF, _UNKNOWN = INFINITE_CARDINALITY, UNKNOWN_CARDINALITY


def _source_count(source: Dict[str, Any], leaves: Sequence[Any]) -> int:
    kind = source.get("kind")
    if kind == "range":
        return len(range(source["start"], source["stop"], source["step"]))
    if kind == "slices":
        dims = [as_shape(leaf.shape).as_list()[0] if isinstance(leaf, Tensor)
                else leaf.shape[0] for leaf in leaves]
        known = [d for d in dims if d is not None]
        return int(known[0]) if known else _UNKNOWN
    if kind in ("zip", "concatenate"):
        counts, rest = [], list(leaves)
        for child in source["children"]:
            mine, rest = rest[:child["n"]], rest[child["n"]:]
            counts.append(count_of(child["source"], child["stages"], mine))
        if kind == "zip":
            finite = [c for c in counts if c >= 0]
            if finite:
                return min(finite)
            return _UNKNOWN if _UNKNOWN in counts else _INF
        if _UNKNOWN in counts:
            return _UNKNOWN
        return _INF if _INF in counts else sum(counts)
    return _UNKNOWN  # files, generators


def _stage_count(st: Dict[str, Any], c: int) -> int:
    op = st["op"]
    if op in ("map", "scan"):
        return c
    if op in ("assert_cardinality", "pad_to_cardinality"):
        return st["cardinality"]
    if op in ("filter", "unbatch", "interleave", "unique", "take_while", "group_by_window",
              "bucket_by_sequence_length", "group_by_reducer", "ignore_errors"):
        return _UNKNOWN
    if c == _UNKNOWN:
        return c
    if op == "repeat":
        if st["count"] < 0:
            return _INF if c != 0 else 0
        return c if c == _INF else c * st["count"]
    if op == "take":
        k = st["count"]
        return c if k < 0 else (k if c == _INF else min(c, k))
    if c == _INF:
        return c
    if op == "skip":
        k = st["count"]
        return 0 if k < 0 else max(c - k, 0)
    if op == "shard":
        n, i = st["num_shards"], st["index"]
        return c // n + (1 if i < c % n else 0)
    if op in ("batch", "padded_batch"):
        b = st["batch_size"]
        return c // b if st.get("drop_remainder") else -(-c // b)
    return c  # shuffle


def count_of(source: Dict[str, Any], stages: Sequence[Dict[str, Any]],
             leaves: Sequence[Any]) -> int:
    """The number of elements of the pipeline ``source`` + ``stages`` (plain stages), or
    ``INFINITE_CARDINALITY`` / ``UNKNOWN_CARDINALITY``."""
    c = _source_count(source, leaves)
    for st in stages:
        c = _stage_count(st, c)
    return c


def plain_stages(dataset: Any) -> List[Dict[str, Any]]:
    """The stages of ``dataset`` as plain dicts (maps as ``{"op": "map"}``)."""
    out = []
    for s in dataset._stages:
        if isinstance(s, dict):
            out.append(s)
        elif hasattr(s, "stage"):
            out.append(s.stage)
        else:
            out.append({"op": "map"})
    return out


def cardinality(dataset: Any) -> Tensor:
    """The number of elements of ``dataset`` as an int64 scalar tensor:
    ``INFINITE_CARDINALITY`` (-1) when it repeats forever, ``UNKNOWN_CARDINALITY`` (-2)
    when only running it would tell.

    Raises:
      TypeError: ``dataset`` is not a Dataset.
    """
    from tensorfleet.data.dataset_ops import Dataset
    from tensorfleet.ops.array_ops_core import constant
    if not isinstance(dataset, Dataset):
        raise TypeError(f"cardinality: expected a Dataset, got {type(dataset).__name__}")
    n = count_of(dataset._source, plain_stages(dataset), dataset._leaves)
    return constant(n, dtype=_dtypes.int64, name="cardinality")
