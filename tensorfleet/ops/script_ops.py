"""``tf.py_func`` (and ``tf.numpy_function``, its later name): a Python function as an op
of the graph.

The function itself never enters the graph: the op carries a token, and the
token maps to the function in a registry of the process that built the graph
(entries go away with their graph). The op therefore runs only in that process
-- locally, or on a task served by a server in the same process; a task in
another process finds no such token and fails with an error saying so.
Kernels are in ``kernels/numpy/script_kernels.py``.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import Graph, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_op, unknown

register_op("PyFunc", unknown, stateful=True)
register_op("PyFuncStateless", unknown)

_lock = threading.Lock()
_registry: Dict[str, Callable[..., Any]] = {}
_counter = itertools.count()


def _forget(tokens: List[str]) -> None:
    with _lock:
        for t in tokens:
            _registry.pop(t, None)


def register_function(func: Callable[..., Any], graph: Graph) -> str:
    """Registers ``func`` for the lifetime of ``graph``; returns its token."""
    with _lock:
        token = f"pyfunc_{next(_counter)}"
        _registry[token] = func
    tokens = graph.__dict__.setdefault("_py_func_tokens", [])
    if not tokens:
        weakref.finalize(graph, _forget, tokens)
    tokens.append(token)
    return token


def lookup_function(token: str) -> Optional[Callable[..., Any]]:
    """The function registered under ``token`` in this process, or None."""
    with _lock:
        return _registry.get(token)


def _out_types(Tout: Any) -> Tuple[List[_dtypes.DType], bool]:  # noqa: N803 (TF's name)
    if isinstance(Tout, (list, tuple)):
        return [_dtypes.as_dtype(t) for t in Tout], True
    return [_dtypes.as_dtype(Tout)], False


def py_func(func: Callable[..., Any], inp: Sequence[Any], Tout: Any,  # noqa: N803
            stateful: bool = True, name: Optional[str] = None) -> Any:
    """Wraps ``func`` (numpy arrays in, numpy arrays out) as an op.

    Args:
      func: called with one numpy array per element of ``inp``; returns one value
        per dtype of ``Tout`` (a single value when ``Tout`` is a single dtype).
      inp: the input tensors.
      Tout: a dtype, or a list of dtypes (possibly empty).
      stateful: False lets the op be treated as a pure function of its inputs.

    Returns:
      A tensor when ``Tout`` is one dtype, else a list of tensors (the op itself
      when the list is empty).

    Raises:
      TypeError: ``func`` is not callable.
    """
    if not callable(func):
        raise TypeError(f"py_func: func must be callable, got {type(func).__name__}")
    if isinstance(inp, (Tensor,)) or not isinstance(inp, (list, tuple)):
        inp = [inp]
    tensors = [convert_to_tensor(x) for x in inp]
    g = tensors[0].graph if tensors else get_default_graph()
    dts, is_list = _out_types(Tout)
    token = register_function(func, g)
    op = make_op("PyFunc" if stateful else "PyFuncStateless", tensors, dts,
                 {"token": token, "Tin": [t.dtype for t in tensors], "Tout": dts},
                 name=name or "PyFunc")
    if not is_list:
        return op.outputs[0]
    return list(op.outputs) if op.outputs else op


def numpy_function(func: Any, inp: Sequence[Any], Tout: Any,  # noqa: N803
                   name: Optional[str] = None) -> Any:
    """``tf.py_func`` under its later name: ``func`` takes and returns numpy arrays."""
    return py_func(func, inp, Tout, stateful=True, name=name)


__all__ = ["py_func", "numpy_function", "register_function", "lookup_function"]
