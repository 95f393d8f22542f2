"""Hooks that write files: checkpoints, summaries and the steps/sec counter.

They are the chief's hooks in ``MonitoredTrainingSession`` (only one task of a
cluster writes checkpoints and event files). The saver, the checkpoint index
and the event-file writer come from ``tensorfleet.training.saver``,
``checkpoint_management`` and ``summary_io``, imported on first use.
"""

from __future__ import annotations

import logging
import os
from typing import Any, List, Optional, Sequence

from tensorfleet.framework.graph import GraphKeys, get_default_graph
from tensorfleet.training.basic_hooks import SecondOrStepTimer, require_global_step
from tensorfleet.training.session_manager import import_training_module
from tensorfleet.training.session_run_hook import (SessionRunArgs, SessionRunContext,
                                                   SessionRunHook, SessionRunValues)

logger = logging.getLogger(__name__)

__all__ = ["CheckpointSaverListener", "CheckpointSaverHook", "StepCounterHook",
           "SummarySaverHook", "scalar_summary_bytes", "write_session_log"]


def _summary_writer_for(output_dir: Optional[str]) -> Any:
    """The shared event-file writer of ``output_dir`` (None when there is no dir)."""
    if not output_dir:
        return None
    try:
        summary_io = import_training_module("summary_io")
    except ImportError as e:
        logger.warning("Summaries for %s disabled: %s", output_dir, e)
        return None
    return summary_io.FileWriterCache.get(output_dir)


def scalar_summary_bytes(tag: str, value: float) -> bytes:
    """A serialized ``Summary`` holding one scalar (``simple_value``).

    Built in Python rather than by a summary op, so that a hook can report a
    number it computed itself without adding ops to the finalized graph.
    """
    summary = import_training_module("summary_ops").proto_class("Summary")()
    entry = summary.value.add()
    entry.tag = tag
    entry.simple_value = float(value)
    return summary.SerializeToString()


def write_session_log(writer: Any, status: str, step: Optional[int]) -> None:
    """Writes a ``SessionLog`` event (``START``, ``STOP``, ``CHECKPOINT``) if the writer
    supports it; TensorBoard uses START to drop events orphaned by a restart."""
    add = getattr(writer, "add_session_log", None)
    if add is None:
        return
    cls = import_training_module("summary_ops").proto_class("SessionLog")
    add(cls(status=getattr(cls, status)), step)


class CheckpointSaverListener:
    """Called by ``CheckpointSaverHook`` around each checkpoint it writes.

    ``after_save`` may return True to ask for training to stop (for example after
    an evaluation found the model good enough).
    """

    def begin(self) -> None:
        """Called from the hook's ``begin()``."""

    def before_save(self, session: Any, global_step_value: int) -> None:
        """Called before each checkpoint is written."""

    def after_save(self, session: Any, global_step_value: int) -> Optional[bool]:
        """Called after each checkpoint is written; True requests a stop."""
        return None

    def end(self, session: Any, global_step_value: int) -> None:
        """Called at the end of training, after the last checkpoint."""


