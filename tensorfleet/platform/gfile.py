"""``tf.gfile``: the file calls of TensorFlow 1.x programs, on local paths.

``tf.gfile.Exists``, ``MakeDirs``, ``GFile`` and the rest work on the local file
system (and on shared file systems mounted there), which is where tensorfleet writes
checkpoints and summaries. A URL such as ``gs://bucket/x`` or ``hdfs://...`` is refused
with ``UnimplementedError`` naming it rather than being taken for a relative path.
Failures raise the ``tf.errors`` class TensorFlow raises (``NotFoundError`` for a
missing file, ``AlreadyExistsError`` when a rename or copy would overwrite), with the
path in the message.
"""

from __future__ import annotations

import errno
import glob as _glob
import os
import re
import shutil
import stat
from typing import IO, Any, Callable, Iterator, List, Optional, Tuple

from tensorfleet import errors

_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _local(path: Any) -> str:
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    if _URL.match(path) and not path.startswith("file://"):
        raise errors.UnimplementedError(
            None, None, f"File system scheme of {path!r} is not supported: tensorfleet reads "
            "and writes local paths (mount the storage, or copy the files)")
    return path[len("file://"):] if path.startswith("file://") else path


def get_registered_schemes() -> List[str]:
    """The URL schemes paths may carry: ``file`` (and plain local paths, which have none);
    any other scheme is refused."""
    return ["", "file"]


def _os_error(e: OSError, path: str) -> errors.OpError:
    cls = {errno.ENOENT: errors.NotFoundError, errno.EEXIST: errors.AlreadyExistsError,
           errno.EACCES: errors.PermissionDeniedError,
           errno.EPERM: errors.PermissionDeniedError}.get(e.errno, errors.UnknownError)
    return cls(None, None, f"{path}: {e.strerror or e}")


def _on_path(fn: Any, name: Any, *args: Any, **kwargs: Any) -> Any:
    """``fn(path, ...)`` on the local path of ``name``, its OSError as a ``tf.errors`` one."""
    path = _local(name)
    try:
        return fn(path, *args, **kwargs)
    except OSError as e:
        raise _os_error(e, path) from None


class GFile:
    """A file object (``read``, ``write``, ``readline``, iteration, ``with``) on a
    local path; ``mode`` as for ``open`` ("r", "w", "a", "rb", "wb", ...)."""

    def __init__(self, name: Any, mode: str = "r"):
        self.name = _local(name)
        self.mode = mode
        self._f: IO[Any] = _on_path(open, name, mode)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._f, attr)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._f)

    def __enter__(self) -> "GFile":
        return self

    def __exit__(self, *exc: Any) -> None:
        self._f.close()

    def size(self) -> int:
        """The file's size in bytes."""
        return os.fstat(self._f.fileno()).st_size


Open = GFile
FastGFile = GFile


def Exists(filename: Any) -> bool:  # noqa: N802 - TensorFlow's names
    """Whether ``filename`` exists (a file or a directory)."""
    return os.path.exists(_local(filename))


def IsDirectory(dirname: Any) -> bool:  # noqa: N802
    """Whether ``dirname`` is a directory."""
    return os.path.isdir(_local(dirname))


def MakeDirs(dirname: Any) -> None:  # noqa: N802
    """Creates ``dirname`` and its missing parents; an existing directory is fine."""
    _on_path(os.makedirs, dirname, exist_ok=True)


def MkDir(dirname: Any) -> None:  # noqa: N802
    """Creates ``dirname``, whose parent must exist."""
    _on_path(os.mkdir, dirname)


def ListDirectory(dirname: Any) -> List[str]:  # noqa: N802
    """The names in ``dirname`` (not paths), unsorted like the file system's own order."""
    return _on_path(os.listdir, dirname)


def Glob(filename: Any) -> List[str]:  # noqa: N802
    """The paths matching the pattern ``filename``."""
    return _glob.glob(_local(filename))


def Remove(filename: Any) -> None:  # noqa: N802
    """Deletes the file ``filename``; NotFoundError when there is none."""
    _on_path(os.remove, filename)


def DeleteRecursively(dirname: Any) -> None:  # noqa: N802
    """Deletes ``dirname`` with everything in it (or the file ``dirname``)."""
    def delete(path: str) -> None:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    _on_path(delete, dirname)


def _check_target(newpath: str, overwrite: bool) -> None:
    if not overwrite and os.path.exists(newpath):
        raise errors.AlreadyExistsError(
            None, None, f"{newpath} already exists (pass overwrite=True to replace it)")


def Rename(oldname: Any, newname: Any, overwrite: bool = False) -> None:  # noqa: N802
    """Renames ``oldname`` to ``newname``; AlreadyExistsError if it exists and not
    ``overwrite``."""
    new = _local(newname)
    _check_target(new, overwrite)
    _on_path(os.replace, oldname, new)


def Copy(oldpath: Any, newpath: Any, overwrite: bool = False) -> None:  # noqa: N802
    """Copies the file ``oldpath`` to ``newpath``; AlreadyExistsError if it exists and
    not ``overwrite``."""
    new = _local(newpath)
    _check_target(new, overwrite)
    _on_path(shutil.copyfile, oldpath, new)


class FileStatistics:
    """What ``Stat`` returns: ``length`` in bytes, ``mtime_nsec``, ``is_directory``."""

    def __init__(self, length: int, mtime_nsec: int, is_directory: bool):
        self.length = length
        self.mtime_nsec = mtime_nsec
        self.is_directory = is_directory


def Stat(filename: Any) -> FileStatistics:  # noqa: N802
    """Size, modification time and kind of ``filename``; NotFoundError if missing."""
    st = _on_path(os.stat, filename)
    return FileStatistics(st.st_size, st.st_mtime_ns, stat.S_ISDIR(st.st_mode))


def Walk(top: Any, in_order: bool = True) -> Iterator[Tuple[str, List[str], List[str]]]:  # noqa: N802
    """``(dirname, subdirectories, files)`` for ``top`` and every directory below it,
    parents first (``in_order``) or last."""
    yield from os.walk(_local(top), topdown=in_order)


def walk(top: Any, topdown: bool = True,
         onerror: Optional[Callable[[Exception], Any]] = None
         ) -> Iterator[Tuple[str, List[str], List[str]]]:
    """``tf.io.gfile.walk``: ``(dirname, subdirectories, files)`` for ``top`` and every
    directory below it, parents first when ``topdown``.

    Raises:
      ValueError: for an ``onerror`` callback (directories that cannot be listed
        are skipped, as ``os.walk`` does).
    """
    if onerror is not None:
        raise ValueError("tf.io.gfile.walk: onerror callbacks are not supported")
    return Walk(top, in_order=topdown)


__all__ = ["GFile", "Open", "FastGFile", "Exists", "IsDirectory", "MakeDirs", "MkDir",
           "ListDirectory", "Glob", "Remove", "DeleteRecursively", "Rename", "Copy",
           "FileStatistics", "Stat", "Walk", "get_registered_schemes"]
