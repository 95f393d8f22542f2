"""A meta graph as TensorFlow's ``MetaGraphDef`` message (the ``.meta`` file format).

From the plain meta graph (``graph_def.meta_graph_to_plain``) it builds:

* ``graph_def``: the graph as TensorFlow's ``GraphDef`` (``tensorflow_graph_export``),
  without tensorfleet's own checkpoint ops: each Saver's name scope is left out and
  the Saver whose ``SaverDef`` is given is written again in TensorFlow's ops
  (``SaveV2``, ``RestoreV2`` into ``Assign``s; ``tensorflow_saver_graph``), so
  TensorFlow's ``import_meta_graph`` gives a Saver that restores tensorfleet's
  checkpoints;
* ``saver_def`` naming those nodes;
* ``collection_def`` in TensorFlow's kinds: variables as serialized ``VariableDef``
  and queue runners as ``QueueRunnerDef`` (``bytes_list``), tensors and operations by
  name (``node_list``), numbers (``int64_list`` / ``float_list``), strings
  (``bytes_list``); a collection mixing kinds has no TensorFlow form and is left out;
* ``meta_info_def``: version, tags, and in ``any_info`` tensorfleet's own form of the
  whole meta graph (JSON, type ``ANY_TYPE_URL``), from which tensorfleet imports the
  graph exactly as it was (functional loops, queues and its own ops included), while
  TensorFlow, which never looks inside ``any_info``, reads the rest.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from tensorfleet.framework import serialization as _ser
from tensorfleet.framework import tensorflow_graph_export as tge
from tensorfleet.framework import tensorflow_saver_graph as tsg
from tensorfleet.framework.graph import Graph
from tensorfleet.protos import meta_graph_pb2, queue_runner_pb2, variable_pb2

logger = logging.getLogger(__name__)

# The type of tensorfleet's own meta graph (JSON) in ``meta_info_def.any_info``.
ANY_TYPE_URL = "type.googleapis.com/tensorfleet.MetaGraph"

# tensorfleet's checkpoint ops: the name scope holding one is a Saver's.
_SAVER_OPS = frozenset({"SaveBundleShard", "SaveShard", "RestoreShard"})


def _scope_of(name: str) -> str:
    return name.rpartition("/")[0]


def _saver_scopes(nodes: List[Dict[str, Any]]) -> List[str]:
    return sorted({_scope_of(n["name"]) for n in nodes if n.get("op") in _SAVER_OPS})


def _in_scopes(name: str, scopes: List[str]) -> bool:
    return any(s == "" or name.startswith(s + "/") for s in scopes)


def _graph_variables(graph: Optional[Graph]) -> List[Any]:
    if graph is None:
        return []
    return graph.get_collection("variables") + graph.get_collection("local_variables")


def _saved_entries(nodes: List[Dict[str, Any]], scope: str, graph: Optional[Graph],
                   export_scope: Optional[str]) -> List[tsg.SavedEntry]:
    """What the Saver under ``scope`` writes, read off its ``RestoreShard`` nodes."""
    by_name = {n["name"]: n for n in nodes}
    prefix = export_scope.rstrip("/") + "/" if export_scope else ""
    variables = {}
    for v in _graph_variables(graph):
        op = getattr(v, "op", None)
        if op is not None:
            variables[op.name] = v
    entries = []
    for n in nodes:
        if n.get("op") != "RestoreShard" or _scope_of(n["name"]) != scope:
            continue
        attrs = n.get("attr", {})
        for key, full in zip(_ser.decode_attr(attrs["names"]),
                             _ser.decode_attr(attrs["var_names"])):
            local = full[len(prefix):] if prefix and full.startswith(prefix) else full
            var_node = by_name.get(local)
            if var_node is None or not var_node.get("out"):
                continue
            spec = ""
            info = getattr(variables.get(full), "_get_save_slice_info", lambda: None)()
            if info is not None:
                key, spec = info.full_name, info.spec
            entries.append(tsg.SavedEntry(key, local, var_node["out"][0][0], spec))
    return entries


def _variable_def(d: Dict[str, Any], graph: Optional[Graph],
                  export_scope: Optional[str]) -> bytes:
    vd = variable_pb2.VariableDef(
        variable_name=d["variable_name"], initializer_name=d.get("initializer_name") or "",
        snapshot_name=d.get("snapshot_name") or "",
        initial_value_name=d.get("initial_value_name") or "",
        trainable=bool(d.get("trainable", True)))
    prefix = export_scope.rstrip("/") + "/" if export_scope else ""
    try:
        var = graph.get_tensor_by_name(prefix + d["variable_name"]) if graph else None
    except (KeyError, ValueError):
        var = None
    for v in _graph_variables(graph):
        if var is not None and getattr(v, "op", None) is var.op:
            info = getattr(v, "_get_save_slice_info", lambda: None)()
            if info is not None:
                vd.save_slice_info_def.full_name = info.full_name[len(prefix):] \
                    if prefix and info.full_name.startswith(prefix) else info.full_name
                vd.save_slice_info_def.full_shape.extend(info.full_shape)
                vd.save_slice_info_def.var_offset.extend(info.var_offset)
                vd.save_slice_info_def.var_shape.extend(info.var_shape)
            break
    return vd.SerializeToString()


def _queue_runner_def(d: Dict[str, Any]) -> bytes:
    return queue_runner_pb2.QueueRunnerDef(
        queue_name=d["queue"], enqueue_op_name=list(d["enqueue_ops"]),
        close_op_name=d["close_op"], cancel_op_name=d["cancel_op"],
        queue_closed_exception_types=[int(c) for c in d.get("closed_error_codes") or []]
    ).SerializeToString()


def _collection_def(key: str, items: List[Dict[str, Any]], graph: Optional[Graph],
                    export_scope: Optional[str]) -> Optional[Any]:
    """One collection in TensorFlow's kinds, or None when it has none."""
    kinds: List[Tuple[str, Any]] = []
    for item in items:
        if "variable" in item:
            kinds.append(("bytes_list", _variable_def(item["variable"], graph, export_scope)))
        elif "queue_runner" in item:
            kinds.append(("bytes_list", _queue_runner_def(item["queue_runner"])))
        elif "tensor" in item or "operation" in item:
            kinds.append(("node_list", item.get("tensor") or item.get("operation")))
        elif "value" in item:
            v = _ser.decode_attr(item["value"])
            if isinstance(v, (bool, int, np.integer)):
                kinds.append(("int64_list", int(v)))
            elif isinstance(v, (float, np.floating)):
                kinds.append(("float_list", float(v)))
            elif isinstance(v, (str, bytes)):
                kinds.append(("bytes_list", v.encode("utf-8") if isinstance(v, str) else v))
            else:
                kinds.append(("", None))
        else:
            kinds.append(("", None))
    kind_set = {k for k, _ in kinds}
    if len(kind_set) != 1 or "" in kind_set:
        logger.debug("Collection %r mixes kinds %s: no TensorFlow CollectionDef form",
                     key, sorted(kind_set))
        return None
    cd = meta_graph_pb2.CollectionDef()
    getattr(cd, kinds[0][0]).value.extend(v for _, v in kinds)
    return cd


