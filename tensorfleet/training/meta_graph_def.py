"""The meta graph as data (``MetaGraphDef``), reading ``.meta`` files and
``tf.train.export_meta_graph``; importing one is in ``meta_graph``.

Kept apart from the import side so that ``Saver.export_meta_graph`` can use it:
importing a meta graph builds ``Saver`` objects, exporting one does not.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Optional

from tensorfleet import errors
from tensorfleet.framework.graph import Graph, get_default_graph
from tensorfleet.framework.graph_def import META_GRAPH_FORMAT, GraphDef, meta_graph_to_plain
from tensorfleet.kernels.numpy.io_kernels import os_error
from tensorfleet.training import checkpoint_management as cm

logger = logging.getLogger(__name__)


class MetaGraphDef(dict):
    """A meta graph as data: ``graph_def``, ``saver_def``, ``collection_def`` and
    ``meta_info_def``. Serialized as UTF-8 JSON (tensorfleet's format)."""

    def __init__(self, plain: Optional[Dict[str, Any]] = None):
        super().__init__()
        plain = dict(plain or {"format": META_GRAPH_FORMAT, "version": 1})
        self.update(plain)
        if isinstance(self.get("graph_def"), dict):
            self["graph_def"] = GraphDef(self["graph_def"])

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
        """The meta graph as compact UTF-8 JSON."""
        return json.dumps(self, separators=(",", ":"), allow_nan=False).encode("utf-8")

    @classmethod
    def FromString(cls, data: bytes) -> "MetaGraphDef":  # noqa: N802
        """Parses ``SerializeToString``'s output (InvalidArgumentError if it is not one)."""
        return cls(_parse(data, "<bytes>"))


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
    """Reads a ``.meta`` file.

    Raises:
      NotFoundError: no such file; InvalidArgumentError: not a meta graph.
    """
    try:
        with open(filename, "rb") as f:
            data = f.read()
    except OSError as e:
        raise os_error(e, f"Failed to read meta graph {filename}") from None
    return MetaGraphDef(_parse(data, filename))


def export_meta_graph(filename: Optional[str] = None, meta_info_def: Any = None,
                      graph_def: Any = None, saver_def: Any = None,
                      collection_list: Optional[List[str]] = None, as_text: bool = False,
                      graph: Optional[Graph] = None, export_scope: Optional[str] = None,
                      clear_devices: bool = False, clear_extraneous_savers: bool = False,
                      strip_default_attrs: bool = False, save_debug_info: bool = False,
                      **kwargs: Any) -> MetaGraphDef:
    """Returns the meta graph of ``graph`` (default graph) and writes it to ``filename``.

    The file is JSON either way; ``as_text`` indents it. ``saver_def`` is a
    ``SaverDef`` (or dict) recorded as given; ``graph_def`` replaces the graph's own.

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
    meta = MetaGraphDef(doc)
    if filename:
        text = json.dumps(meta, indent=2 if as_text else None, allow_nan=False)
        parent = os.path.dirname(filename)
        try:
            if parent:
                os.makedirs(parent, exist_ok=True)
            cm.atomic_write(filename, text.encode("utf-8"))
        except OSError as e:
            raise os_error(e, f"Failed to write meta graph {filename}") from None
    return meta


__all__ = ["MetaGraphDef", "export_meta_graph", "read_meta_graph_file"]
