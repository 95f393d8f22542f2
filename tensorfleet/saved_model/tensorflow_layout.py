"""SavedModels in TensorFlow's layout, for TensorFlow's loader and TensorFlow Serving.

Beside tensorfleet's own files, ``SavedModelBuilder.save`` writes:

* ``saved_model.pb`` (or ``.pbtxt``): a ``SavedModel`` message, one ``MetaGraphDef`` per
  tag set, each holding the graph as TensorFlow's ``GraphDef``, its signature defs and
  a ``SaverDef``;
* ``variables/variables.index`` and ``variables/variables.data-00000-of-00001``: the
  variable values as a tensor-bundle checkpoint (``platform.tensor_bundle``).

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
from tensorfleet.framework import tensorflow_saver_graph as tsg
from tensorfleet.framework.tensorflow_saver_graph import node_of as _node_of
from tensorfleet.kernels.atomic_file import atomic_replace, atomic_write
from tensorfleet.protos import meta_graph_pb2, saved_model_pb2
from tensorfleet.platform import tensor_bundle as bundle

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
    entries = [tsg.SavedEntry(v["name"], v["name"], v["out"][0][0]) for v in variables]
    mg.saver_def.CopyFrom(tsg.add_tensorflow_saver(gd, entries, with_save=False))
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


# -- reading SavedModels TensorFlow wrote ---------------------------------------------------

_VARIABLE_OPS = ("VarHandleOp", "VariableV2", "Variable")
_ASSIGN_OPS = ("AssignVariableOp", "Assign")
_MAX_SAVED_MODEL_BYTES = 1 << 31


def is_tensorflow_saved_model(export_dir: str) -> bool:
    """Whether ``export_dir`` holds a SavedModel in TensorFlow's layout."""
    return any(os.path.isfile(os.path.join(export_dir, f))
               for f in (SAVED_MODEL_PB, SAVED_MODEL_PBTXT))


def read_saved_model(export_dir: str) -> Any:
    """The ``SavedModel`` message of ``export_dir`` (binary, else text format).

    Raises:
      OSError: no saved_model.pb(txt). InvalidArgumentError: it does not parse.
    """
    from google.protobuf import text_format
    from google.protobuf.message import DecodeError

    for fname, binary in ((SAVED_MODEL_PB, True), (SAVED_MODEL_PBTXT, False)):
        path = os.path.join(export_dir, fname)
        if not os.path.isfile(path):
            continue
        if os.path.getsize(path) > _MAX_SAVED_MODEL_BYTES:
            raise errors.InvalidArgumentError(None, None, f"{path} is larger than 2 GiB")
        with open(path, "rb") as f:
            data = f.read()
        sm = saved_model_pb2.SavedModel()
        try:
            if binary:
                sm.ParseFromString(data)
            else:
                text_format.Parse(data.decode("utf-8"), sm, allow_unknown_field=True)
        except (DecodeError, text_format.ParseError, UnicodeDecodeError, RecursionError) as e:
            raise errors.InvalidArgumentError(None, None, f"{path} is not a SavedModel: "
                                              f"{e}") from None
        return sm
    raise OSError(f"SavedModel file does not exist at: {export_dir}/"
                  f"{{{SAVED_MODEL_PB}|{SAVED_MODEL_PBTXT}}}")


def _value(index: Any, key: str, spec: str, what: str) -> np.ndarray:
    if not spec:
        return index.read(key)
    parts = spec.split(" ")
    try:
        full = [int(d) for d in parts[:-1]]
        starts, lengths = [], []
        for k, ext in enumerate(parts[-1].split(":")):
            if ext == "-":
                starts.append(0)
                lengths.append(full[k])
            else:
                a, b = ext.split(",")
                starts.append(int(a))
                lengths.append(int(b))
    except (ValueError, IndexError):
        raise errors.InvalidArgumentError(None, None, f"{what}: bad slice spec {spec!r}") \
            from None
    entry = index.slice_entry(key, starts, lengths)
    return bundle.read_entry(index.prefix, entry, index.num_shards, f"{key} [{spec}]")


def load_tensorflow_saved_model(sess: Any, tags: Sequence[str], export_dir: str) -> Any:
    """Loads, for inference, the meta graph tagged ``tags`` of a SavedModel that
    TensorFlow wrote: the nodes its signatures need are built into ``sess.graph``
    through the GraphDef importer, each variable as a constant holding its saved
    value. Returns ``(tags, {key: SignatureDef message})``.

    Raises:
      RuntimeError: no meta graph with these tags. InvalidArgumentError: op types
        tensorfleet lacks (listed), or a variable the restore ops do not name.
    """
    from tensorfleet.ops import tensorflow_graph_import as tgi
    from tensorfleet.protos import graph_pb2

    sm = read_saved_model(export_dir)
    want = sorted(set(tags))
    mg = next((m for m in sm.meta_graphs if sorted(m.meta_info_def.tags) == want), None)
    if mg is None:
        raise RuntimeError(f"MetaGraphDef associated with tags {want} could not be found in "
                           f"SavedModel. Available tag-sets: "
                           f"{[sorted(m.meta_info_def.tags) for m in sm.meta_graphs]}")
    nodes = {n.name: n for n in mg.graph_def.node}
    roots = {_node_of(i.name) for sig in mg.signature_def.values()
             for i in list(sig.inputs.values()) + list(sig.outputs.values())}
    plain = [{"name": n.name, "input": list(n.input)} for n in mg.graph_def.node]
    keep = {n["name"] for n in _needed(plain, roots)}
    saved = tsg.restored_names(nodes)
    index = bundle.read_index(os.path.join(export_dir, VARIABLES_PREFIX))
    gd = graph_pb2.GraphDef()
    for node in mg.graph_def.node:
        if node.name not in keep:
            continue
        if node.op in _VARIABLE_OPS:
            if node.name not in saved:
                raise errors.InvalidArgumentError(None, None, f"Variable {node.name} of "
                                                  f"{export_dir} is not restored by its saver")
            key, spec = saved[node.name]
            value = _value(index, key, spec, f"variable {node.name}")
            c = gd.node.add(name=node.name, op="Const")
            c.attr["value"].tensor.CopyFrom(_tp.make_tensor_proto(value))
            c.attr["dtype"].type = c.attr["value"].tensor.dtype
            continue
        copy = gd.node.add()
        copy.CopyFrom(node)
        if node.op in ("ReadVariableOp", "VarIsInitializedOp"):
            # Reading a variable that is now a constant: the constant itself.
            copy.op = "Identity"
            copy.ClearField("attr")
        elif node.op == "ResourceGather":
            if node.attr["batch_dims"].i:
                raise errors.InvalidArgumentError(None, None, f"Node {node.name}: "
                                                  f"ResourceGather with batch_dims")
            # Rows of a variable that is now a constant: a gather along axis 0.
            axis = gd.node.add(name=node.name + "/axis", op="Const")
            axis.attr["value"].tensor.CopyFrom(_tp.make_tensor_proto(np.array(0, np.int32)))
            axis.attr["dtype"].type = _dtypes.int32.enum
            copy.op = "GatherV2"
            copy.input.insert(2, axis.name)
            copy.ClearField("attr")
    tgi.import_tensorflow_graph_def(gd, name="", graph=sess.graph)
    return want, dict(mg.signature_def)


__all__ += ["is_tensorflow_saved_model", "read_saved_model", "load_tensorflow_saved_model"]
