"""``tf.GraphDef``, ``tf.NodeDef`` and ``tf.AttrValue``: graphs as data objects.

They are thin views over the plain-data graph form of ``framework.serialization``:
a ``GraphDef`` *is* the plain dict (``{"version": 1, "node": [...]}``), each node a
``NodeDef`` dict and each attr an ``AttrValue`` holding one tagged value. So a
``GraphDef`` goes over the wire, into JSON and through ``import_graph_def``
exactly as the plain form always did, while programs read it the TensorFlow way
(``graph_def.node[0].op``, ``node.attr["dtype"].type``).

``SerializeToString`` gives tensorfleet's graph format (compact UTF-8 JSON), not
TensorFlow's protobuf bytes: attr values such as nested lists and dicts have no
protobuf encoding, and the plain form is what every tensorfleet process accepts.

TensorFlow's own ``GraphDef`` files (frozen graphs, binary or text) are read too:
``GraphDef.ParseFromString`` keeps such a graph as the protobuf message
(``GraphDef.tensorflow``), and ``import_graph_def`` builds it through the op table
of ``ops.tensorflow_graph_import``.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework import serialization as _ser
from tensorfleet.framework import graph as _graph
from tensorfleet.framework.graph import Graph, Operation, Tensor, get_default_graph
from tensorfleet.framework.tensor_shape import as_shape

logger = logging.getLogger(__name__)

# AttrValue's TensorFlow field names and the plain-form tags that hold them.
_FIELD_TAGS = {"s": ("s", "y"), "i": ("i",), "f": ("f",), "b": ("b",), "type": ("type",),
               "shape": ("shape",), "tensor": ("tensor",), "list": ("list",),
               "func": ("dict", "graph")}
_TAG_FIELD = {t: f for f, tags in _FIELD_TAGS.items() for t in tags}
_DEFAULTS = {"s": b"", "i": 0, "f": 0.0, "b": False, "type": None, "shape": None,
             "tensor": None, "list": [], "func": {}}


class AttrValue(dict):
    """One attr value of a ``NodeDef``: exactly one of ``s``, ``i``, ``f``, ``b``,
    ``type``, ``shape``, ``tensor``, ``list`` or ``func`` (a dict of values, or the
    sub-graph of a functional op such as ``While``).

    ``AttrValue(i=3)``, ``AttrValue(type=tf.float32)``; reading a field that is not
    the one set gives its default, as a protobuf message does. ``value()`` gives the
    Python value the op sees. ``tensor`` is a numpy array.
    """

    def __init__(self, plain: Optional[Dict[str, Any]] = None, **field: Any):
        super().__init__()
        if plain is not None and field:
            raise TypeError("AttrValue takes either a plain-data dict or one field, not both")
        if len(field) > 1:
            raise TypeError(f"AttrValue holds one value; got fields {sorted(field)}")
        if plain is not None:
            if not isinstance(plain, dict):
                raise TypeError(f"AttrValue expects a dict, got {type(plain).__name__}")
            self.update(plain)
        elif field:
            (name, value), = field.items()
            self._set(name, value)

    def _set(self, name: str, value: Any) -> None:
        if name not in _FIELD_TAGS:
            raise TypeError(f"AttrValue has no field {name!r}; fields are "
                            f"{sorted(_FIELD_TAGS)}")
        if name == "s" and isinstance(value, bytes):
            try:
                value = value.decode("utf-8")
            except UnicodeDecodeError:
                pass
        if name == "f":
            value = float(value)
        elif name == "type":
            value = _dtypes.as_dtype(value)
        elif name == "shape":
            value = as_shape(value)
        elif name == "tensor":
            value = np.asarray(value)
        if name == "func" and not isinstance(value, dict):
            raise TypeError("AttrValue.func must be a dict of attr values")
        encoded = _ser.encode_attr(value)
        if _TAG_FIELD.get(next(iter(encoded))) != name:
            raise TypeError(f"AttrValue.{name} cannot hold {type(value).__name__} {value!r}")
        self.clear()
        self.update(encoded)

    def __getattr__(self, name: str) -> Any:
        if name not in _FIELD_TAGS:
            raise AttributeError(f"AttrValue has no field {name!r}")
        if self.WhichOneof("value") != name:
            default = _DEFAULTS[name]
            return type(default)() if isinstance(default, (list, dict)) else default
        v = _ser.decode_attr(dict(self))
        if name == "s" and isinstance(v, str):
            return v.encode("utf-8")
        return v

    def __setattr__(self, name: str, value: Any) -> None:
        self._set(name, value)

    def WhichOneof(self, oneof: str) -> Optional[str]:  # noqa: N802 (protobuf's name)
        """The name of the field that is set (``oneof`` must be ``"value"``)."""
        if oneof != "value":
            raise ValueError(f"AttrValue has no oneof {oneof!r}")
        return _TAG_FIELD.get(next(iter(self), None)) if len(self) == 1 else None

    def HasField(self, name: str) -> bool:  # noqa: N802
        """Whether ``name`` is the field that is set."""
        return self.WhichOneof("value") == name

    def value(self) -> Any:
        """The attr as the op sees it (str, int, DType, TensorShape, ndarray, list...)."""
        return _ser.decode_attr(dict(self))

    def CopyFrom(self, other: Dict[str, Any]) -> None:  # noqa: N802
        """Replaces this value with ``other``'s."""
        self.clear()
        self.update(other)


