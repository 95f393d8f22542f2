"""``LocalCLIDebugWrapperSession``: wraps a session so that each ``run`` call first asks on
the terminal what to do, then shows the intermediate tensors the run computed.

Commands before a run: ``run`` (run once, keeping every intermediate tensor), ``run -n``
(run without keeping them), ``run -t N`` (the next N runs without asking), ``run -f
FILTER`` (run without asking until a kept tensor passes the registered filter FILTER),
``exit`` (stop debugging: later runs pass straight through), ``help``. After a run that
kept its tensors: ``lt [-f FILTER]`` lists them (name, dtype, shape), ``pt NAME`` prints
one, ``continue`` (or ``run``) returns the run's result to the program.

The intermediate tensors are the numeric outputs of the ops the fetches depend on, fetched
in the same ``run`` call: those ops run anyway, so nothing extra executes.
"""

from __future__ import annotations

import logging
import re
import shlex
import sys
import threading
from typing import Any, Callable, Dict, List, Optional, TextIO

import numpy as np

from tensorfleet.framework.graph import Operation, Tensor
from tensorfleet.framework.nest import flatten

logger = logging.getLogger(__name__)

TensorFilter = Callable[["DebugTensorDatum", np.ndarray], bool]


class DebugTensorDatum:
    """Which tensor a kept value is: ``node_name``, ``output_slot``, ``tensor_name``."""

    def __init__(self, node_name: str, output_slot: int):
        self.node_name = node_name
        self.output_slot = output_slot

    @property
    def tensor_name(self) -> str:
        return f"{self.node_name}:{self.output_slot}"

    def __repr__(self) -> str:
        return f"DebugTensorDatum({self.tensor_name})"


def has_inf_or_nan(datum: DebugTensorDatum, tensor: Any) -> bool:
    """True when ``tensor`` is a floating-point (or complex) array holding an inf or NaN."""
    arr = np.asarray(tensor)
    if arr.dtype.kind not in "fc":
        return False
    return bool(np.any(~np.isfinite(arr)))


def _ancestor_tensors(fetches: Any) -> List[Tensor]:
    """The numeric outputs of every op the fetches depend on (data and control inputs)."""
    roots = [f.op if isinstance(f, Tensor) else f for f in flatten(fetches)
             if isinstance(f, (Tensor, Operation))]
    seen, stack, out = set(), list(roots), []
    while stack:
        op = stack.pop()
        if id(op) in seen:
            continue
        seen.add(id(op))
        for t in op.outputs:
            np_dtype = getattr(t.dtype, "as_numpy_dtype", None)
            try:
                kind = np.dtype(np_dtype).kind if np_dtype is not None else ""
            except TypeError:
                kind = ""
            if kind in "biufc" and kind:
                out.append(t)
        stack.extend(t.op for t in op.inputs)
        stack.extend(op.control_inputs)
    return sorted(out, key=lambda t: t.name)


