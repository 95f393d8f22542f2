"""``tf.train.ProfilerHook``: every ``save_steps`` steps (or ``save_secs`` seconds) the
step is traced and its Chrome trace written to ``output_dir/timeline-<step>.json``, as
TensorFlow 1.x's hook does. Load the file in ``chrome://tracing`` or Perfetto.

The trace comes from ``RunOptions(trace_level=FULL_TRACE)``: in-process sessions time
every op of the step (see ``runtime/step_stats.py``). A session on a cluster's master
runs steps untimed, so there the hook writes no file (and the session says so once).
"""

from __future__ import annotations

import logging
import os
from typing import Any, Optional

from tensorfleet.distributed.cluster import RunOptions
from tensorfleet.runtime.step_stats import Timeline
from tensorfleet.training.basic_hooks import SecondOrStepTimer, require_global_step
from tensorfleet.training.session_run_hook import (SessionRunArgs, SessionRunContext,
                                                   SessionRunHook, SessionRunValues)

logger = logging.getLogger(__name__)


class ProfilerHook(SessionRunHook):
    """Writes a Chrome trace of one step every ``save_steps`` steps or ``save_secs``
    seconds (exactly one of them).

    Args:
      save_steps: steps between traces.
      save_secs: seconds between traces.
      output_dir: where ``timeline-<global step>.json`` files go (created if missing).
      show_dataflow: draw arrows from each op to the ops that read its outputs.
      show_memory: not supported (no allocations are recorded); must be False.

    Raises:
      ValueError: both or neither of ``save_steps`` and ``save_secs``, or
        ``show_memory``.
    """

    def __init__(self, save_steps: Optional[int] = None, save_secs: Optional[float] = None,
                 output_dir: str = "", show_dataflow: bool = True, show_memory: bool = False):
        if show_memory:
            raise ValueError("ProfilerHook: show_memory=True is not supported; tensorfleet "
                             "records no tensor allocations")
        self._output_file = os.path.join(output_dir, "timeline-{}.json")
        self._show_dataflow = bool(show_dataflow)
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._global_step_tensor: Any = None
        self._next_step: Optional[int] = None
        self._request_trace = False

    def begin(self) -> None:
        """Finds the global step (RuntimeError when there is none)."""
        self._next_step = None
        self._global_step_tensor = require_global_step("ProfilerHook")

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        """Asks for the global step, and for a full trace when one is due."""
        self._request_trace = (self._next_step is not None and
                               self._timer.should_trigger_for_step(self._next_step))
        options = RunOptions(trace_level=RunOptions.FULL_TRACE) if self._request_trace \
            else None
        return SessionRunArgs({"global_step": self._global_step_tensor}, options=options)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        """Writes the trace of a traced step; schedules the next one."""
        stale = int(run_values.results["global_step"])
        if self._next_step is None:
            # The first trace waits a whole period, as the first summary does.
            self._timer.update_last_triggered_step(stale)
        step = stale + 1
        if self._request_trace:
            step = int(run_context.session.run(self._global_step_tensor))
            self._timer.update_last_triggered_step(step)
            stats = getattr(run_values.run_metadata, "step_stats", None)
            if stats is not None:
                self._save(step, self._output_file.format(step), stats)
        self._next_step = step + 1

    def _save(self, step: int, path: str, step_stats: Any) -> None:
        logger.info("Saving timeline for %d into '%s'.", step, path)
        parent = os.path.dirname(path)
        if parent:
            os.makedirs(parent, exist_ok=True)
        text = Timeline(step_stats).generate_chrome_trace_format(
            show_dataflow=self._show_dataflow, show_memory=False)
        tmp = path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)  # a reader never sees half a trace


__all__ = ["ProfilerHook"]
