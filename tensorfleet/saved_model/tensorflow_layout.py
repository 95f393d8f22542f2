"""SavedModels in TensorFlow's layout, for TensorFlow's loader and TensorFlow Serving.

Beside tensorfleet's own files, ``SavedModelBuilder.save`` writes:

* ``saved_model.pb`` (or ``.pbtxt``): a ``SavedModel`` message, one ``MetaGraphDef`` per
  tag set, each holding the graph as TensorFlow's ``GraphDef``, its signature defs and
  a ``SaverDef``;
* ``variables/variables.index`` and ``variables/variables.data-00000-of-00001``: the
  variable values as a tensor-bundle checkpoint (``training.checkpoint_bundle``).

The graph written is what serving needs: the ancestors of the signatures' tensors
and of the main op, and the variables. Its restore path is written in TensorFlow's
ops (``RestoreV2`` feeding one ``Assign`` per variable, grouped by a ``NoOp``), since
tensorfleet's own checkpoint ops are not TensorFlow's; the ``SaverDef`` names them, so
TensorFlow's loader feeds ``variables/variables`` to the filename tensor and runs the
restore op, as it does for SavedModels TensorFlow writes.
"""

from __future__ import annotations

import logging
import os
from typing import Any, Dict, List, Sequence, Set

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.framework import tensorflow_graph_export as tge
from tensorfleet.kernels.atomic_file import atomic_replace, atomic_write
from tensorfleet.protos import meta_graph_pb2, saved_model_pb2, saver_pb2
from tensorfleet.training import checkpoint_bundle as bundle

logger = logging.getLogger(__name__)

SAVED_MODEL_PB = "saved_model.pb"
SAVED_MODEL_PBTXT = "saved_model.pbtxt"
VARIABLES_PREFIX = os.path.join("variables", "variables")
MAIN_OP_KEY = "saved_model_main_op"
SCHEMA_VERSION = 1


def write_variables(export_dir: str, values: Dict[str, np.ndarray]) -> None:
    """``variables/variables.{index,data-00000-of-00001}``: ``values`` by name."""
    prefix = os.path.join(export_dir, VARIABLES_PREFIX)
    names = sorted(values)
    data_path = bundle.data_filename(prefix, 0, 1)
    with atomic_replace(data_path) as tmp:
        raw = bundle.write_data_file(tmp, 0, [values[n] for n in names])
    entries = []
    for name, r in zip(names, raw):
        entries.append((name.encode("utf-8"), bundle.BundleEntryProto.FromString(r)))
    atomic_write(bundle.index_path(prefix), bundle.build_index(1, entries))


def _node_of(tensor_name: str) -> str:
    name = tensor_name[1:] if tensor_name.startswith("^") else tensor_name
    base, sep, idx = name.rpartition(":")
    return base if sep and idx.isdigit() else name


def _needed(nodes: Sequence[Dict[str, Any]], roots: Set[str]) -> List[Dict[str, Any]]:
    """The nodes ``roots`` need (themselves and their ancestors), in graph order."""
    by_name = {n["name"]: n for n in nodes}
    keep: Set[str] = set()
    stack = [r for r in roots if r in by_name]
    while stack:
        name = stack.pop()
        if name in keep:
            continue
        keep.add(name)
        stack.extend(_node_of(i) for i in by_name[name].get("input", [])
                     if _node_of(i) in by_name)
    return [n for n in nodes if n["name"] in keep]


def _unique(taken: Set[str], name: str) -> str:
    base, k = name, 1
    while name in taken or any(t.startswith(name + "/") for t in taken):
        name = f"{base}_{k}"
        k += 1
    return name


def _add_restore(gd: Any, variables: List[Dict[str, Any]]) -> Any:
    """TensorFlow's restore ops for ``variables`` (VariableV2 nodes); their SaverDef."""
    taken = {n.name for n in gd.node}
    scope = _unique(taken, "save")
    names = [v["name"] for v in variables]
    dtypes = [_dtypes.as_dtype(v["out"][0][0]) for v in variables]

    def const(name: str, value: Any) -> str:
        node = gd.node.add(name=f"{scope}/{name}", op="Const")
        proto = _tp.make_tensor_proto(value)
        node.attr["value"].tensor.CopyFrom(proto)
        node.attr["dtype"].type = proto.dtype
        return node.name

    filename = const("Const", np.array(b"model", dtype=object))
    tensor_names = const("RestoreV2/tensor_names",
                         np.array([n.encode() for n in names], dtype=object))
    slices = const("RestoreV2/shape_and_slices", np.array([b""] * len(names), dtype=object))
    restore = gd.node.add(name=f"{scope}/RestoreV2", op="RestoreV2",
                          input=[filename, tensor_names, slices])
    restore.attr["dtypes"].list.type.extend(d.enum for d in dtypes)
    assigns = []
    for i, (name, dt) in enumerate(zip(names, dtypes)):
        a = gd.node.add(name=f"{scope}/Assign_{i}" if i else f"{scope}/Assign", op="Assign",
                        input=[name, f"{restore.name}:{i}"])
        a.attr["T"].type = dt.enum
        a.attr["validate_shape"].b = True
        a.attr["use_locking"].b = True
        assigns.append(a.name)
    group = gd.node.add(name=f"{scope}/restore_all", op="NoOp",
                        input=["^" + a for a in assigns])
    return saver_pb2.SaverDef(filename_tensor_name=filename + ":0",
                              save_tensor_name=filename + ":0",
                              restore_op_name=group.name, max_to_keep=5,
                              keep_checkpoint_every_n_hours=10000.0,
                              version=saver_pb2.SaverDef.V2)


