"""Checkpoint bookkeeping: the index of a checkpoint, the ``checkpoint`` state file,
finding the latest checkpoint and reading variables out of one.

Checkpoints are written in TensorFlow's tensor-bundle format (``dir/model.ckpt-100.index``
and ``.data-0000i-of-0000n`` files, see ``tensor_bundle``), which TensorFlow's own
tools read. Checkpoints of earlier releases, in the layout below, are still read:

* ``dir/model.ckpt-100-0000i-of-0000n.safetensors``: one shard per task that
  holds variables, tensors named by variable op names (plain safetensors);
* ``dir/model.ckpt-100.index.json``: which shard holds which tensor, with its
  dtype and shape, each shard's sha256 and size, and a sha256 of the index itself
  (indexes written without one are still read);
* optionally ``dir/model.ckpt-100.meta``: the graph, as plain-data JSON.

Either way, the index is written last, to a temporary name that is then renamed, and the
``checkpoint`` state file (TensorFlow's text format) is rewritten only after
that: a crash at any point leaves ``latest_checkpoint`` naming a complete one.

Files damaged after they were written (a flipped bit, a truncated or deleted file)
are found on restore, by the checksums. ``restore_newest_intact``, which the chief's
session manager restores through, then falls back to the newest intact checkpoint the
state file lists, with a WARNING naming the damaged file and what is wrong with it; an
explicit ``Saver.restore`` of a damaged checkpoint raises ``DataLossError`` instead.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
from google.protobuf import text_format

from tensorfleet import dtypes as _dtypes
from tensorfleet import errors
from tensorfleet.framework.tensor_shape import as_shape
from tensorfleet.kernels.atomic_file import atomic_write
from tensorfleet.kernels.numpy.io_kernels import check_restored, os_error, read_shard
from tensorfleet.protos import checkpoint_state_pb2
from tensorfleet.platform import tensor_bundle as bundle

logger = logging.getLogger(__name__)

# The index of a safetensors checkpoint (earlier releases); a bundle's is ``.index``.
INDEX_SUFFIX = ".index.json"
INDEX_FORMAT = "tensorfleet-checkpoint"
INDEX_VERSION = 1
# The index's own checksum: the sha256 of the rest of the document in canonical JSON.
INDEX_CHECKSUM_KEY = "sha256"
DEFAULT_STATE_FILENAME = "checkpoint"


def index_path(prefix: str) -> str:
    """The index file of checkpoint ``prefix``: its ``.index`` (tensor bundle), or its
    ``.index.json`` when only that exists (a safetensors checkpoint)."""
    legacy = prefix + INDEX_SUFFIX
    if not os.path.exists(bundle.index_path(prefix)) and os.path.exists(legacy):
        return legacy
    return bundle.index_path(prefix)


def _legacy_index_path(prefix: str) -> str:
    return prefix + INDEX_SUFFIX


# -- the index ---------------------------------------------------------------------------

class CheckpointIndex:
    """The parsed, validated index of one checkpoint.

    Attributes:
      prefix: the checkpoint prefix the index was read for.
      tensors: tensor name -> ``{"file", "dtype", "shape"}``.
      shards: shard file name (relative to the prefix's directory) -> ``{"sha256", "size"}``.
      global_step: the step recorded at save time, or None.
    """

    def __init__(self, prefix: str, tensors: Dict[str, Dict[str, Any]],
                 shards: Dict[str, Dict[str, Any]], global_step: Optional[int] = None):
        self.prefix = prefix
        self.tensors = tensors
        self.shards = shards
        self.global_step = global_step

    def to_json(self) -> bytes:
        """The index as the JSON bytes stored in ``<prefix>.index.json``, checksum included."""
        doc: Dict[str, Any] = {"format": INDEX_FORMAT, "version": INDEX_VERSION,
                               "global_step": self.global_step, "shards": self.shards,
                               "tensors": self.tensors}
        doc[INDEX_CHECKSUM_KEY] = _index_digest(doc)
        return json.dumps(doc, indent=1, sort_keys=True).encode("utf-8")

    def shard_path(self, shard_file: str) -> str:
        """The path of a shard file named in this index."""
        return os.path.join(os.path.dirname(self.prefix), shard_file)

    def locate(self, name: str) -> Tuple[str, str, int]:
        """``(shard path, sha256, size)`` of the shard holding tensor ``name``.

        Raises:
          NotFoundError: the checkpoint has no tensor ``name``.
        """
        entry = self.tensors.get(name)
        if entry is None:
            raise errors.NotFoundError(None, None, f"Key {name} not found in checkpoint "
                                       f"{self.prefix}")
        shard = self.shards[entry["file"]]
        return self.shard_path(entry["file"]), shard["sha256"], shard["size"]

    def dtype(self, name: str) -> _dtypes.DType:
        return _dtypes.as_dtype(self.tensors[name]["dtype"])

    def shape(self, name: str) -> List[int]:
        return list(self.tensors[name]["shape"])


def _index_digest(doc: Dict[str, Any]) -> str:
    # Canonical JSON, so the digest survives re-indentation but not a changed value.
    body = {k: v for k, v in doc.items() if k != INDEX_CHECKSUM_KEY}
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def _corrupt_index(path: str, why: str) -> errors.DataLossError:
    return errors.DataLossError(None, None, f"Checkpoint index {path} is corrupt: {why}")


def write_index(index: CheckpointIndex) -> str:
    """Atomically writes the (safetensors) index of ``index.prefix``; returns its path."""
    path = _legacy_index_path(index.prefix)
    try:
        atomic_write(path, index.to_json())
    except OSError as e:
        raise os_error(e, f"Failed to write checkpoint index {path}") from None
    return path


def read_index(prefix: str) -> Any:
    """Reads and validates the index of checkpoint ``prefix``: a ``BundleIndex`` for a
    tensor-bundle checkpoint, a ``CheckpointIndex`` for a safetensors one.

    Raises:
      NotFoundError: no checkpoint has this prefix (naming the path looked for).
      DataLossError: the index is not a well-formed checkpoint index.
    """
    path = index_path(prefix)
    if path != _legacy_index_path(prefix):
        return bundle.read_index(prefix)
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except FileNotFoundError:
        raise errors.NotFoundError(
            None, None, f"Failed to find any matching files for {prefix}: no checkpoint "
            f"index {path}. Pass the checkpoint prefix (like 'dir/model.ckpt-100'), e.g. "
            f"from tf.train.latest_checkpoint(dir).") from None
    except OSError as e:
        raise os_error(e, f"Failed to read checkpoint index {path}") from None
    try:
        doc = json.loads(raw)
    except ValueError as e:
        raise _corrupt_index(path, f"not JSON ({e})") from None
    if not isinstance(doc, dict) or doc.get("format") != INDEX_FORMAT:
        raise _corrupt_index(path, f"format is not {INDEX_FORMAT!r}")
    if doc.get("version") != INDEX_VERSION:
        raise _corrupt_index(path, f"unsupported version {doc.get('version')!r}")
    recorded = doc.get(INDEX_CHECKSUM_KEY)
    if recorded is not None:  # None: written before indexes carried a checksum
        try:
            actual = _index_digest(doc)
        except ValueError as e:  # a value canonical JSON cannot hold (NaN)
            raise _corrupt_index(path, f"checksum cannot be computed ({e})") from None
        if recorded != actual:
            raise _corrupt_index(path, f"checksum mismatch: the contents hash to sha256 "
                                 f"{actual} but the index records {recorded!r}")
    shards, tensors = doc.get("shards"), doc.get("tensors")
    if not isinstance(shards, dict) or not isinstance(tensors, dict):
        raise _corrupt_index(path, "'shards' and 'tensors' must be objects")
    for fname, s in shards.items():
        if (os.path.basename(fname) != fname or not isinstance(s, dict)
                or not isinstance(s.get("sha256"), str) or type(s.get("size")) is not int):
            raise _corrupt_index(path, f"bad shard entry {fname!r}")
    for name, t in tensors.items():
        ok = (isinstance(t, dict) and t.get("file") in shards and isinstance(t.get("shape"), list)
              and all(type(d) is int and d >= 0 for d in t["shape"]))
        try:
            ok = ok and _dtypes.as_dtype(t["dtype"]) is not None
        except (TypeError, KeyError):
            ok = False
        if not ok:
            raise _corrupt_index(path, f"bad tensor entry {name!r}")
    step = doc.get("global_step")
    if step is not None and type(step) is not int:
        raise _corrupt_index(path, "global_step must be an integer")
    return CheckpointIndex(prefix, tensors, shards, step)


def checkpoint_exists(checkpoint_prefix: str) -> bool:
    """Whether a checkpoint with this prefix has been completely written (has an index)."""
    return os.path.isfile(index_path(checkpoint_prefix))


def get_checkpoint_mtimes(checkpoint_prefixes: Sequence[str]) -> List[float]:
    """The modification times of the checkpoints that exist (missing ones are skipped)."""
    out = []
    for p in checkpoint_prefixes:
        try:
            out.append(os.path.getmtime(index_path(p)))
        except OSError:
            continue
    return out


def remove_checkpoint(checkpoint_prefix: str, checkpoint_format_version: Any = None,
                      meta_graph_suffix: str = "meta") -> None:
    """Deletes a checkpoint: its index first (so it never names missing shards), then
    its shards and meta graph. Files already gone are not an error."""
    shard_files: List[str] = []
    try:
        shard_files = list(read_index(checkpoint_prefix).shards)
    except errors.OpError as e:
        logger.warning("Removing checkpoint %s without a readable index: %s",
                       checkpoint_prefix, e.message)
    directory = os.path.dirname(checkpoint_prefix)
    victims = ([index_path(checkpoint_prefix)] + [os.path.join(directory, f) for f in shard_files]
               + [f"{checkpoint_prefix}.{meta_graph_suffix}"])
    for path in victims:
        try:
            os.remove(path)
        except FileNotFoundError:
            pass
        except OSError as e:
            logger.warning("Could not remove %s: %s", path, e)


# -- the state file -----------------------------------------------------------------------

class CheckpointState:
    """The contents of a ``checkpoint`` state file (TensorFlow's ``CheckpointState``)."""

    def __init__(self, model_checkpoint_path: str = "",
                 all_model_checkpoint_paths: Optional[Sequence[str]] = None,
                 all_model_checkpoint_timestamps: Optional[Sequence[float]] = None,
                 last_preserved_timestamp: Optional[float] = None):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths or [])
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps or [])
        self.last_preserved_timestamp = last_preserved_timestamp

    def to_proto(self) -> Any:
        """This state as a ``CheckpointState`` protobuf message."""
        msg = checkpoint_state_pb2.CheckpointState(
            model_checkpoint_path=self.model_checkpoint_path,
            all_model_checkpoint_paths=self.all_model_checkpoint_paths,
            all_model_checkpoint_timestamps=self.all_model_checkpoint_timestamps)
        if self.last_preserved_timestamp is not None:
            msg.last_preserved_timestamp = self.last_preserved_timestamp
        return msg

    def to_text(self) -> str:
        """The protobuf text format, as TensorFlow writes and reads the state file."""
        return text_format.MessageToString(self.to_proto())

    __str__ = to_text

    def __repr__(self) -> str:
        return (f"CheckpointState(model_checkpoint_path={self.model_checkpoint_path!r}, "
                f"all_model_checkpoint_paths={self.all_model_checkpoint_paths!r})")


