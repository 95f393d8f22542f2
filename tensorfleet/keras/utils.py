"""``tf.keras.utils``: ``to_categorical``, ``normalize`` and ``get_file`` for files
already on disk (there is no download here)."""

from __future__ import annotations

import hashlib
import os
import tarfile
import zipfile
from typing import Any, Optional

import numpy as np


def _labels(y: Any, num_classes: Optional[int], fn: str) -> tuple:
    """``y`` flattened to int64 (a trailing axis of size 1 dropped from the shape), the
    shape to give the result, and ``num_classes`` (from the labels when None)."""
    y = np.array(y, dtype="int64")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.ravel()
    if y.size and y.min() < 0:
        raise ValueError(f"{fn}: labels must be non-negative, got {y.min()}")
    if num_classes is None:
        num_classes = int(y.max()) + 1 if y.size else 0
    elif y.size and y.max() >= num_classes:
        raise ValueError(f"{fn}: label {y.max()} is out of range for "
                         f"num_classes={num_classes}")
    return y, shape, num_classes


def to_categorical(y: Any, num_classes: Optional[int] = None,
                   dtype: str = "float32") -> np.ndarray:
    """One-hot rows for the integer class labels ``y``; a trailing axis of size 1 is
    dropped first, so ``(n, 1)`` labels give ``(n, num_classes)``.

    Raises:
      ValueError: negative labels, or labels not below ``num_classes``.
    """
    y, shape, num_classes = _labels(y, num_classes, "to_categorical")
    out = np.zeros((y.shape[0], num_classes), dtype=dtype)
    out[np.arange(y.shape[0]), y] = 1
    return out.reshape(shape + (num_classes,))


def to_ordinal(y: Any, num_classes: Optional[int] = None,
               dtype: str = "float32") -> np.ndarray:
    """Ordinal regression targets for the integer labels ``y``: label ``k`` becomes
    ``num_classes - 1`` columns, the first ``k`` of them 1 (a trailing axis of size 1 is
    dropped first, as in ``to_categorical``).

    Raises:
      ValueError: negative labels, or labels not below ``num_classes``.
    """
    y, shape, num_classes = _labels(y, num_classes, "to_ordinal")
    width = max(num_classes - 1, 0)
    out = (np.arange(width)[None, :] < y[:, None]).astype(dtype)
    return out.reshape(shape + (width,))


def normalize(x: Any, axis: int = -1, order: int = 2) -> np.ndarray:
    """``x`` divided by its ``order``-norm along ``axis`` (zero norms left as they are)."""
    x = np.asarray(x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def keras_cache_dir(cache_dir: Optional[str] = None) -> str:
    """The Keras cache folder: ``cache_dir`` if given, else ``~/.keras`` (as Keras, falling
    back to ``/tmp/.keras`` when the home folder is not writable)."""
    if cache_dir is not None:
        return os.path.expanduser(cache_dir)
    home = os.path.join(os.path.expanduser("~"), ".keras")
    if os.path.isdir(home) or os.access(os.path.dirname(home), os.W_OK):
        return home
    return os.path.join("/tmp", ".keras")


def _file_digest(path: str, algorithm: str) -> str:
    h = hashlib.sha256() if algorithm == "sha256" else hashlib.md5()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _check_hash(path: str, expected: str, algorithm: str) -> None:
    if algorithm == "auto":
        algorithm = "sha256" if len(expected) == 64 else "md5"
    if algorithm not in ("sha256", "md5"):
        raise ValueError(f"get_file: hash_algorithm must be 'auto', 'sha256' or 'md5', got "
                         f"{algorithm!r}")
    actual = _file_digest(path, algorithm)
    if actual != expected:
        raise ValueError(f"{path}: its {algorithm} hash is {actual}, expected {expected}; "
                         f"the file is damaged or a different one")


def _extract(archive: str, into: str, archive_format: Any) -> bool:
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format or []))
    for fmt in formats:
        if fmt not in ("tar", "zip"):
            raise ValueError(f"get_file: archive_format must be 'auto', 'tar' or 'zip' (or a "
                             f"list of them), got {fmt!r}")
        if fmt == "tar" and tarfile.is_tarfile(archive):
            with tarfile.open(archive) as t:
                # the "data" filter refuses absolute paths, links out of the folder and
                # device files: archive members are untrusted
                t.extractall(into, filter="data")
            return True
        if fmt == "zip" and zipfile.is_zipfile(archive):
            with zipfile.ZipFile(archive) as z:
                root = os.path.realpath(into)
                for member in z.namelist():
                    target = os.path.realpath(os.path.join(into, member))
                    if os.path.commonpath([root, target]) != root:
                        raise ValueError(f"{archive}: member {member!r} lies outside "
                                         f"the folder it is extracted to")
                z.extractall(into)
            return True
    return False


def get_file(fname: Optional[str] = None, origin: Optional[str] = None, untar: bool = False,
             md5_hash: Optional[str] = None, file_hash: Optional[str] = None,
             cache_subdir: str = "datasets", hash_algorithm: str = "auto",
             extract: bool = False, archive_format: Any = "auto",
             cache_dir: Optional[str] = None) -> str:
    """The path of ``fname`` in the Keras cache (``~/.keras/<cache_subdir>``), as Keras's
    ``get_file`` finds it once downloaded.

    Nothing is downloaded here: the file must already be in the cache. A given hash
    (``file_hash``, or the older ``md5_hash``) is checked; ``untar``/``extract`` unpack
    the archive next to it (once) as Keras does.

    Raises:
      FileNotFoundError: the file is not in the cache; the message names the path to put
        it at and the URL it is published at.
      ValueError: no ``fname`` and no ``origin``, a hash that does not match, or an
        archive that cannot be unpacked.
    """
    if fname is None:
        if not origin:
            raise ValueError("get_file: give fname or origin")
        fname = os.path.basename(origin.split("?")[0])
    datadir = os.path.join(keras_cache_dir(cache_dir), cache_subdir)
    if untar:
        unpacked = os.path.join(datadir, fname)
        path = unpacked + ".tar.gz"
    else:
        path = os.path.join(datadir, fname)
    if not os.path.exists(path) and not (untar and os.path.exists(unpacked)):
        where = f" from {origin}" if origin else ""
        raise FileNotFoundError(f"{path} does not exist and tensorfleet does not download "
                                f"files; download {fname}{where} and put it at that path")
    expected = file_hash or md5_hash
    if expected and os.path.exists(path):
        _check_hash(path, expected, "md5" if md5_hash and not file_hash else hash_algorithm)
    if untar:
        if not os.path.exists(unpacked) and not _extract(path, datadir, "tar"):
            raise ValueError(f"{path} is not a tar archive")
        return unpacked
    if extract and not _extract(path, datadir, archive_format):
        raise ValueError(f"{path} is not an archive of the formats {archive_format!r}")
    return path


__all__ = ["to_categorical", "to_ordinal", "normalize", "get_file", "keras_cache_dir"]
