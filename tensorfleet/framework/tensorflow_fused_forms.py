"""TensorFlow's forms of tensorfleet's fused categorical-feature ops, for graphs written
as TensorFlow's ``GraphDef``.

Feature columns with hashed or embedded categorical columns run on fused ops
(``ops/sparse_lookup_ops.py``) that TensorFlow does not have. When such a graph is
written for TensorFlow (a SavedModel for its loader and TensorFlow Serving, a frozen
graph), each fused node is replaced by the standard TensorFlow ops that compute the
same values, the ones TensorFlow's own ``safe_embedding_lookup_sparse`` and
``categorical_column_with_hash_bucket`` build:

* ``StringToHashBucketSparse``: per feature ``NotEqual(x, "")`` -> ``Where`` ->
  ``GatherNd`` -> ``StringToHashBucketFast``, with ``Shape`` as the dense shape;
* ``SparseLookupPrepare`` (and each column of ``SparseLookupPrepareMany``): ids < 0
  dropped (``GreaterEqual``, ``Where``, ``GatherV2``), empty rows filled
  (``SparseFillEmptyRows``), the row of each entry (``StridedSlice``, ``Cast``) and
  the distinct ids (``Unique``);
* ``SparseLookupCombine`` (and each column of ``SparseLookupCombineMany``, then
  ``ConcatV2`` or ``AddN``): ``SparseSegment{Sum,Mean,SqrtN}WithNumSegments``,
  rows that had no id zeroed by ``Select``.

Nodes are plain data (``serialization.node_to_plain``); every new node carries its
output signature, which the writer reads to set TensorFlow's type attrs.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Sequence, Set, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import serialization as _ser

Node = Dict[str, Any]
Sig = Tuple[str, Optional[List[int]]]

_SEGMENT_OPS = {"sum": "SparseSegmentSumWithNumSegments",
                "mean": "SparseSegmentMeanWithNumSegments",
                "sqrtn": "SparseSegmentSqrtNWithNumSegments"}


def _split(tensor: str) -> Tuple[str, int]:
    name, sep, idx = tensor.rpartition(":")
    if sep and idx.isdigit():
        return name, int(idx)
    return tensor, 0


class _Emitter:
    """Adds the nodes of one fused node's TensorFlow form, named under its scope."""

    def __init__(self, fused: Node, taken: Set[str], sigs: Dict[str, List[Sig]]):
        self.fused = fused
        self.nodes: List[Node] = []
        self._taken = taken
        self._sigs = sigs
        self._device = fused.get("device", "") or ""

    def _name(self, name: str) -> str:
        base, k = name, 1
        while name in self._taken:
            name = f"{base}_{k}"
            k += 1
        self._taken.add(name)
        return name

    def node(self, op: str, inputs: Sequence[str], out: Sequence[Sig],
             attrs: Optional[Dict[str, Any]] = None, name: Optional[str] = None) -> str:
        """A new node; returns its name (its outputs are ``name:i``)."""
        full = name if name is not None else self._name(f"{self.fused['name']}/{op}")
        self.nodes.append({"name": full, "op": op, "input": list(inputs),
                           "device": self._device,
                           "attr": {k: _ser.encode_attr(v) for k, v in (attrs or {}).items()},
                           "out": [[dt, shape] for dt, shape in out]})
        self._sigs[full] = [(dt, shape) for dt, shape in out]
        return full

    def const(self, what: str, value: np.ndarray) -> str:
        dt = _dtypes.as_dtype(value.dtype if value.dtype != object else _dtypes.string)
        return self.node("Const", [], [(dt.name, list(value.shape))],
                         {"value": value, "dtype": dt},
                         name=self._name(f"{self.fused['name']}/{what}"))

    def sig(self, tensor: str) -> Sig:
        name, idx = _split(tensor)
        outs = self._sigs.get(name) or []
        if idx >= len(outs):
            raise ValueError(f"node {self.fused['name']} ({self.fused['op']}): the signature "
                             f"of its input {tensor} is unknown")
        dt, shape = outs[idx]
        return dt, shape


def _data_inputs(node: Node) -> List[str]:
    return [s for s in node.get("input", []) if not s.startswith("^")]