def _as_attr_map(attrs: Any) -> Dict[str, AttrValue]:
    if not isinstance(attrs, dict):
        return attrs
    return {k: v if isinstance(v, AttrValue) or not isinstance(v, dict) else AttrValue(v)
            for k, v in attrs.items()}


class NodeDef(dict):
    """One node of a ``GraphDef``: ``name``, ``op``, ``input``, ``device``, ``attr``.

    ``input`` names tensors (``"x:0"``) and control inputs (``"^x"``); ``attr`` maps
    names to ``AttrValue``. Beside TensorFlow's fields the node keeps its output
    signature (``out``: dtype and shape per output), which import needs to rebuild
    the op without running shape inference.
    """

    def __init__(self, plain: Optional[Dict[str, Any]] = None, *, name: str = "", op: str = "",
                 input: Optional[Iterable[str]] = None, device: str = "",  # noqa: A002
                 attr: Optional[Dict[str, Any]] = None,
                 out: Optional[List[Any]] = None):
        super().__init__()
        if plain is not None:
            if not isinstance(plain, dict):
                raise TypeError(f"NodeDef expects a dict, got {type(plain).__name__}")
            self.update(plain)
            if "attr" in self:
                self["attr"] = _as_attr_map(self["attr"])
            return
        self.update({"name": name, "op": op, "input": list(input or []), "device": device,
                     "attr": {}, "out": list(out or [])})
        for k, v in (attr or {}).items():
            self["attr"][k] = v if isinstance(v, AttrValue) else AttrValue(
                _ser.encode_attr(v))

    name = property(lambda self: self.get("name", ""),
                    lambda self, v: self.__setitem__("name", str(v)),
                    doc="The node's unique name.")
    op = property(lambda self: self.get("op", ""),
                  lambda self, v: self.__setitem__("op", str(v)),
                  doc="The op type, e.g. ``'MatMul'``.")
    device = property(lambda self: self.get("device", ""),
                      lambda self, v: self.__setitem__("device", str(v)),
                      doc="The requested device (may be empty).")

    @property
    def input(self) -> List[str]:
        """The inputs, in order; control inputs (``^name``) last."""
        return self.setdefault("input", [])

    @property
    def attr(self) -> Dict[str, AttrValue]:
        """Attr name -> ``AttrValue``."""
        return self.setdefault("attr", {})

    def CopyFrom(self, other: Dict[str, Any]) -> None:  # noqa: N802
        """Replaces this node with a deep copy of ``other``."""
        self.clear()
        self.update(NodeDef(json.loads(json.dumps(other))))

    def SerializeToString(self) -> bytes:  # noqa: N802
        """This node in tensorfleet's graph format (UTF-8 JSON)."""
        return json.dumps(self, separators=(",", ":"), allow_nan=False).encode("utf-8")

    def __str__(self) -> str:
        return json.dumps(self, indent=2)


class _NodeList(list):
    """``GraphDef.node``: a list that also has protobuf's ``add()``."""

    def add(self, **fields: Any) -> NodeDef:
        """Appends a new ``NodeDef`` (built from ``fields``) and returns it."""
        node = NodeDef(**fields)
        self.append(node)
        return node


