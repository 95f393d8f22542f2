"""The summary names of TensorFlow before 1.0: ``tf.scalar_summary``,
``tf.histogram_summary``, ``tf.image_summary``, ``tf.audio_summary``,
``tf.merge_summary`` and ``tf.merge_all_summaries``.

Unlike ``tf.summary.*`` they take the tag itself (not a name that opens a name
scope), so the tag is written exactly as given. The tags must be known when the
graph is built (Python strings or constants).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import GraphKeys, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.ops import array_ops
from tensorfleet.ops.op_util import const_value, make_tensor
from tensorfleet.ops.summary_ops import _check_max_outputs, merge, merge_all


def _tags(tags: Any) -> List[str]:
    """The tag strings of ``tags`` (a string, a list of them, or a constant tensor)."""
    if isinstance(tags, Tensor):
        value = const_value(tags)
        if value is None:
            raise TypeError(f"tags must be known when the graph is built; {tags.name} is "
                            f"computed at run time")
        tags = value
    arr = np.asarray(tags, dtype=object)
    out = []
    for t in arr.reshape(-1):
        if isinstance(t, bytes):
            t = t.decode("utf-8")
        if not isinstance(t, str) or not t:
            raise TypeError(f"summary tags must be non-empty strings, got {t!r}")
        out.append(t)
    if arr.ndim > 1:
        raise ValueError(f"tags must be a string or a 1-D list of strings, got shape {arr.shape}")
    return out


def _finish(out: Tensor, collections: Optional[Sequence[str]]) -> Tensor:
    get_default_graph().add_to_collections(
        list(collections) if collections is not None else [GraphKeys.SUMMARIES], out)
    return out


def scalar_summary(tags: Any, values: Any, collections: Optional[Sequence[str]] = None,
                   name: Optional[str] = None) -> Tensor:
    """A summary of scalar ``values`` under ``tags`` (a string with a scalar, or a list
    of strings with a 1-D tensor of as many values)."""
    names = _tags(tags)
    x = convert_to_tensor(values)
    single = (tags.shape.ndims == 0 if isinstance(tags, Tensor)
              else np.asarray(tags, dtype=object).ndim == 0)
    if single:
        return _finish(make_tensor("ScalarSummary", [x], _dtypes.string, {"tag": names[0]},
                                   name=name or "ScalarSummary"), collections)
    if x.shape.ndims is not None and x.shape.as_list() != [len(names)]:
        raise ValueError(f"tags and values not the same shape: [{len(names)}] != {x.shape}")
    g = get_default_graph()
    with g.name_scope(name or "ScalarSummary"):
        parts = [make_tensor("ScalarSummary", [v], _dtypes.string, {"tag": t},
                             name="ScalarSummary")
                 for t, v in zip(names, array_ops.unstack(x, num=len(names)))]
        out = merge(parts, name="merge")
    return _finish(out, collections)


def histogram_summary(tag: Any, values: Any, collections: Optional[Sequence[str]] = None,
                      name: Optional[str] = None) -> Tensor:
    """A histogram summary of ``values`` under exactly ``tag``."""
    t, = _tags(tag)
    return _finish(make_tensor("HistogramSummary", [convert_to_tensor(values)], _dtypes.string,
                               {"tag": t}, name=name or "HistogramSummary"), collections)


def image_summary(tag: Any, tensor: Any, max_images: int = 3,
                  collections: Optional[Sequence[str]] = None,
                  name: Optional[str] = None) -> Tensor:
    """An image summary (see ``tf.summary.image``) under ``<tag>/image/<i>``."""
    t, = _tags(tag)
    return _finish(make_tensor("ImageSummary", [convert_to_tensor(tensor)], _dtypes.string,
                               {"tag": t, "max_images": _check_max_outputs(max_images)},
                               name=name or "ImageSummary"), collections)


def audio_summary(tag: Any, tensor: Any, sample_rate: Any, max_outputs: int = 3,
                  collections: Optional[Sequence[str]] = None,
                  name: Optional[str] = None) -> Tensor:
    """An audio summary (see ``tf.summary.audio``) under ``<tag>/audio/<i>``."""
    t, = _tags(tag)
    x = convert_to_tensor(tensor, dtype=_dtypes.float32)
    rate = convert_to_tensor(sample_rate, dtype=_dtypes.float32)
    return _finish(make_tensor("AudioSummaryV2", [x, rate], _dtypes.string,
                               {"tag": t, "max_outputs": _check_max_outputs(max_outputs)},
                               name=name or "AudioSummary"), collections)


def merge_summary(inputs: Sequence[Any], collections: Optional[Sequence[str]] = None,
                  name: Optional[str] = None) -> Tensor:
    """``tf.summary.merge`` under its old name."""
    return merge(inputs, collections, name)


def merge_all_summaries(key: str = GraphKeys.SUMMARIES) -> Optional[Tensor]:
    """``tf.summary.merge_all`` under its old name."""
    return merge_all(key)


__all__ = ["scalar_summary", "histogram_summary", "image_summary", "audio_summary",
           "merge_summary", "merge_all_summaries"]
