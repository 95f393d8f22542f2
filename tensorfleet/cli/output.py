"""Merging the output of several tasks on one terminal, each line prefixed by its task.

Task output arrives in arbitrary chunks. Lines end with ``\\n``; progress bars
(tqdm) redraw their line with ``\\r``. The writer keeps track of whose line is
open on the terminal so that a bar keeps redrawing in place under its prefix,
and a line from another task first moves to a fresh line instead of overwriting it.
"""

from __future__ import annotations

import codecs
import os
import re
import sys
import threading
from typing import Callable, Dict, Optional, TextIO, Tuple

_SPLIT = re.compile(r"([^\r\n]*)(\r\n|\n|\r|$)")
_COLORS = ("36", "33", "32", "35", "34", "31")

LineCallback = Callable[[str, str], None]


def use_color(stream: TextIO) -> bool:
    """Colored prefixes only on a terminal, and never with ``NO_COLOR`` set."""
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


class PrefixWriter:
    """Writes task output to ``stream`` with a ``[job:index] `` prefix on every line.

    Thread-safe: one pump thread per task calls ``feed``. ``on_line(task, text)`` is
    called for every complete line (without its prefix and newline).
    """

    def __init__(self, stream: Optional[TextIO] = None, err_stream: Optional[TextIO] = None,
                 color: Optional[bool] = None, on_line: Optional[LineCallback] = None):
        self.stream = stream if stream is not None else sys.stdout
        self.err_stream = err_stream if err_stream is not None else sys.stderr
        self.color = use_color(self.stream) if color is None else color
        self.on_line = on_line
        self._lock = threading.Lock()
        # (task, "cr" | "partial") when a task's text is on the current terminal line.
        self._open: Optional[Tuple[str, str]] = None
        self._decoders: Dict[str, codecs.IncrementalDecoder] = {}
        self._pending_line: Dict[str, str] = {}
        self._colors: Dict[str, str] = {}

    def prefix(self, task: str) -> str:
        if not self.color:
            return f"[{task}] "
        code = self._colors.setdefault(task, _COLORS[len(self._colors) % len(_COLORS)])
        return f"\033[{code}m[{task}]\033[0m "

    def feed(self, task: str, data: bytes, final: bool = False) -> None:
        """Writes a chunk of ``task``'s output (``final`` at its end of file)."""
        dec = self._decoders.get(task)
        if dec is None:
            dec = self._decoders[task] = codecs.getincrementaldecoder("utf-8")("replace")
        text = dec.decode(data, final)
        with self._lock:
            for m in _SPLIT.finditer(text):
                body, term = m.group(1), m.group(2)
                if not body and not term:
                    continue
                self._emit(task, body, "\n" if term == "\r\n" else term)
            if final and self._open is not None and self._open[0] == task:
                self.stream.write("\n")
                self._open = None
                self._line_done(task, "")
            self.stream.flush()

    def _emit(self, task: str, body: str, term: str) -> None:
        w = self.stream.write
        if self._open is not None and self._open[0] != task:
            w("\n")
            self._open = None
        if not body and term == "\r" and (self._open is None or self._open[0] != task):
            # A bar about to redraw on a fresh line: nothing of it to overwrite yet.
            self._pending_line.pop(task, None)
            return
        if self._open == (task, "cr") and not body and term == "\n":
            # "\r\n" split over two chunks, or a bar ended by a bare newline: keep
            # the line as drawn and move on.
            w("\n")
            self._open = None
            return
        if self._open == (task, "partial"):
            w(body)
        elif self._open == (task, "cr"):
            w("\r" + self.prefix(task) + body)
        else:
            w(self.prefix(task) + body)
        if term == "\n":
            w("\n")
            self._open = None
            self._line_done(task, body)
        elif term == "\r":
            self._open = (task, "cr")
            self._pending_line.pop(task, None)
        else:
            self._open = (task, "partial")
            self._pending_line[task] = self._pending_line.get(task, "") + body

    def _line_done(self, task: str, body: str) -> None:
        line = self._pending_line.pop(task, "") + body
        if self.on_line is not None and line:
            self.on_line(task, line)

    def message(self, text: str) -> None:
        """A line from the launcher itself, on the error stream."""
        with self._lock:
            if self._open is not None:
                self.stream.write("\n")
                self.stream.flush()
                self._open = None
            self.err_stream.write(text + "\n")
            self.err_stream.flush()


__all__ = ["PrefixWriter", "use_color"]