class GraphDef(dict):
    """A graph as data: ``node`` is the list of ``NodeDef`` in graph order.

    ``Graph.as_graph_def()`` returns one; ``tf.import_graph_def`` reads one. The
    serialized form (``SerializeToString`` / ``FromString``) is tensorfleet's
    graph format, JSON in UTF-8.
    """

    def __init__(self, plain: Optional[Dict[str, Any]] = None):
        super().__init__()
        if plain is None:
            plain = {"version": _ser.GRAPH_FORMAT_VERSION, "node": []}
        if not isinstance(plain, dict):
            raise TypeError(f"GraphDef expects a dict, got {type(plain).__name__}")
        self.update(plain)
        nodes = self.get("node")
        if isinstance(nodes, list):
            self["node"] = _NodeList(NodeDef(n) if isinstance(n, dict) else n for n in nodes)

    tensorflow: Any = None  # a TensorFlow GraphDef message, when one was parsed

    @property
    def node(self) -> List[NodeDef]:
        """The nodes, each after the nodes it reads (of a parsed TensorFlow graph: its
        ``NodeDef`` messages, in file order)."""
        if self.tensorflow is not None:
            return self.tensorflow.node
        return self.setdefault("node", _NodeList())

    @property
    def versions(self) -> Dict[str, int]:
        """The graph format version (``producer``), as TensorFlow's ``VersionDef``."""
        return {"producer": int(self.get("version", 0))}

    def SerializeToString(self, deterministic: bool = True) -> bytes:  # noqa: N802
        """The graph in tensorfleet's graph format (compact UTF-8 JSON)."""
        return json.dumps(self, separators=(",", ":"), allow_nan=False).encode("utf-8")

    def ParseFromString(self, data: bytes) -> int:  # noqa: N802
        """Replaces this graph def with the one serialized in ``data``; returns its size.

        Raises:
          InvalidArgumentError: ``data`` is not a serialized graph def.
        """
        parsed = parse_graph_def(data)
        self.clear()
        self.update(parsed)
        self.tensorflow = parsed.tensorflow
        return len(data)

    @classmethod
    def FromString(cls, data: bytes) -> "GraphDef":  # noqa: N802
        """A new GraphDef parsed from ``data`` (``SerializeToString``'s output)."""
        return parse_graph_def(data)

    def CopyFrom(self, other: Dict[str, Any]) -> None:  # noqa: N802
        """Replaces this graph def with a deep copy of ``other``."""
        self.clear()
        self.update(GraphDef(json.loads(json.dumps(other))))

    def MergeFrom(self, other: Dict[str, Any]) -> None:  # noqa: N802
        """Appends copies of ``other``'s nodes."""
        self.node.extend(GraphDef(json.loads(json.dumps(other))).node)

    def ByteSize(self) -> int:  # noqa: N802
        """The size of ``SerializeToString()``."""
        return len(self.SerializeToString())

    def __str__(self) -> str:
        return json.dumps(self, indent=2)


def _tensorflow_graph_def(data: Any, why: str) -> GraphDef:
    """A ``GraphDef`` wrapping TensorFlow's message parsed from ``data``."""
    from tensorfleet.ops import tensorflow_graph_import as tgi  # ops sit below framework

    try:
        msg = tgi.parse_tensorflow_graph_def(data)
    except errors.InvalidArgumentError as e:
        raise errors.InvalidArgumentError(
            None, None, f"Not a graph def: not tensorfleet's ({why}), and {e.message}") from None
    gd = GraphDef()
    gd.tensorflow = msg
    return gd


def parse_graph_def(data: Any) -> GraphDef:
    """A ``GraphDef`` from its serialized form: tensorfleet's (JSON) or TensorFlow's
    (protobuf, binary or text).

    Raises:
      InvalidArgumentError: ``data`` is neither.
    """
    raw = data
    if isinstance(data, (bytes, bytearray, memoryview)):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            return _tensorflow_graph_def(bytes(raw), "not UTF-8 JSON")
    try:
        plain = json.loads(data)
    except (TypeError, ValueError) as e:
        if isinstance(data, str):
            return _tensorflow_graph_def(data, f"not JSON: {e}")
        raise errors.InvalidArgumentError(
            None, None, f"Not a tensorfleet graph def: {e}") from None
    if not isinstance(plain, dict) or not isinstance(plain.get("node"), list):
        raise errors.InvalidArgumentError(
            None, None, "Not a tensorfleet graph def: expected an object with a 'node' list")
    return GraphDef(plain)


def graph_def_of(graph: Graph, ops: Optional[List[Operation]] = None) -> GraphDef:
    """``graph`` (or the listed ops) as a ``GraphDef``."""
    return GraphDef(_ser.graph_to_plain(graph, ops))


