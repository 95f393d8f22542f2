"""``tf.summary`` ops: scalar, histogram, text, image and audio summaries and their
merging.

Each summary op outputs a serialized ``Summary`` protobuf (a string scalar),
which ``FileWriter.add_summary`` writes to a TensorBoard event file; ``merge``
concatenates the values of several. Summaries are added to the ``SUMMARIES``
collection (or the given ones) so ``merge_all`` finds them.

The protobuf classes (``Summary``, ``Event``, ``SessionLog``, ...) are
TensorBoard's own, from tensorboardX, and are loaded on first access to them
as attributes of this module, so importing tensorfleet stays cheap.
"""

from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence

from tensorfleet import dtypes as _dtypes
from tensorfleet.ops.tbx_loader import tbx_module
from tensorfleet.framework.graph import (
    Graph,
    GraphKeys,
    Operation,
    Tensor,
    convert_to_tensor,
    get_default_graph,
)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.framework.tensor_shape import scalar as _scalar_shape
from tensorfleet.ops.op_util import make_tensor


def _summary_shape(op: Operation) -> List[TensorShape]:
    return [_scalar_shape()]


def _scalar_summary_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and s.ndims != 0:
        raise ValueError(f"tags and values not the same shape: [] != {s}: summary "
                         f"{op.attrs['tag']!r} needs a scalar")
    return [_scalar_shape()]


register_op("ScalarSummary", _scalar_summary_shape)
register_op("HistogramSummary", _summary_shape)
register_op("TextSummary", _summary_shape)
register_op("MergeSummary", _summary_shape)


def _image_summary_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and (s.ndims != 4 or s.as_list()[3] not in (None, 1, 3, 4)):
        raise ValueError(f"Tensor must be 4-D with last dim 1, 3, or 4, not {s}: image "
                         f"summary {op.attrs['tag']!r}")
    return [_scalar_shape()]


def _audio_summary_shape(op: Operation) -> List[TensorShape]:
    s = op.inputs[0].shape
    if s.ndims is not None and s.ndims not in (2, 3):
        raise ValueError(f"Tensor must be 3-D or 2-D, not {s}: audio summary "
                         f"{op.attrs['tag']!r}")
    return [_scalar_shape()]


register_op("ImageSummary", _image_summary_shape)
register_op("AudioSummaryV2", _audio_summary_shape)

_INVALID_TAG_CHARS = re.compile(r"[^-/\w.]")


def _clean_tag(name: str) -> str:
    """``name`` with characters TensorBoard tags and op names disallow turned into ``_``."""
    cleaned = _INVALID_TAG_CHARS.sub("_", name).lstrip("/")
    return cleaned or "summary"


def _add_summary(g: Graph, op_type: str, name: str, value: Any, family: Optional[str],
                 collections: Optional[Sequence[str]], dtype: Any = None,
                 attrs: Optional[dict] = None, extra_inputs: Sequence[Any] = ()) -> Tensor:
    name = _clean_tag(name)
    base = f"{_clean_tag(family)}/{name}" if family else name
    with g.name_scope(base) as scope:
        # The tag is the unique scope, so two summaries named "loss" stay apart
        # ("loss" and "loss_1") as they do in TensorFlow.
        tag = scope.rstrip("/")
        if family:
            tag = f"{_clean_tag(family)}/{tag}"
        x = convert_to_tensor(value, dtype=dtype)
        out = make_tensor(op_type, [x] + list(extra_inputs), _dtypes.string,
                          dict(attrs or {}, tag=tag), name=op_type)
    g.add_to_collections(list(collections) if collections is not None
                         else [GraphKeys.SUMMARIES], out)
    return out


def scalar(name: str, tensor: Any, collections: Optional[Sequence[str]] = None,
           family: Optional[str] = None) -> Tensor:
    """A summary of one real number, ``tensor`` (a numeric scalar).

    Args:
      name: the summary's name; the tag is the name scope it opens.
      collections: the graph collections to add the summary to (default
        ``[GraphKeys.SUMMARIES]``).
      family: an optional tag prefix, shown by TensorBoard as a group.

    Returns:
      A string scalar tensor: a serialized ``Summary``.
    """
    return _add_summary(get_default_graph(), "ScalarSummary", name, tensor, family, collections)


def histogram(name: str, values: Any, collections: Optional[Sequence[str]] = None,
              family: Optional[str] = None) -> Tensor:
    """A histogram summary of the numbers in ``values`` (any shape); running it with
    a NaN or infinity among them is an InvalidArgumentError, as in TensorFlow."""
    return _add_summary(get_default_graph(), "HistogramSummary", name, values, family,
                        collections)


