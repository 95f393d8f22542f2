"""``tf.train.experimental.PythonState``: Python state saved in a checkpoint beside the
variables, as a string that ``serialize`` makes and ``deserialize`` reads back.

A ``tf.train.Checkpoint`` tracking a ``PythonState`` keeps its string in a variable of
its own (key ``<name>/.ATTRIBUTES/py_state``, as TensorFlow names it): ``save`` and
``write`` store ``serialize()`` there just before writing, and ``run_restore_ops``
passes the restored bytes to ``deserialize``.
"""

from __future__ import annotations

import abc
from typing import Any, Optional, Union

from tensorfleet import dtypes as _dtypes
from tensorfleet.ops.array_ops import placeholder
from tensorfleet.ops.state_ops import assign
from tensorfleet.ops.variables import Variable

KEY_SUFFIX = "/.ATTRIBUTES/py_state"


class PythonState(metaclass=abc.ABCMeta):
    """Subclass it with ``serialize() -> str | bytes`` and ``deserialize(bytes)`` to save
    Python state in a ``tf.train.Checkpoint``."""

    @abc.abstractmethod
    def serialize(self) -> Union[str, bytes]:
        """The object's state as a string."""

    @abc.abstractmethod
    def deserialize(self, string_value: bytes) -> Any:
        """Sets the object's state from what ``serialize`` returned (as bytes)."""


class PythonStateSlot:
    """The string variable that holds one ``PythonState`` of a checkpoint."""

    def __init__(self, state: PythonState, name: str):
        self.state = state
        # Outside every collection: the global initializer must not reset it, and only
        # the checkpoint reads or writes it.
        self.variable = Variable(b"", trainable=False, name=f"{name}_py_state",
                                 dtype=_dtypes.string, collections=[])
        self._feed: Optional[Any] = None
        self._assign: Optional[Any] = None

    def store(self, sess: Any) -> None:
        """Puts ``state.serialize()`` into the variable.

        Raises:
          TypeError: ``serialize`` returned neither str nor bytes.
        """
        value = self.state.serialize()
        if isinstance(value, str):
            value = value.encode("utf-8")
        if not isinstance(value, bytes):
            raise TypeError(f"{type(self.state).__name__}.serialize() must return str or "
                            f"bytes, got {type(value).__name__}")
        if self._assign is None:
            self._feed = placeholder(_dtypes.string, [])
            self._assign = assign(self.variable, self._feed).op
        sess.run(self._assign, {self._feed: value})

    def load(self, sess: Any) -> None:
        """Hands the variable's (restored) bytes to ``state.deserialize``."""
        self.state.deserialize(bytes(sess.run(self.variable)))


__all__ = ["KEY_SUFFIX", "PythonState", "PythonStateSlot"]
