"""``tf.layers.experimental.keras_style_scope`` / ``set_keras_style``: ``tf.layers``
layers created in Keras style own their variables as Keras layers do. Each layer object
makes its variables in a scope of its own (``d``, then ``d_1`` for a second layer named
``d``), ignoring an enclosing scope's ``reuse``; calling the same layer again uses its
variables; and the ``reuse`` argument is refused. A layer keeps the style it was created
with."""

from __future__ import annotations

import contextlib
from typing import Iterator

_state = {"keras_style": False}


def keras_style_enabled() -> bool:
    """Whether layers created now are Keras-style."""
    return _state["keras_style"]


@contextlib.contextmanager
def keras_style_scope() -> Iterator[None]:
    """Layers created in this block are Keras-style."""
    before = _state["keras_style"]
    _state["keras_style"] = True
    try:
        yield
    finally:
        _state["keras_style"] = before


def set_keras_style() -> None:
    """Every layer created from now on is Keras-style."""
    _state["keras_style"] = True


__all__ = ["keras_style_scope", "set_keras_style", "keras_style_enabled"]
