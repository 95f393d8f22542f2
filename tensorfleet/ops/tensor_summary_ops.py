"""``tf.summary.tensor_summary``: a summary holding a whole tensor (TensorBoard's plugins
read such values), and ``tf.summary.all_v2_summary_ops``."""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from tensorfleet.framework.graph import Tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape
from tensorfleet.ops.summary_ops import _add_summary, proto_class

register_op("TensorSummaryV2", lambda op: [TensorShape([])])

# TensorFlow's collection of the 2.x summary ops (GraphKeys._SUMMARY_COLLECTION).
SUMMARY_V2_COLLECTION = "_SUMMARY_V2"


def tensor_summary(name: str, tensor: Any, summary_description: Optional[str] = None,
                   collections: Optional[Sequence[str]] = None, summary_metadata: Any = None,
                   family: Optional[str] = None, display_name: Optional[str] = None) -> Tensor:
    """A summary of ``tensor`` (any dtype and shape) as a ``TensorProto``, with
    ``summary_metadata`` (a ``SummaryMetadata`` proto) and/or a ``display_name`` and
    ``summary_description``.

    Returns:
      A string scalar tensor: a serialized ``Summary``.
    """
    if summary_metadata is not None and not hasattr(summary_metadata, "SerializeToString"):
        raise TypeError(f"summary_metadata must be a SummaryMetadata proto, got "
                        f"{type(summary_metadata).__name__}")
    attrs = {"metadata": b"" if summary_metadata is None
             else summary_metadata.SerializeToString(),
             "display_name": display_name or "", "description": summary_description or ""}
    return _add_summary(get_default_graph(), "TensorSummaryV2", name, tensor, family,
                        collections, attrs=attrs)


def get_summary_description(node_def: Any) -> Any:
    """The ``SummaryDescription`` proto a TensorFlow ``TensorSummary`` node carries in its
    ``description`` attr (JSON), from a ``NodeDef`` (protobuf or tensorfleet's dict form).

    Raises:
      ValueError: the node is not a ``TensorSummary`` op.
      google.protobuf.json_format.ParseError: its description is not a
        SummaryDescription in JSON.
    """
    from google.protobuf import json_format

    if isinstance(node_def, dict):
        op, attr = node_def.get("op"), node_def.get("attr", {})
        value = attr.get("description", {})
        raw = value.get("s", b"") if isinstance(value, dict) else value
    else:
        op = getattr(node_def, "op", None)
        raw = node_def.attr["description"].s if "description" in node_def.attr else b""
    if op != "TensorSummary":
        raise ValueError(f"Can't get_summary_description on {op}")
    text = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
    description = proto_class("SummaryDescription")()
    json_format.Parse(text, description)
    return description


def all_v2_summary_ops() -> List[Any]:
    """The graph's 2.x summary ops: tensorfleet writes summaries with the 1.x ops only, so
    this is the (empty unless a program adds to it) ``_SUMMARY_V2`` collection."""
    return get_default_graph().get_collection(SUMMARY_V2_COLLECTION)


__all__ = ["tensor_summary", "all_v2_summary_ops", "get_summary_description"]
