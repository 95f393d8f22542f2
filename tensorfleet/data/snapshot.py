"""``tf.data.experimental.snapshot``: a data set's elements written to disk on the first
complete pass and read back, instead of computed, on every later one
(``kernels/numpy/dataset_snapshot_kernels.py``).

A snapshot lives in ``<path>/<fingerprint>/``, the fingerprint a SHA-256 of the data
set's description (its source, the values of its source arrays, every stage and traced
function), so a changed pipeline never reads an old snapshot. The elements are one
TFRecord file of ``TensorProto`` records, written under a temporary name and renamed when
the pass completes; a pass that stops early leaves no snapshot.
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Any, Callable, Optional

import numpy as np

from tensorfleet.data.dataset_ops import Dataset, _KernelStage, transformation_input
from tensorfleet.data.iterator_ops import flatten
from tensorfleet.framework.graph import Tensor
from tensorfleet.framework.serialization import encode_attr
from tensorfleet.ops.op_util import const_value

Transformation = Callable[[Dataset], Dataset]
# TensorFlow's names; "AUTO" is left to tensorfleet, which writes uncompressed records.
_COMPRESSION = {None: "", "": "", "AUTO": "", "NONE": "", "GZIP": "GZIP"}


def _fingerprint(ds: Dataset) -> str:
    h = hashlib.sha256()
    h.update(json.dumps(encode_attr({"source": dict(ds._source),
                                     "stages": ds._kernel_stages(all_maps=True)}),
                        sort_keys=True).encode())
    for leaf in ds._leaves:
        value = const_value(leaf) if isinstance(leaf, Tensor) else leaf
        if value is None:
            raise ValueError(f"snapshot: the data set must be known when it is built; its "
                             f"component {leaf.name} is computed")
        arr = np.asarray(value)
        h.update(str((arr.dtype.str, arr.shape)).encode())
        h.update(b"".join(bytes(v) if isinstance(v, bytes) else str(v).encode()
                          for v in arr.reshape(-1)) if arr.dtype == object else arr.tobytes())
    return h.hexdigest()


def snapshot(path: str, compression: Optional[str] = "AUTO", reader_func: Any = None,
             shard_func: Any = None) -> Transformation:
    """Writes the data set's elements under ``path`` on the first complete pass and reads
    them back on later passes (of this or any process with the same pipeline).

    Raises:
      ValueError: a ``compression`` other than None, "AUTO" and "GZIP", a
        ``reader_func`` or ``shard_func`` (a snapshot is one file read in order), or a data
        set whose source is computed when the graph runs.
    """
    if reader_func is not None or shard_func is not None:
        raise ValueError("snapshot: reader_func and shard_func are not supported; a snapshot "
                         "is one file, read in the order it was written")
    key = compression.upper() if isinstance(compression, str) else compression
    if key not in _COMPRESSION:
        raise ValueError(f"snapshot: compression must be None, 'AUTO' or 'GZIP', got "
                         f"{compression!r}")
    if not isinstance(path, (str, os.PathLike)) or not str(path):
        raise TypeError(f"snapshot: path must be a directory name, got {path!r}")

    def apply(ds: Any) -> Dataset:
        spec = transformation_input(ds, "snapshot")._spec
        stage = {"op": "snapshot", "path": os.fspath(path), "fingerprint": _fingerprint(ds),
                 "compression": _COMPRESSION[key], "num_components": len(flatten(spec))}
        return ds._with(_KernelStage(stage, spec), spec)
    return apply


__all__ = ["snapshot"]
