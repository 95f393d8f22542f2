"""Importing a ``MetaGraphDef`` that TensorFlow wrote (``.meta`` files of TensorFlow 1.x
and of 2.x's ``compat.v1``).

The graph is built through the GraphDef importer (``ops.tensorflow_graph_import``),
except the Saver's own nodes (the name scope of ``saver_def.restore_op_name``):
tensorfleet reads TensorFlow's checkpoints with its own Saver, so the one
``import_meta_graph`` returns saves and restores the tensors TensorFlow's Saver did,
under the same checkpoint keys (read off the ``RestoreV2`` and ``Assign`` nodes of
that scope). Collections come from TensorFlow's ``CollectionDef`` kinds: variables
(serialized ``VariableDef``) become ``Variable`` objects over the imported nodes,
names in ``node_list`` the tensors and operations they name, numbers and bytes
themselves.
"""

from __future__ import annotations

import logging
from typing import Any, Dict, List, Optional, Tuple

from google.protobuf.message import DecodeError

from tensorfleet import errors
from tensorfleet.framework import tensorflow_saver_graph as tsg
from tensorfleet.framework.graph import Graph
from tensorfleet.ops import tensorflow_graph_import as tgi
from tensorfleet.ops.partitioned_variables import SaveSliceInfo
from tensorfleet.ops.variables import Variable
from tensorfleet.protos import graph_pb2, variable_pb2

logger = logging.getLogger(__name__)

# Collections whose bytes are VariableDef messages (those TensorFlow registers so).
VARIABLE_COLLECTIONS = frozenset({"variables", "trainable_variables", "local_variables",
                                  "model_variables", "moving_average_variables",
                                  "metric_variables", "global_step"})
# Collections describing TensorFlow's own Python objects that the import replaces
# (tensorfleet builds its own Saver) or never holds (v1 control flow is refused).
_SKIPPED_COLLECTIONS = frozenset({"savers", "cond_context", "while_context"})


def _saver_scope(mg: Any) -> str:
    return mg.saver_def.restore_op_name.rpartition("/")[0]


def _graph_without_saver(mg: Any, scope: str, clear_devices: bool) -> Any:
    """The graph def without the Saver's scope (when nothing else reads it)."""
    gd = graph_pb2.GraphDef()
    gd.versions.CopyFrom(mg.graph_def.versions)
    gd.library.CopyFrom(mg.graph_def.library)
    inside = (lambda name: name.startswith(scope + "/")) if scope else (lambda name: False)
    kept = [n for n in mg.graph_def.node if not inside(n.name)]
    if any(inside(tsg.node_of(i)) for n in kept for i in n.input):
        kept = list(mg.graph_def.node)
    gd.node.extend(kept)
    if clear_devices:
        for n in gd.node:
            n.device = ""
    return gd


def _variable(data: bytes, key: str, prefix: str, scope: Optional[str],
              variables: Dict[str, Variable]) -> Variable:
    vd = variable_pb2.VariableDef()
    try:
        vd.ParseFromString(data)
    except DecodeError as e:
        raise errors.InvalidArgumentError(
            None, None, f"collection {key!r}: an entry is not a VariableDef: {e}") from None
    if vd.is_resource:
        raise errors.InvalidArgumentError(
            None, None, f"collection {key!r}: {vd.variable_name} is a resource variable; "
            f"tensorfleet imports TensorFlow's reference variables (build the graph with "
            f"tf.compat.v1.disable_resource_variables())")
    name = prefix + vd.variable_name
    if name in variables:
        return variables[name]
    plain = {"variable_name": vd.variable_name, "initializer_name": vd.initializer_name,
             "snapshot_name": vd.snapshot_name,
             "initial_value_name": vd.initial_value_name or None,
             "trainable": vd.trainable}
    try:
        var = Variable.from_proto(plain, import_scope=scope)
    except (KeyError, ValueError, TypeError) as e:
        raise errors.InvalidArgumentError(
            None, None, f"collection {key!r}: variable {vd.variable_name} does not match the "
            f"graph: {e}") from None
    if vd.HasField("save_slice_info_def"):
        s = vd.save_slice_info_def
        var._set_save_slice_info(SaveSliceInfo(prefix + s.full_name, list(s.full_shape),
                                               list(s.var_offset), list(s.var_shape)))
    variables[name] = var
    return var


