"""The kernel of ``tf.io.parse_sequence_example`` (``ops/parsing_sequence_batch_ops.py``):
each serialized example parsed as ``ParseSingleSequenceExample`` parses one, then the
per-example results batched."""

from __future__ import annotations

from typing import Any, List

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.numpy.parsing_kernels import _empty, _parse_single_sequence_example
from tensorfleet.kernels.numpy.string_kernels import string_array
from tensorfleet.kernels.registry import KernelContext, register_kernel


def _batch_sparse(triples: List[tuple], rank: int, dt: _dtypes.DType) -> tuple:
    """Per-example (indices, values, dense_shape) as one triple with a batch index."""
    idx = [np.concatenate([np.full((len(ix), 1), b, dtype=np.int64),
                           np.asarray(ix, dtype=np.int64).reshape(-1, rank)], axis=1)
           for b, (ix, _, _) in enumerate(triples)]
    vals = [np.asarray(v) for _, v, _ in triples]
    longest = np.max([np.asarray(s, dtype=np.int64) for _, _, s in triples], axis=0) \
        if triples else np.zeros(rank, dtype=np.int64)
    values = np.concatenate(vals) if vals else _empty(dt)
    return (np.concatenate(idx) if idx else np.zeros((0, rank + 1), dtype=np.int64),
            values, np.concatenate([[len(triples)], longest]).astype(np.int64))


@register_kernel("ParseSequenceExample")
def _parse_sequence_example(ctx: KernelContext, serialized: Any, *defaults: Any) -> Any:
    a = ctx.attrs
    ser = string_array(serialized, ctx.op_name, "ParseSequenceExample serialized")
    if ser.ndim != 1:
        raise errors.InvalidArgumentError(ctx.op_name, None, f"parse_sequence_example: "
                                          f"serialized must be a vector, got shape "
                                          f"{list(ser.shape)}")
    per = []
    for i, one in enumerate(ser):
        scalar = np.empty((), dtype=object)
        scalar[()] = one
        try:
            out = _parse_single_sequence_example(ctx, scalar, *defaults)
        except errors.OpError as e:
            raise type(e)(ctx.op_name, None, f"example {i}: {e.message}") from None
        per.append(out if isinstance(out, tuple) else (out,))
    nc, ns = len(a.get("context_sparse", [])), len(a.get("sequence_sparse", []))
    c_dense, s_dense = a.get("context_dense", []), a.get("sequence_dense", [])
    outs: List[Any] = []
    pos = 0
    triples = [_batch_sparse([(p[pos + k], p[pos + nc + k], p[pos + 2 * nc + k]) for p in per],
                             1, _dtypes.as_dtype(spec["type"]))
               for k, spec in enumerate(a.get("context_sparse", []))]
    outs += [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples]
    pos += 3 * nc
    for k, spec in enumerate(c_dense):
        dt = _dtypes.as_dtype(spec["type"])
        rows = [np.asarray(p[pos + k]) for p in per]
        outs.append(np.stack(rows) if rows else _empty(dt, (0,) + tuple(spec["shape"])))
    pos += len(c_dense)
    triples = [_batch_sparse([(p[pos + k], p[pos + ns + k], p[pos + 2 * ns + k]) for p in per],
                             2, _dtypes.as_dtype(spec["type"]))
               for k, spec in enumerate(a.get("sequence_sparse", []))]
    outs += [t[0] for t in triples] + [t[1] for t in triples] + [t[2] for t in triples]
    pos += 3 * ns
    lengths = []
    for k, spec in enumerate(s_dense):
        dt = _dtypes.as_dtype(spec["type"])
        rows = [np.asarray(p[pos + k]) for p in per]
        steps = [len(r) for r in rows]
        out = _empty(dt, (len(rows), max(steps, default=0)) + tuple(spec["shape"]))
        for b, r in enumerate(rows):
            out[b, :len(r)] = r
        outs.append(out)
        lengths.append(np.asarray(steps, dtype=np.int64))
    outs += lengths
    return outs[0] if len(outs) == 1 else tuple(outs)
