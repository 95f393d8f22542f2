"""Ranking and sampled losses: ``top_k``, the candidate samplers, ``nce_loss`` and
``sampled_softmax_loss``.

The candidate samplers are stateful ops with TensorFlow's outputs: the sampled
ids and the expected number of times each true and each sampled id would be
drawn. The sampled losses compose them with ``embedding_lookup``, so the output
weights may be one variable, a list of shards or a ``PartitionedVariable``,
routed by ``partition_strategy``; only the rows looked up get gradients.
"""

from __future__ import annotations

import collections
from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, get_seed, name_scope
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import nn_ops as N
from tensorfleet.ops.embedding_ops import embedding_lookup
from tensorfleet.ops.op_util import const_value, make_op

from tensorfleet.ops.sparse_ops import sparse_to_dense

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])
CandidateSamplerResult = collections.namedtuple(
    "CandidateSamplerResult", ["sampled_candidates", "true_expected_count",
                               "sampled_expected_count"])
ComputeAccidentalHits = collections.namedtuple("ComputeAccidentalHits",
                                               ["indices", "ids", "weights"])


def _top_k_shape(op: Any) -> List[TensorShape]:
    x = op.inputs[0].shape
    k = const_value(op.inputs[1])
    if x.ndims is None:
        return [TensorShape(None), TensorShape(None)]
    kd = None if k is None else int(k)
    out = TensorShape(x.as_list()[:-1] + [kd])
    return [out, out]


def _sampler_shape(op: Any) -> List[TensorShape]:
    n = op.attrs["num_sampled"]
    return [TensorShape([n]), op.inputs[0].shape, TensorShape([n])]


register_op("TopKV2", _top_k_shape)
for _t in ("UniformCandidateSampler", "LogUniformCandidateSampler",
           "LearnedUnigramCandidateSampler", "FixedUnigramCandidateSampler"):
    register_op(_t, _sampler_shape, stateful=True)
register_op("ComputeAccidentalHits",
            lambda op: [TensorShape([None]), TensorShape([None]), TensorShape([None])])


def top_k(input: Any, k: Any = 1, sorted: bool = True,  # noqa: A002
          name: Optional[str] = None) -> TopKV2:
    """The ``k`` largest entries of each last-axis row of ``input`` and their indices.

    Equal values keep their order: the one with the lower index comes first.
    ``values`` has the dtype of ``input``; ``indices`` is int32.

    Raises:
      ValueError: for a negative k or one larger than the last dimension.
    """
    x = convert_to_tensor(input)
    if x.dtype.np.kind not in "iuf":
        raise TypeError(f"top_k: input must be a real number tensor, got {x.dtype.name}")
    if x.shape.ndims == 0:
        raise ValueError("top_k: input must have rank >= 1, got a scalar")
    kt = k if isinstance(k, Tensor) else convert_to_tensor(int(k), dtype=_dtypes.int32)
    kv = const_value(kt)
    if kv is not None:
        kv = int(kv)
        if kv < 0:
            raise ValueError(f"top_k: k must be non-negative, got {kv}")
        last = x.shape[-1] if x.shape.ndims else None
        if last is not None and kv > last:
            raise ValueError(f"top_k: input must have at least k={kv} columns, got shape "
                             f"{x.shape}")
    op = make_op("TopKV2", [x, kt], [x.dtype, _dtypes.int32], {"sorted": bool(sorted)},
                 name=name or "TopKV2")
    return TopKV2(op.outputs[0], op.outputs[1])


def _true_classes(true_classes: Any, num_true: int, fname: str) -> Tensor:
    t = convert_to_tensor(true_classes)
    if t.dtype is not _dtypes.int64:
        raise TypeError(f"{fname}: true_classes must be int64, got {t.dtype.name}")
    if t.shape.ndims is not None and t.shape.ndims != 2:
        raise ValueError(f"{fname}: true_classes must be a [batch, num_true] matrix, got "
                         f"shape {t.shape}")
    if t.shape.ndims == 2 and t.shape[1] is not None and t.shape[1] != num_true:
        raise ValueError(f"{fname}: true_classes has {t.shape[1]} columns but num_true is "
                         f"{num_true}")
    return t


