"""Graphs as plain data (dicts, lists, strings, numbers) and back, losslessly.

The plain form is JSON-compatible and is what crosses process boundaries; it is
decoded strictly, so a malformed or hostile graph raises InvalidArgumentError
(or NotFoundError for an unregistered op) instead of executing anything.
"""

from __future__ import annotations

import base64
import math
import threading
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.graph import Graph, Operation
from tensorfleet.framework.op_registry import has_op
from tensorfleet.framework.tensor_shape import TensorShape, shape_from_plain

GRAPH_FORMAT_VERSION = 1
MAX_ATTR_DEPTH = 16
MAX_TENSOR_ATTR_BYTES = 1 << 31


def _bad(msg: str) -> errors.InvalidArgumentError:
    return errors.InvalidArgumentError(None, None, f"Malformed graph: {msg}")


def encode_array(arr: np.ndarray) -> Dict[str, Any]:
    """A numpy array as plain data: dtype, shape and base64 raw bytes (or strings)."""
    dt = _dtypes.as_dtype(arr.dtype)
    out: Dict[str, Any] = {"dtype": dt.name, "shape": list(arr.shape)}
    if dt is _dtypes.string:
        out["strings"] = [base64.b64encode(v if isinstance(v, bytes) else str(v).encode()).decode()
                          for v in arr.reshape(-1).tolist()]
    else:
        out["data"] = base64.b64encode(np.ascontiguousarray(arr).tobytes()).decode()
    return out