def _tensor_info(plain: Dict[str, Any]) -> Any:
    ti = meta_graph_pb2.TensorInfo(name=plain["name"],
                                   dtype=_dtypes.as_dtype(plain["dtype"]).enum)
    ti.tensor_shape.CopyFrom(_tp.shape_to_proto(plain.get("shape")))
    return ti


def meta_graph_def(meta: Dict[str, Any]) -> Any:
    """One recorded meta graph (see ``builder``) as TensorFlow's ``MetaGraphDef``.

    Raises:
      InvalidArgumentError: the graph serving needs holds op types TensorFlow lacks,
        or variables that are not plain ``VariableV2`` nodes (all named at once).
    """
    nodes = meta["graph_def"]["node"]
    roots = set(meta["variables"])
    for sig in meta["signature_def"].values():
        for info in list(sig["inputs"].values()) + list(sig["outputs"].values()):
            roots.add(_node_of(info["name"]))
    if meta.get("main_op"):
        roots.add(meta["main_op"])
    needed = _needed(nodes, roots)
    by_name = {n["name"]: n for n in needed}
    variables = [by_name[v] for v in meta["variables"] if v in by_name]
    odd = sorted({v["op"] for v in variables if v["op"] != "VariableV2"})
    if odd:
        raise errors.InvalidArgumentError(None, None, f"variables of op types {odd} have no "
                                          f"TensorFlow SavedModel form here")
    gd = tge.to_tensorflow_graph_def({"node": needed}, strict=True)
    mg = meta_graph_pb2.MetaGraphDef()
    mg.meta_info_def.meta_graph_version = "v1"
    mg.meta_info_def.tags.extend(meta["tags"])
    mg.meta_info_def.tensorflow_version = "1.15.0"
    mg.saver_def.CopyFrom(_add_restore(gd, variables))
    mg.graph_def.CopyFrom(gd)
    for key, sig in meta["signature_def"].items():
        sd = mg.signature_def[key]
        sd.method_name = sig.get("method_name", "")
        for k, info in sig["inputs"].items():
            sd.inputs[k].CopyFrom(_tensor_info(info))
        for k, info in sig["outputs"].items():
            sd.outputs[k].CopyFrom(_tensor_info(info))
    if meta.get("main_op"):
        mg.collection_def[MAIN_OP_KEY].node_list.value.append(meta["main_op"])
    return mg


def write_saved_model(export_dir: str, metas: Sequence[Dict[str, Any]],
                      values: Dict[str, np.ndarray], as_text: bool = False) -> str:
    """Writes ``saved_model.pb`` (or ``.pbtxt``) and ``variables/`` in TensorFlow's
    layout; returns the path of the ``saved_model`` file.

    Raises:
      InvalidArgumentError: see ``meta_graph_def`` (nothing is written then).
    """
    from google.protobuf import text_format

    sm = saved_model_pb2.SavedModel(saved_model_schema_version=SCHEMA_VERSION)
    for meta in metas:
        sm.meta_graphs.append(meta_graph_def(meta))
    # Values in the variables' own shapes (tensorfleet's safetensors copy keeps scalars
    # as one-element vectors).
    shapes = {n["name"]: n["out"][0][1] for meta in metas for n in meta["graph_def"]["node"]
              if n.get("op") == "VariableV2" and n.get("out")}
    shaped = {}
    for name, value in values.items():
        shape = shapes.get(name)
        if shape is not None and all(d >= 0 for d in shape) and \
                int(np.prod(shape)) == np.asarray(value).size:
            value = np.asarray(value).reshape(shape)
        shaped[name] = value
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    write_variables(export_dir, shaped)
    path = os.path.join(export_dir, SAVED_MODEL_PBTXT if as_text else SAVED_MODEL_PB)
    atomic_write(path, text_format.MessageToString(sm).encode("utf-8") if as_text
                 else sm.SerializeToString(deterministic=True))
    return path


__all__ = ["write_saved_model", "write_variables", "meta_graph_def", "SAVED_MODEL_PB",
           "SAVED_MODEL_PBTXT", "VARIABLES_PREFIX"]