def parse_checkpoint_state(text: str) -> CheckpointState:
    """Parses a state file's text (written by ``CheckpointState.to_text`` or TensorFlow);
    fields this version does not know are skipped.

    Raises:
      ValueError: the text is not a ``CheckpointState`` in the protobuf text format.
    """
    msg = checkpoint_state_pb2.CheckpointState()
    try:
        text_format.Parse(text, msg, allow_unknown_field=True)
    except text_format.ParseError as e:
        raise ValueError(str(e)) from None
    return CheckpointState(msg.model_checkpoint_path, list(msg.all_model_checkpoint_paths),
                           list(msg.all_model_checkpoint_timestamps),
                           msg.last_preserved_timestamp if msg.last_preserved_timestamp
                           else None)


def _state_path(save_dir: str, latest_filename: Optional[str]) -> str:
    return os.path.join(save_dir, latest_filename or DEFAULT_STATE_FILENAME)


def generate_checkpoint_state_proto(
        save_dir: str, model_checkpoint_path: str,
        all_model_checkpoint_paths: Optional[Sequence[str]] = None,
        all_model_checkpoint_timestamps: Optional[Sequence[float]] = None,
        last_preserved_timestamp: Optional[float] = None,
        save_relative_paths: bool = False) -> CheckpointState:
    """A ``CheckpointState`` whose path list ends with ``model_checkpoint_path``.

    With ``save_relative_paths``, absolute paths inside ``save_dir`` are stored
    relative to it, so the directory can be moved.
    """
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths = [p for p in paths if p != model_checkpoint_path] + [model_checkpoint_path]
    stamps = list(all_model_checkpoint_timestamps or [])
    if stamps and len(stamps) != len(paths):
        raise ValueError(f"{len(stamps)} timestamps for {len(paths)} checkpoint paths")
    if save_relative_paths:
        def rel(p: str) -> str:
            if os.path.isabs(p) and os.path.isabs(save_dir):
                r = os.path.relpath(p, save_dir)
                return p if r.startswith("..") else r
            return os.path.basename(p) if os.path.dirname(p) == save_dir else p
        model_checkpoint_path = rel(model_checkpoint_path)
        paths = [rel(p) for p in paths]
    return CheckpointState(model_checkpoint_path, paths, stamps, last_preserved_timestamp)


