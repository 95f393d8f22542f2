"""What ``tf.data``'s file sources are made of: the checks and descriptions behind
``TextLineDataset``, ``TFRecordDataset``, ``Dataset.list_files`` and ``interleave`` /
``flat_map`` over a data set of file names (the classes and methods themselves are in
``dataset_ops.py``; this module does not build data sets, so it imports none).

A file data set is described like any other (see ``dataset_ops.py``): its source is
``{"kind": "files", "reader": ..., "compression": ...}`` with the file names as its
one component, and the kernel (``kernels/numpy/reader_kernels.py``) opens the files on the
task that runs the iterator, lazily, one chunk at a time. Every element is one record
(a line without its line ending, or one TFRecord's bytes) as a string scalar.

``interleave(map_func)`` accepts a ``map_func`` that turns one file name into a file
data set, optionally followed by ``skip``, ``take``, ``shard`` or ``repeat`` (a CSV
header is dropped with ``.skip(1)``): the reader and those stages become one stage
of the outer pipeline, so the files are opened where the iterator runs.

``list_files`` expands its patterns when the data set is built (on the client), in
sorted order, then shuffles them unless ``shuffle=False``; the file names travel
with the graph, so the files must be at the same paths on the task that reads them.
"""

from __future__ import annotations

import glob
import os
from typing import Any, Callable, Optional

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.data.iterator_ops import ComponentSpec
from tensorfleet.framework.graph import Tensor
from tensorfleet.platform.tf_record import TFRecordOptions, compression_kind
from tensorfleet.ops.op_util import const_value

_INNER_STAGES = ("skip", "take", "shard", "repeat")


def compression(value: Any, what: str) -> str:
    """The compression name (``""``, ``"GZIP"``, ``"ZLIB"``) of a ``compression_type``."""
    if isinstance(value, Tensor):
        v = const_value(value)
        if v is None:
            raise errors.UnimplementedError(None, None, f"{what}: compression_type must be "
                                            f"known when the data set is built")
        value = v.item() if isinstance(v, np.ndarray) else v
    try:
        return TFRecordOptions.get_compression_type_string(compression_kind(value))
    except ValueError as e:
        raise errors.InvalidArgumentError(None, None, f"{what}: {e}") from None


def filenames(filenames: Any, what: str) -> Any:
    """The file names as a 1-D object array, or a string Tensor the graph computes."""
    if hasattr(filenames, "_source") and hasattr(filenames, "_stages"):
        raise TypeError(f"{what}: filenames is a Dataset; use "
                        f"files.interleave({what}, cycle_length=...) or "
                        f"files.flat_map({what})")
    if isinstance(filenames, Tensor):
        v = const_value(filenames)
        if v is None:
            if filenames.dtype is not _dtypes.string:
                raise TypeError(f"{what}: filenames must be strings, got "
                                f"{filenames.dtype.name}")
            if filenames.shape.ndims not in (None, 0, 1):
                raise ValueError(f"{what}: filenames must be a scalar or a vector, got "
                                 f"shape {filenames.shape}")
            return filenames
        filenames = v
    if isinstance(filenames, (str, bytes, os.PathLike)):
        filenames = [filenames]
    arr = np.asarray([os.fsencode(f) if isinstance(f, os.PathLike) else f
                      for f in np.asarray(filenames, dtype=object).reshape(-1)], dtype=object)
    for f in arr:
        if not isinstance(f, (str, bytes)):
            raise TypeError(f"{what}: filenames must be strings, got {type(f).__name__}")
    out = np.empty(len(arr), dtype=object)
    out[:] = [f.encode("utf-8") if isinstance(f, str) else f for f in arr]
    return out


def file_source(reader: str, compression_type: Any, what: str,
                layout: Optional[dict] = None) -> dict:
    """The source description of a file data set read by ``reader`` (``layout``: the
    record, header and footer sizes of the fixed-length reader)."""
    out = {"kind": "files", "reader": reader, "compression": compression(compression_type, what)}
    if layout is not None:
        out["layout"] = dict(layout)
    return out


def match_files(file_pattern: Any) -> np.ndarray:
    """The files matching ``file_pattern`` (a glob or a list of them), sorted, as a 1-D
    object array of bytes.

    Raises:
      InvalidArgumentError: no file matches.
    """
    patterns = filenames(file_pattern, "list_files")
    if isinstance(patterns, Tensor):
        raise errors.UnimplementedError(None, None, "list_files: the pattern must be known "
                                        "when the data set is built")
    names = sorted({m for p in patterns for m in glob.glob(os.fsdecode(p))})
    if not names:
        raise errors.InvalidArgumentError(None, None, f"No files matched pattern: "
                                          f"{', '.join(os.fsdecode(p) for p in patterns)}")
    arr = np.empty(len(names), dtype=object)
    arr[:] = [os.fsencode(n) for n in names]
    return arr


def check_file_names(outer: Any) -> None:
    """Raises unless ``outer`` is a data set of file names that ``interleave`` reads."""
    spec = outer._spec
    if not isinstance(spec, ComponentSpec) or spec.dtype is not _dtypes.string or \
            spec.shape.ndims != 0 or outer._source.get("kind") != "slices":
        raise errors.UnimplementedError(
            None, None, f"Dataset.interleave: tensorfleet interleaves file data sets over a "
            f"data set of file names (one string per element, e.g. Dataset.list_files); this "
            f"data set yields {outer.output_types} of shape {outer.output_shapes} from a "
            f"{outer._source.get('kind')} source")
    if any(not isinstance(s, dict) for s in outer._stages):
        raise errors.UnimplementedError(None, None, "Dataset.interleave after Dataset.map is "
                                        "not supported: build the file names first")


def interleave_stage(inner: Any, name: Tensor, cycle: int, block: int) -> dict:
    """The outer pipeline's stage reading ``inner`` (what ``map_func(name)`` returned)
    for each file name, ``cycle`` files at a time, ``block`` records from each in turn."""
    if getattr(inner, "_source", {}).get("kind") != "files" or \
            len(inner._leaves) != 1 or inner._leaves[0] is not name:
        raise errors.UnimplementedError(
            None, None, "Dataset.interleave: map_func must return "
            "tf.data.TextLineDataset(filename), tf.data.TFRecordDataset(filename) or "
            "tf.data.FixedLengthRecordDataset(filename, ...) built "
            "from its argument, optionally followed by skip/take/shard/repeat")
    bad = [s if isinstance(s, dict) else {"op": "map"} for s in inner._stages
           if not isinstance(s, dict) or s["op"] not in _INNER_STAGES]
    if bad:
        raise errors.UnimplementedError(
            None, None, f"Dataset.interleave: the per-file data set may only use "
            f"{', '.join(_INNER_STAGES)}; apply {bad[0]['op']} after the interleave")
    reader = {"reader": inner._source["reader"], "compression": inner._source["compression"]}
    if "layout" in inner._source:
        reader["layout"] = dict(inner._source["layout"])
    return {"op": "interleave", "reader": reader, "stages": [dict(s) for s in inner._stages],
            "cycle_length": cycle, "block_length": block}


__all__ = ["compression", "filenames", "file_source", "match_files", "check_file_names",
           "interleave_stage"]
