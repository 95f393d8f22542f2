"""numpy kernels of checkpoint I/O: one shard written or read per op.

``tf.train.Saver`` writes TensorFlow's tensor-bundle format: a ``SaveBundleShard`` op
runs on the task that holds its variables and writes them to
``<prefix>.data-0000i-of-0000n`` (to a temporary name, then renamed), returning each
tensor's ``BundleEntryProto`` for the chief's index (``platform.tensor_bundle``).
``RestoreShard`` reads tensors from such data files, each checked against its
CRC-32C, or from the safetensors shards of earlier releases, described below.

A ``SaveShard`` op runs on the task that holds its variables (a parameter
server, in a cluster) and writes them to ``<prefix>-0000i-of-0000n.safetensors``:
first under a temporary name in the same directory, then fsynced and renamed,
so a reader never sees a half-written shard under the final name. It returns
the file's sha256 and size, which the chief records in the checkpoint index.

A ``RestoreShard`` op checks a shard against the recorded size and sha256
before parsing a byte of it, so a truncated or bit-flipped file is a
``DataLossError`` naming the file instead of garbage in a variable, then checks
each tensor's dtype and shape against the variable it is meant for.

The helpers below (``write_shard``, ``read_shard``, ``shard_filename``) are also
what ``tf.train.load_variable`` uses, so there is one reader of the format.

String tensors have no safetensors dtype: they are stored in the shard header's
``__metadata__`` (key ``tensorfleet.api.strings``, JSON of base64 values), which plain
safetensors readers ignore and which the sha256 of the whole file still covers.
"""

from __future__ import annotations

import base64
import errno
import hashlib
import json
import logging
import os
import re
import struct
from typing import Any, Dict, List, Tuple

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.kernels.atomic_file import atomic_replace, fsync_dir
from tensorfleet.kernels.registry import KernelContext, register_kernel
from tensorfleet.platform import tensor_bundle as bundle

logger = logging.getLogger(__name__)

SHARD_SUFFIX = ".safetensors"
STRINGS_METADATA_KEY = "tensorfleet.api.strings"
_CHUNK = 1 << 22
# A safetensors header larger than this is not one we wrote (ours are small JSON).
_MAX_HEADER_BYTES = 100 << 20


def shard_filename(prefix: str, index: int, count: int) -> str:
    """The path of shard ``index`` of ``count`` for checkpoint ``prefix``."""
    return f"{prefix}-{index:05d}-of-{count:05d}{SHARD_SUFFIX}"


def as_text(value: Any) -> str:
    """A fed string scalar (str, bytes or a 0-d object array) as ``str``."""
    if isinstance(value, np.ndarray):
        value = value.item() if value.size == 1 else value
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise errors.InvalidArgumentError(None, None,
                                      f"expected a string scalar, got {type(value).__name__}")


def os_error(e: OSError, what: str) -> errors.OpError:
    """An ``OSError`` as the ``OpError`` a caller can act on, keeping its message."""
    if isinstance(e, FileNotFoundError):
        cls: Any = errors.NotFoundError
    elif isinstance(e, PermissionError):
        cls = errors.PermissionDeniedError
    elif getattr(e, "errno", None) in (errno.ENOSPC, errno.EDQUOT):  # disk or quota full
        cls = errors.ResourceExhaustedError
    else:
        cls = errors.UnknownError
    return cls(None, None, f"{what}: {e}")


def _strings_entry(arr: np.ndarray) -> Dict[str, Any]:
    vals = [v if isinstance(v, bytes) else str(v).encode("utf-8") for v in arr.reshape(-1)]
    return {"shape": list(arr.shape), "values": [base64.b64encode(v).decode() for v in vals]}


def write_shard(path: str, tensors: Dict[str, Any]) -> Tuple[str, int]:
    """Writes ``tensors`` (name -> array) as a safetensors file at ``path``, atomically.

    Returns:
      ``(sha256 hex digest, size in bytes)`` of the file as it is on disk.
    """
    # Deferred: only checkpointing tasks need safetensors.
    from safetensors import SafetensorError
    from safetensors.numpy import save_file

    numeric: Dict[str, np.ndarray] = {}
    strings: Dict[str, Any] = {}
    for name, value in tensors.items():
        arr = np.asarray(value)
        if arr.dtype == object or arr.dtype.kind in "SU":
            strings[name] = _strings_entry(arr)
        else:
            # Not ascontiguousarray: it turns a 0-d array into shape [1].
            numeric[name] = arr if arr.flags.c_contiguous else np.array(arr, order="C")
    metadata = {"format": "tensorfleet"}
    if strings:
        metadata[STRINGS_METADATA_KEY] = json.dumps(strings, sort_keys=True)
    directory = os.path.dirname(path)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with atomic_replace(path) as tmp:
        try:
            save_file(numeric, tmp, metadata=metadata)
        except SafetensorError as e:
            # A failed write (a full disk) comes as the writer's own error type, with
            # the OS error number only in its text; callers act on an OSError.
            found = re.search(r"\(os error (\d+)\)", str(e))
            if found is None:
                raise
            code = int(found.group(1))
            raise OSError(code, os.strerror(code), tmp) from e
        digest = hashlib.sha256()
        size = 0
        with open(tmp, "rb") as f:
            while True:
                chunk = f.read(_CHUNK)
                if not chunk:
                    break
                digest.update(chunk)
                size += len(chunk)
    return digest.hexdigest(), size


