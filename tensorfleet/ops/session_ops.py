"""Tensors kept in the task between steps: ``tf.get_session_handle``,
``tf.get_session_tensor`` and ``tf.delete_session_tensor``.

Running ``get_session_handle(t)`` stores ``t``'s value in the resource manager of the
task that computed it and fetches a ``TensorHandle``; a later step reads the value back
by feeding the handle to the placeholder of ``get_session_tensor`` (which runs on the
device named in the handle), and ``delete_session_tensor`` frees it. The value never
travels to the client.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from typing import Any, Dict, Optional, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import (Operation, Tensor,
                                         default_session_or_raise, get_default_graph,
                                         name_scope, register_tensor_conversion_function)
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import scalar, unknown_shape
from tensorfleet.ops.array_ops_core import placeholder
from tensorfleet.ops.op_util import make_op, make_tensor, no_outputs

register_op("GetSessionHandle", lambda op: [scalar()], stateful=True)
register_op("GetSessionTensor", lambda op: [unknown_shape()], stateful=True)
register_op("DeleteSessionTensor", no_outputs, stateful=True)

# The resource container session tensors live in.
SESSION_TENSORS = "_session_tensors"
_ids = itertools.count()
_ids_lock = threading.Lock()


def new_handle(op_name: str, device: str) -> str:
    """A fresh handle: the device holding the value, the op and a process-unique id."""
    with _ids_lock:
        n = next(_ids)
    return f"{device};{op_name};{n}"


def handle_device(handle: Any) -> str:
    """The device part of ``handle`` ('' for a handle made on an unplaced op)."""
    text = handle.decode("utf-8") if isinstance(handle, bytes) else str(handle)
    parts = text.split(";")
    if len(parts) != 3:
        raise ValueError(f"{handle!r} is not a session tensor handle")
    return parts[0]


class SessionHandleTensor:
    """What ``get_session_handle`` returns: fetch it to get a ``TensorHandle``; it converts
    to the string tensor of the handle wherever a tensor is needed."""

    def __init__(self, handle: Tensor, dtype: _dtypes.DType):
        self._handle = handle
        self.dtype_of_value = dtype

    @property
    def op(self) -> Operation:
        return self._handle.op

    @property
    def name(self) -> str:
        return self._handle.name

    @property
    def graph(self) -> Any:
        return self._handle.graph

    def _fetch_components(self) -> Tuple[list, Any]:
        dtype = self.dtype_of_value

        def rebuild(value: Any) -> "TensorHandle":
            try:
                session = default_session_or_raise()
            except ValueError:
                session = None
            return TensorHandle(value, dtype, session)
        return [self._handle], rebuild

    def __repr__(self) -> str:
        return f"<session handle {self._handle.name} of a {self.dtype_of_value.name} tensor>"


register_tensor_conversion_function(SessionHandleTensor, lambda v, dtype=None, name=None:
                                    v._handle)


class TensorHandle:
    """A tensor kept in the task: ``handle`` (the string to feed), ``eval()`` and
    ``delete()`` (both in ``session``, by default the one that fetched the handle)."""

    def __init__(self, handle: Any, dtype: Any, session: Any):
        raw = handle.item() if isinstance(handle, np.ndarray) else handle
        self._handle = raw.decode("utf-8") if isinstance(raw, bytes) else str(raw)
        self._dtype = _dtypes.as_dtype(dtype)
        self._session = session

    @property
    def handle(self) -> str:
        """The handle string, to feed to ``get_session_tensor``'s placeholder."""
        return self._handle

    def get_raw_handle(self) -> str:
        """The handle string."""
        return self._handle

    def __str__(self) -> str:
        return self._handle

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        # Feeding a TensorHandle feeds the value it keeps, as in TensorFlow.
        value = np.asarray(self.eval())
        return value if dtype is None else value.astype(dtype)

    def _session_or(self, session: Any) -> Any:
        s = session or self._session
        if s is None:
            raise ValueError("This TensorHandle was fetched without a default session; pass "
                             "the session to eval() / delete()")
        return s

    def _cached(self, session: Any, kind: str) -> Tuple[Tensor, Any]:
        cache: Dict[Any, Tuple[Tensor, Any]] = session.__dict__.setdefault(
            "_session_tensor_ops", {})
        key = (kind, self._dtype, handle_device(self._handle))
        if key not in cache:
            with session.graph.as_default():
                if kind == "read":
                    cache[key] = get_session_tensor(self._handle, self._dtype)
                else:
                    cache[key] = delete_session_tensor(self._handle)
        return cache[key]

    def eval(self, session: Any = None) -> Any:
        """The kept value, read in ``session``."""
        s = self._session_or(session)
        holder, tensor = self._cached(s, "read")
        return s.run(tensor, {holder: self._handle})

    def delete(self, session: Any = None) -> None:
        """Frees the kept value."""
        s = self._session_or(session)
        holder, deleter = self._cached(s, "delete")
        s.run(deleter, {holder: self._handle})


def get_session_handle(data: Any, name: Optional[str] = None) -> SessionHandleTensor:
    """A handle to ``data``'s value, kept in its task when the handle is fetched.

    Raises:
      TypeError: ``data`` is not a Tensor.
    """
    if not isinstance(data, Tensor):
        raise TypeError("`data` must be of type Tensor.")
    g = data.graph
    with g.colocate_with(data.op):
        t = make_tensor("GetSessionHandle", [data], _dtypes.string, {"T": data.dtype},
                        name=name or "GetSessionHandle")
    return SessionHandleTensor(t, data.dtype)


def _on_device_of(handle: Any) -> Any:
    device = handle_device(handle.handle if isinstance(handle, TensorHandle) else handle)
    return get_default_graph().device(device) if device else contextlib.nullcontext()


def get_session_tensor(handle: Any, dtype: Any,
                       name: Optional[str] = None) -> Tuple[Tensor, Tensor]:
    """``(holder, tensor)``: feed a handle (or ``TensorHandle``) to ``holder`` and
    ``tensor`` is the value kept under it, read on the device named in ``handle``."""
    dt = _dtypes.as_dtype(dtype)
    with name_scope(name, "GetSessionTensor"):
        with _on_device_of(handle):
            holder = placeholder(_dtypes.string, [], name="handle")
            tensor = make_tensor("GetSessionTensor", [holder], dt, {"dtype": dt},
                                 name="GetSessionTensor")
    return holder, tensor


def delete_session_tensor(handle: Any, name: Optional[str] = None) -> Tuple[Tensor, Operation]:
    """``(holder, deleter)``: running ``deleter`` with a handle fed to ``holder`` frees
    the value kept under it."""
    with name_scope(name, "DeleteSessionTensor"):
        with _on_device_of(handle):
            holder = placeholder(_dtypes.string, [], name="handle")
            deleter = make_op("DeleteSessionTensor", [holder], [], {},
                              name="DeleteSessionTensor")
    return holder, deleter


__all__ = ["get_session_handle", "get_session_tensor", "delete_session_tensor",
           "TensorHandle", "SESSION_TENSORS", "new_handle"]
