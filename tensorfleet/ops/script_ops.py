"""``tf.py_func`` (and ``tf.numpy_function``, its later name): a Python function as an op
of the graph.

The function itself never enters the graph: the op carries a token, and the
token maps to the function in a registry of the process that built the graph
(entries go away with their graph). The op therefore runs only in that process
-- locally, or on a task served by a server in the same process; a task in
another process finds no such token and fails with an error saying so.
Kernels are in ``kernels/numpy/script_kernels.py``.

Tokens are random, so a file cannot guess one; and a graph imported from a file
(``tf.import_graph_def``, ``tf.train.import_meta_graph``) may call only the
functions registered for the graph it is imported into, never those another graph
of the process registered.
"""

from __future__ import annotations

import secrets
import threading
import weakref
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.graph import Graph, Tensor, convert_to_tensor, get_default_graph
from tensorfleet.framework.graph_def import register_import_check
from tensorfleet.framework.op_registry import register_op
from tensorfleet.ops.op_util import make_op, unknown

register_op("PyFunc", unknown, stateful=True)
register_op("PyFuncStateless", unknown)

_lock = threading.Lock()
_registry: Dict[str, Callable[..., Any]] = {}
_owners: Dict[str, "weakref.ref[Graph]"] = {}  # token -> the graph it was registered for
PY_FUNC_OPS = ("PyFunc", "PyFuncStateless")


def _forget(tokens: List[str]) -> None:
    with _lock:
        for t in tokens:
            _registry.pop(t, None)
            _owners.pop(t, None)


def register_function(func: Callable[..., Any], graph: Graph) -> str:
    """Registers ``func`` for the lifetime of ``graph``; returns its token."""
    with _lock:
        token = f"pyfunc_{secrets.token_hex(16)}"  # unguessable by a file
        _registry[token] = func
        _owners[token] = weakref.ref(graph)
    tokens = graph.__dict__.setdefault("_py_func_tokens", [])
    if not tokens:
        weakref.finalize(graph, _forget, tokens)
    tokens.append(token)
    return token


def lookup_function(token: str) -> Optional[Callable[..., Any]]:
    """The function registered under ``token`` in this process, or None."""
    with _lock:
        return _registry.get(token)


def check_import(graph_def: Any, graph: Graph) -> None:
    """Refuses ``graph_def`` (about to be imported into ``graph``) when one of its
    py_func nodes names a function this process registered for another graph.

    Raises:
      InvalidArgumentError: naming the node.
    """
    for nd in graph_def.get("node", []) if isinstance(graph_def, dict) else []:
        if not isinstance(nd, dict) or nd.get("op") not in PY_FUNC_OPS:
            continue
        attr = (nd.get("attr") or {}).get("token")
        token = attr.get("s") if isinstance(attr, dict) else None
        if not isinstance(token, str):
            continue
        with _lock:
            owner = _owners.get(token)
        if owner is not None and owner() is not graph:
            raise errors.InvalidArgumentError(
                None, None, f"imported node {nd.get('name')!r} calls py_func {token!r}, "
                f"a function registered for another graph; an imported graph may call only "
                f"functions registered for the graph it is imported into")


register_import_check(check_import)


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


__all__ = ["py_func", "numpy_function", "register_function", "lookup_function", "check_import",
           "PY_FUNC_OPS"]
