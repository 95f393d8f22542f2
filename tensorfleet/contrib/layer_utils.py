"""The plumbing the ``tf.contrib.layers`` functions share: argument checks, variable
and output collections, and the biases/normalizer/activation tail of a layer."""

from __future__ import annotations

import numbers
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.contrib.framework import model_variable
from tensorfleet.framework.graph import Tensor, add_to_collections
from tensorfleet.ops import nn_ops as N

Activation = Optional[Callable[[Tensor], Tensor]]
IntOrPair = Union[int, Sequence[int]]


def collections_for(variables_collections: Any, name: str) -> Optional[List[str]]:
    """The extra collections of variable ``name``: the list itself, or its entry in a dict."""
    if isinstance(variables_collections, dict):
        found = variables_collections.get(name)
        return list(found) if found else None
    return list(variables_collections) if variables_collections else None


def collect_outputs(collections: Optional[Sequence[str]], alias: str, outputs: Tensor) -> Tensor:
    """Adds a layer's output (tagged ``alias``) to ``outputs_collections``; returns it."""
    if collections:
        # Later code finds a layer's output in the collection by this alias.
        try:
            outputs.alias = alias  # type: ignore[attr-defined]
        except AttributeError:
            pass
        add_to_collections(collections, outputs)
    return outputs


def int_pair(value: IntOrPair, what: str, layer: str) -> Tuple[int, int]:
    """``(h, w)`` from an int or a pair of positive ints.

    Raises:
      ValueError: for anything else.
    """
    if isinstance(value, numbers.Integral):
        return int(value), int(value)
    try:
        out = tuple(int(v) for v in value)  # type: ignore[union-attr]
    except TypeError:
        raise ValueError(f"{layer}: {what} must be an int or a pair of ints, "
                         f"got {value!r}") from None
    if len(out) != 2 or min(out) < 1:
        raise ValueError(f"{layer}: {what} must be an int or a pair of positive ints, "
                         f"got {value!r}")
    return out  # type: ignore[return-value]


def nhwc_only(data_format: Optional[str], layer: str) -> None:
    """Raises ValueError unless ``data_format`` is NHWC (or None)."""
    if data_format not in (None, "NHWC"):
        raise ValueError(f"{layer}: data_format must be 'NHWC' (the only layout computed "
                         f"here), got {data_format!r}")


def check_padding(padding: Any, layer: str) -> str:
    """``SAME`` or ``VALID`` from any case.

    Raises:
      ValueError: for another padding.
    """
    p = padding.upper() if isinstance(padding, str) else None
    if p not in ("SAME", "VALID"):
        raise ValueError(f"{layer}: padding must be 'SAME' or 'VALID', got {padding!r}")
    return p  # type: ignore[return-value]


def last_dim(x: Tensor, layer: str) -> int:
    """The static size of the last dimension.

    Raises:
      ValueError: when it is unknown.
    """
    d = x.shape[-1] if x.shape.ndims else None
    if d is None:
        raise ValueError(f"{layer}: the last dimension of the inputs must be known, got "
                         f"shape {x.shape} ({x.name})")
    return int(d)


def finish(outputs: Tensor, biases_initializer: Any, biases_regularizer: Any,
           normalizer_fn: Any, normalizer_params: Any, activation_fn: Activation, n_out: int,
           dtype: _dtypes.DType, variables_collections: Any, trainable: bool) -> Tensor:
    """Normalizer or ``biases`` [n_out], then the activation: the tail every layer shares.
    A normalizer takes the place of the biases, as in TF 1.x."""
    if normalizer_fn is not None:
        outputs = normalizer_fn(outputs, **(normalizer_params or {}))
    elif biases_initializer is not None:
        biases = model_variable("biases", [n_out], dtype=dtype, initializer=biases_initializer,
                                regularizer=biases_regularizer, trainable=trainable,
                                collections=collections_for(variables_collections, "biases"))
        outputs = N.bias_add(outputs, biases)
    return activation_fn(outputs) if activation_fn is not None else outputs


__all__ = ["Activation", "IntOrPair", "collections_for", "collect_outputs", "int_pair",
           "nhwc_only", "check_padding", "last_dim", "finish"]
