"""``tf.parse_single_sequence_example``: one serialized ``tf.train.SequenceExample`` to
its context features and its per-step sequence features.

Context features are ``FixedLenFeature`` (a dense tensor of its shape) or
``VarLenFeature`` (a rank-1 ``SparseTensor``). Sequence features are
``FixedLenSequenceFeature`` (``[steps, *shape]``; every step must hold exactly the
shape's values, and a missing list is an error unless ``allow_missing``) or
``VarLenFeature`` (a ``[steps, longest]`` ``SparseTensor``). The kernel is in
``kernels/numpy/parsing_kernels.py``; the op's attrs are plain data.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, unknown
from tensorfleet.ops.parsing_ops import (
    FixedLenFeature, FixedLenSequenceFeature, VarLenFeature, _dtype)
from tensorfleet.ops.parsing_ops import _fixed_shape as _shape

register_op("ParseSingleSequenceExample", unknown)


def _context_default(spec: FixedLenFeature, dt: _dtypes.DType, key: str,
                     shape: List[int]) -> Tensor:
    size = int(np.prod(shape, dtype=np.int64))
    if spec.default_value is None:
        return convert_to_tensor(np.zeros(0, dtype=object if dt is _dtypes.string else dt.np),
                                 dtype=dt, name=f"context_default_{key}")
    t = convert_to_tensor(spec.default_value, dtype=dt, name=f"context_default_{key}")
    n = t.shape.num_elements()
    if n is not None and n not in (1, size):
        raise ValueError(f"Context feature {key!r}: default_value has {n} elements but the "
                         f"shape {shape} holds {size}")
    return t


def _plan_context(features: Dict[str, Any]) -> Tuple[List[Dict[str, Any]], List[Dict[str, Any]],
                                                     List[Tensor]]:
    sparse, dense, defaults = [], [], []
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, VarLenFeature):
            sparse.append({"key": key, "type": _dtype(spec.dtype, key)})
        elif isinstance(spec, FixedLenFeature):
            dt = _dtype(spec.dtype, key)
            shape = _shape(spec.shape, key)
            dense.append({"key": key, "type": dt, "shape": shape, "seq": False})
            defaults.append(_context_default(spec, dt, key, shape))
        else:
            raise ValueError(f"Context feature {key!r}: unsupported spec {spec!r}; use "
                             f"FixedLenFeature or VarLenFeature")
    return sparse, dense, defaults


def _plan_sequence(features: Dict[str, Any]) -> Tuple[List[Dict[str, Any]],
                                                      List[Dict[str, Any]]]:
    sparse, dense = [], []
    for key in sorted(features):
        spec = features[key]
        if isinstance(spec, VarLenFeature):
            sparse.append({"key": key, "type": _dtype(spec.dtype, key)})
        elif isinstance(spec, FixedLenSequenceFeature):
            if spec.default_value is not None:
                raise ValueError(f"Sequence feature {key!r}: default_value is not supported "
                                 f"for sequence features; use allow_missing=True for an "
                                 f"empty list when it is missing")
            dense.append({"key": key, "type": _dtype(spec.dtype, key),
                          "shape": _shape(spec.shape, key),
                          "allow_missing": bool(spec.allow_missing)})
        else:
            raise ValueError(f"Sequence feature {key!r}: unsupported spec {spec!r}; use "
                             f"FixedLenSequenceFeature or VarLenFeature")
    return sparse, dense


def parse_single_sequence_example(serialized: Any,
                                  context_features: Optional[Dict[str, Any]] = None,
                                  sequence_features: Optional[Dict[str, Any]] = None,
                                  example_name: Any = None, name: Optional[str] = None
                                  ) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Parses one serialized ``SequenceExample`` (a string scalar).

    Returns:
      ``(context, sequence)``: two dicts from feature key to Tensor or SparseTensor
      (see the module docstring for their shapes).

    Raises:
      ValueError: no features requested, an unsupported spec, or a bad default.
      InvalidArgumentError (when run): the proto does not parse, a feature has the wrong
        type or number of values, or a required feature or feature list is missing.
    """
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("parse_single_sequence_example: give context_features or "
                         "sequence_features")
    c_sparse, c_dense, defaults = _plan_context(context_features)
    s_sparse, s_dense = _plan_sequence(sequence_features)
    with name_scope(name, "ParseSingleSequenceExample"):
        ser = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
        if ser.dtype is not _dtypes.string or ser.shape.ndims not in (None, 0):
            raise ValueError(f"parse_single_sequence_example: serialized must be a string "
                             f"scalar, got {ser.dtype.name} {ser.shape}")
        nc, ns = len(c_sparse), len(s_sparse)
        types = ([_dtypes.int64] * nc + [s["type"] for s in c_sparse] + [_dtypes.int64] * nc
                 + [d["type"] for d in c_dense]
                 + [_dtypes.int64] * ns + [s["type"] for s in s_sparse] + [_dtypes.int64] * ns
                 + [d["type"] for d in s_dense])
        shapes = ([TensorShape([None, 1])] * nc + [TensorShape([None])] * nc +
                  [TensorShape([1])] * nc + [TensorShape(d["shape"]) for d in c_dense] +
                  [TensorShape([None, 2])] * ns + [TensorShape([None])] * ns +
                  [TensorShape([2])] * ns +
                  [TensorShape([None] + d["shape"]) for d in s_dense])
        op = make_op("ParseSingleSequenceExample", [ser] + defaults, types,
                     {"context_sparse": c_sparse, "context_dense": c_dense,
                      "sequence_sparse": s_sparse, "sequence_dense": s_dense},
                     name="ParseSingleSequenceExample", shapes=shapes)
    context, sequence, _ = split_outputs(list(op.outputs), c_sparse, c_dense, s_sparse,
                                         s_dense)
    return context, sequence


def split_outputs(outs: List[Tensor], c_sparse: List[Dict[str, Any]],
                  c_dense: List[Dict[str, Any]], s_sparse: List[Dict[str, Any]],
                  s_dense: List[Dict[str, Any]]
                  ) -> Tuple[Dict[str, Any], Dict[str, Any], int]:
    """``(context, sequence, end)`` from the outputs of a sequence-example parse op: the
    context's sparse (indices, values, shapes) then dense outputs, the same for the
    feature lists; ``end`` is the index of the first output after them."""
    nc, ns = len(c_sparse), len(s_sparse)
    context: Dict[str, Any] = {}
    for i, spec in enumerate(c_sparse):
        context[spec["key"]] = SparseTensor(outs[i], outs[nc + i], outs[2 * nc + i])
    for i, spec in enumerate(c_dense):
        context[spec["key"]] = outs[3 * nc + i]
    base = 3 * nc + len(c_dense)
    sequence: Dict[str, Any] = {}
    for i, spec in enumerate(s_sparse):
        sequence[spec["key"]] = SparseTensor(outs[base + i], outs[base + ns + i],
                                             outs[base + 2 * ns + i])
    base += 3 * ns
    for i, spec in enumerate(s_dense):
        sequence[spec["key"]] = outs[base + i]
    return context, sequence, base + len(s_dense)


__all__ = ["parse_single_sequence_example"]