def _restore_collections(g: Graph, mg: Any, prefix: str, scope: Optional[str]
                         ) -> Dict[str, Variable]:
    variables: Dict[str, Variable] = {}
    for key in sorted(mg.collection_def):
        cd = mg.collection_def[key]
        kind = cd.WhichOneof("kind")
        if key in _SKIPPED_COLLECTIONS or kind is None:
            logger.info("Meta graph collection %r (%s) is not imported", key, kind)
            continue
        if key == "queue_runners":
            raise errors.InvalidArgumentError(
                None, None, "collection 'queue_runners': TensorFlow's queue runners are not "
                "imported; feed the graph or use tf.data")
        ref = g.get_collection_ref(key)
        values = getattr(cd, kind).value
        for v in values:
            if kind == "node_list":
                try:
                    ref.append(g.get_tensor_by_name(prefix + v) if ":" in v
                               else g.get_operation_by_name(prefix + v))
                except (KeyError, ValueError):
                    raise errors.InvalidArgumentError(
                        None, None, f"collection {key!r}: {v!r} names no node of the "
                        f"imported graph") from None
            elif kind == "bytes_list" and key in VARIABLE_COLLECTIONS:
                ref.append(_variable(v, key, prefix, scope, variables))
            else:
                ref.append(v)
    return variables


def _saver_var_list(g: Graph, mg: Any, scope: str, prefix: str,
                    variables: Dict[str, Variable]) -> Any:
    """The imported Saver's checkpoint keys -> variables (a dict), or the variables (a
    list, naming themselves and their slices) when it saves slices."""
    nodes = {n.name: n for n in mg.graph_def.node
             if n.name.startswith(scope + "/") or n.op != "Assign"}
    saved = tsg.restored_names(nodes)
    by_op = {v.op.name: v for v in variables.values()}
    by_key: Dict[str, Variable] = {}
    sliced: List[Variable] = []
    for node, (key, spec) in sorted(saved.items()):
        var = by_op.get(prefix + node)
        if var is None:
            raise errors.InvalidArgumentError(
                None, None, f"import_meta_graph: variable {node!r}, which the Saver restores "
                f"from {key!r}, is in no variable collection of the meta graph")
        if spec:
            info = var._get_save_slice_info()
            if info is None or info.spec != spec:
                raise errors.InvalidArgumentError(
                    None, None, f"import_meta_graph: the Saver restores {node!r} from slice "
                    f"{spec!r} of {key!r}, which its VariableDef does not describe")
            sliced.append(var)
        else:
            by_key[key] = var
    if sliced:
        return sliced + list(by_key.values())
    return by_key


def import_tensorflow_meta_graph(mg: Any, graph: Graph, import_scope: Optional[str] = None,
                                 clear_devices: bool = False,
                                 input_map: Optional[Dict[str, Any]] = None
                                 ) -> Tuple[Dict[str, Variable], Any]:
    """Imports TensorFlow's ``MetaGraphDef`` ``mg`` into ``graph``.

    Returns the variables by name and what the imported Saver saves (a dict from
    checkpoint key to variable, or a list of variables; empty without a Saver).

    Raises:
      InvalidArgumentError: op types tensorfleet lacks (all listed), resource
        variables, collections that do not match the graph.
    """
    scope = import_scope.rstrip("/") if import_scope else None
    prefix = scope + "/" if scope else ""
    saver_scope = _saver_scope(mg) if mg.saver_def.restore_op_name else ""
    gd = _graph_without_saver(mg, saver_scope, clear_devices)
    tgi.import_tensorflow_graph_def(gd, input_map=input_map, name=scope or "", graph=graph)
    variables = _restore_collections(graph, mg, prefix, scope)
    var_list: Any = {}
    if mg.saver_def.restore_op_name:
        var_list = _saver_var_list(graph, mg, saver_scope, prefix, variables)
    return variables, var_list


__all__ = ["VARIABLE_COLLECTIONS", "import_tensorflow_meta_graph"]