def _sampler(op_type: str, fname: str, true_classes: Any, num_true: int, num_sampled: int,
             unique: bool, range_max: int, seed: Optional[int], name: Optional[str],
             **extra: Any) -> CandidateSamplerResult:
    if int(num_true) < 1 or int(num_sampled) < 1 or int(range_max) < 1:
        raise ValueError(f"{fname}: num_true, num_sampled and range_max must be positive, "
                         f"got {num_true}, {num_sampled}, {range_max}")
    if unique and num_sampled > range_max:
        raise ValueError(f"{fname}: cannot draw {num_sampled} unique candidates from "
                         f"range_max={range_max}")
    t = _true_classes(true_classes, int(num_true), fname)
    s1, s2 = get_seed(seed)
    attrs = {"num_true": int(num_true), "num_sampled": int(num_sampled),
             "unique": bool(unique), "range_max": int(range_max),
             "seed": int(s1 or 0), "seed2": int(s2 or 0), **extra}
    op = make_op(op_type, [t], [_dtypes.int64, _dtypes.float32, _dtypes.float32], attrs,
                 name=name or op_type)
    return CandidateSamplerResult(*op.outputs)


def uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                              unique: bool, range_max: int, seed: Optional[int] = None,
                              name: Optional[str] = None) -> CandidateSamplerResult:
    """Samples ``num_sampled`` ids uniformly from [0, range_max)."""
    return _sampler("UniformCandidateSampler", "uniform_candidate_sampler", true_classes,
                    num_true, num_sampled, unique, range_max, seed, name)


def log_uniform_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                  unique: bool, range_max: int, seed: Optional[int] = None,
                                  name: Optional[str] = None) -> CandidateSamplerResult:
    """Samples ids from the Zipfian distribution
    ``P(c) = (log(c + 2) - log(c + 1)) / log(range_max + 1)``."""
    return _sampler("LogUniformCandidateSampler", "log_uniform_candidate_sampler",
                    true_classes, num_true, num_sampled, unique, range_max, seed, name)


def learned_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                      unique: bool, range_max: int,
                                      seed: Optional[int] = None,
                                      name: Optional[str] = None) -> CandidateSamplerResult:
    """Samples ids in proportion to how often they have been seen as true classes by this
    op in this session (every id starts with a count of one, so the first draws are
    uniform); each run adds its ``true_classes`` to the counts after sampling."""
    return _sampler("LearnedUnigramCandidateSampler", "learned_unigram_candidate_sampler",
                    true_classes, num_true, num_sampled, unique, range_max, seed, name)


def fixed_unigram_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int,
                                    unique: bool, range_max: int, vocab_file: str = "",
                                    distortion: float = 1.0, num_reserved_ids: int = 0,
                                    num_shards: int = 1, shard: int = 0,
                                    unigrams: Sequence[float] = (),
                                    seed: Optional[int] = None,
                                    name: Optional[str] = None) -> CandidateSamplerResult:
    """Samples ids in proportion to fixed weights raised to ``distortion``.

    The weights come from ``unigrams`` or from ``vocab_file`` (one entry per line,
    the weight as the last comma-separated field), after ``num_reserved_ids`` ids of
    weight zero; together they must cover ``range_max`` ids.

    Raises:
      ValueError: without exactly one of vocab_file and unigrams, for a weight count
        that does not match range_max, or for num_shards other than 1.
    """
    if bool(vocab_file) == bool(len(unigrams)):
        raise ValueError("fixed_unigram_candidate_sampler: give exactly one of vocab_file "
                         "and unigrams")
    if int(num_shards) != 1 or int(shard) != 0:
        raise ValueError(f"fixed_unigram_candidate_sampler: sharded sampling (num_shards="
                         f"{num_shards}, shard={shard}) is not supported")
    if len(unigrams) and len(unigrams) + int(num_reserved_ids) != int(range_max):
        raise ValueError(f"fixed_unigram_candidate_sampler: {len(unigrams)} unigrams plus "
                         f"{num_reserved_ids} reserved ids must equal range_max={range_max}")
    if any(float(u) < 0 for u in unigrams):
        raise ValueError("fixed_unigram_candidate_sampler: unigrams must be non-negative")
    return _sampler("FixedUnigramCandidateSampler", "fixed_unigram_candidate_sampler",
                    true_classes, num_true, num_sampled, unique, range_max, seed, name,
                    vocab_file=str(vocab_file), distortion=float(distortion),
                    num_reserved_ids=int(num_reserved_ids),
                    unigrams=[float(u) for u in unigrams])