def node_def_of(op: Operation) -> NodeDef:
    """``op`` as a ``NodeDef``."""
    return NodeDef(_ser.node_to_plain(op))


# Checks run on every graph def a user imports (never on the partitions a worker
# imports from its master): ``check(graph_def, graph)`` raises to refuse it. Op
# families register theirs (py_func: no calls into another graph's functions).
_IMPORT_CHECKS: List[Callable[[Any, Graph], None]] = []


def register_import_check(check: Callable[[Any, Graph], None]) -> None:
    """Adds ``check(graph_def, graph)`` to the checks of user-level imports."""
    _IMPORT_CHECKS.append(check)


def check_user_import(graph_def: Any, graph: Graph) -> None:
    """Runs the registered checks on ``graph_def`` before it is imported into ``graph``."""
    for check in _IMPORT_CHECKS:
        check(graph_def, graph)


def import_graph_def(graph_def: Any, input_map: Optional[Dict[str, Any]] = None,
                     return_elements: Optional[List[str]] = None, name: Optional[str] = None,
                     op_dict: Any = None, producer_op_list: Any = None, *,
                     graph: Optional[Graph] = None, name_prefix: str = "") -> Any:
    """``tf.import_graph_def``: adds the nodes of ``graph_def`` to a graph.

    As in TensorFlow: the nodes go into the default graph under the name scope
    ``name`` (``"import"`` when None, none when ``""``), inputs named in ``input_map``
    read the given tensors instead, and the elements named in ``return_elements`` are
    returned (else None). Given ``graph`` alone (a tensorfleet extension), the nodes
    go into that graph under their own names with ``name_prefix`` prepended, and the
    graph is returned.

    Raises:
      InvalidArgumentError: a malformed graph def or an ``input_map`` key that names
        no tensor of it; NotFoundError: an op type that is not registered.
      ValueError: a return element that names no node.
    """
    if op_dict is not None or producer_op_list is not None:
        raise ValueError("import_graph_def: op_dict and producer_op_list are not supported; "
                         "ops come from tensorfleet's op registry")
    if isinstance(graph_def, (bytes, bytearray)):
        graph_def = parse_graph_def(graph_def)
    tf_msg = graph_def.tensorflow if isinstance(graph_def, GraphDef) else (
        graph_def if type(graph_def).__name__ == "GraphDef" and hasattr(graph_def, "library")
        else None)
    if tf_msg is not None:
        from tensorfleet.ops import tensorflow_graph_import as tgi
        if name_prefix:
            raise ValueError("import_graph_def: name_prefix applies to tensorfleet graph defs; "
                             "use name= for a TensorFlow graph def")
        return tgi.import_tensorflow_graph_def(tf_msg, input_map, return_elements, name, graph)
    check_user_import(graph_def, graph if graph is not None else get_default_graph())
    if graph is not None and input_map is None and return_elements is None and name is None:
        return _ser.import_graph_def(graph_def, graph=graph, name_prefix=name_prefix)
    g = graph if graph is not None else get_default_graph()
    scope = g.unique_name("import" if name is None else name) if name != "" else ""
    prefix = scope + "/" if scope else ""
    mapped: Dict[str, Tensor] = {}
    for k, v in (input_map or {}).items():
        if not isinstance(v, Tensor) or v.graph is not g:
            raise ValueError(f"input_map[{k!r}] must be a Tensor of the graph imported into")
        mapped[k if ":" in k else k + ":0"] = v
    known = {n.get("name") for n in graph_def.get("node", []) if isinstance(n, dict)}
    for k in mapped:
        if k.rpartition(":")[0] not in known:
            raise ValueError(f"input_map key {k!r} names no node of the graph def")
    _ser.import_graph_def(graph_def, graph=g, name_prefix=prefix, input_map=mapped)
    if return_elements is None:
        return None
    out = []
    for r in return_elements:
        try:
            out.append(g.get_tensor_by_name(prefix + r) if ":" in r
                       else g.get_operation_by_name(prefix + r))
        except (KeyError, ValueError):
            raise ValueError(f"Requested return element {r!r} is not in the graph def") from None
    return out


# -- collections as data (meta graphs) ----------------------------------------------------

