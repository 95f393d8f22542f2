"""Checkpoint I/O ops: save a group of variables to a shard, read a shard back.

``tf.train.Saver`` builds one ``SaveShard`` and one ``RestoreShard`` per task
that holds variables, each colocated with its group's first variable, so every
parameter server reads and writes its own shard and no variable value crosses
the network to be checkpointed.

Everything these ops need to know (tensor names, dtypes, shapes, shard number)
is a plain-data attr, because partitions of the graph travel to other tasks;
what changes per call (the checkpoint prefix, the shard files and checksums to
verify) is fed as input, so a Saver builds its ops once, before a graph is
finalized, and reuses them for every save and restore.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Tuple

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.device import DeviceSpec
from tensorfleet.framework.graph import Operation, Tensor, convert_to_tensor
from tensorfleet.framework.op_registry import register_op
from tensorfleet.framework.tensor_shape import TensorShape, as_shape, scalar
from tensorfleet.ops.op_util import make_op


def _save_shapes(op: Operation) -> List[TensorShape]:
    return [scalar(), scalar(), scalar()]


def _restore_shapes(op: Operation) -> List[TensorShape]:
    return [as_shape(s) for s in op.attrs["shapes"]]


# Both are stateful: a save has a side effect, and a restore reads a file whose
# contents may change between steps, so neither may be cached or merged.
register_op("SaveShard", _save_shapes, stateful=True)
register_op("RestoreShard", _restore_shapes, stateful=True)
register_op("SaveBundleShard", lambda op: [as_shape([len(op.attrs["names"])])], stateful=True)


def task_key(device: str) -> str:
    """The ``/job:x/task:n`` part of a device string, ``""`` when it names no job.

    Variables whose devices share this key live in one task's resource manager
    and so go to one shard; a job without a task index means task 0, as it does
    for placement.
    """
    spec = DeviceSpec.from_string(device or "")
    if spec.job is None:
        return ""
    return f"/job:{spec.job}/task:{spec.task or 0}"


def group_by_task(items: Sequence[Tuple[str, Any]]) -> List[List[Tuple[str, Any]]]:
    """``(name, variable)`` pairs grouped by the task of each variable's op.

    Groups come out sorted by task key, so shard numbers do not depend on the
    order in which variables were created; within a group, names are sorted.
    """
    groups: Dict[str, List[Tuple[str, Any]]] = {}
    for name, var in items:
        groups.setdefault(task_key(var.op.device), []).append((name, var))
    return [sorted(groups[k], key=lambda nv: nv[0]) for k in sorted(groups)]


def save_shard(prefix: Any, names: Sequence[str], values: Sequence[Any], shard: int,
               num_shards: int, name: Optional[str] = None) -> Tuple[Tensor, Tensor, Tensor]:
    """Writes ``values`` under ``names`` to shard ``shard`` of checkpoint ``prefix``.

    The file is ``<prefix>-<shard:05d>-of-<num_shards:05d>.safetensors``, written to a
    temporary name and renamed into place.

    Args:
      prefix: a string scalar tensor, the checkpoint prefix (``dir/model.ckpt-100``).
      names: the tensor names inside the shard (variable op names), unique.
      values: the tensors to save; a variable's reference is read, not copied twice.
      shard, num_shards: this shard's number and the checkpoint's shard count.

    Returns:
      ``(sha256, size, layout)``: the shard file's hex digest (string), byte size
      (int64) and a JSON string of ``{name: {"dtype", "shape"}}`` as written, which
      the index records (a variable's static shape may not be fully known).
    """
    if len(names) != len(values):
        raise ValueError(f"save_shard: {len(names)} names for {len(values)} values")
    if len(set(names)) != len(names):
        raise ValueError(f"save_shard: tensor names must be unique, got {list(names)}")
    if not 0 <= shard < num_shards:
        raise ValueError(f"save_shard: shard {shard} is not in [0, {num_shards})")
    p = convert_to_tensor(prefix, dtype=_dtypes.string)
    ins = [p] + [convert_to_tensor(v) for v in values]
    op = make_op("SaveShard", ins, [_dtypes.string, _dtypes.int64, _dtypes.string],
                 {"names": [str(n) for n in names], "shard": int(shard),
                  "num_shards": int(num_shards)}, name=name or "SaveShard")
    return op.outputs[0], op.outputs[1], op.outputs[2]


def save_bundle_shard(prefix: Any, names: Sequence[str], values: Sequence[Any], shard: int,
                      num_shards: int, name: Optional[str] = None) -> Tensor:
    """Writes ``values`` to data file ``shard`` of tensor-bundle checkpoint ``prefix``.

    The file is ``<prefix>.data-<shard:05d>-of-<num_shards:05d>`` (TensorFlow's
    checkpoint layout), written to a temporary name and renamed into place.

    Args:
      prefix: a string scalar tensor, the checkpoint prefix (``dir/model.ckpt-100``).
      names: the tensors' names, for error messages (the chief writes the index).
      values: the tensors to save; a variable's reference is read, not copied twice.
      shard, num_shards: this data file's number and the checkpoint's count.

    Returns:
      A 1-D string tensor: each value's serialized ``BundleEntryProto`` (dtype,
      shape, data file, offset, size, masked CRC-32C), which the index records.
    """
    if len(names) != len(values) or not names:
        raise ValueError(f"save_bundle_shard: {len(names)} names for {len(values)} values")
    if not 0 <= shard < num_shards:
        raise ValueError(f"save_bundle_shard: shard {shard} is not in [0, {num_shards})")
    p = convert_to_tensor(prefix, dtype=_dtypes.string)
    ins = [p] + [convert_to_tensor(v) for v in values]
    op = make_op("SaveBundleShard", ins, [_dtypes.string],
                 {"names": [str(n) for n in names], "shard": int(shard),
                  "num_shards": int(num_shards)}, name=name or "SaveBundleShard")
    return op.outputs[0]


def restore_shard(files: Any, sha256s: Any, sizes: Any, names: Sequence[str],
                  dtypes: Sequence[Any], shapes: Sequence[Any],
                  var_names: Optional[Sequence[str]] = None, reshape: bool = False,
                  name: Optional[str] = None) -> List[Tensor]:
    """Reads tensors ``names`` from verified checkpoint files.

    Each tensor is found by the record its checkpoint index keeps for it
    (``CheckpointIndex.locate`` / ``BundleIndex.locate``), which depends on the format:

    * safetensors checkpoints of earlier releases: the shard file, its sha256 (hex)
      and its size; the whole file is checked before it is parsed;
    * tensor-bundle checkpoints: the checkpoint's ``.index`` path (the data files
      are named from it), the tensor's serialized ``BundleEntryProto`` pieces
      (``tensor_bundle.pack_entries``) and the checkpoint's number of data
      files; the tensor's bytes are checked against their CRC-32C.

    Args:
      files, sha256s, sizes: 1-D tensors with one such record per name.
      names: the tensor names to read.
      dtypes, shapes: what each tensor must be (the target variable's dtype and
        static shape); a mismatch is an InvalidArgumentError naming the variable.
      var_names: the variables the tensors are for, used in error messages.
      reshape: accept a saved tensor of another shape with as many elements.

    Returns:
      One tensor per name, in order.
    """
    n = len(names)
    if not n or not len(dtypes) == len(shapes) == n:
        raise ValueError(f"restore_shard needs one dtype and shape per name; got {n} names, "
                         f"{len(dtypes)} dtypes, {len(shapes)} shapes")
    vnames = [str(v) for v in (var_names if var_names is not None else names)]
    dts = [_dtypes.as_dtype(d) for d in dtypes]
    ins = [convert_to_tensor(files, dtype=_dtypes.string),
           convert_to_tensor(sha256s, dtype=_dtypes.string),
           convert_to_tensor(sizes, dtype=_dtypes.int64)]
    attrs = {"names": [str(x) for x in names], "dtypes": dts,
             "shapes": [as_shape(s) for s in shapes], "var_names": vnames,
             "reshape": bool(reshape)}
    op = make_op("RestoreShard", ins, dts, attrs, name=name or "RestoreShard")
    return list(op.outputs)


__all__ = ["task_key", "group_by_task", "save_shard", "save_bundle_shard", "restore_shard"]