def compute_accidental_hits(true_classes: Any, sampled_candidates: Any, num_true: int,
                            seed: Optional[int] = None,
                            name: Optional[str] = None) -> ComputeAccidentalHits:
    """Where a sampled candidate equals one of its row's true classes.

    Returns (indices int32, ids int64, weights float32): the row, the position in
    ``sampled_candidates`` and ``-FLT_MAX`` for each hit, in row-major order.
    """
    t = _true_classes(true_classes, int(num_true), "compute_accidental_hits")
    s = convert_to_tensor(sampled_candidates)
    if s.dtype is not _dtypes.int64:
        raise TypeError(f"compute_accidental_hits: sampled_candidates must be int64, got "
                        f"{s.dtype.name}")
    op = make_op("ComputeAccidentalHits", [t, s], [_dtypes.int32, _dtypes.int64,
                                                   _dtypes.float32],
                 {"num_true": int(num_true)}, name=name or "ComputeAccidentalHits")
    return ComputeAccidentalHits(*op.outputs)


def _sum_rows(x: Tensor) -> Tensor:
    return M.reduce_sum(x, 1)


def _compute_sampled_logits(weights: Any, biases: Any, labels: Any, inputs: Any,
                            num_sampled: int, num_classes: int, num_true: int,
                            sampled_values: Any, subtract_log_q: bool,
                            remove_accidental_hits: bool, partition_strategy: str,
                            seed: Optional[int]) -> Any:
    """Logits and labels over [true classes, sampled classes] for each example."""
    if isinstance(weights, Tensor) or hasattr(weights, "_ref"):
        weights = [weights]
    if isinstance(biases, Tensor) or hasattr(biases, "_ref"):
        biases = [biases]
    labels = convert_to_tensor(labels)
    if labels.dtype is not _dtypes.int64:
        labels = A.cast(labels, _dtypes.int64)
    x = convert_to_tensor(inputs)
    labels_flat = A.reshape(labels, [-1])
    if sampled_values is None:
        sampled_values = log_uniform_candidate_sampler(labels, num_true, num_sampled, True,
                                                       num_classes, seed=seed)
    sampled, true_expected, sampled_expected = (A.stop_gradient(s) for s in sampled_values)
    sampled = A.cast(sampled, _dtypes.int64) if sampled.dtype is not _dtypes.int64 else sampled
    all_ids = A.concat([labels_flat, sampled], 0)
    all_w = embedding_lookup(weights, all_ids, partition_strategy=partition_strategy)
    all_b = embedding_lookup(biases, all_ids, partition_strategy=partition_strategy)
    n_true = A.size(labels_flat)
    true_w = A.slice(all_w, A.stack([0, 0]), A.stack([n_true, -1]))
    sampled_w = A.slice(all_w, A.stack([n_true, 0]), [-1, -1])
    sampled_logits = M.matmul(x, sampled_w, transpose_b=True)
    true_b = A.slice(all_b, [0], A.stack([n_true]))
    sampled_b = A.slice(all_b, A.stack([n_true]), [-1])
    dim = A.shape(true_w)[1:2]
    rows = M.multiply(A.expand_dims(x, 1),
                      A.reshape(true_w, A.concat([[-1, num_true], dim], 0)))
    true_logits = A.reshape(_sum_rows(A.reshape(rows, A.concat([[-1], dim], 0))),
                            [-1, num_true])
    true_logits = M.add(true_logits, A.reshape(true_b, [-1, num_true]))
    sampled_logits = M.add(sampled_logits, sampled_b)
    if remove_accidental_hits:
        hits = compute_accidental_hits(labels, sampled, num_true)
        where = A.concat([A.reshape(hits.indices, [-1, 1]),
                          A.reshape(A.cast(hits.ids, _dtypes.int32), [-1, 1])], 1)
        dense_shape = A.concat([A.shape(labels)[:1], [num_sampled]], 0)
        penalty = sparse_to_dense(where, dense_shape, A.cast(hits.weights, x.dtype),
                                  default_value=0.0, validate_indices=False)
        sampled_logits = M.add(sampled_logits, penalty)
    if subtract_log_q:
        true_logits = M.subtract(true_logits, M.log(A.cast(true_expected, x.dtype)))
        sampled_logits = M.subtract(sampled_logits, M.log(A.cast(sampled_expected, x.dtype)))
    out_logits = A.concat([true_logits, sampled_logits], 1)
    out_labels = A.concat([M.divide(A.ones_like(true_logits), float(num_true)),
                           A.zeros_like(sampled_logits)], 1)
    return out_logits, out_labels