class LocalCLIDebugWrapperSession:
    """A session whose ``run`` is driven from a line-based command-line interface.

    Args:
      sess: the session to wrap.
      dump_root: not used by the in-memory interface; must be None.
      ui_type: ``"readline"`` or ``"curses"``; both get the line-based interface (a
        warning says so for ``"curses"``).
      thread_name_filter: a regular expression; only runs from threads whose name matches
        are debugged, the others pass through.
      stdin, stdout: where commands are read from and output goes (the terminal by
        default).
    """

    def __init__(self, sess: Any, dump_root: Optional[str] = None, ui_type: str = "curses",
                 thread_name_filter: Optional[str] = None, stdin: Optional[TextIO] = None,
                 stdout: Optional[TextIO] = None):
        if dump_root is not None:
            raise ValueError("LocalCLIDebugWrapperSession keeps tensors in memory; dump_root "
                             "is not supported")
        if ui_type not in ("curses", "readline"):
            raise ValueError(f"ui_type must be 'curses' or 'readline', got {ui_type!r}")
        if ui_type == "curses":
            logger.warning("LocalCLIDebugWrapperSession: the line-based (readline) interface "
                           "is used; there is no curses interface")
        self._thread_filter = re.compile(thread_name_filter) if thread_name_filter else None
        self._sess = sess
        self._stdin = stdin
        self._stdout = stdout
        self._filters: Dict[str, TensorFilter] = {}
        self._skip_runs = 0
        self._until_filter: Optional[str] = None
        self._active = True
        self.run_call_count = 0

    # -- the wrapped session ------------------------------------------------------------
    @property
    def graph(self) -> Any:
        return self._sess.graph

    @property
    def sess_str(self) -> str:
        return getattr(self._sess, "sess_str", "")

    def close(self) -> None:
        self._sess.close()

    def __enter__(self) -> "LocalCLIDebugWrapperSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._sess, name)

    def add_tensor_filter(self, filter_name: str, tensor_filter: TensorFilter) -> None:
        """Registers ``tensor_filter(datum, value) -> bool`` as ``filter_name`` for ``run -f``
        and ``lt -f``."""
        if not callable(tensor_filter):
            raise TypeError(f"tensor_filter must be callable, got {tensor_filter!r}")
        self._filters[filter_name] = tensor_filter

    # -- the interface ------------------------------------------------------------------
    def _write(self, text: str) -> None:
        (self._stdout or sys.stdout).write(text + "\n")

    def _read(self, prompt: str) -> str:
        out = self._stdout or sys.stdout
        out.write(prompt)
        out.flush()
        line = (self._stdin or sys.stdin).readline()
        if not line:
            raise EOFError("tfdbg: end of input while waiting for a command")
        return line.strip()

    def _debugged_thread(self) -> bool:
        if self._thread_filter is None:
            return True
        return bool(self._thread_filter.match(threading.current_thread().name))

    def run(self, fetches: Any, feed_dict: Any = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs ``fetches`` as the wrapped session does, stopping at the interface first."""
        self.run_call_count += 1
        if not self._active or not self._debugged_thread():
            return self._sess.run(fetches, feed_dict, options, run_metadata)
        if self._until_filter is not None:
            return self._run_until_filter(fetches, feed_dict, options, run_metadata)
        if self._skip_runs > 0:
            self._skip_runs -= 1
            return self._sess.run(fetches, feed_dict, options, run_metadata)
        self._write(f"tfdbg: run #{self.run_call_count} of {fetches!r}")
        while True:
            args = shlex.split(self._read("tfdbg> "))
            if not args:
                continue
            cmd, rest = args[0], args[1:]
            if cmd in ("run", "r"):
                if rest == ["-n"]:
                    return self._sess.run(fetches, feed_dict, options, run_metadata)
                if len(rest) == 2 and rest[0] == "-t":
                    self._skip_runs = max(int(rest[1]) - 1, 0)
                    return self._sess.run(fetches, feed_dict, options, run_metadata)
                if len(rest) == 2 and rest[0] == "-f":
                    if rest[1] not in self._filters:
                        self._write(f"tfdbg: no filter named {rest[1]!r}; registered: "
                                    f"{sorted(self._filters)}")
                        continue
                    self._until_filter = rest[1]
                    return self._run_until_filter(fetches, feed_dict, options, run_metadata)
                if rest:
                    self._write(f"tfdbg: unknown run options {rest}")
                    continue
                result, kept = self._run_keeping(fetches, feed_dict, options, run_metadata)
                return self._after_run(result, kept)
            if cmd in ("exit", "quit"):
                self._active = False
                return self._sess.run(fetches, feed_dict, options, run_metadata)
            self._write(self._help() if cmd in ("help", "h") else
                        f"tfdbg: unknown command {cmd!r}; type help")

    def _run_until_filter(self, fetches: Any, feed_dict: Any, options: Any,
                          run_metadata: Any) -> Any:
        result, kept = self._run_keeping(fetches, feed_dict, options, run_metadata)
        if not self._matches(kept, self._until_filter):
            return result
        self._write(f"tfdbg: filter {self._until_filter!r} passed in run "
                    f"#{self.run_call_count}")
        self._until_filter = None
        return self._after_run(result, kept)

    @staticmethod
    def _help() -> str:
        return ("run | run -n | run -t N | run -f FILTER | exit\n"
                "after a run: lt [-f FILTER] | pt TENSOR | continue")

    def _run_keeping(self, fetches: Any, feed_dict: Any, options: Any,
                     run_metadata: Any) -> tuple:
        extra = _ancestor_tensors(fetches)
        result, values = self._sess.run((fetches, extra), feed_dict, options, run_metadata)
        kept = {t.name: (DebugTensorDatum(t.op.name, t.value_index), np.asarray(v))
                for t, v in zip(extra, values)}
        return result, kept

    def _matches(self, kept: Dict[str, tuple], filter_name: str) -> List[str]:
        f = self._filters[filter_name]
        return [n for n, (datum, value) in kept.items() if f(datum, value)]

    def _after_run(self, result: Any, kept: Dict[str, tuple]) -> Any:
        self._write(f"tfdbg: {len(kept)} tensors kept; lt lists them")
        while True:
            args = shlex.split(self._read("tfdbg> "))
            if not args:
                continue
            cmd, rest = args[0], args[1:]
            if cmd in ("continue", "c", "run", "r"):
                return result
            if cmd == "lt":
                names = list(kept)
                if len(rest) == 2 and rest[0] == "-f":
                    if rest[1] not in self._filters:
                        self._write(f"tfdbg: no filter named {rest[1]!r}")
                        continue
                    names = self._matches(kept, rest[1])
                for n in names:
                    v = kept[n][1]
                    self._write(f"{n}\t{v.dtype}\t{list(v.shape)}")
            elif cmd == "pt" and len(rest) == 1:
                name = rest[0] if ":" in rest[0] else rest[0] + ":0"
                if name not in kept:
                    self._write(f"tfdbg: no kept tensor named {rest[0]!r}")
                else:
                    self._write(f"Tensor {name!r}:\n{np.array2string(kept[name][1])}")
            elif cmd in ("exit", "quit"):
                self._active = False
                return result
            else:
                self._write(self._help() if cmd in ("help", "h") else
                            f"tfdbg: unknown command {cmd!r}; type help")


__all__ = ["DebugTensorDatum", "LocalCLIDebugWrapperSession", "has_inf_or_nan"]
