"""``tf.resource_loader``: paths of data files that sit beside a program's source."""

from __future__ import annotations

import inspect
import os
import sys
from typing import Optional

from tensorfleet.platform.build_info import get_lib


def _caller_dir(depth: int) -> str:
    frame = inspect.stack()[depth]
    return os.path.dirname(os.path.abspath(frame.filename))


def get_data_files_path() -> str:
    """The directory of the source file that calls this function."""
    return _caller_dir(2)


def get_path_to_datafile(path: str) -> str:
    """``path`` joined to the directory of the calling source file."""
    return os.path.join(_caller_dir(2), path)


def get_root_dir_with_all_resources() -> str:
    """The directory of the running program's main file (the working directory when the
    program has none, as in an interactive interpreter)."""
    main_file: Optional[str] = getattr(sys.modules.get("__main__"), "__file__", None)
    return os.path.dirname(os.path.abspath(main_file)) if main_file else os.getcwd()


def load_resource(path: str) -> bytes:
    """The bytes of a file given relative to the directory holding the tensorfleet package.

    Raises:
      OSError: the file does not exist.
    """
    return open(os.path.join(os.path.dirname(get_lib()), path), "rb").read()


def readahead_file_path(path: str, readahead: str = "128M") -> str:
    """``path`` itself: local files are read without a read-ahead cache, as in TensorFlow
    since 1.x, and ``readahead`` has no use."""
    return path
