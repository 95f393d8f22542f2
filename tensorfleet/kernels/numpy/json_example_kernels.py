"""numpy kernel of ``DecodeJSONExample`` (``ops/json_example_ops.py``): protobuf's JSON
parser reads the untrusted text (it limits nesting) into an ``Example``."""

from __future__ import annotations

from typing import Any

import numpy as np
from google.protobuf import json_format

from tensorfleet.kernels.numpy.array_kernels import invalid
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.protos import example_pb2


@register_kernel("DecodeJSONExample")
def _decode_json_example(ctx: KernelContext, x: Any) -> np.ndarray:
    arr = np.asarray(x, dtype=object)
    out = np.empty(arr.shape, dtype=object)
    flat = out.reshape(-1)
    for i, text in enumerate(arr.reshape(-1)):
        text = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
        try:
            flat[i] = json_format.Parse(text, example_pb2.Example()).SerializeToString()
        except json_format.ParseError as e:
            raise invalid(ctx, f"Error while parsing JSON: {e}") from None
    return out
