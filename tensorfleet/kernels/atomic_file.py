"""Atomic file replacement: readers of a path see the old file or the new, never a mix.

Checkpoint shards, checkpoint indexes, the ``checkpoint`` state file and exported
meta graphs are all written this way: to a temporary name in the target directory
(so the rename cannot cross file systems; a random part keeps concurrent writers
apart), fsynced, renamed over the target, and the directory fsynced so the rename
itself survives a crash. A failed write removes its temporary file and leaves the
previous file untouched.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from typing import Iterator

__all__ = ["atomic_replace", "atomic_write", "fsync_dir"]


def fsync_dir(path: str) -> None:
    """Makes a rename in directory ``path`` durable (best effort: not every OS can)."""
    try:
        fd = os.open(path or ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_replace(path: str) -> Iterator[str]:
    """Yields a temporary path beside ``path`` for the ``with`` body to write; when the
    body succeeds the file is fsynced and renamed over ``path``, when it fails (or the
    rename does) the temporary file is removed and the exception propagates."""
    directory = os.path.dirname(path)
    tmp = f"{path}.tmp-{uuid.uuid4().hex}"
    try:
        yield tmp
        # Writers close their own handles; data reaches the disk through any descriptor.
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    fsync_dir(directory)


def atomic_write(path: str, data: bytes) -> None:
    """Writes ``data`` to ``path`` atomically (see ``atomic_replace``)."""
    with atomic_replace(path) as tmp:
        with open(tmp, "wb") as f:
            f.write(data)
