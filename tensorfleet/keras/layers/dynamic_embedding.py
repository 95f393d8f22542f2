"""Keras ``DynamicLookup`` and ``DynamicEmbedding``: a vocabulary that follows the data.

``DynamicLookup`` maps each input to its index in ``vocabulary`` (``vocabulary_size``
for anything else) and, while learning, counts how many batches each key appeared in,
in a table 20% larger than the vocabulary; when new keys do not fit, the least
frequently used ones are evicted (LFU; ties evict the older entry). ``DynamicEmbedding``
looks the indices up in an embedding matrix with ``num_oov_indices`` extra rows;
``update_embeddings`` replaces the vocabulary by the most frequent keys of the table,
keeping the rows of keys that stay and initializing the others.
"""

from __future__ import annotations

import string
from typing import Any, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.keras import backend as K
from tensorfleet.keras import initializers as _inits
from tensorfleet.keras.layers.base import Layer, WrappingLayer
from tensorfleet.keras.layers.core import Embedding
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.nn_sampling_ops import top_k as _top_k
from tensorfleet.ops.script_ops import py_func as _py_func


def _pad_value(dtype: _dtypes.DType) -> Any:
    return b"unk" if dtype == _dtypes.string else -1


def _initial_vocabulary(initial: Any, size: int) -> np.ndarray:
    if initial in (_dtypes.string, _dtypes.int32, _dtypes.int64, "string", "int32", "int64"):
        dt = _dtypes.as_dtype(initial)
        rng = np.random.RandomState()
        if dt == _dtypes.string:
            letters = np.array(list(string.ascii_letters))
            return np.array(["".join(rng.choice(letters, 10)).encode() for _ in range(size)],
                            dtype=object)
        return rng.randint(0, size, size=size).astype(dt.as_numpy_dtype)
    if hasattr(initial, "op"):
        initial = K.get_value(initial) if hasattr(initial, "initializer") else K.eval(initial)
    arr = np.asarray(initial)
    if arr.ndim != 1:
        raise ValueError("Either specify the initial vocabulary or provide a valid dtype. "
                         "The dtype argument must be one of the following: tf.string, "
                         "tf.int32, tf.int64.")
    if arr.dtype.kind in "US":
        arr = np.array([str(s).encode() if not isinstance(s, bytes) else s for s in arr],
                       dtype=object)
    return arr


def _lfu_update(keys: np.ndarray, counts: np.ndarray, batch: np.ndarray,
                pad: Any, capacity: int) -> tuple:
    """One batch into the frequency table: evict, count present keys, add new ones."""
    live = np.array([k != pad for k in keys], dtype=bool)
    uk, uv = keys[live], counts[live].astype(np.int32)
    _, first = np.unique(batch, return_index=True)
    unique = batch[np.sort(first)]
    known = set(uk.tolist())
    new = np.array(sorted(k for k in set(unique.tolist()) if k not in known),
                   dtype=keys.dtype)
    n_remove = max(len(uk) - capacity + len(new), 0)
    if n_remove:
        order = np.argsort(uv, kind="stable")[:n_remove]
        drop = set(uk[order].tolist())
        keep = np.array([k not in drop for k in uk.tolist()], dtype=bool)
        uk, uv = uk[keep], uv[keep]
    seen = set(unique.tolist())
    uv = uv + np.array([1 if k in seen else 0 for k in uk.tolist()], dtype=np.int32)
    out_k = np.concatenate([uk, new])[:capacity]
    out_v = np.concatenate([uv, np.ones(len(new), np.int32)])[:capacity]
    fill = capacity - len(out_k)
    out_k = np.concatenate([out_k, np.array([pad] * fill, dtype=keys.dtype)])
    out_v = np.concatenate([out_v, np.full(fill, -1, np.int32)])
    return out_k.astype(keys.dtype), out_v.astype(np.int32)


def _const_init(value: np.ndarray) -> Any:
    def init(shape: Any, dtype: Any = None, partition_info: Any = None) -> Tensor:
        return A.constant(value, dtype=dtype)
    return init