def text(name: str, tensor: Any, collections: Optional[Sequence[str]] = None) -> Tensor:
    """A text summary of a string tensor, shown by TensorBoard's text dashboard."""
    return _add_summary(get_default_graph(), "TextSummary", name, tensor, None, collections,
                        dtype=_dtypes.string)


def _check_max_outputs(max_outputs: Any) -> int:
    if not isinstance(max_outputs, int) or isinstance(max_outputs, bool) or max_outputs < 1:
        raise ValueError(f"max_outputs must be a positive int, got {max_outputs!r}")
    return max_outputs


def image(name: str, tensor: Any, max_outputs: int = 3,
          collections: Optional[Sequence[str]] = None, family: Optional[str] = None) -> Tensor:
    """An image summary of the first ``max_outputs`` images of ``tensor``.

    ``tensor`` is ``[batch, height, width, channels]`` with 1 (grey), 3 (RGB) or 4
    (RGBA) channels, uint8 or float. Float images are scaled one by one: to
    ``[0, 255]`` when no value is negative, else so that 0 maps to 128 and the
    largest magnitude to 127 off it; pixels with a NaN or infinity become red.
    Each image is stored PNG-encoded under tag ``<tag>/image/<i>`` (``<tag>/image``
    when ``max_outputs`` is 1).
    """
    attrs = {"max_images": _check_max_outputs(max_outputs)}
    return _add_summary(get_default_graph(), "ImageSummary", name, tensor, family, collections,
                        attrs=attrs)


def audio(name: str, tensor: Any, sample_rate: Any, max_outputs: int = 3,
          collections: Optional[Sequence[str]] = None, family: Optional[str] = None) -> Tensor:
    """An audio summary of the first ``max_outputs`` clips of ``tensor``.

    ``tensor`` is ``[batch, frames, channels]`` or ``[batch, frames]`` of floats in
    ``[-1, 1]`` (clipped); ``sample_rate`` is in Hz. Each clip is stored as a
    16-bit PCM WAV file under tag ``<tag>/audio/<i>`` (``<tag>/audio`` when
    ``max_outputs`` is 1).
    """
    attrs = {"max_outputs": _check_max_outputs(max_outputs)}
    rate = convert_to_tensor(sample_rate, dtype=_dtypes.float32)
    return _add_summary(get_default_graph(), "AudioSummaryV2", name, tensor, family,
                        collections, dtype=_dtypes.float32, attrs=attrs, extra_inputs=[rate])


def merge(inputs: Sequence[Any], collections: Optional[Sequence[str]] = None,
          name: Optional[str] = None) -> Tensor:
    """One serialized ``Summary`` holding the values of every summary in ``inputs``.

    Running it with two values of the same tag is an InvalidArgumentError.
    """
    tensors = [convert_to_tensor(i, dtype=_dtypes.string) for i in inputs]
    g = tensors[0].graph if tensors else get_default_graph()
    with g.name_scope(name or "Merge"):
        out = make_tensor("MergeSummary", tensors, _dtypes.string, {}, name="MergeSummary")
    if collections:
        g.add_to_collections(list(collections), out)
    return out


def merge_all(key: str = GraphKeys.SUMMARIES, scope: Optional[str] = None,
              name: Optional[str] = None) -> Optional[Tensor]:
    """``merge`` of every summary in collection ``key`` (filtered by ``scope``), or
    None when there are none."""
    found = get_default_graph().get_collection(key, scope)
    if not found:
        return None
    return merge(found, name=name)


# Lazily loaded protobuf classes: name -> (tensorboardX.proto module, class name).
_PROTO_CLASSES: dict = {
    "Summary": ("summary_pb2", "Summary"),
    "SummaryMetadata": ("summary_pb2", "SummaryMetadata"),
    "SummaryDescription": ("summary_pb2", "SummaryDescription"),
    "HistogramProto": ("summary_pb2", "HistogramProto"),
    "Event": ("event_pb2", "Event"),
    "SessionLog": ("event_pb2", "SessionLog"),
    "TaggedRunMetadata": ("event_pb2", "TaggedRunMetadata"),
}


def proto_class(name: str) -> Any:
    """The TensorBoard protobuf class ``name`` (``Summary``, ``Event``, ...)."""
    module, attr = _PROTO_CLASSES[name]
    return getattr(tbx_module(f"proto.{module}"), attr)


def __getattr__(name: str) -> Any:
    if name in _PROTO_CLASSES:
        cls = proto_class(name)
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["scalar", "histogram", "text", "image", "audio", "merge", "merge_all",
           "proto_class"]