def to_tensorflow_meta_graph(doc: Dict[str, Any], graph: Optional[Graph],
                             export_scope: Optional[str] = None) -> Any:
    """The plain meta graph ``doc`` of ``graph`` as TensorFlow's ``MetaGraphDef``.
    ``graph`` (None when only the plain form is at hand) tells which variables are
    slices of partitioned ones."""
    nodes = list(doc["graph_def"].get("node", []))
    saver_def = doc.get("saver_def") or {}
    scopes = _saver_scopes(nodes)
    kept = [n for n in nodes if not _in_scopes(n["name"], scopes)]
    kept_names = {n["name"] for n in kept}
    dangling = sorted({n["name"] for n in kept for i in n.get("input", [])
                       if tsg.node_of(i) not in kept_names})
    if dangling:
        # Something outside the Savers reads their nodes: keep the graph whole (TensorFlow
        # cannot import tensorfleet's checkpoint ops, but TensorBoard shows them).
        logger.warning("Meta graph: nodes %s read a Saver's nodes; its checkpoint ops stay "
                       "in the graph, which TensorFlow then cannot import", dangling[:5])
        kept, scopes = nodes, []
    gd = tge.to_tensorflow_graph_def({"node": kept}, strict=False)
    mg = meta_graph_pb2.MetaGraphDef()
    lacking = sorted({n.op for n in gd.node if not tge.exportable(n.op)})
    if lacking:
        # Every checkpoint writes a meta graph: a note, not a warning each time.
        logger.debug("Meta graph: op types %s have no TensorFlow form; TensorFlow cannot "
                     "import this graph (tensorfleet can)", lacking)
    restore_op = saver_def.get("restore_op_name") or ""
    saver_scope = _scope_of(restore_op)
    if restore_op and saver_scope in scopes:
        entries = _saved_entries(nodes, saver_scope, graph, export_scope)
        if entries:
            sd = tsg.add_tensorflow_saver(
                gd, entries, saver_scope or "save",
                max_to_keep=int(saver_def.get("max_to_keep") or 0),
                keep_checkpoint_every_n_hours=float(
                    saver_def.get("keep_checkpoint_every_n_hours", 10000.0)))
            mg.saver_def.CopyFrom(sd)
    mg.graph_def.CopyFrom(gd)
    info = doc.get("meta_info_def") or {}
    mg.meta_info_def.meta_graph_version = str(info.get("meta_graph_version", ""))
    mg.meta_info_def.tags.extend(str(t) for t in info.get("tags", []))
    mg.meta_info_def.any_info.type_url = ANY_TYPE_URL
    mg.meta_info_def.any_info.value = json.dumps(
        doc, separators=(",", ":"), allow_nan=False).encode("utf-8")
    for key, items in (doc.get("collections") or {}).items():
        cd = _collection_def(key, items, graph, export_scope)
        if cd is not None:
            mg.collection_def[key].CopyFrom(cd)
    return mg


__all__ = ["ANY_TYPE_URL", "to_tensorflow_meta_graph"]