class CheckpointSaverHook(SessionRunHook):
    """Saves a checkpoint every N seconds or steps, when a session is created and at
    the end.

    Args:
      checkpoint_dir: where checkpoints go (``<dir>/<checkpoint_basename>-<step>``).
      save_secs: save every this many seconds.
      save_steps: save every this many global steps. Exactly one of the two.
      saver: the ``Saver`` to use; default: the scaffold's, else the one in the
        ``SAVERS`` collection.
      checkpoint_basename: the checkpoint file prefix.
      scaffold: a ``Scaffold`` providing the saver (not with ``saver``).
      listeners: ``CheckpointSaverListener`` objects.
    """

    def __init__(self, checkpoint_dir: str, save_secs: Optional[float] = None,
                 save_steps: Optional[int] = None, saver: Any = None,
                 checkpoint_basename: str = "model.ckpt", scaffold: Any = None,
                 listeners: Optional[Sequence[CheckpointSaverListener]] = None):
        if saver is not None and scaffold is not None:
            raise ValueError("You cannot provide both saver and scaffold.")
        logger.info("Create CheckpointSaverHook.")
        self._saver = saver
        self._checkpoint_dir = checkpoint_dir
        self._save_path = os.path.join(checkpoint_dir, checkpoint_basename)
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._listeners: List[CheckpointSaverListener] = list(listeners or [])
        self._global_step_tensor: Any = None

    def begin(self) -> None:
        self._global_step_tensor = require_global_step("CheckpointSaverHook")
        for listener in self._listeners:
            listener.begin()

    def after_create_session(self, session: Any, coord: Any) -> None:
        step = int(session.run(self._global_step_tensor))
        # A checkpoint of the initial (or just restored) state, so that a restart
        # before the first periodic save does not lose the initialization.
        if not self._already_saved(step):
            self._save(session, step)
        self._timer.update_last_triggered_step(step)

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        stale = int(run_values.results)
        if self._timer.should_trigger_for_step(stale + 1):
            step = int(run_context.session.run(self._global_step_tensor))
            if self._timer.should_trigger_for_step(step):
                self._timer.update_last_triggered_step(step)
                if self._save(run_context.session, step):
                    run_context.request_stop()

    def end(self, session: Any) -> None:
        step = int(session.run(self._global_step_tensor))
        if step != self._timer.last_triggered_step():
            self._save(session, step)
        for listener in self._listeners:
            listener.end(session, step)

    def _already_saved(self, step: int) -> bool:
        try:
            cm = import_training_module("checkpoint_management")
            latest = cm.latest_checkpoint(self._checkpoint_dir)
        except Exception as e:  # noqa: BLE001 - then simply save again
            logger.debug("Could not look up the latest checkpoint: %s", e)
            return False
        return bool(latest) and os.path.abspath(latest) == os.path.abspath(
            f"{self._save_path}-{step}")

    def _save(self, session: Any, step: int) -> bool:
        """Writes a checkpoint; True when a listener asked to stop."""
        saver = self._get_saver()
        if saver is None:
            return False
        logger.info("Saving checkpoints for %d into %s.", step, self._save_path)
        os.makedirs(self._checkpoint_dir, exist_ok=True)
        for listener in self._listeners:
            listener.before_save(session, step)
        saver.save(session, self._save_path, global_step=step)
        stop = False
        for listener in self._listeners:
            if listener.after_save(session, step):
                logger.info("A CheckpointSaverListener requested that training be stopped: %s",
                            listener)
                stop = True
        return stop

    def _get_saver(self) -> Any:
        if self._saver is not None:
            return self._saver
        if self._scaffold is not None:
            if self._scaffold.saver is None:
                logger.warning("CheckpointSaverHook: the scaffold has no saver; "
                               "not saving checkpoints.")
            return self._scaffold.saver
        savers = get_default_graph().get_collection(GraphKeys.SAVERS)
        if not savers:
            raise RuntimeError(f"No items in collection {GraphKeys.SAVERS!r}. Please add a "
                               f"saver to the collection or provide a saver or scaffold.")
        if len(savers) > 1:
            raise RuntimeError(f"More than one item in collection {GraphKeys.SAVERS!r}. "
                               f"Please indicate which one to use by passing it to the "
                               f"constructor.")
        self._saver = savers[0]
        return self._saver


