"""``tf.parse_example`` / ``tf.parse_single_example`` and their feature specs.

A batch of serialized ``tf.train.Example`` protos becomes one ``ParseExample`` op
whose attrs list the requested features (plain data, so the op runs on any task);
its kernel is in ``kernels/numpy/parsing_kernels.py``. Dense features
(``FixedLenFeature``, ``FixedLenSequenceFeature``) come back as tensors, and
``VarLenFeature`` / ``SparseFeature`` as ``SparseTensor``s.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Optional, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape, as_shape
from tensorfleet.ops.parsing_ragged_feature import (RaggedFeature, ragged_result,
                                                    ragged_source)
from tensorfleet.ops.op_util import make_op, unknown

_TYPES = ("float32", "int64", "string")

# Output shapes are given when the op is built; the registry only needs the op type.
register_op("ParseExample", unknown)


class FixedLenFeature(NamedTuple):
    """A feature with a fixed number of values per example, parsed to a dense tensor.

    ``default_value`` (same size as ``shape``, or one value repeated) fills examples
    that lack the feature; without it the feature is required.
    """

    shape: Any
    dtype: Any
    default_value: Any = None


class FixedLenSequenceFeature(NamedTuple):
    """A feature with any number of ``shape``-sized values per example, parsed to a
    dense ``[batch, longest, *shape]`` tensor padded with ``default_value`` (zero or
    empty when None). ``allow_missing`` must be True: examples without the feature
    get no values."""

    shape: Any
    dtype: Any
    allow_missing: bool = False
    default_value: Any = None


class VarLenFeature(NamedTuple):
    """A feature with any number of values, parsed to a ``SparseTensor`` whose row
    ``i`` holds example ``i``'s values."""

    dtype: Any


class SparseFeature(NamedTuple):
    """A sparse tensor stored as index feature(s) and a value feature.

    ``index_key``: one int64 feature name (or a list, one per dimension);
    ``value_key``: the values; ``size``: the dense size of each dimension. Parsed to a
    ``SparseTensor`` of shape ``[batch, *size]``, entries sorted by index.
    """

    index_key: Union[str, List[str]]
    value_key: str
    dtype: Any
    size: Union[int, List[int]]
    already_sorted: bool = False


def _dtype(dt: Any, key: str) -> _dtypes.DType:
    d = _dtypes.as_dtype(dt)
    if d.name not in _TYPES:
        raise ValueError(f"Feature {key!r}: dtype must be float32, int64 or string, got "
                         f"{d.name}")
    return d


def _fixed_shape(shape: Any, key: str) -> List[int]:
    s = as_shape(shape if shape is not None else [])
    if not s.is_fully_defined():
        raise ValueError(f"Feature {key!r}: shape must be fully defined, got {s}")
    return [int(d) for d in s.as_list()]


def _default(value: Any, dt: _dtypes.DType, key: str, size: Optional[int]) -> Tensor:
    if value is None:
        return convert_to_tensor(np.zeros(0, dtype=object if dt is _dtypes.string else dt.np),
                                 dtype=dt, name=f"default_{key}")
    t = convert_to_tensor(value, dtype=dt, name=f"default_{key}")
    n = t.shape.num_elements()
    if size is not None and n is not None and n not in (1, size):
        raise ValueError(f"Feature {key!r}: default_value has {n} elements but the shape "
                         f"holds {size}")
    if size is None and n is not None and n != 1:
        raise ValueError(f"Feature {key!r}: a FixedLenSequenceFeature default_value is one "
                         f"padding value, got {n} elements")
    return t


def _plan(features: Dict[str, Any]) -> Dict[str, Any]:
    if not isinstance(features, dict) or not features:
        raise ValueError("parse_example: features must be a non-empty dict of feature specs")
    sparse: List[Dict[str, Any]] = []
    sparse_names: List[str] = []
    dense: List[Dict[str, Any]] = []
    dense_names: List[str] = []
    defaults: List[Any] = []
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, VarLenFeature):
            sparse.append({"kind": "var", "key": key, "type": _dtype(spec.dtype, key)})
            sparse_names.append(key)
        elif isinstance(spec, SparseFeature):
            idx = [spec.index_key] if isinstance(spec.index_key, str) else list(spec.index_key)
            size = [spec.size] if isinstance(spec.size, (int, np.integer)) else list(spec.size)
            if len(idx) != len(size) or not idx or any(int(s) < 1 for s in size):
                raise ValueError(f"SparseFeature {key!r}: needs one positive size per index "
                                 f"key, got index_key={spec.index_key!r}, size={spec.size!r}")
            sparse.append({"kind": "sparse", "index_keys": idx, "value_key": spec.value_key,
                           "type": _dtype(spec.dtype, key), "size": [int(s) for s in size]})
            sparse_names.append(key)
        elif isinstance(spec, FixedLenFeature):
            dt = _dtype(spec.dtype, key)
            shape = _fixed_shape(spec.shape, key)
            dense.append({"key": key, "type": dt, "shape": shape, "seq": False})
            defaults.append((spec.default_value, dt, key, int(np.prod(shape, dtype=np.int64))))
            dense_names.append(key)
        elif isinstance(spec, FixedLenSequenceFeature):
            if not spec.allow_missing:
                raise ValueError(f"FixedLenSequenceFeature {key!r} needs allow_missing=True "
                                 f"in parse_example")
            dt = _dtype(spec.dtype, key)
            dense.append({"key": key, "type": dt, "shape": _fixed_shape(spec.shape, key),
                          "seq": True})
            defaults.append((spec.default_value, dt, key, None))
            dense_names.append(key)
        else:
            raise ValueError(f"Feature {key!r}: unsupported spec {spec!r}; use "
                             f"FixedLenFeature, FixedLenSequenceFeature, VarLenFeature or "
                             f"SparseFeature")
    return {"sparse": sparse, "sparse_names": sparse_names, "dense": dense,
            "dense_names": dense_names, "defaults": defaults}


