"""``tf.train.export_meta_graph`` / ``tf.train.import_meta_graph``.

A meta graph is the graph def, the Saver's description and the graph's
collections (the ``.meta`` file a ``Saver`` writes beside each checkpoint, in
TensorFlow's ``MetaGraphDef`` format; see ``meta_graph_def``). Meta graphs TensorFlow
wrote are imported by ``tensorflow_meta_graph_import``. Importing one of
tensorfleet's rebuilds the ops, then the collections: variables
become ``Variable`` objects and queue runners ``QueueRunner`` objects over the
imported nodes, tensors and operations are looked up by name. So
``get_collection("train_op")`` and the global step work again, and training
resumes after ``saver.restore``.
"""

from __future__ import annotations

import json
import logging
from typing import Any, Dict, Optional

from tensorfleet import errors
from tensorfleet.framework import serialization as _ser
from tensorfleet.framework.graph import Graph, GraphKeys, get_default_graph
from tensorfleet.framework.graph_def import GraphDef, check_user_import, import_graph_def
from tensorfleet.ops.data_flow_ops import QueueBase
from tensorfleet.ops.variables import Variable
from tensorfleet.training.queue_runner import QueueRunner
from tensorfleet.training.saver import Saver
from tensorfleet.training.tensorflow_meta_graph_import import import_tensorflow_meta_graph
# Where they have always been found.
from tensorfleet.training.meta_graph_def import (  # noqa: F401
    MetaGraphDef, export_meta_graph, parse_meta_graph, read_meta_graph_file)

logger = logging.getLogger(__name__)


def _queue_runner(g: Graph, d: Dict[str, Any], prefix: str) -> QueueRunner:
    """A QueueRunner over the imported queue and ops named in ``d``."""
    ref = g.get_tensor_by_name(prefix + d["queue"])
    attrs = ref.op.attrs
    dtypes = list(attrs["component_types"])
    queue = QueueBase(dtypes, list(attrs.get("shapes") or []) or None,
                      d.get("component_names"), ref)
    types = [errors.exception_type_from_error_code(int(c))
             for c in d.get("closed_error_codes") or []]
    return QueueRunner(queue, [g.get_operation_by_name(prefix + n) for n in d["enqueue_ops"]],
                       g.get_operation_by_name(prefix + d["close_op"]),
                       g.get_operation_by_name(prefix + d["cancel_op"]), types or None)


def _restore_collections(g: Graph, collections: Any, prefix: str, scope: Optional[str]
                         ) -> Dict[str, Variable]:
    """Refills ``g``'s collections; returns the variables by op name."""
    if not isinstance(collections, dict):
        raise errors.InvalidArgumentError(None, None, "meta graph 'collections' must be a dict")
    variables: Dict[str, Variable] = {}
    for key, items in collections.items():
        if not isinstance(items, list):
            raise errors.InvalidArgumentError(None, None, f"collection {key!r} is not a list")
        ref = g.get_collection_ref(key)
        for item in items:
            if not isinstance(item, dict):
                raise errors.InvalidArgumentError(
                    None, None, f"collection {key!r}: entry {item!r} is not a dict")
            try:
                # Meta graphs written before tagged entries hold bare variable defs.
                vdef = item.get("variable", item if "variable_name" in item else None)
                if vdef is not None:
                    name = prefix + vdef["variable_name"]
                    if name not in variables:
                        with g.as_default():
                            variables[name] = Variable.from_proto(vdef, import_scope=scope)
                    ref.append(variables[name])
                elif "queue_runner" in item:
                    ref.append(_queue_runner(g, item["queue_runner"], prefix))
                elif "tensor" in item:
                    ref.append(g.get_tensor_by_name(prefix + item["tensor"]))
                elif "operation" in item:
                    ref.append(g.get_operation_by_name(prefix + item["operation"]))
                elif "value" in item:
                    ref.append(_ser.decode_attr(item["value"]))
                else:
                    raise errors.InvalidArgumentError(
                        None, None, f"collection {key!r}: unknown entry {item!r}")
            except (KeyError, ValueError, TypeError) as e:
                raise errors.InvalidArgumentError(
                    None, None, f"collection {key!r}: entry {item!r} does not match the "
                    f"graph: {e}") from None
    return variables


