"""What the launcher learns from its tasks' output: the lines a task says about its
checkpoint when a signal stopped it, and about having had nothing to train.

The lines are written by ``StopOnSignalHook`` (``stopped_message``) and
``StopAtStepHook`` (``nothing_to_train_message``); the launcher repeats what they say
in its closing line, so a user sees where the checkpoint went without reading every
task's output.
"""

from __future__ import annotations

import re
import threading
from typing import Dict, Optional, Set, Tuple

_CHECKPOINT = re.compile(r"stopped by (SIG[A-Z]+): wrote checkpoint (\S+?)"
                         r"(?: \(global step (\d+)\))?;")
_NOTHING = re.compile(r"already at global step (\d+)\b.*: nothing to train;")
MAX_LINE = 1 << 16  # longer lines (progress bars without newlines) are not read


class TaskReports:
    """Collects, per task, the last checkpoint written on a stop and whether the task
    said it had nothing to train. ``feed`` is called from each task's output pump."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._partial: Dict[str, bytes] = {}
        self.checkpoints: Dict[str, Tuple[str, Optional[int]]] = {}
        self.nothing_to_train: Set[str] = set()

    def feed(self, task: str, data: bytes) -> None:
        """Reads the complete lines of ``data`` (output of ``task``)."""
        text = self._partial.get(task, b"") + data
        lines = text.split(b"\n")
        rest = lines.pop()
        self._partial[task] = rest if len(rest) <= MAX_LINE else b""
        for raw in lines:
            self._line(task, raw.decode("utf-8", "replace"))

    def _line(self, task: str, line: str) -> None:
        m = _CHECKPOINT.search(line)
        if m:
            with self._lock:
                self.checkpoints[task] = (m.group(2), int(m.group(3)) if m.group(3) else None)
            return
        if _NOTHING.search(line):
            with self._lock:
                self.nothing_to_train.add(task)

    def checkpoint_summary(self) -> Optional[str]:
        """``checkpoint /d/model.ckpt-52 (global step 52) written by worker:0``, or None."""
        with self._lock:
            items = sorted(self.checkpoints.items())
        if not items:
            return None
        parts = []
        for task, (path, step) in items:
            at = f" (global step {step})" if step is not None else ""
            parts.append(f"{path}{at} written by {task}")
        return "checkpoint " + "; ".join(parts)


__all__ = ["TaskReports"]