class DynamicLookup(Layer):
    """Indices of the inputs in a vocabulary of ``vocabulary_size`` keys
    (``vocabulary_size`` for unknown keys), with LFU frequency counting while learning."""

    def __init__(self, vocabulary_size: int, initial_vocabulary: Any,
                 eviction_policy: str = "LFU", **kwargs: Any):
        super().__init__(**kwargs)
        if eviction_policy != "LFU":
            raise ValueError(f"{eviction_policy} eviction policy is currently unsupported by "
                             f"DynamicLookup layer. It currently only supports `LFU`")
        self.vocabulary_size, self.eviction_policy = int(vocabulary_size), eviction_policy
        self.initial_vocabulary = _initial_vocabulary(initial_vocabulary, self.vocabulary_size)
        if len(self.initial_vocabulary) != self.vocabulary_size:
            raise ValueError(f"DynamicLookup: the initial vocabulary has "
                             f"{len(self.initial_vocabulary)} keys, vocabulary_size is "
                             f"{self.vocabulary_size}")
        self.vocabulary_dtype = _dtypes.string if self.initial_vocabulary.dtype == object \
            else _dtypes.as_dtype(self.initial_vocabulary.dtype)
        self.internal_table_size = int(np.floor(self.vocabulary_size * 1.2))

    def build(self, input_shape: Any = None) -> None:
        """Creates ``vocabulary`` and the frequency table (keys and counts)."""
        dt, pad = self.vocabulary_dtype, _pad_value(self.vocabulary_dtype)
        n = self.internal_table_size
        keys = np.array(list(self.initial_vocabulary[:n]) +
                        [pad] * max(n - len(self.initial_vocabulary), 0),
                        dtype=self.initial_vocabulary.dtype)
        counts = np.array([0] * min(len(self.initial_vocabulary), n) +
                          [-1] * max(n - len(self.initial_vocabulary), 0), np.int32)
        self.vocabulary = self.add_weight("vocabulary", [self.vocabulary_size], dtype=dt,
                                          initializer=_const_init(self.initial_vocabulary),
                                          trainable=False)
        self.vocabulary_table_keys = self.add_weight("vocabulary_table_keys", [n], dtype=dt,
                                                     initializer=_const_init(keys),
                                                     trainable=False)
        self.vocabulary_table_values = self.add_weight(
            "vocabulary_table_values", [n], dtype="int32", initializer=_const_init(counts),
            trainable=False)

    def call(self, inputs: Tensor, learn_vocab: bool = True) -> Tensor:  # type: ignore[override]
        """The vocabulary index of every input (int64)."""
        flat = A.reshape(A.cast(inputs, self.vocabulary_dtype), [-1])
        deps: List[Any] = []
        if learn_vocab:
            pad, cap = _pad_value(self.vocabulary_dtype), self.internal_table_size
            new_k, new_v = _py_func(lambda k, v, b: _lfu_update(k, v, b, pad, cap),
                                    [self.vocabulary_table_keys, self.vocabulary_table_values,
                                     flat], [self.vocabulary_dtype, _dtypes.int32],
                                    stateful=True)
            deps = [S.assign(self.vocabulary_table_keys, A.reshape(new_k, [cap])),
                    S.assign(self.vocabulary_table_values, A.reshape(new_v, [cap]))]
        with get_default_graph().control_dependencies(deps):
            vocab = self.vocabulary.read_value()
            hit = M.equal(A.expand_dims(flat, -1), vocab)
            found = M.reduce_any(hit, axis=-1)
            idx = M.argmax(A.cast(hit, _dtypes.int32), axis=-1)
            out = A.where(found, idx, A.fill(A.shape(idx),
                                             np.int64(self.vocabulary_size)))
        return A.reshape(out, A.shape(inputs))

    def get_top_vocabulary(self, k: int) -> Tensor:
        """The ``k`` most frequent keys of the table."""
        k = min(int(k), self.internal_table_size)
        _, idx = _top_k(self.vocabulary_table_values, k=k)
        return A.gather(self.vocabulary_table_keys, idx)

    def get_vocabulary(self) -> Any:
        """The vocabulary variable."""
        return self.vocabulary


class DynamicEmbedding(WrappingLayer):
    """An embedding over a ``DynamicLookup`` vocabulary of ``input_dim`` keys plus
    ``num_oov_indices`` rows for unknown keys."""

    def __init__(self, input_dim: int, output_dim: int, initial_vocabulary: Any,
                 eviction_policy: str = "LFU", input_length: Optional[int] = None,
                 embedding_initializer: Any = "uniform", num_oov_indices: int = 1,
                 **kwargs: Any):
        super().__init__(**kwargs)
        if int(num_oov_indices) < 1:
            raise ValueError(f"DynamicEmbedding: num_oov_indices must be >= 1, got "
                             f"{num_oov_indices}")
        self.embedding_initializer, self.num_oov_indices = embedding_initializer, \
            int(num_oov_indices)
        self.embedding_layer = Embedding(int(input_dim) + self.num_oov_indices, output_dim,
                                         embeddings_initializer=embedding_initializer,
                                         input_length=input_length)
        self.dynamic_lookup_layer = DynamicLookup(int(input_dim), initial_vocabulary,
                                                  eviction_policy=eviction_policy)

    def _wrapped(self) -> List[Any]:
        return [self.embedding_layer, self.dynamic_lookup_layer]

    def call(self, inputs: Tensor, learn_vocab: bool = True) -> Tensor:  # type: ignore[override]
        """The embeddings of the inputs' vocabulary indices."""
        return self.embedding_layer(self.dynamic_lookup_layer(inputs, learn_vocab=learn_vocab))

    def get_vocabulary(self) -> Any:
        """The lookup's vocabulary variable."""
        return self.dynamic_lookup_layer.get_vocabulary()

    def update_embeddings(self, strategy: Any = None) -> None:
        """Makes the table's most frequent keys the vocabulary: rows of keys already in
        it move with them, rows of new keys (and the OOV rows) are initialized afresh.

        Raises:
          ValueError: a distribution strategy (not supported).
        """
        if strategy is not None:
            raise ValueError("update_embeddings: distribution strategies are not supported")
        lookup = self.dynamic_lookup_layer
        keys, counts, old_vocab, emb = K.batch_get_value(
            [lookup.vocabulary_table_keys, lookup.vocabulary_table_values,
             lookup.vocabulary, self.embedding_layer.embeddings])
        order = np.argsort(-counts.astype(np.int64), kind="stable")[:lookup.vocabulary_size]
        new_vocab = keys[order]
        fresh = K.eval(_inits.get(self.embedding_initializer)(list(emb.shape), dtype="float32"))
        where = {k: i for i, k in enumerate(old_vocab.tolist())}
        rows = np.array(fresh, copy=True)
        for i, key in enumerate(new_vocab.tolist()):
            j = where.get(key)
            if j is not None:
                rows[i] = emb[j]
        K.batch_set_value([(lookup.vocabulary, new_vocab),
                           (self.embedding_layer.embeddings, rows)])


__all__ = ["DynamicLookup", "DynamicEmbedding"]
