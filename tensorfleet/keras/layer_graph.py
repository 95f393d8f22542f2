"""Walking the layer graph that Keras tensors record: the inputs a tensor comes from."""

from __future__ import annotations

from typing import Any, List, Optional

from tensorfleet.keras import backend as K
from tensorfleet.keras.layers.base import InputLayer


def get_source_inputs(tensor: Any, layer: Any = None,
                      node_index: Optional[int] = None) -> List[Any]:
    """The input tensors (outputs of ``InputLayer``s) that ``tensor`` is computed from,
    each once, in the order they are first reached.

    Raises:
      ValueError: ``tensor`` is not a Keras tensor.
    """
    if not K.is_keras_tensor(tensor):
        raise ValueError(f"get_source_inputs: {tensor!r} is not a Keras tensor (from "
                         f"tf.keras.Input or a Keras layer)")
    if layer is not None:
        node = layer._inbound_nodes[node_index or 0]
        if isinstance(layer, InputLayer) or not node.input_tensors:
            return [tensor]
        pending = list(reversed(node.input_tensors))
    else:
        pending = [tensor]
    # depth first, without recursion: residual and dense connections make deep graphs
    out: List[Any] = []
    seen: set = set()
    while pending:
        t = pending.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        src, ni, _ = t._keras_history
        node = src._inbound_nodes[ni]
        if isinstance(src, InputLayer) or not node.input_tensors:
            out.append(t)
        else:
            pending.extend(reversed(node.input_tensors))
    return out