def _prepare(e: _Emitter, indices: str, values: str, shape: str, default_id: int
             ) -> Tuple[List[str], str]:
    """One column's prepare: [unique_ids, idx, segment_ids, empty] and its last node."""
    vdt = e.sig(values)[0]
    npdt = _dtypes.as_dtype(vdt).as_numpy_dtype
    keep = e.node("GreaterEqual", [values, e.const("zero", np.array(0, dtype=npdt))],
                  [("bool", [-1])])
    where = e.node("Where", [keep], [("int64", [-1, 1])])
    kept = e.node("Reshape", [where + ":0", e.const("flat", np.array([-1], dtype=np.int32))],
                  [("int64", [-1])])
    axis = e.const("axis", np.array(0, dtype=np.int32))
    kept_indices = e.node("GatherV2", [indices, kept + ":0", axis], [("int64", [-1, 2])],
                          name=e._name(f"{e.fused['name']}/kept_indices"))
    kept_values = e.node("GatherV2", [values, kept + ":0", axis], [(vdt, [-1])],
                         name=e._name(f"{e.fused['name']}/kept_values"))
    fill = e.node("SparseFillEmptyRows",
                  [kept_indices + ":0", kept_values + ":0", shape,
                   e.const("default_id", np.array(max(default_id, 0), dtype=npdt))],
                  [("int64", [-1, 2]), (vdt, [-1]), ("bool", [-1]), ("int64", [-1])])
    rows = e.node("StridedSlice",
                  [fill + ":0", e.const("begin", np.array([0, 0], dtype=np.int32)),
                   e.const("end", np.array([0, 1], dtype=np.int32)),
                   e.const("strides", np.array([1, 1], dtype=np.int32))],
                  [("int64", [-1])],
                  {"begin_mask": 1, "end_mask": 1, "ellipsis_mask": 0, "new_axis_mask": 0,
                   "shrink_axis_mask": 2})
    segments = e.node("Cast", [rows + ":0"], [("int32", [-1])],
                      {"SrcT": _dtypes.int64, "DstT": _dtypes.int32})
    unique = e.node("Unique", [fill + ":1"], [(vdt, [-1]), ("int32", [-1])],
                    {"out_idx": _dtypes.int32})
    return [unique + ":0", unique + ":1", segments + ":0", fill + ":2"], unique


def _combine(e: _Emitter, rows: str, idx: str, segments: str, empty: str, combiner: str,
             zero_empty: bool, name: Optional[str]) -> str:
    """One column's combine; returns its result tensor."""
    if combiner not in _SEGMENT_OPS:
        raise ValueError(f"node {e.fused['name']} ({e.fused['op']}): combiner {combiner!r} "
                         f"has no TensorFlow form")
    rdt, rshape = e.sig(rows)
    out_shape = None if rshape is None else [-1] + list(rshape[1:])
    count = e.node("Size", [empty], [("int32", [])], {"out_type": _dtypes.int32})
    combined = e.node(_SEGMENT_OPS[combiner], [rows, idx, segments, count + ":0"],
                      [(rdt, out_shape)], name=None if zero_empty else name)
    if not zero_empty:
        return combined + ":0"
    # Select takes a vector condition over the first dimension.
    zeros = e.node("ZerosLike", [combined + ":0"], [(rdt, out_shape)])
    out = e.node("Select", [empty, zeros + ":0", combined + ":0"], [(rdt, out_shape)],
                 name=name)
    return out + ":0"


def _attr(node: Node, key: str) -> Any:
    return _ser.decode_attr(node.get("attr", {}).get(key, {"n": 1}))


def _expand_prepare(e: _Emitter) -> Tuple[List[str], str]:
    ind, val, shp = _data_inputs(e.fused)
    return _prepare(e, ind, val, shp, int(_attr(e.fused, "default_id")))


def _expand_prepare_many(e: _Emitter) -> Tuple[List[str], str]:
    data = _data_inputs(e.fused)
    n = int(_attr(e.fused, "N"))
    defaults = [int(d) for d in _attr(e.fused, "default_ids")]
    outs: List[str] = []
    last = ""
    for i in range(n):
        col, last = _prepare(e, data[i], data[n + i], data[2 * n + i], defaults[i])
        outs += col
    return outs, last


def _expand_combine(e: _Emitter) -> Tuple[List[str], str]:
    rows, idx, seg, empty = _data_inputs(e.fused)
    out = _combine(e, rows, idx, seg, empty, str(_attr(e.fused, "combiner")),
                   bool(_attr(e.fused, "zero_empty")), name=e.fused["name"])
    return [out], _split(out)[0]


