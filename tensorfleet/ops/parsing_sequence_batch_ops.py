"""``tf.io.parse_sequence_example``: a batch of serialized ``tf.train.SequenceExample``
protos parsed together, each as ``parse_single_sequence_example`` parses one, the
results batched: dense features stacked, sequence features padded to the longest
example (with their lengths), sparse features given a leading batch index.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, unknown
from tensorfleet.ops.parsing_sequence_ops import _plan_context, _plan_sequence, split_outputs

register_op("ParseSequenceExample", unknown)


def parse_sequence_example(serialized: Any, context_features: Optional[Dict[str, Any]] = None,
                           sequence_features: Optional[Dict[str, Any]] = None,
                           example_names: Any = None, name: Optional[str] = None
                           ) -> Tuple[Dict[str, Any], Dict[str, Any], Dict[str, Any]]:
    """Parses a vector of serialized ``SequenceExample`` protos.

    Returns:
      ``(context, feature_lists, feature_list_lengths)``: context ``FixedLenFeature``s as
      ``[batch, *shape]`` tensors and ``VarLenFeature``s as ``[batch, longest]``
      SparseTensors; ``FixedLenSequenceFeature``s as ``[batch, steps, *shape]`` tensors
      padded with zeros (empty strings) to the most steps, with their step counts
      (int64 ``[batch]``) in ``feature_list_lengths``; sequence ``VarLenFeature``s as
      ``[batch, steps, longest]`` SparseTensors.

    Raises:
      ValueError: no features requested, an unsupported spec, a default value for a
        sequence feature, ``serialized`` not a vector, or ``example_names`` given (error
        messages name examples by their index).
      InvalidArgumentError (when run): as ``parse_single_sequence_example``.
    """
    if example_names is not None:
        raise ValueError("parse_sequence_example: example_names is not supported; errors "
                         "name each example by its index in serialized")
    context_features = dict(context_features or {})
    sequence_features = dict(sequence_features or {})
    if not context_features and not sequence_features:
        raise ValueError("parse_sequence_example: give context_features or "
                         "sequence_features")
    c_sparse, c_dense, defaults = _plan_context(context_features)
    s_sparse, s_dense = _plan_sequence(sequence_features)
    with name_scope(name, "ParseSequenceExample"):
        ser = convert_to_tensor(serialized, dtype=_dtypes.string, name="serialized")
        if ser.shape.ndims not in (None, 1):
            raise ValueError(f"parse_sequence_example: serialized must be a vector, got "
                             f"shape {ser.shape}")
        nc, ns, nd = len(c_sparse), len(s_sparse), len(s_dense)
        types = ([_dtypes.int64] * nc + [s["type"] for s in c_sparse] + [_dtypes.int64] * nc
                 + [d["type"] for d in c_dense]
                 + [_dtypes.int64] * ns + [s["type"] for s in s_sparse] + [_dtypes.int64] * ns
                 + [d["type"] for d in s_dense] + [_dtypes.int64] * nd)
        b = ser.shape.as_list()[0] if ser.shape.ndims == 1 else None
        shapes = ([TensorShape([None, 2])] * nc + [TensorShape([None])] * nc +
                  [TensorShape([2])] * nc + [TensorShape([b] + d["shape"]) for d in c_dense] +
                  [TensorShape([None, 3])] * ns + [TensorShape([None])] * ns +
                  [TensorShape([3])] * ns +
                  [TensorShape([b, None] + d["shape"]) for d in s_dense] +
                  [TensorShape([b])] * nd)
        op = make_op("ParseSequenceExample", [ser] + defaults, types,
                     {"context_sparse": c_sparse, "context_dense": c_dense,
                      "sequence_sparse": s_sparse, "sequence_dense": s_dense},
                     name="ParseSequenceExample", shapes=shapes)
    outs = list(op.outputs)
    context, lists, end = split_outputs(outs, c_sparse, c_dense, s_sparse, s_dense)
    # The batched op adds each dense feature list's lengths after the feature lists.
    lengths = {spec["key"]: outs[end + i] for i, spec in enumerate(s_dense)}
    return context, lists, lengths


__all__ = ["parse_sequence_example"]