class StepCounterHook(SessionRunHook):
    """Logs (at INFO) and records in the event file the global steps per second.

    Args:
      every_n_steps: report every this many global steps.
      every_n_secs: report every this many seconds. Exactly one of the two.
      output_dir: the event-file directory (summary written as ``global_step/sec``).
      summary_writer: a writer to use instead of ``output_dir``'s.
    """

    def __init__(self, every_n_steps: Optional[int] = 100, every_n_secs: Optional[float] = None,
                 output_dir: Optional[str] = None, summary_writer: Any = None):
        if (every_n_steps is None) == (every_n_secs is None):
            raise ValueError("exactly one of every_n_steps and every_n_secs should be provided.")
        self._timer = SecondOrStepTimer(every_steps=every_n_steps, every_secs=every_n_secs)
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._global_step_tensor: Any = None
        self._summary_tag = "global_step/sec"

    def begin(self) -> None:
        if self._summary_writer is None:
            self._summary_writer = _summary_writer_for(self._output_dir)
        self._global_step_tensor = require_global_step("StepCounterHook")
        self._summary_tag = self._global_step_tensor.op.name + "/sec"

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        stale = int(run_values.results)
        if not self._timer.should_trigger_for_step(stale + 1):
            return
        step = int(run_context.session.run(self._global_step_tensor))
        if not self._timer.should_trigger_for_step(step):
            return
        secs, steps = self._timer.update_last_triggered_step(step)
        if secs is None or secs <= 0:
            return
        rate = steps / secs
        logger.info("%s: %g", self._summary_tag, rate)
        if self._summary_writer is not None:
            self._summary_writer.add_summary(scalar_summary_bytes(self._summary_tag, rate), step)


class SummarySaverHook(SessionRunHook):
    """Runs the summary op every N steps or seconds and writes its result.

    Args:
      save_steps: save every this many global steps.
      save_secs: save every this many seconds. Exactly one of the two.
      output_dir: the event-file directory.
      summary_writer: a writer to use instead of ``output_dir``'s.
      scaffold: a ``Scaffold`` whose ``summary_op`` is used.
      summary_op: the summary op (or a list of them). Exactly one of
        ``scaffold`` and ``summary_op``.
    """

    def __init__(self, save_steps: Optional[int] = None, save_secs: Optional[float] = None,
                 output_dir: Optional[str] = None, summary_writer: Any = None,
                 scaffold: Any = None, summary_op: Any = None):
        if (scaffold is None) == (summary_op is None):
            raise ValueError("Exactly one of scaffold or summary_op must be provided.")
        self._summary_op = summary_op
        self._summary_writer = summary_writer
        self._output_dir = output_dir
        self._scaffold = scaffold
        self._timer = SecondOrStepTimer(every_secs=save_secs, every_steps=save_steps)
        self._global_step_tensor: Any = None
        self._next_step: Optional[int] = None
        self._request_summary = False

    def begin(self) -> None:
        if self._summary_writer is None:
            self._summary_writer = _summary_writer_for(self._output_dir)
        self._next_step = None
        self._global_step_tensor = require_global_step("SummarySaverHook")

    def _get_summary_op(self) -> Optional[List[Any]]:
        op = self._summary_op if self._summary_op is not None else self._scaffold.summary_op
        if op is None:
            return None
        return list(op) if isinstance(op, (list, tuple)) else [op]

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        self._request_summary = (self._next_step is None
                                 or self._timer.should_trigger_for_step(self._next_step))
        requests = {"global_step": self._global_step_tensor}
        if self._request_summary:
            ops = self._get_summary_op()
            if ops:
                requests["summary"] = ops
        return SessionRunArgs(requests)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._summary_writer is None:
            return
        step = int(run_values.results["global_step"]) + 1
        if self._next_step is None or self._request_summary:
            # Summaries are keyed by step: read the exact value.
            step = int(run_context.session.run(self._global_step_tensor))
        if self._next_step is None:
            write_session_log(self._summary_writer, "START", step)
        if self._request_summary:
            self._timer.update_last_triggered_step(step)
            for summary in run_values.results.get("summary", ()):
                self._summary_writer.add_summary(summary, step)
        self._next_step = step + 1

    def end(self, session: Any) -> None:
        if self._summary_writer is not None:
            self._summary_writer.flush()