def update_checkpoint_state(save_dir: str, model_checkpoint_path: str,
                            all_model_checkpoint_paths: Optional[Sequence[str]] = None,
                            latest_filename: Optional[str] = None,
                            all_model_checkpoint_timestamps: Optional[Sequence[float]] = None,
                            last_preserved_timestamp: Optional[float] = None,
                            save_relative_paths: bool = False) -> None:
    """Atomically rewrites the ``checkpoint`` state file in ``save_dir``.

    Raises:
      ValueError: ``latest_filename`` has directory components.
    """
    if latest_filename and os.path.basename(latest_filename) != latest_filename:
        raise ValueError(f"'latest_filename' must not contain path components: "
                         f"{latest_filename!r}")
    state = generate_checkpoint_state_proto(
        save_dir, model_checkpoint_path, all_model_checkpoint_paths,
        all_model_checkpoint_timestamps, last_preserved_timestamp, save_relative_paths)
    path = _state_path(save_dir, latest_filename)
    try:
        atomic_write(path, state.to_text().encode("utf-8"))
    except OSError as e:
        raise os_error(e, f"Failed to write checkpoint state {path}") from None


def get_checkpoint_state(checkpoint_dir: str,
                         latest_filename: Optional[str] = None) -> Optional[CheckpointState]:
    """The state in ``checkpoint_dir/checkpoint``, paths made absolute-or-as-saved;
    None when there is no state file (or it cannot be parsed, which is logged)."""
    path = _state_path(checkpoint_dir, latest_filename)
    try:
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        logger.warning("Cannot read checkpoint state %s: %s", path, e)
        return None
    try:
        st = parse_checkpoint_state(text)
    except ValueError as e:
        logger.warning("%s: unparsable checkpoint state (%s)", path, e)
        return None
    if not st.model_checkpoint_path:
        logger.warning("%s names no model_checkpoint_path", path)
        return None
    # Relative entries are relative to the state file's directory, so a moved
    # directory of checkpoints still resolves.
    def resolve(p: str) -> str:
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)
    if not os.path.isabs(st.model_checkpoint_path):
        st.model_checkpoint_path = resolve(st.model_checkpoint_path)
        st.all_model_checkpoint_paths = [resolve(p) for p in st.all_model_checkpoint_paths]
    return st


