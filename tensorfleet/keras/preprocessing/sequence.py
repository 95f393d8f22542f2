"""``tf.keras.preprocessing.sequence``: ``pad_sequences``."""

from __future__ import annotations

from typing import Any, Optional, Sequence

import numpy as np


def pad_sequences(sequences: Sequence[Any], maxlen: Optional[int] = None,
                  dtype: str = "int32", padding: str = "pre", truncating: str = "pre",
                  value: Any = 0.0) -> np.ndarray:
    """Sequences of different lengths as one ``[n, maxlen, ...]`` array.

    Longer sequences lose their start (``truncating='pre'``) or end (``'post'``);
    shorter ones get ``value`` before (``padding='pre'``) or after (``'post'``).
    ``maxlen`` defaults to the longest sequence.

    Raises:
      ValueError: a bad ``padding``/``truncating``, a sequence that is not a
        sequence, or entries of different shapes.
    """
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    seqs = []
    for s in sequences:
        if not hasattr(s, "__len__"):
            raise ValueError(f"`sequences` must be a list of iterables. Found non-iterable: "
                             f"{s!r}")
        seqs.append(np.asarray(s))
    lengths = [len(s) for s in seqs]
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    sample_shape: tuple = ()
    for s in seqs:
        if len(s):
            sample_shape = s.shape[1:]
            break
    is_str = np.issubdtype(np.dtype(dtype), np.str_) or np.dtype(dtype) == object
    if isinstance(value, str) and not is_str:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}; use dtype=object for strings")
    out = np.full((len(seqs), maxlen) + sample_shape, value, dtype=dtype)
    for i, s in enumerate(seqs):
        if not len(s) or not maxlen:
            continue
        trunc = s[-maxlen:] if truncating == "pre" else s[:maxlen]
        if trunc.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {trunc.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(trunc)] = trunc
        else:
            out[i, maxlen - len(trunc):] = trunc
    return out


__all__ = ["pad_sequences"]
