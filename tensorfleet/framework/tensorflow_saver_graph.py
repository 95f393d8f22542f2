"""A Saver's nodes in TensorFlow's ops, written and read.

tensorfleet's own checkpoint ops are not TensorFlow's, so a graph written for
TensorFlow (a SavedModel's meta graph, a ``.meta`` file) carries its Saver as
TensorFlow builds one: a filename constant, ``SaveV2`` over the variables and an
``Identity`` of the filename that depends on it (the save tensor), ``RestoreV2``
feeding one ``Assign`` per variable, grouped by a ``NoOp`` (the restore op); the
``SaverDef`` names them. Reading goes the other way: which checkpoint key (and
slice) each variable node of a TensorFlow graph is restored from, found by
following the ``Assign`` ops of its restore path back to ``RestoreV2``.
"""

from __future__ import annotations

from typing import Any, Dict, List, NamedTuple, Set, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework import tensor_proto as _tp
from tensorfleet.protos import saver_pb2


class SavedEntry(NamedTuple):
    """One tensor a Saver writes: its checkpoint key, the variable node holding it, its
    dtype and TensorFlow's slice spec (``""`` for a whole tensor, else
    ``"full dims off,len:off,len"``)."""
    key: str
    node: str
    dtype: Any
    spec: str = ""


def node_of(tensor_name: str) -> str:
    """The node a tensor or control input name refers to."""
    name = tensor_name[1:] if tensor_name.startswith("^") else tensor_name
    base, sep, idx = name.rpartition(":")
    return base if sep and idx.isdigit() else name


def unique_scope(taken: Set[str], name: str) -> str:
    """``name``, suffixed ``_1``, ``_2``... until no node is called so or sits under it."""
    base, k = name, 1
    while name in taken or any(t.startswith(name + "/") for t in taken):
        name = f"{base}_{k}"
        k += 1
    return name


def add_tensorflow_saver(gd: Any, entries: List[SavedEntry], scope: str = "save",
                         with_save: bool = True, max_to_keep: int = 5,
                         keep_checkpoint_every_n_hours: float = 10000.0) -> Any:
    """Adds TensorFlow's save and restore nodes for ``entries`` to the ``GraphDef``
    message ``gd`` under a free name scope like ``scope``; returns their ``SaverDef``.
    Without ``with_save`` only the restore path is written (what a loader runs)."""
    scope = unique_scope({n.name for n in gd.node}, scope)
    keys = np.array([e.key.encode("utf-8") for e in entries], dtype=object)
    specs = np.array([e.spec.encode("utf-8") for e in entries], dtype=object)
    dtypes = [_dtypes.as_dtype(e.dtype) for e in entries]

    def const(name: str, value: Any) -> str:
        node = gd.node.add(name=f"{scope}/{name}", op="Const")
        proto = _tp.make_tensor_proto(value)
        node.attr["value"].tensor.CopyFrom(proto)
        node.attr["dtype"].type = proto.dtype
        return node.name

    filename = const("Const", np.array(b"model", dtype=object))
    save_tensor = filename
    if with_save:
        names_c = const("SaveV2/tensor_names", keys)
        specs_c = const("SaveV2/shape_and_slices", specs)
        save = gd.node.add(name=f"{scope}/SaveV2", op="SaveV2",
                           input=[filename, names_c, specs_c] + [e.node for e in entries])
        save.attr["dtypes"].list.type.extend(d.enum for d in dtypes)
        dep = gd.node.add(name=f"{scope}/control_dependency", op="Identity",
                          input=[filename, "^" + save.name])
        dep.attr["T"].type = _dtypes.string.enum
        save_tensor = dep.name
    names_c = const("RestoreV2/tensor_names", keys)
    specs_c = const("RestoreV2/shape_and_slices", specs)
    restore = gd.node.add(name=f"{scope}/RestoreV2", op="RestoreV2",
                          input=[filename, names_c, specs_c])
    restore.attr["dtypes"].list.type.extend(d.enum for d in dtypes)
    assigns = []
    for i, (e, dt) in enumerate(zip(entries, dtypes)):
        a = gd.node.add(name=f"{scope}/Assign_{i}" if i else f"{scope}/Assign", op="Assign",
                        input=[e.node, f"{restore.name}:{i}"])
        a.attr["T"].type = dt.enum
        a.attr["validate_shape"].b = True
        a.attr["use_locking"].b = True
        assigns.append(a.name)
    group = gd.node.add(name=f"{scope}/restore_all", op="NoOp",
                        input=["^" + a for a in assigns])
    return saver_pb2.SaverDef(filename_tensor_name=filename + ":0",
                              save_tensor_name=save_tensor + ":0",
                              restore_op_name=group.name, max_to_keep=max_to_keep,
                              keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
                              version=saver_pb2.SaverDef.V2)


def _const_strings(node: Any, what: str) -> List[str]:
    values = _tp.make_ndarray(node.attr["value"].tensor, what).reshape(-1)
    return [v.decode("utf-8") if isinstance(v, bytes) else str(v) for v in values]


def restored_names(nodes: Dict[str, Any]) -> Dict[str, Tuple[str, str]]:
    """Variable node -> (checkpoint key, slice spec), read off the ``Assign`` ops that a
    TensorFlow graph's ``RestoreV2`` feeds (through any ``Identity``). ``nodes`` maps
    node names to ``NodeDef`` messages."""
    out: Dict[str, Tuple[str, str]] = {}
    for node in nodes.values():
        if node.op not in ("AssignVariableOp", "Assign") or len(node.input) < 2:
            continue
        src = node.input[1]
        seen = 0
        while seen < len(nodes):
            producer = nodes.get(node_of(src))
            if producer is None or producer.op != "Identity" or not producer.input:
                break
            src = producer.input[0]
            seen += 1
        base, sep, idx = src.rpartition(":")
        if not sep or not idx.isdigit():
            base, idx = src, "0"
        restore = nodes.get(base)
        if restore is None or restore.op != "RestoreV2" or len(restore.input) < 3:
            continue
        names_node = nodes.get(node_of(restore.input[1]))
        specs_node = nodes.get(node_of(restore.input[2]))
        if names_node is None or names_node.op != "Const" or specs_node is None \
                or specs_node.op != "Const":
            continue
        names = _const_strings(names_node, f"node {restore.name}")
        specs = _const_strings(specs_node, f"node {restore.name}")
        if int(idx) < len(names):
            out[node_of(node.input[0])] = (names[int(idx)],
                                           specs[int(idx)] if int(idx) < len(specs) else "")
    return out


__all__ = ["SavedEntry", "node_of", "unique_scope", "add_tensorflow_saver",
           "restored_names"]