def read_verified(path: str, sha256: str, size: int) -> bytes:
    """The bytes of ``path`` once its size and sha256 match the expected ones.

    Raises:
      NotFoundError: the file does not exist.
      DataLossError: the file is truncated, extended or altered.
    """
    try:
        with open(path, "rb") as f:
            actual = os.fstat(f.fileno()).st_size
            if actual != size:
                raise errors.DataLossError(
                    None, None, f"Checkpoint shard {path} is {actual} bytes but the index "
                    f"records {size}: the file is truncated or was overwritten")
            data = f.read(size + 1)
    except FileNotFoundError:
        raise errors.NotFoundError(
            None, None, f"Checkpoint shard {path} named by the index does not exist") from None
    except OSError as e:
        raise os_error(e, f"Failed to read checkpoint shard {path}") from None
    if len(data) != size:
        raise errors.DataLossError(None, None, f"Checkpoint shard {path} changed size while "
                                   f"being read ({len(data)} bytes, expected {size})")
    got = hashlib.sha256(data).hexdigest()
    if got != sha256:
        raise errors.DataLossError(
            None, None, f"Checkpoint shard {path} is corrupt: sha256 {got} does not match "
            f"{sha256} recorded in the index")
    return data


def _header_metadata(data: bytes, path: str) -> Dict[str, str]:
    # The safetensors layout: u64 little-endian header length, then a JSON header.
    if len(data) < 8:
        raise errors.DataLossError(None, None, f"Checkpoint shard {path} has no header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > min(len(data) - 8, _MAX_HEADER_BYTES):
        raise errors.DataLossError(None, None, f"Checkpoint shard {path} has a bad header length")
    try:
        header = json.loads(data[8:8 + n])
    except ValueError:
        raise errors.DataLossError(None, None, f"Checkpoint shard {path} has a malformed "
                                   f"header") from None
    meta = header.get("__metadata__") if isinstance(header, dict) else None
    return meta if isinstance(meta, dict) else {}


def parse_shard(data: bytes, path: str) -> Dict[str, np.ndarray]:
    """The tensors of a verified shard's bytes, string tensors included."""
    from safetensors.numpy import load

    try:
        tensors = dict(load(data))
    except Exception as e:  # noqa: BLE001 - any parse failure means a damaged file
        raise errors.DataLossError(None, None, f"Checkpoint shard {path} cannot be parsed: "
                                   f"{e}") from None
    raw = _header_metadata(data, path).get(STRINGS_METADATA_KEY)
    if raw:
        try:
            for name, entry in json.loads(raw).items():
                vals = [base64.b64decode(v, validate=True) for v in entry["values"]]
                arr = np.empty(len(vals), dtype=object)
                arr[:] = vals
                tensors[name] = arr.reshape(entry["shape"])
        except (ValueError, KeyError, TypeError, AttributeError):
            raise errors.DataLossError(None, None, f"Checkpoint shard {path} has malformed "
                                       f"string tensors") from None
    return tensors


def read_shard(path: str, sha256: str, size: int) -> Dict[str, np.ndarray]:
    """``parse_shard(read_verified(...))``: the tensors of a shard that passed its checks."""
    return parse_shard(read_verified(path, sha256, size), path)


def check_restored(value: np.ndarray, tensor_name: str, var_name: str, dtype: _dtypes.DType,
                   shape: Any, reshape: bool, where: str) -> np.ndarray:
    """``value`` checked against the variable's dtype and static shape.

    Raises:
      InvalidArgumentError: naming the variable and both dtypes or shapes.
    """
    got_string = value.dtype == object
    if got_string != (dtype is _dtypes.string) or (not got_string and value.dtype != dtype.np):
        got = "string" if got_string else value.dtype.name
        raise errors.InvalidArgumentError(
            None, None, f"Cannot restore variable {var_name}: tensor {tensor_name} in {where} "
            f"has dtype {got} but the variable has dtype {dtype.name}")
    if shape is not None and not shape.is_compatible_with(value.shape):
        want = shape.as_list()
        if reshape and shape.is_fully_defined() and int(np.prod(want)) == value.size:
            return value.reshape(want)
        raise errors.InvalidArgumentError(
            None, None, f"Cannot restore variable {var_name}: tensor {tensor_name} in {where} "
            f"has shape {list(value.shape)} but the variable has shape {want}"
            + ("" if reshape else " (Saver(reshape=True) restores into another shape with "
                                  "the same number of elements)"))
    return value


def layout_of(tensors: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """``{name: {"dtype", "shape"}}`` of the tensors a shard holds; an integer scalar
    also gets its ``value`` (the global step written, which names the checkpoint)."""
    out = {}
    for name, value in tensors.items():
        arr = np.asarray(value)
        dt = "string" if arr.dtype == object or arr.dtype.kind in "SU" else \
            _dtypes.as_dtype(arr.dtype).name
        out[name] = {"dtype": dt, "shape": [int(d) for d in arr.shape]}
        if arr.ndim == 0 and arr.dtype.kind in "iu":
            out[name]["value"] = int(arr)
    return out


@register_kernel("SaveShard")
def _save_shard(ctx: KernelContext, prefix: Any, *values: Any) -> Tuple[Any, ...]:
    a = ctx.attrs
    path = shard_filename(as_text(prefix), a["shard"], a["num_shards"])
    tensors = dict(zip(a["names"], values))
    try:
        sha, size = write_shard(path, tensors)
    except OSError as e:
        raise os_error(e, f"Failed to write checkpoint shard {path}") from None
    logger.debug("wrote checkpoint shard %s (%d bytes)", path, size)
    layout = json.dumps(layout_of(tensors), sort_keys=True).encode()
    return (np.array(sha.encode(), dtype=object), np.array(size, dtype=np.int64),
            np.array(layout, dtype=object))


@register_kernel("SaveBundleShard")
def _save_bundle_shard(ctx: KernelContext, prefix: Any, *values: Any) -> Any:
    a = ctx.attrs
    path = bundle.data_filename(as_text(prefix), a["shard"], a["num_shards"])
    directory = os.path.dirname(path)
    try:
        if directory:
            os.makedirs(directory, exist_ok=True)
        with atomic_replace(path) as tmp:
            entries = bundle.write_data_file(tmp, a["shard"], values)
    except OSError as e:
        raise os_error(e, f"Failed to write checkpoint data file {path}") from None
    logger.debug("wrote checkpoint data file %s (%d tensors)", path, len(entries))
    out = np.empty(len(entries), dtype=object)
    out[:] = entries
    return out


def _restore_bundle_tensor(index_file: str, packed: Any, num_shards: int, name: str) -> Any:
    if not isinstance(packed, bytes):
        raise errors.InvalidArgumentError(None, None, f"RestoreShard: the entry record of "
                                          f"{name} in {index_file} must be bytes")
    return bundle.read_packed(index_file, packed, num_shards, name)


@register_kernel("RestoreShard")
def _restore_shard(ctx: KernelContext, files: Any, sha256s: Any, sizes: Any) -> Any:
    a = ctx.attrs
    names: List[str] = a["names"]
    files_l = [as_text(f) for f in np.asarray(files, dtype=object).reshape(-1)]
    # A tensor-bundle checkpoint is fed its entries' bytes where a safetensors one is
    # fed a sha256 (see ops.io_ops.restore_shard).
    shas = list(np.asarray(sha256s, dtype=object).reshape(-1))
    sizes_l = [int(s) for s in np.asarray(sizes).reshape(-1)]
    if not len(files_l) == len(shas) == len(sizes_l) == len(names):
        raise errors.InvalidArgumentError(
            ctx.op_name, None, f"RestoreShard needs one file, sha256 and size per tensor "
            f"({len(names)}); got {len(files_l)}, {len(shas)}, {len(sizes_l)}")
    loaded: Dict[str, Dict[str, np.ndarray]] = {}
    out = []
    for k, name in enumerate(names):
        path = files_l[k]
        if not path.endswith(SHARD_SUFFIX):
            value = _restore_bundle_tensor(path, shas[k], sizes_l[k], name)
            out.append(check_restored(value, name, a["var_names"][k], a["dtypes"][k],
                                      a["shapes"][k], a.get("reshape", False), path))
            continue
        if path not in loaded:
            loaded[path] = read_shard(path, as_text(shas[k]), sizes_l[k])
        tensors = loaded[path]
        if name not in tensors:
            raise errors.NotFoundError(
                ctx.op_name, None, f"Key {name} not found in checkpoint shard {path}")
        out.append(check_restored(tensors[name], name, a["var_names"][k], a["dtypes"][k],
                                  a["shapes"][k], a.get("reshape", False), path))
    return out[0] if len(out) == 1 else tuple(out)


__all__ = ["SHARD_SUFFIX", "STRINGS_METADATA_KEY", "shard_filename", "as_text", "fsync_dir",
           "os_error", "layout_of",
           "write_shard", "read_verified", "parse_shard", "read_shard", "check_restored"]
