"""``tf.io.gfile``: the file helpers of ``tf.gfile`` under their later lowercase names."""

from __future__ import annotations

from typing import Any, Callable, Iterator, List, Optional, Tuple

from tensorfleet.gfile import (  # noqa: F401
    Copy as copy, DeleteRecursively as rmtree, Exists as exists, GFile, Glob as glob,
    IsDirectory as isdir, ListDirectory as listdir, MakeDirs as makedirs, MkDir as mkdir,
    Remove as remove, Rename as rename, Stat as stat, Walk as _walk)


def walk(top: Any, topdown: bool = True,
         onerror: Optional[Callable[[Exception], Any]] = None
         ) -> Iterator[Tuple[str, List[str], List[str]]]:
    """``(dirname, subdirectories, files)`` for ``top`` and every directory below it,
    parents first when ``topdown``.

    Raises:
      ValueError: for an ``onerror`` callback (directories that cannot be listed
        are skipped, as ``os.walk`` does).
    """
    if onerror is not None:
        raise ValueError("tf.io.gfile.walk: onerror callbacks are not supported")
    return _walk(top, in_order=topdown)


__all__ = ["GFile", "copy", "exists", "glob", "isdir", "listdir", "makedirs", "mkdir", "remove",
           "rename", "rmtree", "stat", "walk"]
