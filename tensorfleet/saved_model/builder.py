"""``tf.saved_model.builder.SavedModelBuilder``: writes a graph, its variables and signatures.

A tensorfleet SavedModel is a directory:

* ``saved_model.json``: ``{"format", "version", "meta_graphs": [...]}``; each meta
  graph holds its ``tags``, the graph as tensorfleet's plain-data serialization
  (``framework/serialization.py``), its ``signature_def`` map, the names of its
  variables and an optional ``main_op`` run after they are restored;
* ``variables/variables.safetensors``: the variable values by op name;
* ``assets.extra/``: files the exporter was asked to copy in;
* TensorFlow's layout besides (``saved_model.pb``, ``variables/variables.index`` and
  ``.data-00000-of-00001``, see ``tensorflow_layout``), so TensorFlow's loader and
  TensorFlow Serving load the model, whenever the graph serving needs has only op
  types TensorFlow has (a WARNING names the others otherwise).

Everything is plain data: loading it executes no Python code from the files.
``saved_model.json`` is written last (to a temporary name, then renamed), so a
directory without it is an export that did not finish.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
from safetensors.numpy import save_file

from tensorfleet import errors
from tensorfleet.framework.graph import GraphKeys, Operation, get_default_graph
from tensorfleet.framework.serialization import graph_to_plain
from tensorfleet.saved_model import tensorflow_layout
from tensorfleet.saved_model.signature import SignatureDef

logger = logging.getLogger(__name__)

FORMAT = "tensorfleet.saved_model"
FORMAT_VERSION = 1
SAVED_MODEL_FILENAME = "saved_model.json"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables.safetensors"
EXTRA_ASSETS_DIRECTORY = "assets.extra"


def _check_tags(tags: Sequence[str]) -> List[str]:
    if isinstance(tags, str) or not tags or not all(isinstance(t, str) for t in tags):
        raise ValueError(f"tags must be a non-empty list of strings, got {tags!r}")
    return sorted(set(tags))


def _check_signatures(signature_def_map: Optional[Dict[str, SignatureDef]]
                      ) -> Dict[str, Any]:
    out = {}
    for key, sig in (signature_def_map or {}).items():
        if not isinstance(sig, SignatureDef):
            raise TypeError(f"signature_def_map[{key!r}] must be a SignatureDef, got {sig!r}")
        out[str(key)] = sig.to_plain()
    return out


def _check_unsupported(assets_collection: Any, saver: Any) -> None:
    if assets_collection:
        raise ValueError("assets_collection is not supported; pass files as assets_extra "
                         "to export_saved_model instead")
    if saver is not None:
        raise ValueError("a custom saver is not supported: a SavedModel stores every global "
                         "variable by its op name")


def _op_name(op: Any, what: str) -> Optional[str]:
    if op is None:
        return None
    if isinstance(op, Operation):
        return op.name
    if hasattr(op, "op") and isinstance(op.op, Operation):
        return op.op.name
    raise TypeError(f"{what} must be an Operation, got {op!r}")


class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist, or be empty).

    Call ``add_meta_graph_and_variables`` once (it records the variables), then
    ``add_meta_graph`` for other tag sets of the same variables, then ``save``.
    """

    def __init__(self, export_dir: str):
        export_dir = os.fspath(export_dir)
        if isinstance(export_dir, bytes):
            export_dir = export_dir.decode()
        if os.path.exists(export_dir) and os.listdir(export_dir):
            raise AssertionError(f"Export directory already exists, and isn't empty. Please "
                                 f"choose a different export directory, or delete all the "
                                 f"contents of the specified directory: {export_dir}")
        self._export_dir = export_dir
        self._meta_graphs: List[Dict[str, Any]] = []
        self._variables: Optional[Dict[str, np.ndarray]] = None

    def _add(self, graph: Any, tags: Sequence[str], signature_def_map: Any, main_op: Any,
             clear_devices: bool, variables: List[str]) -> None:
        tags_l = _check_tags(tags)
        if any(mg["tags"] == tags_l for mg in self._meta_graphs):
            raise ValueError(f"A meta graph with tags {tags_l} was already added")
        plain = graph_to_plain(graph)
        if clear_devices:
            for node in plain["node"]:
                node["device"] = ""
        self._meta_graphs.append({
            "tags": tags_l, "graph_def": plain,
            "signature_def": _check_signatures(signature_def_map),
            "variables": variables, "main_op": _op_name(main_op, "main_op")})

    def add_meta_graph_and_variables(self, sess: Any, tags: Sequence[str],
                                     signature_def_map: Optional[Dict[str, SignatureDef]] = None,
                                     assets_collection: Any = None, legacy_init_op: Any = None,
                                     clear_devices: bool = False, main_op: Any = None,
                                     strip_default_attrs: bool = False,
                                     saver: Any = None) -> None:
        """Records ``sess.graph`` under ``tags`` and the current values of its global
        variables.

        ``strip_default_attrs`` changes nothing (tensorfleet graphs store no
        default-valued attrs).

        Raises:
          AssertionError: called twice (the variables are recorded once).
          ValueError: bad tags, an asset collection or a custom ``saver`` (neither is
            supported) or a string variable.
        """
        _check_unsupported(assets_collection, saver)
        if self._variables is not None:
            raise AssertionError("Graph state including variables and assets has already "
                                 "been saved. Please invoke `add_meta_graph()` instead.")
        graph = sess.graph
        variables = graph.get_collection(GraphKeys.GLOBAL_VARIABLES)
        values = sess.run(list(variables)) if variables else []
        stored: Dict[str, np.ndarray] = {}
        for v, value in zip(variables, values):
            arr = np.asarray(value)
            if arr.dtype == object:
                raise ValueError(f"Variable {v.op.name} holds strings; a SavedModel stores "
                                 f"numeric variables only")
            stored[v.op.name] = np.ascontiguousarray(arr)
        self._variables = stored
        self._add(graph, tags, signature_def_map, main_op if main_op is not None
                  else legacy_init_op, clear_devices, sorted(stored))

    def add_meta_graph(self, tags: Sequence[str],
                       signature_def_map: Optional[Dict[str, SignatureDef]] = None,
                       assets_collection: Any = None, legacy_init_op: Any = None,
                       clear_devices: bool = False, main_op: Any = None,
                       strip_default_attrs: bool = False, saver: Any = None,
                       graph: Any = None) -> None:
        """Records another meta graph (the default graph unless ``graph``) over the
        variables already recorded.

        Raises:
          AssertionError: before ``add_meta_graph_and_variables``.
        """
        if self._variables is None:
            raise AssertionError("Graph state including variables and assets has not been "
                                 "saved yet. Please invoke `add_meta_graph_and_variables()` "
                                 "first.")
        _check_unsupported(assets_collection, saver)
        from_graph = graph if graph is not None else get_default_graph()
        names = [v.op.name for v in from_graph.get_collection(GraphKeys.GLOBAL_VARIABLES)]
        missing = [n for n in names if n not in self._variables]
        if missing:
            raise ValueError(f"add_meta_graph: variables {missing} were not saved by "
                             f"add_meta_graph_and_variables")
        self._add(from_graph, tags, signature_def_map, main_op if main_op is not None
                  else legacy_init_op, clear_devices, sorted(names))

    def save(self, as_text: bool = False) -> bytes:
        """Writes the SavedModel; returns its directory (as bytes, as TensorFlow).

        Raises:
          AssertionError: nothing was added.
        """
        if self._variables is None:
            raise AssertionError("Nothing to save: call add_meta_graph_and_variables() first")
        var_dir = os.path.join(self._export_dir, VARIABLES_DIRECTORY)
        os.makedirs(var_dir, exist_ok=True)
        save_file(self._variables, os.path.join(var_dir, VARIABLES_FILENAME),
                  metadata={"format": FORMAT})
        try:
            tensorflow_layout.write_saved_model(self._export_dir, self._meta_graphs,
                                                self._variables, as_text=as_text)
        except errors.InvalidArgumentError as e:
            logger.warning("SavedModel %s: not written in TensorFlow's layout (TensorFlow "
                           "cannot load it): %s", self._export_dir, e.message)
        doc = {"format": FORMAT, "version": FORMAT_VERSION, "meta_graphs": self._meta_graphs}
        path = os.path.join(self._export_dir, SAVED_MODEL_FILENAME)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=1 if as_text else None)
        os.replace(tmp, path)
        logger.info("SavedModel written to: %s", self._export_dir)
        return self._export_dir.encode()


__all__ = ["SavedModelBuilder", "FORMAT", "SAVED_MODEL_FILENAME", "VARIABLES_DIRECTORY",
           "VARIABLES_FILENAME", "EXTRA_ASSETS_DIRECTORY"]
