"""The kernels of ``tf.parse_example`` / ``tf.parse_single_example`` and
``tf.parse_single_sequence_example``.

Serialized ``tf.train.Example`` protos are decoded with the generated protobuf
classes (``protos/example_pb2.py``), then every requested feature is gathered
across the batch: fixed-length features into dense arrays, sequence features into
dense arrays padded to the longest example, variable-length and sparse features
into (indices, values, dense_shape) triples. The op's attrs say which; see
``ops/parsing_ops.py`` for how they are built.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from google.protobuf.message import DecodeError

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.kernels.numpy.string_kernels import string_array
from tensorfleet.protos.example_pb2 import Example, SequenceExample

# Which list of a Feature holds values of each dtype.
_KIND = {"float32": "float_list", "int64": "int64_list", "string": "bytes_list"}
_KIND_TYPE = {"float_list": "float", "int64_list": "int64", "bytes_list": "string"}


def _invalid(op_name: Optional[str], msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(op_name, None, msg)


def _empty(dt: _dtypes.DType, shape: Tuple[int, ...] = (0,)) -> np.ndarray:
    if dt is _dtypes.string:
        out = np.empty(shape, dtype=object)
        out.fill(b"")
        return out
    return np.zeros(shape, dtype=dt.np)


def _values(features: Any, key: str, dt: _dtypes.DType, index: int,
            op_name: Optional[str]) -> Optional[np.ndarray]:
    """The values of feature ``key`` of one example as a 1-D array; None when absent."""
    if key not in features:
        return None
    feature = features[key]
    kind = feature.WhichOneof("kind")
    if kind is None:
        return _empty(dt)
    want = _KIND[dt.name]
    if kind != want:
        raise _invalid(op_name, f"Name: <unknown>, Key: {key}, Index: {index}.  Data types "
                                f"don't match. Expected type: {_KIND_TYPE[want]}, Actual "
                                f"type: {_KIND_TYPE[kind]}")
    vals = getattr(feature, kind).value
    if dt is _dtypes.string:
        out = np.empty(len(vals), dtype=object)
        out[:] = list(vals)
        return out
    return np.asarray(vals, dtype=dt.np)


def _stack(rows: List[np.ndarray], dt: _dtypes.DType, shape: Tuple[int, ...]) -> np.ndarray:
    if not rows:
        return _empty(dt, (0,) + shape)
    if dt is _dtypes.string:
        out = np.empty((len(rows),) + shape, dtype=object)
        for i, r in enumerate(rows):
            out[i] = r
        return out
    return np.stack(rows).astype(dt.np, copy=False)


def _fill(dt: _dtypes.DType, shape: Tuple[int, ...], value: Any) -> np.ndarray:
    out = _empty(dt, shape)
    out[...] = value
    return out


def _dense_fixed(spec: Dict[str, Any], default: np.ndarray, feats: Sequence[Any],
                 op_name: Optional[str]) -> np.ndarray:
    dt = _dtypes.as_dtype(spec["type"])
    shape = tuple(int(d) for d in spec["shape"])
    n = int(np.prod(shape, dtype=np.int64))
    rows = []
    for i, f in enumerate(feats):
        v = _values(f, spec["key"], dt, i, op_name)
        if v is None:
            if default.size == 0:
                raise _invalid(op_name, f"Name: <unknown>, Feature: {spec['key']} (data type: "
                                        f"{dt.name}) is required but could not be found.")
            rows.append(_fill(dt, shape, default.reshape(shape) if default.size == n
                              else default.reshape(-1)[0]))
        elif v.size != n:
            raise _invalid(op_name, f"Name: <unknown>, Key: {spec['key']}, Index: {i}.  "
                                    f"Number of {dt.name} values != expected.  Values size: "
                                    f"{v.size} but output shape: {list(shape)}")
        else:
            rows.append(v.reshape(shape))
    return _stack(rows, dt, shape)


def _dense_sequence(spec: Dict[str, Any], default: np.ndarray, feats: Sequence[Any],
                    op_name: Optional[str]) -> np.ndarray:
    dt = _dtypes.as_dtype(spec["type"])
    shape = tuple(int(d) for d in spec["shape"])
    n = max(int(np.prod(shape, dtype=np.int64)), 1)
    parts = []
    for i, f in enumerate(feats):
        v = _values(f, spec["key"], dt, i, op_name)
        v = _empty(dt) if v is None else v
        if v.size % n:
            raise _invalid(op_name, f"Name: <unknown>, Key: {spec['key']}, Index: {i}.  "
                                    f"Number of {dt.name} values is not a multiple of "
                                    f"{n}, the size of the shape {list(shape)}: {v.size}")
        parts.append(v.reshape((-1,) + shape))
    longest = max((p.shape[0] for p in parts), default=0)
    pad = default.reshape(-1)[0] if default.size else None
    out = _fill(dt, (len(parts), longest) + shape, pad) if pad is not None else \
        _empty(dt, (len(parts), longest) + shape)
    for i, p in enumerate(parts):
        out[i, :p.shape[0]] = p
    return out


def _var_len(spec: Dict[str, Any], feats: Sequence[Any],
             op_name: Optional[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    dt = _dtypes.as_dtype(spec["type"])
    idx: List[np.ndarray] = []
    vals: List[np.ndarray] = []
    width = 0
    for i, f in enumerate(feats):
        v = _values(f, spec["key"], dt, i, op_name)
        if v is None or v.size == 0:
            continue
        width = max(width, v.size)
        idx.append(np.stack([np.full(v.size, i, np.int64), np.arange(v.size, dtype=np.int64)],
                            axis=1))
        vals.append(v)
    indices = np.concatenate(idx) if idx else np.zeros((0, 2), np.int64)
    values = np.concatenate(vals) if vals else _empty(dt)
    return indices, values, np.asarray([len(feats), width], np.int64)


def _sparse(spec: Dict[str, Any], feats: Sequence[Any],
            op_name: Optional[str]) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    dt = _dtypes.as_dtype(spec["type"])
    size = [int(s) for s in spec["size"]]
    rank = len(size)
    idx: List[np.ndarray] = []
    vals: List[np.ndarray] = []
    for i, f in enumerate(feats):
        v = _values(f, spec["value_key"], dt, i, op_name)
        v = _empty(dt) if v is None else v
        cols = []
        for d, key in enumerate(spec["index_keys"]):
            ix = _values(f, key, _dtypes.int64, i, op_name)
            ix = np.zeros(0, np.int64) if ix is None else ix
            if ix.size != v.size:
                raise _invalid(op_name, f"SparseFeature: example {i} has {ix.size} values in "
                                        f"index key {key!r} but {v.size} in value key "
                                        f"{spec['value_key']!r}")
            bad = (ix < 0) | (ix >= size[d])
            if bad.any():
                raise _invalid(op_name, f"SparseFeature: example {i}, index key {key!r}: "
                                        f"index {int(ix[bad][0])} is out of [0, {size[d]})")
            cols.append(ix)
        if v.size == 0:
            continue
        order = np.lexsort(cols[::-1])
        idx.append(np.stack([np.full(v.size, i, np.int64)] + [c[order] for c in cols], axis=1))
        vals.append(v[order])
    indices = np.concatenate(idx) if idx else np.zeros((0, rank + 1), np.int64)
    values = np.concatenate(vals) if vals else _empty(dt)
    return indices, values, np.asarray([len(feats)] + size, np.int64)


@register_kernel("ParseExample")
def _parse_example(ctx: KernelContext, serialized: Any, *defaults: Any) -> Any:
    a = ctx.attrs
    single = bool(a.get("single", False))
    ser = string_array(serialized, ctx.op_name, "ParseExample serialized")
    if ser.ndim != (0 if single else 1):
        raise _invalid(ctx.op_name, f"{'parse_single_example' if single else 'parse_example'}"
                                    f": serialized must be a {'scalar' if single else 'vector'}"
                                    f", got shape {ser.shape}")
    feats = []
    for b in ser.reshape(-1):
        ex = Example()
        try:
            ex.ParseFromString(b)
        except DecodeError:
            raise _invalid(ctx.op_name, f"Could not parse example input, value: "
                                        f"{b[:64]!r}") from None
        feats.append(ex.features.feature)
    outs: List[Any] = []
    triples = [(_sparse(s, feats, ctx.op_name) if s["kind"] == "sparse"
                else _var_len(s, feats, ctx.op_name)) for s in a.get("sparse", [])]
    if single:
        # One example: drop the batch coordinate and the batch dimension.
        triples = [(ix[:, 1:], v, shp[1:]) for ix, v, shp in triples]
    outs += [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples]
    for spec, default in zip(a.get("dense", []), defaults):
        default = np.asarray(default, dtype=object if spec["type"] == _dtypes.string else None)
        fn = _dense_sequence if spec.get("seq") else _dense_fixed
        out = fn(spec, default, feats, ctx.op_name)
        outs.append(out[0] if single else out)
    if len(outs) == 1:
        return outs[0]
    return tuple(outs)


# -- tf.parse_single_sequence_example ---------------------------------------------------------
# The context is gathered as a one-example batch by the helpers above; each feature list
# as a batch whose examples are the list's steps, so a FixedLenSequenceFeature becomes
# [steps, *shape] and a VarLenFeature a [steps, longest] sparse triple, with the same
# type and size checks.


def _steps(ctx: KernelContext, lists: Any, spec: Dict[str, Any], required: bool) -> List[Any]:
    """The steps of feature list ``spec['key']`` as one ``{key: Feature}`` map each."""
    key = spec["key"]
    if key not in lists:
        if required:
            raise _invalid(ctx.op_name, f"Name: <unknown>, Feature list '{key}' is required "
                                        f"but could not be found.  Did you mean to set "
                                        f"allow_missing=True?")
        return []
    return [{key: f} for f in lists[key].feature]


@register_kernel("ParseSingleSequenceExample")
def _parse_single_sequence_example(ctx: KernelContext, serialized: Any, *defaults: Any) -> Any:
    a = ctx.attrs
    ser = string_array(serialized, ctx.op_name, "ParseSingleSequenceExample serialized")
    if ser.ndim != 0:
        raise _invalid(ctx.op_name, f"parse_single_sequence_example: serialized must be a "
                                    f"scalar, got shape {ser.shape}")
    ex = SequenceExample()
    try:
        ex.ParseFromString(ser[()])
    except DecodeError:
        raise _invalid(ctx.op_name, f"Could not parse SequenceExample input, value: "
                                    f"{ser[()][:64]!r}") from None
    context = [ex.context.feature]
    lists = ex.feature_lists.feature_list
    outs: List[Any] = []
    triples = [_var_len(s, context, ctx.op_name) for s in a.get("context_sparse", [])]
    triples = [(ix[:, 1:], v, shp[1:]) for ix, v, shp in triples]
    outs += [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples]
    for spec, default in zip(a.get("context_dense", []), defaults):
        default = np.asarray(default, dtype=object if spec["type"] == _dtypes.string else None)
        outs.append(_dense_fixed(spec, default, context, ctx.op_name)[0])
    triples = [_var_len(s, _steps(ctx, lists, s, False), ctx.op_name)
               for s in a.get("sequence_sparse", [])]
    outs += [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples]
    for spec in a.get("sequence_dense", []):
        steps = _steps(ctx, lists, spec, not spec.get("allow_missing", False))
        dt = _dtypes.as_dtype(spec["type"])
        outs.append(_dense_fixed(spec, _empty(dt), steps, ctx.op_name))
    if len(outs) == 1:
        return outs[0]
    return tuple(outs)


__all__: List[str] = []
