"""The meta graph as data (``MetaGraphDef``), reading ``.meta`` files and
``tf.train.export_meta_graph``; importing one is in ``meta_graph``.

A ``.meta`` file is TensorFlow's ``MetaGraphDef`` message, binary (text format with
``as_text``), built by ``tensorflow_meta_graph_export``: TensorFlow imports it, and
tensorfleet finds its own form of the meta graph in ``meta_info_def.any_info``.
Reading accepts those, ``.meta`` files TensorFlow wrote (imported through
``tensorflow_meta_graph_import``) and the JSON meta graphs of earlier releases.

Kept apart from the import side so that ``Saver.export_meta_graph`` can use it:
importing a meta graph builds ``Saver`` objects, exporting one does not.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Optional

from google.protobuf import text_format
from google.protobuf.message import DecodeError

from tensorfleet import errors
from tensorfleet.framework.graph import Graph, get_default_graph
from tensorfleet.framework.graph_def import META_GRAPH_FORMAT, GraphDef, meta_graph_to_plain
from tensorfleet.kernels.numpy.io_kernels import os_error
from tensorfleet.protos import meta_graph_pb2
from tensorfleet.training import checkpoint_management as cm
from tensorfleet.training.tensorflow_meta_graph_export import (ANY_TYPE_URL,
                                                               to_tensorflow_meta_graph)

logger = logging.getLogger(__name__)

# A .meta file larger than this is refused before it is read (protobuf's own limit).
MAX_META_GRAPH_BYTES = 1 << 31


class MetaGraphDef(dict):
    """A meta graph as data: ``graph_def``, ``saver_def``, ``collection_def`` and
    ``meta_info_def``, in tensorfleet's plain form.

    ``tensorflow`` holds TensorFlow's ``MetaGraphDef`` message: the one written (see
    ``export_meta_graph``), or the one read from a file TensorFlow wrote, whose
    plain form is then empty. ``SerializeToString`` gives that message's bytes.
    """

    tensorflow: Any = None

    def __init__(self, plain: Optional[Dict[str, Any]] = None, tensorflow: Any = None):
        super().__init__()
        plain = dict(plain or {"format": META_GRAPH_FORMAT, "version": 1})
        self.update(plain)
        if isinstance(self.get("graph_def"), dict):
            self["graph_def"] = GraphDef(self["graph_def"])
        if tensorflow is None and isinstance(plain, MetaGraphDef):
            tensorflow = plain.tensorflow
        self.tensorflow = tensorflow

    @property
    def is_tensorflow_only(self) -> bool:
        """Whether this meta graph was read from a file TensorFlow wrote (no plain form)."""
        return self.tensorflow is not None and "graph_def" not in self

    @property
    def graph_def(self) -> GraphDef:
        """The graph."""
        return self.setdefault("graph_def", GraphDef())

    @property
    def saver_def(self) -> Dict[str, Any]:
        """The Saver's filename tensor, save tensor and restore op names, as a dict."""
        return self.setdefault("saver_def", {})

    @property
    def collection_def(self) -> Dict[str, List[Any]]:
        """Collection name -> its entries as plain data."""
        return self.setdefault("collections", {})

    @property
    def meta_info_def(self) -> Dict[str, Any]:
        """Free-form description (``tags``, ``stripped_op_list``...)."""
        return self.setdefault("meta_info_def", {})

    def SerializeToString(self) -> bytes:  # noqa: N802 (protobuf's name)
        """The meta graph as TensorFlow's ``MetaGraphDef`` (binary protobuf)."""
        if self.tensorflow is None:
            self.tensorflow = to_tensorflow_meta_graph(
                json.loads(json.dumps(self, allow_nan=False)), None)
        return self.tensorflow.SerializeToString(deterministic=True)

    @classmethod
    def FromString(cls, data: bytes) -> "MetaGraphDef":  # noqa: N802
        """Parses a meta graph: TensorFlow's message (binary or text) or tensorfleet's
        earlier JSON (InvalidArgumentError if it is neither)."""
        return parse_meta_graph(data, "<bytes>")


def _tensorflow_message(data: bytes, where: str) -> Any:
    """TensorFlow's ``MetaGraphDef`` from binary or text-format bytes."""
    mg = meta_graph_pb2.MetaGraphDef()
    # protobuf stops at 100 levels of nesting: a hostile file is a DecodeError.
    try:
        mg.ParseFromString(data)
        if mg.HasField("graph_def") or mg.HasField("meta_info_def"):
            return mg
        binary = "it holds no graph"
    except DecodeError as e:
        binary = str(e)
    mg = meta_graph_pb2.MetaGraphDef()
    try:
        text_format.Parse(data.decode("utf-8"), mg, allow_unknown_field=True)
    except (text_format.ParseError, UnicodeDecodeError, RecursionError) as e:
        # The parsers quote the input: keep a hostile file's bytes out of the message.
        raise errors.InvalidArgumentError(
            None, None, f"{where} is not a meta graph: neither tensorfleet's JSON, nor "
            f"TensorFlow's MetaGraphDef (binary: {binary[:200]}; text format: "
            f"{str(e)[:200]})") from None
    return mg