def collection_item_to_plain(item: Any, export_scope: Optional[str] = None
                             ) -> Optional[Dict[str, Any]]:
    """One collection entry as plain data (variables, queue runners, tensors, operations,
    numbers, strings), or None for kinds that have no plain form (such as savers)."""

    def strip(n: str) -> Optional[str]:
        if not export_scope:
            return n
        return n[len(export_scope) + 1:] if n.startswith(export_scope + "/") else None

    if all(hasattr(item, a) for a in ("queue", "enqueue_ops", "close_op", "cancel_op")):
        return _queue_runner_to_plain(item, strip)
    if hasattr(item, "to_proto") and hasattr(item, "_ref"):
        d = item.to_proto(export_scope=export_scope)
        return None if d is None else {"variable": d}
    if isinstance(item, Tensor):
        n = strip(item.name)
        return None if n is None else {"tensor": n}
    if isinstance(item, Operation):
        n = strip(item.name)
        return None if n is None else {"operation": n}
    if isinstance(item, (bool, int, float, str, bytes, np.integer, np.floating)):
        return {"value": _ser.encode_attr(item)}
    return None


def _queue_runner_to_plain(qr: Any, strip: Any) -> Optional[Dict[str, Any]]:
    names = [strip(qr.queue.queue_ref.name), strip(qr.close_op.name), strip(qr.cancel_op.name)]
    enqueue = [strip(op.name) for op in qr.enqueue_ops]
    if None in names or None in enqueue:
        return None
    return {"queue_runner": {
        "queue": names[0], "component_names": qr.queue.names, "enqueue_ops": enqueue,
        "close_op": names[1], "cancel_op": names[2],
        "closed_error_codes": [int(t.error_code) for t in qr.queue_closed_exception_types]}}


def collections_to_plain(graph: Graph, keys: Optional[Iterable[str]] = None,
                         export_scope: Optional[str] = None) -> Dict[str, List[Any]]:
    """The graph's collections (or those in ``keys``) as plain data; entries with no
    plain form are left out (logged), as TensorFlow leaves out what it cannot export."""
    out: Dict[str, List[Any]] = {}
    for key in (graph.get_all_collection_keys() if keys is None else keys):
        items = []
        for item in graph.get_collection(key):
            p = collection_item_to_plain(item, export_scope)
            if p is None:
                logger.debug("Collection %r: %r is not exported", key, item)
                continue
            items.append(p)
        if items:
            out[str(key)] = items
    return out


META_GRAPH_FORMAT = "tensorfleet-meta-graph"


def scoped_graph_def(graph: Graph, export_scope: Optional[str] = None,
                     clear_devices: bool = False) -> GraphDef:
    """The graph as a ``GraphDef``; with ``export_scope`` only the nodes inside it, their
    names relative to it. ValueError if a node in the scope reads one outside it."""
    gd = graph_def_of(graph)
    if export_scope:
        pre = export_scope.rstrip("/") + "/"
        kept = _NodeList()
        for n in gd.node:
            if not n.name.startswith(pre):
                continue
            n.name = n.name[len(pre):]
            ins = []
            for s in n.input:
                ctrl = s.startswith("^")
                base = s[1:] if ctrl else s
                if not base.startswith(pre):
                    raise ValueError(f"export_scope {export_scope!r}: node {pre}{n.name!r} reads "
                                     f"{base!r} from outside the scope")
                ins.append(("^" if ctrl else "") + base[len(pre):])
            n["input"] = ins
            kept.append(n)
        gd["node"] = kept
    if clear_devices:
        for n in gd.node:
            n.device = ""
    return gd


def meta_graph_to_plain(graph: Graph, saver_def: Optional[Dict[str, Any]] = None,
                        collection_list: Optional[Iterable[str]] = None,
                        export_scope: Optional[str] = None, clear_devices: bool = False,
                        meta_info_def: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """A meta graph (graph def, saver def, collections) as one plain-data dict."""
    return {"format": META_GRAPH_FORMAT, "version": 1,
            "meta_info_def": dict(meta_info_def or {}),
            "graph_def": scoped_graph_def(graph, export_scope, clear_devices),
            "saver_def": dict(saver_def or {}),
            "collections": collections_to_plain(graph, collection_list, export_scope)}


_graph._register_graph_def_fns(graph_def_of, node_def_of)

__all__ = ["AttrValue", "NodeDef", "GraphDef", "parse_graph_def", "graph_def_of",
           "node_def_of", "import_graph_def", "collection_item_to_plain",
           "collections_to_plain", "META_GRAPH_FORMAT", "scoped_graph_def",
           "meta_graph_to_plain"]