def _newest_first(latest: str, candidates: Sequence[str]) -> List[str]:
    """``latest``, then ``candidates`` (oldest first, as in the state file) newest first."""
    out = [latest]
    for p in reversed(list(candidates)):
        if p not in out:
            out.append(p)
    return out


def latest_checkpoint(checkpoint_dir: str, latest_filename: Optional[str] = None) -> Optional[str]:
    """The prefix of the most recent complete checkpoint in ``checkpoint_dir``, or None.

    When the checkpoint the state file names as the latest has lost its index, this is
    the newest one it lists that still has an index, with a WARNING naming the missing
    index; None (with an ERROR) when none of them has one.
    """
    st = get_checkpoint_state(checkpoint_dir, latest_filename)
    if st is None:
        return None
    newest = st.model_checkpoint_path
    if checkpoint_exists(newest):
        return newest
    for prefix in _newest_first(newest, st.all_model_checkpoint_paths)[1:]:
        if checkpoint_exists(prefix):
            logger.warning("Checkpoint %s, the latest in the state of %s, is unusable: no "
                           "checkpoint index %s. Using the previous checkpoint %s.", newest,
                           checkpoint_dir, index_path(newest), prefix)
            return prefix
    logger.error("Couldn't find checkpoint %s named in the state of %s, nor any earlier "
                 "checkpoint it lists", newest, checkpoint_dir)
    return None