def parse_meta_graph(data: Any, where: str) -> MetaGraphDef:
    """A ``MetaGraphDef`` from a ``.meta`` file's bytes (``where`` names it in errors).

    Raises:
      InvalidArgumentError: not a meta graph, naming ``where``.
    """
    raw = bytes(data) if not isinstance(data, str) else data.encode("utf-8")
    if raw.lstrip()[:1] in (b"{", b"["):  # JSON (no MetaGraphDef starts so)
        return MetaGraphDef(_parse(raw, where))
    mg = _tensorflow_message(raw, where)
    info = mg.meta_info_def.any_info
    if info.type_url == ANY_TYPE_URL:
        return MetaGraphDef(_parse(info.value, f"{where} (tensorfleet's meta graph)"), mg)
    if not mg.HasField("graph_def"):
        raise errors.InvalidArgumentError(None, None, f"{where}: the meta graph has no "
                                          f"graph_def")
    return MetaGraphDef({"format": META_GRAPH_FORMAT, "version": 1}, mg)


def _parse(data: Any, where: str) -> Dict[str, Any]:
    try:
        doc = json.loads(data.decode("utf-8") if isinstance(data, (bytes, bytearray)) else data)
    except (UnicodeDecodeError, ValueError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"{where} is not a tensorfleet meta graph: {e}") from None
    except RecursionError:
        # The parser recurses once per level: a hostile file nests until it overflows.
        raise errors.InvalidArgumentError(
            None, None, f"{where} is not a tensorfleet meta graph: it nests deeper than "
                        f"the parser allows") from None
    if not isinstance(doc, dict) or doc.get("format") != META_GRAPH_FORMAT:
        raise errors.InvalidArgumentError(
            None, None, f"{where} is not a tensorfleet meta graph (format must be "
            f"{META_GRAPH_FORMAT!r})")
    if not isinstance(doc.get("graph_def"), dict):
        raise errors.InvalidArgumentError(None, None, f"{where}: the meta graph has no graph_def")
    return doc


def read_meta_graph_file(filename: str) -> MetaGraphDef:
    """Reads a ``.meta`` file (TensorFlow's or tensorfleet's).

    Raises:
      NotFoundError: no such file; InvalidArgumentError: not a meta graph, or larger
        than ``MAX_META_GRAPH_BYTES``.
    """
    try:
        with open(filename, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_META_GRAPH_BYTES:
                raise errors.InvalidArgumentError(
                    None, None, f"Meta graph {filename} is {size} bytes, more than the "
                    f"{MAX_META_GRAPH_BYTES} a meta graph may hold")
            data = f.read(MAX_META_GRAPH_BYTES + 1)
    except OSError as e:
        raise os_error(e, f"Failed to read meta graph {filename}") from None
    return parse_meta_graph(data, filename)


def export_meta_graph(filename: Optional[str] = None, meta_info_def: Any = None,
                      graph_def: Any = None, saver_def: Any = None,
                      collection_list: Optional[List[str]] = None, as_text: bool = False,
                      graph: Optional[Graph] = None, export_scope: Optional[str] = None,
                      clear_devices: bool = False, clear_extraneous_savers: bool = False,
                      strip_default_attrs: bool = False, save_debug_info: bool = False,
                      **kwargs: Any) -> MetaGraphDef:
    """Returns the meta graph of ``graph`` (default graph) and writes it to ``filename``.

    The file is TensorFlow's ``MetaGraphDef``, binary, or in protobuf text format with
    ``as_text``. ``saver_def`` is a ``SaverDef`` (or dict) recorded as given, and
    written for TensorFlow in its ops when it names a Saver of the graph;
    ``graph_def`` replaces the graph's own.

    Raises:
      TypeError: unknown keyword arguments.
      ValueError: ``export_scope`` holds a node reading one outside it.
    """
    if kwargs:
        raise TypeError(f"export_meta_graph got unexpected arguments {sorted(kwargs)}")
    g = graph or get_default_graph()
    sd = saver_def.to_plain() if hasattr(saver_def, "to_plain") else dict(saver_def or {})
    doc = meta_graph_to_plain(g, sd, collection_list, export_scope, clear_devices,
                              dict(meta_info_def or {}))
    if graph_def is not None:
        doc["graph_def"] = GraphDef(json.loads(json.dumps(graph_def)))
    plain = json.loads(json.dumps(doc, allow_nan=False))
    meta = MetaGraphDef(plain, to_tensorflow_meta_graph(plain, g, export_scope))
    if filename:
        parent = os.path.dirname(filename)
        try:
            if parent:
                os.makedirs(parent, exist_ok=True)
            write_meta_graph_file(filename, meta, as_text)
        except OSError as e:
            raise os_error(e, f"Failed to write meta graph {filename}") from None
    return meta


def write_meta_graph_file(filename: str, meta: MetaGraphDef, as_text: bool = False) -> None:
    """Writes ``meta`` as TensorFlow's ``MetaGraphDef`` to ``filename`` (atomically)."""
    data = (text_format.MessageToString(meta.tensorflow).encode("utf-8") if as_text
            and meta.tensorflow is not None else meta.SerializeToString())
    cm.atomic_write(filename, data)


__all__ = ["MetaGraphDef", "MAX_META_GRAPH_BYTES", "export_meta_graph", "parse_meta_graph",
           "read_meta_graph_file", "write_meta_graph_file"]
