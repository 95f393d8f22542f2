"""Hashing ops: ``tf.string_to_hash_bucket_fast`` / ``_strong`` and feature crosses.

The bucket ids are TensorFlow's, bit for bit (see ``kernels/numpy/hash_kernels.py``), so
a model trained by either system reads the same hashed features.
``sparse_cross`` / ``sparse_cross_hashed`` take ``SparseTensor`` or dense
``[batch, n]`` inputs and return, per batch row, every combination of one value
from each input (the last input varying fastest).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.sparse_tensor import SparseTensor, SparseTensorValue
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.op_util import make_op, make_tensor, same_shape

# The hash key TensorFlow's crosses use when none is given.
DEFAULT_HASH_KEY = 0xDECAFCAFFE


def _cross_shapes(op: Operation) -> List[TensorShape]:
    return [TensorShape([None, 2]), TensorShape([None]), TensorShape([2])]


register_op("StringToHashBucketFast", same_shape)
register_op("StringToHashBucketStrong", same_shape)
register_op("SparseCross", _cross_shapes)
register_op("Fingerprint", lambda op: [TensorShape([op.inputs[0].shape[0] if
                                                    op.inputs[0].shape.ndims else None, 8])])


def _check_buckets(num_buckets: Any, fname: str, allow_zero: bool = False) -> int:
    if isinstance(num_buckets, bool) or not isinstance(num_buckets, int) or \
            num_buckets < (0 if allow_zero else 1):
        need = ">= 0" if allow_zero else ">= 1"
        raise ValueError(f"{fname}: num_buckets must be an int {need}, got {num_buckets!r}")
    return num_buckets


def fingerprint(data: Any, method: str = "farmhash64", name: Optional[str] = None) -> Tensor:
    """A uint8 ``[batch, 8]`` tensor: the little-endian FarmHash Fingerprint64 of each row
    ``data[i]`` (its raw bytes; for strings, of the fingerprints of its strings, or of
    the string itself when ``data`` is 1-D), TensorFlow's values byte for byte.

    Raises:
      ValueError: ``method`` other than ``"farmhash64"`` or ``data`` of rank 0.
    """
    if method != "farmhash64":
        raise ValueError(f"fingerprint: unsupported method {method!r}; only 'farmhash64'")
    with name_scope(name, "Fingerprint"):
        x = convert_to_tensor(data)
        if x.shape.ndims == 0:
            raise ValueError("fingerprint: `data` should have at least one dimension")
        return make_tensor("Fingerprint", [x], _dtypes.uint8, {"method": method},
                           name="Fingerprint")


def string_to_hash_bucket_fast(input: Any, num_buckets: int,  # noqa: A002 - TF name
                               name: Optional[str] = None) -> Tensor:
    """Each string of ``input`` hashed to an int64 bucket in ``[0, num_buckets)``.

    The bucket is FarmHash Fingerprint64 of the string's bytes modulo
    ``num_buckets``, as in TensorFlow.

    Raises:
      ValueError: ``num_buckets`` < 1.
      TypeError: ``input`` is not a string tensor.
    """
    _check_buckets(num_buckets, "string_to_hash_bucket_fast")
    x = input if isinstance(input, Tensor) else convert_to_tensor(input, dtype=_dtypes.string)
    if x.dtype is not _dtypes.string:
        raise TypeError(f"Input 'input' of 'StringToHashBucketFast' Op has type "
                        f"{x.dtype.name} that does not match expected type of string.")
    return make_tensor("StringToHashBucketFast", [x], _dtypes.int64,
                       {"num_buckets": num_buckets}, name=name or "StringToHashBucketFast",
                       shape=x.shape)


def string_to_hash_bucket_strong(input: Any, num_buckets: int,  # noqa: A002 - TF name
                                 key: Sequence[int], name: Optional[str] = None) -> Tensor:
    """Each string of ``input`` hashed to a bucket with keyed SipHash-2-4.

    ``key`` is two unsigned 64-bit ints; without it an adversary who knows the
    hash can choose strings that collide, which a fast hash does not prevent.
    The bucket is the hash modulo ``num_buckets``, as in TensorFlow.

    Raises:
      ValueError: ``num_buckets`` < 1 or a key that is not two uint64 values.
    """
    _check_buckets(num_buckets, "string_to_hash_bucket_strong")
    if not isinstance(key, (list, tuple)) or len(key) != 2 or \
            not all(isinstance(k, int) and 0 <= k < 2 ** 64 for k in key):
        raise ValueError(f"string_to_hash_bucket_strong: key must be a list of 2 unsigned "
                         f"64-bit ints, got {key!r}")
    x = input if isinstance(input, Tensor) else convert_to_tensor(input, dtype=_dtypes.string)
    if x.dtype is not _dtypes.string:
        raise TypeError(f"Input 'input' of 'StringToHashBucketStrong' Op has type "
                        f"{x.dtype.name} that does not match expected type of string.")
    return make_tensor("StringToHashBucketStrong", [x], _dtypes.int64,
                       {"num_buckets": num_buckets, "key": [int(k) for k in key]},
                       name=name or "StringToHashBucketStrong", shape=x.shape)


def _cross_inputs(inputs: Sequence[Any], fname: str) -> tuple:
    if not isinstance(inputs, (list, tuple)) or not inputs:
        raise TypeError(f"{fname}: inputs must be a non-empty list of SparseTensor or Tensor")
    sparse: List[SparseTensor] = []
    dense: List[Tensor] = []
    for i, x in enumerate(inputs):
        if isinstance(x, SparseTensorValue):
            x = SparseTensor.from_value(x)
        if isinstance(x, SparseTensor):
            sparse.append(x)
            continue
        t = convert_to_tensor(x)
        if t.shape.ndims is not None and t.shape.ndims != 2:
            raise ValueError(f"{fname}: dense input {i} must have rank 2 [batch, n], got "
                             f"shape {t.shape}")
        dense.append(t)
    for t in [s.values for s in sparse] + dense:
        if t.dtype not in (_dtypes.string, _dtypes.int64, _dtypes.int32):
            raise TypeError(f"{fname}: inputs must be string, int32 or int64, got "
                            f"{t.dtype.name} ({t.name})")
    return sparse, dense


def _cross(inputs: Sequence[Any], hashed: bool, num_buckets: int, hash_key: Optional[int],
           name: Optional[str], fname: str) -> SparseTensor:
    sparse, dense = _cross_inputs(inputs, fname)
    key = DEFAULT_HASH_KEY if hash_key is None else int(hash_key)
    if not 0 <= key < 2 ** 64:
        raise ValueError(f"{fname}: hash_key must be an unsigned 64-bit int, got {hash_key!r}")
    out_dtype = _dtypes.int64 if hashed else _dtypes.string
    with name_scope(name or fname):
        op = make_op("SparseCross", [s.indices for s in sparse] + [s.values for s in sparse] +
                     [s.dense_shape for s in sparse] + dense,
                     [_dtypes.int64, out_dtype, _dtypes.int64],
                     {"N": len(sparse), "hashed_output": hashed, "num_buckets": num_buckets,
                      "hash_key": key}, name="SparseCross")
    return SparseTensor(op.outputs[0], op.outputs[1], op.outputs[2])


def sparse_cross(inputs: Sequence[Any], name: Optional[str] = None) -> SparseTensor:
    """The string cross of ``inputs``: values ``b"<v1>_X_<v2>_X_..."`` per combination."""
    return _cross(inputs, False, 0, 0, name, "sparse_cross")


def sparse_cross_hashed(inputs: Sequence[Any], num_buckets: int = 0,
                        hash_key: Optional[int] = None,
                        name: Optional[str] = None) -> SparseTensor:
    """The hashed cross of ``inputs``: an int64 bucket per combination of values.

    Each combination hashes to ``FingerprintCat64`` chained over the features'
    fingerprints (a string's Fingerprint64, an integer's own value) starting from
    ``hash_key`` (TensorFlow's default key when None), modulo ``num_buckets``
    (or modulo ``2**63 - 1`` when ``num_buckets`` is 0).
    """
    _check_buckets(num_buckets, "sparse_cross_hashed", allow_zero=True)
    return _cross(inputs, True, num_buckets, hash_key, name, "sparse_cross_hashed")


__all__ = ["fingerprint", "string_to_hash_bucket_fast", "string_to_hash_bucket_strong", "sparse_cross",
           "sparse_cross_hashed", "DEFAULT_HASH_KEY"]
