"""``tf.io.decode_json_example``: ``tf.train.Example`` protos written as JSON (protobuf's
JSON mapping) turned into their binary serialization, for ``tf.parse_example``."""

from __future__ import annotations

from typing import Any, Optional

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_tensor, same_shape

register_op("DecodeJSONExample", same_shape)


def decode_json_example(json_examples: Any, name: Optional[str] = None) -> Tensor:
    """The binary ``Example`` of every JSON string of ``json_examples`` (same shape).

    Raises:
      InvalidArgumentError: (when run) a string that is not an Example in JSON.
    """
    x = convert_to_tensor(json_examples, dtype=_dtypes.string, name="json_examples")
    return make_tensor("DecodeJSONExample", [x], _dtypes.string,
                       name=name or "DecodeJSONExample")


__all__ = ["decode_json_example"]
