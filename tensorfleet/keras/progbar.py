"""``tf.keras.utils.Progbar``: a progress bar with running averages of values, written to
standard output, and the switch for Keras's interactive (progress bar) output."""

from __future__ import annotations

import sys
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

_INTERACTIVE = {"enabled": True}


def enable_interactive_logging() -> None:
    """Progress bars and summaries write to standard output (the default)."""
    _INTERACTIVE["enabled"] = True


def disable_interactive_logging() -> None:
    """Progress bars write nothing."""
    _INTERACTIVE["enabled"] = False


def is_interactive_logging_enabled() -> bool:
    """Whether progress bars write to standard output."""
    return _INTERACTIVE["enabled"]


def _format_value(v: float) -> str:
    return f" {v:.4f}" if abs(v) > 1e-3 else f" {v:.4e}"


class Progbar:
    """Progress towards ``target`` steps (``None`` when unknown): ``update(current,
    values)`` draws the bar with the mean of each value over the steps so far (the last
    value for names in ``stateful_metrics``); ``verbose=2`` writes one line at the end
    only, ``verbose=0`` nothing."""

    def __init__(self, target: Optional[int], width: int = 30, verbose: int = 1,
                 interval: float = 0.05, stateful_metrics: Optional[Sequence[str]] = None,
                 unit_name: str = "step"):
        if verbose not in (0, 1, 2):
            raise ValueError(f"Progbar: verbose must be 0, 1 or 2, got {verbose!r}")
        self.target, self.width, self.verbose = target, width, verbose
        self.interval, self.unit_name = interval, unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._values: Dict[str, Any] = {}
        self._values_order: List[str] = []
        self._start = time.time()
        self._last_update = 0.0
        self._seen_so_far = 0
        self._total_width = 0

    def _write(self, text: str) -> None:
        if is_interactive_logging_enabled():
            sys.stdout.write(text)
            sys.stdout.flush()

    def update(self, current: int, values: Optional[Sequence[Tuple[str, Any]]] = None,
               finalize: Optional[bool] = None) -> None:
        """Moves the bar to step ``current`` and folds in ``values`` (name, value) pairs."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            if name not in self._values_order:
                self._values_order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = value
            else:
                steps = max(current - self._seen_so_far, 1)
                total, count = self._values.get(name, [0.0, 0])
                self._values[name] = [total + float(value) * steps, count + steps]
        self._seen_so_far = current
        now = time.time()
        if self.verbose == 0:
            return
        if self.verbose == 1:
            if now - self._last_update < self.interval and not finalize:
                return
            self._write(self._bar(current, now, finalize))
        elif finalize:
            self._write(self._summary(current, now) + "\n")
        self._last_update = now

    def add(self, n: int, values: Optional[Sequence[Tuple[str, Any]]] = None) -> None:
        """``update`` ``n`` steps further."""
        self.update(self._seen_so_far + n, values)

    def _metrics(self) -> str:
        out = ""
        for name in self._values_order:
            v = self._values[name]
            if isinstance(v, list):
                out += f" - {name}:" + _format_value(v[0] / max(1, v[1]))
            else:
                out += f" - {name}: {v}"
        return out

    def _summary(self, current: int, now: float) -> str:
        elapsed = now - self._start
        per_unit = elapsed / current if current else 0.0
        return (f"{current}/{self.target if self.target is not None else 'Unknown'} - "
                f"{elapsed:.0f}s {per_unit * 1e3:.0f}ms/{self.unit_name}" + self._metrics())

    def _bar(self, current: int, now: float, finalize: bool) -> str:
        if self.target is not None:
            digits = len(str(self.target))
            done = int(self.width * min(current, self.target) / max(self.target, 1))
            bar = f"{current:{digits}d}/{self.target} ["
            bar += "=" * max(done - 1, 0) + (">" if current < self.target else "=") * (done > 0)
            bar += "." * (self.width - done) + "]"
        else:
            bar = f"{current:7d}/Unknown"
        elapsed = now - self._start
        if self.target is not None and not finalize and current:
            eta = elapsed / current * (self.target - current)
            timing = f" - ETA: {eta:.0f}s"
        else:
            timing = f" - {elapsed:.0f}s"
        line = "\r" + bar + timing + self._metrics()
        self._total_width = len(line)
        return line + ("\n" if finalize else "")