def decode_array(d: Any) -> np.ndarray:
    """Inverse of ``encode_array``; checks that shape and byte count agree."""
    if not isinstance(d, dict) or "dtype" not in d or "shape" not in d:
        raise _bad("tensor attr needs 'dtype' and 'shape'")
    try:
        dt = _dtypes.as_dtype(d["dtype"])
    except TypeError as e:
        raise _bad(str(e)) from None
    shape = d["shape"]
    if not isinstance(shape, list) or not all(isinstance(s, int) and 0 <= s < 2**40 for s in shape):
        raise _bad(f"bad tensor shape {shape!r}")
    n = 1
    for s in shape:
        n *= s
    if dt is _dtypes.string:
        items = d.get("strings")
        if not isinstance(items, list) or len(items) != n:
            raise _bad("string tensor: element count does not match shape")
        try:
            vals = [base64.b64decode(s, validate=True) for s in items]
        except (ValueError, TypeError):
            raise _bad("string tensor: bad base64") from None
        arr = np.empty(n, dtype=object)
        arr[:] = vals
        return arr.reshape(shape)
    data = d.get("data")
    if not isinstance(data, str):
        raise _bad("tensor attr needs base64 'data'")
    nbytes = n * dt.size
    if nbytes > MAX_TENSOR_ATTR_BYTES or len(data) > 4 * (nbytes // 3 + 3):
        raise _bad(f"tensor data larger than its shape {shape} allows")
    try:
        raw = base64.b64decode(data, validate=True)
    except ValueError:
        raise _bad("tensor attr: bad base64") from None
    if len(raw) != nbytes:
        raise _bad(f"tensor of shape {shape} and dtype {dt.name} needs {nbytes} bytes, "
                   f"got {len(raw)}")
    return np.frombuffer(raw, dtype=dt.np).reshape(shape).copy()


MAX_SUBGRAPH_DEPTH = 32
_decoding = threading.local()


class SubGraph:
    """A graph held in an op attr (the cond and body of a ``While``), as plain nodes.

    The ``Graph`` is rebuilt from the plain form on first use, through the same strict
    import as any graph that crosses a process boundary.
    """

    __slots__ = ("plain", "_graph")

    def __init__(self, plain: Dict[str, Any]):
        self.plain = plain
        self._graph: Optional[Graph] = None

    def graph(self) -> Graph:
        """The sub-graph as a ``Graph`` (imported once)."""
        if self._graph is None:
            depth = getattr(_decoding, "depth", 0)
            if depth >= MAX_SUBGRAPH_DEPTH:
                raise _bad(f"sub-graphs nested deeper than {MAX_SUBGRAPH_DEPTH}")
            _decoding.depth = depth + 1
            try:
                self._graph = import_graph_def(self.plain)
            finally:
                _decoding.depth = depth
        return self._graph

    def __repr__(self) -> str:
        nodes = self.plain.get("node", []) if isinstance(self.plain, dict) else []
        return f"<SubGraph of {len(nodes)} nodes>"


def encode_attr(v: Any) -> Dict[str, Any]:
    """One attr value as a tagged plain-data dict."""
    if v is None:
        return {"n": 1}
    if isinstance(v, SubGraph):
        return {"graph": v.plain}
    if isinstance(v, (bool, np.bool_)):
        return {"b": bool(v)}
    if isinstance(v, (int, np.integer)):
        return {"i": int(v)}
    if isinstance(v, (float, np.floating)):
        f = float(v)
        return {"f": f if math.isfinite(f) else repr(f)}
    if isinstance(v, str):
        return {"s": v}
    if isinstance(v, bytes):
        return {"y": base64.b64encode(v).decode()}
    if isinstance(v, _dtypes.DType):
        return {"type": v.name}
    if isinstance(v, TensorShape):
        return {"shape": v.to_plain()}
    if isinstance(v, np.ndarray):
        return {"tensor": encode_array(v)}
    if isinstance(v, (list, tuple)):
        return {"list": [encode_attr(x) for x in v]}
    if isinstance(v, dict):
        return {"dict": {str(k): encode_attr(x) for k, x in v.items()}}
    raise TypeError(f"Attr value of type {type(v).__name__} cannot be serialized")


def decode_attr(d: Any, depth: int = 0) -> Any:
    """Inverse of ``encode_attr``; InvalidArgumentError on anything unexpected."""
    if depth > MAX_ATTR_DEPTH:
        raise _bad("attr nesting too deep")
    if not isinstance(d, dict) or len(d) != 1:
        raise _bad(f"attr value must be a one-key dict, got {type(d).__name__}")
    (tag, v), = d.items()
    if tag == "n":
        return None
    if tag == "b" and isinstance(v, bool):
        return v
    if tag == "i" and isinstance(v, int) and not isinstance(v, bool):
        return v
    if tag == "f" and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if tag == "f" and v in ("nan", "inf", "-inf"):
        return float(v)
    if tag == "s" and isinstance(v, str):
        return v
    if tag == "y" and isinstance(v, str):
        try:
            return base64.b64decode(v, validate=True)
        except ValueError:
            raise _bad("bad base64 in bytes attr") from None
    if tag == "type" and isinstance(v, str):
        try:
            return _dtypes.as_dtype(v)
        except TypeError as e:
            raise _bad(str(e)) from None
    if tag == "shape" and (v is None or (isinstance(v, list) and all(
            isinstance(x, int) and not isinstance(x, bool) and -1 <= x < 2**40 for x in v))):
        return shape_from_plain(v)
    if tag == "tensor":
        return decode_array(v)
    if tag == "graph":
        sub = SubGraph(v)
        sub.graph()  # validates the nodes now, as for any other attr
        return sub
    if tag == "list" and isinstance(v, list):
        return [decode_attr(x, depth + 1) for x in v]
    if tag == "dict" and isinstance(v, dict):
        return {str(k): decode_attr(x, depth + 1) for k, x in v.items()}
    raise _bad(f"unknown or ill-typed attr tag {tag!r}")


def node_to_plain(op: Operation) -> Dict[str, Any]:
    return {
        "name": op.name,
        "op": op.type,
        "input": [t.name for t in op.inputs] + [f"^{c.name}" for c in op.control_inputs],
        "device": op.device,
        "attr": {k: encode_attr(v) for k, v in op.attrs.items()},
        "out": [[t.dtype.name, t.shape.to_plain()] for t in op.outputs],
    }


def graph_to_plain(graph: Graph, ops: Optional[List[Operation]] = None) -> Dict[str, Any]:
    """The graph (or the listed ops, in graph order) as a plain-data dict."""
    nodes = [node_to_plain(op) for op in (graph.get_operations() if ops is None else ops)]
    return {"version": GRAPH_FORMAT_VERSION, "node": nodes}


def import_graph_def(graph_def: Any, graph: Optional[Graph] = None,
                     name_prefix: str = "", input_map: Optional[Dict[str, Any]] = None) -> Graph:
    """Rebuilds ops from ``graph_def`` into ``graph`` (a new Graph by default).

    Nodes must come after the nodes they read. Names are kept exactly (with an
    optional prefix), so ``import_graph_def(g.as_graph_def())`` is lossless.
    ``input_map`` maps input names of the graph def (``"x:0"``) to tensors of
    ``graph`` that nodes read instead.
    """
    if graph is None:
        graph = Graph()
    if not isinstance(graph_def, dict) or not isinstance(graph_def.get("node"), list):
        raise _bad("expected a dict with a 'node' list")
    if graph_def.get("version") != GRAPH_FORMAT_VERSION:
        raise _bad(f"graph format version {graph_def.get('version')!r} is not "
                   f"{GRAPH_FORMAT_VERSION}")
    for i, nd in enumerate(graph_def["node"]):
        _import_node(graph, nd, i, name_prefix, input_map or {})
    return graph


def _import_node(graph: Graph, nd: Any, i: int, prefix: str,
                 input_map: Dict[str, Any]) -> Operation:
    if not isinstance(nd, dict):
        raise _bad(f"node {i} is not a dict")
    name, op_type = nd.get("name"), nd.get("op")
    if not isinstance(name, str) or not name or not isinstance(op_type, str):
        raise _bad(f"node {i} needs string 'name' and 'op'")
    if not has_op(op_type):
        raise errors.NotFoundError(None, None, f"Op type not registered: {op_type!r} "
                                   f"(node {name!r})")
    name = prefix + name
    if graph.has_operation(name):
        raise _bad(f"duplicate node name {name!r}")
    inputs, ctrl = [], []
    raw_inputs = nd.get("input", [])
    if not isinstance(raw_inputs, list) or not all(isinstance(s, str) for s in raw_inputs):
        raise _bad(f"node {name!r}: 'input' must be a list of strings")
    try:
        for s in raw_inputs:
            if s.startswith("^"):
                ctrl.append(graph.get_operation_by_name(prefix + s[1:]))
            elif s in input_map:
                inputs.append(input_map[s])
            else:
                inputs.append(graph.get_tensor_by_name(prefix + s))
    except (KeyError, ValueError) as e:
        raise _bad(f"node {name!r} reads an unknown input: {e}") from None
    attrs_raw = nd.get("attr", {})
    out = nd.get("out", [])
    if not isinstance(attrs_raw, dict) or not isinstance(out, list):
        raise _bad(f"node {name!r}: bad 'attr' or 'out'")
    attrs = {str(k): decode_attr(v) for k, v in attrs_raw.items()}
    try:
        dts = [_dtypes.as_dtype(o[0]) for o in out]
        shapes = [decode_attr({"shape": o[1]}) for o in out]
    except (TypeError, IndexError, KeyError):
        raise _bad(f"node {name!r}: bad output signature") from None
    device = nd.get("device", "")
    if not isinstance(device, str):
        raise _bad(f"node {name!r}: device must be a string")
    try:
        return graph.add_imported_op(op_type, name, inputs, dts, shapes, attrs, device, ctrl)
    except ValueError as e:  # the name was taken meanwhile
        raise _bad(str(e)) from None


__all__ = ["SubGraph", "graph_to_plain", "import_graph_def", "encode_array", "decode_array",
           "encode_attr", "decode_attr"]
