"""``tf.strings.ngrams``: the n-grams along the last dimension of a dense string tensor,
each the ``separator``-joined run of ``width`` neighbouring strings (after optional
padding), built from ``gather`` and ``reduce_join``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Union

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor, name_scope
from tensorfleet.ops import array_ops as A
from tensorfleet.ops.array_concat_ops import concat
from tensorfleet.ops.array_indexing_ops import gather
from tensorfleet.ops.string_manip_ops import reduce_join


def _pads(pad_values: Any) -> tuple:
    if pad_values is None:
        return None
    if isinstance(pad_values, (str, bytes)):
        return pad_values, pad_values
    if isinstance(pad_values, (list, tuple)) and len(pad_values) == 2 and all(
            isinstance(p, (str, bytes)) for p in pad_values):
        return tuple(pad_values)
    raise ValueError(f"ngrams: pad_values must be a string or a pair of strings, got "
                     f"{pad_values!r}")


def ngrams(data: Any, ngram_width: Union[int, Sequence[int]], separator: str = " ",
           pad_values: Any = None, padding_width: Optional[int] = None,
           preserve_short_sequences: bool = False, name: Optional[str] = None) -> Tensor:
    """For each width in ``ngram_width``, the n-grams of the last dimension of ``data``
    (rank >= 1, that dimension known when the graph is built), concatenated along it.

    With ``pad_values`` (a string, or a (left, right) pair), ``padding_width`` pad strings
    (default ``width - 1``) go on each side first. A sequence shorter than a width gives no
    n-gram of that width, or with ``preserve_short_sequences`` one n-gram of all of it.

    Raises:
      ValueError: a width below 1, bad ``pad_values``/``padding_width``, or a last
        dimension unknown when the graph is built.
      TypeError: ``data`` is not a string tensor (RaggedTensor inputs are not supported).
    """
    widths = [ngram_width] if isinstance(ngram_width, int) else list(ngram_width)
    if not widths or any(not isinstance(w, int) or w < 1 for w in widths):
        raise ValueError(f"ngrams: ngram_width must be positive ints, got {ngram_width!r}")
    pads = _pads(pad_values)
    if padding_width is not None and (pads is None or not isinstance(padding_width, int)
                                      or padding_width < 1):
        raise ValueError("ngrams: padding_width must be a positive int given with "
                         "pad_values")
    with name_scope(name, "StringNGrams"):
        x = convert_to_tensor(data, name="data")
        if x.dtype is not _dtypes.string:
            raise TypeError(f"ngrams: data must be a string tensor, got {x.dtype.name}")
        if x.shape.ndims in (None, 0) or x.shape[-1] is None:
            raise ValueError(f"ngrams: data needs rank >= 1 and a last dimension known when "
                             f"the graph is built, got {x.shape}")
        outs: List[Tensor] = []
        for w in widths:
            seq = x
            if pads is not None:
                k = padding_width if padding_width is not None else w - 1
                if k:
                    lead = A.shape(x)[:-1]
                    fill = [A.fill(concat([lead, [k]], 0), A.constant(p, _dtypes.string))
                            for p in pads]
                    seq = concat([fill[0], x, fill[1]], axis=-1)
            n = seq.shape[-1]
            if n >= w:
                idx = np.arange(n - w + 1)[:, None] + np.arange(w)[None, :]
            elif preserve_short_sequences and n > 0:
                idx = np.arange(n)[None, :]
            else:
                continue
            windows = gather(seq, A.constant(idx.astype(np.int64)), axis=-1)
            outs.append(reduce_join(windows, axis=-1, separator=separator))
        if not outs:
            return A.fill(concat([A.shape(x)[:-1], [0]], 0), A.constant(b"", _dtypes.string))
        return outs[0] if len(outs) == 1 else concat(outs, axis=-1)