def _is_damage(prefix: str, e: errors.OpError) -> bool:
    """Whether ``e`` says a file of checkpoint ``prefix`` is damaged or gone.

    Its index is ``<prefix>.index.json`` and its shards ``<prefix>-...`` or
    ``<prefix>.<tag>-...``; an error naming none of them (a transport failure, a
    variable missing from the checkpoint, named by its key) is something else.
    """
    if isinstance(e, errors.NotFoundError):
        return index_path(prefix) in e.message
    if isinstance(e, errors.DataLossError):
        return re.search(re.escape(prefix) + r"[-.]", e.message) is not None
    return False


def restore_newest_intact(saver: Any, sess: Any, latest: str,
                          candidates: Sequence[str] = ()) -> str:
    """Restores checkpoint ``latest``, or the newest intact one if it is damaged.

    A checkpoint is damaged when its index or one of its shards is missing, truncated
    or fails its checksum. Each damaged one gets a WARNING naming the file and what is
    wrong with it, and the next older of ``candidates`` (the state file's
    ``all_model_checkpoint_paths``, oldest first) is tried. Any other error -- a
    variable the checkpoint lacks, a shape that differs, a task that cannot be
    reached -- is raised at once: an older checkpoint would not cure it.

    Args:
      saver: what restores a checkpoint into ``sess`` (``saver.restore(sess, prefix)``).
      sess: the session to restore into.
      latest: the prefix of the newest checkpoint (``latest_checkpoint(dir)``).
      candidates: older checkpoint prefixes to fall back to, oldest first.

    Returns:
      The prefix of the checkpoint restored.

    Raises:
      DataLossError: every candidate is damaged; the message names each one's file and
        what is wrong with it. (Not a fresh start: that would silently lose all training.)
    """
    damaged: List[Tuple[str, str]] = []
    last: Optional[errors.OpError] = None
    for prefix in _newest_first(latest, candidates):
        try:
            saver.restore(sess, prefix)
        except errors.OpError as e:
            if not _is_damage(prefix, e):
                raise
            logger.warning("Not restoring damaged checkpoint %s: %s", prefix, e.message)
            damaged.append((prefix, e.message))
            last = e
            continue
        if damaged:
            logger.warning("Restored %s, the newest intact checkpoint, instead of the damaged "
                           "newer %s", prefix, ", ".join(p for p, _ in damaged))
        return prefix
    raise errors.DataLossError(
        None, None, f"No intact checkpoint to restore: all {len(damaged)} are damaged: "
        + "; ".join(f"{p}: {why}" for p, why in damaged)) from last