def _expand_combine_many(e: _Emitter) -> Tuple[List[str], str]:
    data = _data_inputs(e.fused)
    n = int(_attr(e.fused, "N"))
    combiners = [str(c) for c in _attr(e.fused, "combiners")]
    zero = [bool(z) for z in _attr(e.fused, "zero_empty")]
    cols = [_combine(e, data[i], data[n + i], data[2 * n + i], data[3 * n + i], combiners[i],
                     zero[i], None) for i in range(n)]
    rdt, shape = e.sig(e.fused["name"] + ":0") if e.fused.get("out") else e.sig(cols[0])
    if _attr(e.fused, "reduce") == "concat":
        axis = e.const("concat_axis", np.array(1, dtype=np.int32))
        out = e.node("ConcatV2", cols + [axis], [(rdt, shape)], {"N": n},
                     name=e.fused["name"])
    else:
        out = e.node("AddN", cols, [(rdt, shape)], {"N": n}, name=e.fused["name"])
    return [out + ":0"], out


def _expand_hash_sparse(e: _Emitter) -> Tuple[List[str], str]:
    data = _data_inputs(e.fused)
    buckets = [int(b) for b in _attr(e.fused, "num_buckets")]
    outs: List[str] = []
    last = ""
    for x, nb in zip(data, buckets):
        _, shape = e.sig(x)
        if shape is None:
            raise ValueError(f"node {e.fused['name']} (StringToHashBucketSparse): an input of "
                             f"unknown rank has no TensorFlow form here")
        rank = max(len(shape), 2)
        if len(shape) == 1:
            x = e.node("ExpandDims", [x, e.const("expand_axis", np.array(-1, dtype=np.int32))],
                       [("string", [shape[0], 1])]) + ":0"
        keep = e.node("NotEqual", [x, e.const("empty_string", np.array(b"", dtype=object))],
                      [("bool", [-1] * rank)])
        where = e.node("Where", [keep + ":0"], [("int64", [-1, rank])])
        values = e.node("GatherNd", [x, where + ":0"], [("string", [-1])])
        ids = e.node("StringToHashBucketFast", [values + ":0"], [("int64", [-1])],
                     {"num_buckets": nb})
        shp = e.node("Shape", [x], [("int64", [rank])], {"out_type": _dtypes.int64})
        outs += [where + ":0", ids + ":0", shp + ":0"]
        last = ids
    return outs, last


# fused op type -> its expansion: (the tensors standing for the node's outputs, in
# order; the node standing for it as a control input).
EXPANSIONS: Dict[str, Callable[[_Emitter], Tuple[List[str], str]]] = {
    "SparseLookupPrepare": _expand_prepare,
    "SparseLookupPrepareMany": _expand_prepare_many,
    "SparseLookupCombine": _expand_combine,
    "SparseLookupCombineMany": _expand_combine_many,
    "StringToHashBucketSparse": _expand_hash_sparse,
}


def expand_fused(nodes: Sequence[Node]) -> Tuple[List[Node], List[str]]:
    """``nodes`` with every fused node of ``EXPANSIONS`` replaced by its TensorFlow form
    and the inputs that read it rewired; also the problems met (nodes that have no form,
    each said once; such nodes are kept as they are)."""
    if not any(n.get("op") in EXPANSIONS for n in nodes):
        return list(nodes), []
    taken = {n.get("name", "") for n in nodes}
    sigs: Dict[str, List[Sig]] = {n.get("name", ""): [(o[0], o[1]) for o in n.get("out") or []]
                                  for n in nodes}
    renamed: Dict[str, str] = {}
    out: List[Node] = []
    problems: List[str] = []

    def rewire(s: str) -> str:
        if s.startswith("^"):
            return "^" + renamed.get(s[1:] + "^", s[1:])
        name, idx = _split(s)
        return renamed.get(f"{name}:{idx}", s)

    for node in nodes:
        if node.get("op") not in EXPANSIONS:
            if renamed:
                node = dict(node)
                node["input"] = [rewire(s) for s in node.get("input", [])]
            out.append(node)
            continue
        fused = dict(node)
        fused["input"] = [rewire(s) for s in node.get("input", [])]
        # The fused node's own name goes to the node that takes its place, if any.
        taken.discard(fused["name"])
        emitter = _Emitter(fused, taken, sigs)
        try:
            tensors, last = EXPANSIONS[fused["op"]](emitter)
        except (ValueError, KeyError, TypeError, IndexError) as err:
            taken.add(fused["name"])
            problems.append(str(err))
            out.append(fused)
            continue
        taken.add(fused["name"])
        controls = [s for s in fused["input"] if s.startswith("^")]
        for new in emitter.nodes:
            if new["op"] != "Const":
                new["input"] += controls
        out.extend(emitter.nodes)
        for i, t in enumerate(tensors):
            renamed[f"{fused['name']}:{i}"] = t
        renamed[fused["name"] + "^"] = last
    return out, problems


__all__ = ["EXPANSIONS", "expand_fused"]