def import_scoped_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                             graph: Optional[Graph] = None, import_scope: Optional[str] = None,
                             input_map: Optional[Dict[str, Any]] = None
                             ) -> Dict[str, Variable]:
    """Imports the graph and collections; returns the restored variables by name."""
    meta = _meta_graph(meta_graph_or_file)
    g = graph or get_default_graph()
    if meta.is_tensorflow_only:
        return import_tensorflow_meta_graph(meta.tensorflow, g, import_scope, clear_devices,
                                            input_map)[0]
    gd = GraphDef(json.loads(json.dumps(meta.graph_def)))
    if clear_devices:
        for n in gd.node:
            n.device = ""
    scope = import_scope.rstrip("/") if import_scope else None
    prefix = scope + "/" if scope else ""
    if input_map:
        import_graph_def(gd, input_map=input_map, name=scope or "", graph=g)
    else:
        check_user_import(gd, g)
        _ser.import_graph_def(gd, graph=g, name_prefix=prefix)
    return _restore_collections(g, meta.collection_def, prefix, scope)


def _meta_graph(meta_graph_or_file: Any) -> MetaGraphDef:
    """A path, a tensorfleet ``MetaGraphDef``, a plain dict or TensorFlow's message."""
    if isinstance(meta_graph_or_file, str):
        return read_meta_graph_file(meta_graph_or_file)
    if isinstance(meta_graph_or_file, (bytes, bytearray)):
        return parse_meta_graph(meta_graph_or_file, "<bytes>")
    if hasattr(meta_graph_or_file, "SerializeToString") and \
            not isinstance(meta_graph_or_file, dict):
        return parse_meta_graph(meta_graph_or_file.SerializeToString(), "<MetaGraphDef>")
    return MetaGraphDef(meta_graph_or_file)


def _saver_var_list(g: Graph, saver_def: Dict[str, Any], prefix: str,
                    variables: Dict[str, Variable]) -> Dict[str, Variable]:
    """Checkpoint name -> variable, read off the imported Saver's restore ops."""
    restore = saver_def.get("restore_op_name") or ""
    scope = prefix + restore.rpartition("/")[0] + "/"
    by_op = {v.op.name: v for v in variables.values()}
    out: Dict[str, Variable] = {}
    for op in g.get_operations():
        if op.type != "RestoreShard" or not op.name.startswith(scope):
            continue
        for ckpt_name, var_name in zip(op.attrs["names"], op.attrs["var_names"]):
            v = by_op.get(var_name)
            if v is None:
                raise ValueError(f"import_meta_graph: variable {var_name!r} saved by the Saver "
                                 f"is in no variable collection of the meta graph")
            out[ckpt_name] = v
    return out


def import_meta_graph(meta_graph_or_file: Any, clear_devices: bool = False,
                      import_scope: Optional[str] = None, **kwargs: Any) -> Optional[Saver]:
    """Imports a meta graph into the default graph; returns a ``Saver`` for its variables.

    The Saver restores the checkpoints the original Saver wrote (same names,
    sharding and ``max_to_keep``); its own ops are new ones beside the imported
    Saver's. Returns None when the meta graph has no variables.

    Raises:
      NotFoundError: no such file; InvalidArgumentError: a malformed meta graph or
      one naming ops tensorfleet does not have; TypeError: unknown keyword arguments.
    """
    input_map = kwargs.pop("input_map", None)
    if kwargs:
        raise TypeError(f"import_meta_graph got unexpected arguments {sorted(kwargs)}")
    meta = _meta_graph(meta_graph_or_file)
    g = get_default_graph()
    if meta.is_tensorflow_only:
        tf_sd = meta.tensorflow.saver_def
        variables, var_list = import_tensorflow_meta_graph(meta.tensorflow, g, import_scope,
                                                           clear_devices, input_map)
        if not variables:
            return None
        with g.as_default():
            return Saver(var_list=var_list or None, sharded=bool(tf_sd.sharded),
                         max_to_keep=tf_sd.max_to_keep or None,
                         keep_checkpoint_every_n_hours=float(
                             tf_sd.keep_checkpoint_every_n_hours or 10000.0))
    variables = import_scoped_meta_graph(meta, clear_devices, g, import_scope, input_map)
    if not variables:
        return None
    prefix = import_scope.rstrip("/") + "/" if import_scope else ""
    sd = meta.saver_def
    var_list: Any = _saver_var_list(g, sd, prefix, variables) if sd.get(
        "restore_op_name") else None
    if not var_list:
        var_list = [v for v in g.get_collection(GraphKeys.GLOBAL_VARIABLES)
                    if v.op.name.startswith(prefix)]
    with g.as_default():
        return Saver(var_list=var_list, sharded=bool(sd.get("sharded", True)),
                     max_to_keep=sd.get("max_to_keep", 5) or None,
                     keep_checkpoint_every_n_hours=float(
                         sd.get("keep_checkpoint_every_n_hours", 10000.0)))


__all__ = ["MetaGraphDef", "export_meta_graph", "import_meta_graph",
           "import_scoped_meta_graph", "read_meta_graph_file"]