# -- reading variables --------------------------------------------------------------------

class CheckpointReader:
    """Reads tensors of one checkpoint through its index (``tf.train.load_checkpoint``)."""

    def __init__(self, checkpoint_prefix: str):
        self._index = read_index(checkpoint_prefix)
        self._cache: Dict[str, Dict[str, np.ndarray]] = {}

    def debug_string(self) -> bytes:
        """One line per tensor: name, dtype and shape."""
        dts = self.get_variable_to_dtype_map()
        return "".join(f"{n} ({dts[n].name}) {s}\n" for n, s in
                       sorted(self.get_variable_to_shape_map().items())).encode()

    def get_variable_to_shape_map(self) -> Dict[str, List[int]]:
        return {n: self._index.shape(n) for n in self._index.tensors}

    def get_variable_to_dtype_map(self) -> Dict[str, _dtypes.DType]:
        return {n: self._index.dtype(n) for n in self._index.tensors}

    def has_tensor(self, name: str) -> bool:
        return _strip(name) in self._index.tensors

    def get_tensor(self, name: str) -> np.ndarray:
        """The saved value of ``name``, from a shard verified against its checksum.

        Raises:
          NotFoundError: no such tensor. DataLossError: the shard is damaged.
        """
        name = _strip(name)
        if isinstance(self._index, bundle.BundleIndex):
            value = self._index.read(name)
            return value
        path, sha, size = self._index.locate(name)
        if path not in self._cache:
            self._cache[path] = read_shard(path, sha, size)
        value = self._cache[path].get(name)
        if value is None:
            raise errors.DataLossError(None, None, f"Checkpoint shard {path} lacks tensor "
                                       f"{name} that the index places there")
        check_restored(value, name, name, self._index.dtype(name),
                       as_shape(self._index.shape(name)), False, path)
        return np.array(value, copy=True)


def _strip(name: str) -> str:
    return name[:-2] if name.endswith(":0") else name


def _resolve(ckpt_dir_or_file: str) -> str:
    if os.path.isdir(ckpt_dir_or_file):
        prefix = latest_checkpoint(ckpt_dir_or_file)
        if prefix is None:
            raise ValueError(f"Couldn't find 'checkpoint' file or checkpoints in given "
                             f"directory {ckpt_dir_or_file}")
        return prefix
    return ckpt_dir_or_file


def load_checkpoint(ckpt_dir_or_file: str) -> CheckpointReader:
    """A reader of the checkpoint at a prefix, or of the latest one in a directory."""
    return CheckpointReader(_resolve(ckpt_dir_or_file))


def NewCheckpointReader(filepattern: str) -> CheckpointReader:  # noqa: N802 - TF's name
    """``tf.train.NewCheckpointReader``: a reader of the checkpoint at a prefix."""
    return CheckpointReader(filepattern)


def list_variables(ckpt_dir_or_file: str) -> List[Tuple[str, List[int]]]:
    """``(name, shape)`` of every tensor in a checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return sorted(shapes.items())


def load_variable(ckpt_dir_or_file: str, name: str) -> np.ndarray:
    """The saved value of variable ``name`` (a ``:0`` suffix is ignored)."""
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


__all__ = ["CheckpointState", "CheckpointIndex", "CheckpointReader", "index_path",
           "atomic_write", "write_index", "read_index", "checkpoint_exists",
           "get_checkpoint_mtimes", "remove_checkpoint", "parse_checkpoint_state",
           "generate_checkpoint_state_proto", "update_checkpoint_state", "get_checkpoint_state",
           "latest_checkpoint", "restore_newest_intact", "load_checkpoint", "NewCheckpointReader",
           "list_variables", "load_variable", "INDEX_SUFFIX", "DEFAULT_STATE_FILENAME"]