def _parse(serialized: Any, features: Dict[str, Any], single: bool,
           name: Optional[str]) -> Dict[str, Any]:
    ragged = {k: v for k, v in features.items() if isinstance(v, RaggedFeature)}
    if ragged:
        # A ragged feature is read as a variable-length one, then given its rows.
        plain = {k: v for k, v in features.items() if k not in ragged}
        sources = {}
        for k, spec in ragged.items():
            src, dt = ragged_source(k, spec)
            if src in plain and plain[src] != VarLenFeature(dt):
                raise ValueError(f"RaggedFeature {k!r} reads {src!r}, which another feature "
                                 f"parses differently")
            plain[src] = VarLenFeature(dt)
            sources[k] = src
        parsed = _parse(serialized, plain, single, name)
        out = {k: v for k, v in parsed.items() if k in features}
        for k, spec in ragged.items():
            out[k] = ragged_result(parsed[sources[k]], spec, single)
        return out
    plan = _plan(features)
    with name_scope(name, "ParseSingleExample" if single else "ParseExample"):
        ser = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
        if ser.dtype is not _dtypes.string:
            raise TypeError(f"parse_example: serialized must be strings, got {ser.dtype.name}")
        rank = ser.shape.ndims
        if rank is not None and rank != (0 if single else 1):
            raise ValueError(f"{'parse_single_example' if single else 'parse_example'}: "
                             f"serialized must be a {'scalar' if single else 'vector'}, got "
                             f"shape {ser.shape}")
        batch: List[Optional[int]] = [] if single else [ser.shape.as_list()[0]
                                                        if rank == 1 else None]
        defaults = [_default(*d) for d in plan["defaults"]]
        ns = len(plan["sparse"])
        sp_rank = [1 + (len(s["size"]) if s["kind"] == "sparse" else 1) - (1 if single else 0)
                   for s in plan["sparse"]]
        types = ([_dtypes.int64] * ns + [s["type"] for s in plan["sparse"]] +
                 [_dtypes.int64] * ns + [d["type"] for d in plan["dense"]])
        shapes = ([TensorShape([None, r]) for r in sp_rank] + [TensorShape([None])] * ns +
                  [TensorShape([r]) for r in sp_rank] +
                  [TensorShape(batch + ([None] if d["seq"] else []) + d["shape"])
                   for d in plan["dense"]])
        op = make_op("ParseExample", [ser] + defaults, types,
                     {"single": single, "sparse": plan["sparse"], "dense": plan["dense"]},
                     name="ParseExample", shapes=shapes)
    outs = list(op.outputs)
    result: Dict[str, Any] = {}
    for i, key in enumerate(plan["sparse_names"]):
        result[key] = SparseTensor(outs[i], outs[ns + i], outs[2 * ns + i])
    for i, key in enumerate(plan["dense_names"]):
        result[key] = outs[3 * ns + i]
    return result


def parse_example(serialized: Any, features: Dict[str, Any], name: Optional[str] = None,
                  example_names: Any = None) -> Dict[str, Any]:
    """Parses a vector of serialized ``tf.train.Example`` protos.

    Args:
      serialized: string vector ``[batch]``.
      features: ``{key: FixedLenFeature | FixedLenSequenceFeature | VarLenFeature |
        SparseFeature}``.
      example_names: accepted for compatibility; errors name examples by index.

    Returns:
      ``{key: Tensor or SparseTensor}``: ``[batch, *shape]`` for fixed-length features,
      ``[batch, longest, *shape]`` for sequence features, a ``SparseTensor`` of dense
      shape ``[batch, longest]`` (``VarLenFeature``) or ``[batch, *size]``
      (``SparseFeature``) for the others.

    Raises:
      InvalidArgumentError (when run): a proto does not parse, a feature has the wrong
        type or number of values, or a required feature is missing.
    """
    return _parse(serialized, features, False, name)


def parse_single_example(serialized: Any, features: Dict[str, Any],
                         name: Optional[str] = None, example_names: Any = None
                         ) -> Dict[str, Any]:
    """``parse_example`` for one serialized example (a string scalar): the results have
    no batch dimension."""
    return _parse(serialized, features, True, name)


__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "SparseFeature",
           "parse_example", "parse_single_example"]
