"""Word2vec training pairs: ``skipgrams`` (word, context) couples with negative samples,
and ``make_sampling_table``, the Zipf-law probabilities of keeping each word rank."""

from __future__ import annotations

import random
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

_EULER_GAMMA = 0.577


def make_sampling_table(size: int, sampling_factor: float = 1e-5) -> np.ndarray:
    """For word ranks ``0 .. size - 1`` (0 the most frequent), the probability of
    sampling the word, from word2vec's subsampling rule with frequencies following
    Zipf's law."""
    rank = np.arange(size, dtype=np.float64)
    rank[0] = 1
    inv_fq = rank * (np.log(rank) + _EULER_GAMMA) + 0.5 - 1.0 / (12.0 * rank)
    f = sampling_factor * inv_fq
    return np.minimum(1.0, f / np.sqrt(f))


def skipgrams(sequence: Sequence[int], vocabulary_size: int, window_size: int = 4,
              negative_samples: float = 1.0, shuffle: bool = True, categorical: bool = False,
              sampling_table: Optional[Sequence[float]] = None,
              seed: Optional[int] = None) -> Tuple[List[List[int]], List[Any]]:
    """``(couples, labels)``: each word of ``sequence`` (index 0 skipped) paired with the
    words within ``window_size`` of it (label 1), plus ``negative_samples`` times as many
    pairs with a random word of ``[1, vocabulary_size)`` (label 0); ``categorical``
    labels are ``[0, 1]``/``[1, 0]``. A ``sampling_table`` keeps word ``i`` with
    probability ``sampling_table[i]``. ``seed`` makes the sampling and the shuffle
    repeatable (a generator of its own, leaving Python's global one alone)."""
    rng = random.Random(seed)
    couples: List[List[int]] = []
    labels: List[Any] = []
    positive: Any = [0, 1] if categorical else 1
    negative: Any = [1, 0] if categorical else 0
    for i, wi in enumerate(sequence):
        if not wi:
            continue
        if sampling_table is not None and sampling_table[wi] < rng.random():
            continue
        for j in range(max(0, i - window_size), min(len(sequence), i + window_size + 1)):
            if j != i and sequence[j]:
                couples.append([wi, sequence[j]])
                labels.append(positive)
    if negative_samples > 0 and couples:
        n = int(len(labels) * negative_samples)
        words = [c[0] for c in couples]
        rng.shuffle(words)
        couples += [[words[i % len(words)], rng.randint(1, vocabulary_size - 1)]
                    for i in range(n)]
        labels += [negative] * n
    if shuffle:
        order = list(range(len(couples)))
        rng.shuffle(order)
        couples = [couples[i] for i in order]
        labels = [labels[i] for i in order]
    return couples, labels
