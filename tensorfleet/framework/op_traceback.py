"""Where an op was defined: the frames of the user's code that created it.

TensorFlow 1.x keeps each op's creation stack (``Operation.traceback``) and adds
"defined at file:line" to run-time errors. tensorfleet keeps the innermost few
frames outside its own package, so an error found when a step runs points at the
line of the program that built the op, not at the framework.
"""

from __future__ import annotations

import contextlib
import linecache
import os
import sys
from typing import List, Optional, Tuple

# Frames under this directory (the tensorfleet package) are tensorfleet's own.
_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
# ``with tf.device(...)`` enters through contextlib; its frames are plumbing too.
_CONTEXTLIB = os.path.abspath(contextlib.__file__)


def _own(filename: str) -> bool:
    own = _OWN.get(filename)
    if own is None:
        own = _OWN[filename] = (filename.startswith(_PACKAGE_DIR)
                                or filename == _CONTEXTLIB)
    return own


_OWN: dict = {}  # file name -> whether it is tensorfleet's (few files; looked up per op)

# tf.debugging.disable_traceback_filtering: keep tensorfleet's own frames too.
_FILTERING = [True]


def enable_traceback_filtering() -> None:
    """Op tracebacks (``Operation.traceback``, "defined at" in errors) leave out
    tensorfleet's own frames (the default)."""
    _FILTERING[0] = True


def disable_traceback_filtering() -> None:
    """Op tracebacks keep every frame, tensorfleet's own included (for debugging
    tensorfleet itself)."""
    _FILTERING[0] = False


def is_traceback_filtering_enabled() -> bool:
    """Whether op tracebacks leave out tensorfleet's own frames."""
    return _FILTERING[0]


# Enough to show the caller of a user's helper function; bounded so that a graph of
# many ops does not hold many whole stacks.
MAX_FRAMES = 4

Frame = Tuple[str, int, str]  # filename, line number, function name


def user_frames(limit: int = MAX_FRAMES) -> Tuple[Frame, ...]:
    """The innermost ``limit`` frames of the caller's stack outside tensorfleet,
    outermost first; empty when every frame is tensorfleet's."""
    f = sys._getframe(1)
    filtering = _FILTERING[0]
    while filtering and f is not None and _own(f.f_code.co_filename):
        f = f.f_back
    out: List[Frame] = []
    while f is not None and len(out) < limit:
        code = f.f_code
        if not (filtering and _own(code.co_filename)):
            out.append((code.co_filename, f.f_lineno, code.co_name))
        f = f.f_back
    out.reverse()
    return tuple(out)


def with_source(frames: Tuple[Frame, ...]) -> List[Tuple[str, int, str, str]]:
    """``(filename, lineno, name, line)`` per frame, as TensorFlow's ``Operation.traceback``."""
    return [(fn, ln, name, linecache.getline(fn, ln).strip()) for fn, ln, name in frames]


def location(frames: Tuple[Frame, ...]) -> Optional[str]:
    """``file.py:42`` of the innermost frame, or None."""
    if not frames:
        return None
    fn, ln, _ = frames[-1]
    return f"{fn}:{ln}"


__all__ = ["user_frames", "with_source", "location", "MAX_FRAMES"]