def _check_strategy(partition_strategy: str, fname: str) -> None:
    if partition_strategy not in ("mod", "div"):
        raise ValueError(f"{fname}: partition_strategy must be 'mod' or 'div', got "
                         f"{partition_strategy!r}")


def nce_loss(weights: Any, biases: Any, labels: Any, inputs: Any, num_sampled: int,
             num_classes: int, num_true: int = 1, sampled_values: Any = None,
             remove_accidental_hits: bool = False, partition_strategy: str = "mod",
             name: str = "nce_loss") -> Tensor:
    """Noise-contrastive estimation loss per example: logistic losses of the true
    classes (label 1/num_true) and the sampled ones (label 0), after subtracting the
    log of their expected counts, summed over each row. ``weights`` is [num_classes,
    dim] (or its shards), ``biases`` [num_classes], ``labels`` [batch, num_true]."""
    _check_strategy(partition_strategy, "nce_loss")
    with name_scope(name, "nce_loss"):
        logits, lab = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                              num_classes, num_true, sampled_values, True,
                                              remove_accidental_hits, partition_strategy, None)
        losses = N.sigmoid_cross_entropy_with_logits(labels=lab, logits=logits)
        return _sum_rows(losses)


def sampled_softmax_loss(weights: Any, biases: Any, labels: Any, inputs: Any,
                         num_sampled: int, num_classes: int, num_true: int = 1,
                         sampled_values: Any = None, remove_accidental_hits: bool = True,
                         partition_strategy: str = "mod", name: str = "sampled_softmax_loss",
                         seed: Optional[int] = None) -> Tensor:
    """Softmax cross entropy per example over the true classes and ``num_sampled``
    sampled ones, logits corrected by the log of their expected counts; sampled ids
    equal to a true class are masked out unless ``remove_accidental_hits`` is False."""
    _check_strategy(partition_strategy, "sampled_softmax_loss")
    with name_scope(name, "sampled_softmax_loss"):
        logits, lab = _compute_sampled_logits(weights, biases, labels, inputs, num_sampled,
                                              num_classes, num_true, sampled_values, True,
                                              remove_accidental_hits, partition_strategy, seed)
        return N.softmax_cross_entropy_with_logits_v2(labels=A.stop_gradient(lab),
                                                      logits=logits)


__all__ = ["top_k", "uniform_candidate_sampler", "log_uniform_candidate_sampler",
           "learned_unigram_candidate_sampler", "fixed_unigram_candidate_sampler",
           "compute_accidental_hits", "nce_loss", "sampled_softmax_loss"]


def all_candidate_sampler(true_classes: Any, num_true: int, num_sampled: int, unique: bool,
                          seed: Optional[int] = None,
                          name: Optional[str] = None) -> CandidateSamplerResult:
    """Every class ``0 .. num_sampled - 1`` as the sample (for tests and small vocabularies):
    the expected counts are all one. ``unique`` and ``seed`` do not change the result."""
    if int(num_true) < 1 or int(num_sampled) < 1:
        raise ValueError(f"all_candidate_sampler: num_true and num_sampled must be positive, "
                         f"got {num_true}, {num_sampled}")
    with name_scope(name, "all_candidate_sampler"):
        t = _true_classes(true_classes, int(num_true), "all_candidate_sampler")
        sampled = A.range(0, int(num_sampled), dtype=_dtypes.int64)
        return CandidateSamplerResult(sampled, A.ones_like(A.cast(t, _dtypes.float32)),
                                      A.ones([int(num_sampled)], dtype=_dtypes.float32))
