"""The standard hooks of ``tf.train``: stopping, logging, NaN checks, final ops.

Hooks that write files (checkpoints, summaries, steps/sec) live in
``saver_hooks`` and are re-exported here under their TensorFlow names, so
``from tensorfleet.training.basic_hooks import CheckpointSaverHook`` works.

Most hooks read the global step. They fetch it *in the same step* as the
caller's fetches, so the value they see may be taken before or after that
step's increment; hooks that act on a step boundary therefore treat the value
plus one as a hint and confirm with a separate read before acting.
"""

from __future__ import annotations

import importlib
import logging
import time
from typing import Any, Callable, Dict, Optional, Sequence, Tuple, Union

import numpy as np

from tensorfleet.framework.graph import get_default_graph
from tensorfleet.training import checkpoint_management as cm
from tensorfleet.training import training_util
from tensorfleet.training.session_run_hook import (SessionRunArgs, SessionRunContext,
                                                   SessionRunHook, SessionRunValues)

logger = logging.getLogger(__name__)

# The last four names are served by __getattr__ below, from saver_hooks.
__all__ = ["SecondOrStepTimer", "StopAtStepHook", "nothing_to_train_message",  # noqa: F822
           "LoggingTensorHook",
           "NanTensorHook", "NanLossDuringTrainingError", "FinalOpsHook", "FeedFnHook",
           "GlobalStepWaiterHook", "CheckpointSaverListener", "CheckpointSaverHook",
           "StepCounterHook", "SummarySaverHook"]

# Names defined in saver_hooks (which imports this module for the timer).
_FROM_SAVER_HOOKS = ("CheckpointSaverListener", "CheckpointSaverHook", "StepCounterHook",
                     "SummarySaverHook")


def __getattr__(name: str) -> Any:
    # Loaded on first use rather than at import time: saver_hooks imports this
    # module, so a top-level import here would be circular.
    if name in _FROM_SAVER_HOOKS:
        return getattr(importlib.import_module("tensorfleet.training.saver_hooks"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def require_global_step(hook_name: str) -> Any:
    """The default graph's global step, or RuntimeError naming the hook that needs it."""
    gs = training_util.get_global_step()
    if gs is None:
        raise RuntimeError(f"Global step should be created to use {hook_name}; call "
                           f"tf.train.get_or_create_global_step() while building the model.")
    return gs


class SecondOrStepTimer:
    """Decides when something periodic is due: every N seconds or every N steps.

    Args:
      every_secs: trigger when this many seconds passed since the last trigger.
      every_steps: trigger when the step advanced this much since the last trigger.
      Exactly one must be given.
    """

    def __init__(self, every_secs: Optional[float] = None, every_steps: Optional[int] = None):
        if (every_secs is None) == (every_steps is None):
            raise ValueError(f"Exactly one of every_secs and every_steps should be provided "
                             f"(got every_secs={every_secs!r}, every_steps={every_steps!r}).")
        if every_steps is not None and every_steps <= 0:
            raise ValueError(f"every_steps must be positive, got {every_steps}")
        self._every_secs = every_secs
        self._every_steps = every_steps
        self.reset()

    def reset(self) -> None:
        """Forgets the last trigger: the next ``should_trigger_for_step`` is True."""
        self._last_time: Optional[float] = None
        self._last_step: Optional[int] = None

    def should_trigger_for_step(self, step: int) -> bool:
        """True when the action is due at ``step`` (always on the first call)."""
        if self._last_step is None:
            return True
        if step == self._last_step:
            # Never twice for the same step, whatever the clock says.
            return False
        if self._every_secs is not None:
            return time.monotonic() >= self._last_time + self._every_secs
        return step >= self._last_step + self._every_steps

    def update_last_triggered_step(self, step: int) -> Tuple[Optional[float], Optional[int]]:
        """Records a trigger at ``step``; returns (seconds, steps) since the previous one,
        or (None, None) for the first trigger."""
        now = time.monotonic()
        if self._last_time is None:
            elapsed: Tuple[Optional[float], Optional[int]] = (None, None)
        else:
            elapsed = (now - self._last_time, step - self._last_step)
        self._last_time = now
        self._last_step = step
        return elapsed

    def last_triggered_step(self) -> Optional[int]:
        """The step of the last trigger, or None."""
        return self._last_step


def nothing_to_train_message(step: int, last_step: int,
                             directory: Optional[str] = None) -> str:
    """The one line said when training starts at or past its last step."""
    where = f" (checkpoint directory {directory})" if directory else ""
    return (f"already at global step {step}{where}, the last step is {last_step}: "
            f"nothing to train; use a new checkpoint directory or a higher last step")


class StopAtStepHook(SessionRunHook):
    """Requests a stop once the global step reaches a given value.

    Args:
      num_steps: stop after this many more steps than the global step had when
        the first session was created.
      last_step: stop when the global step reaches this value.
      Exactly one must be given.
    """

    def __init__(self, num_steps: Optional[int] = None, last_step: Optional[int] = None):
        if (num_steps is None) == (last_step is None):
            raise ValueError("One of num_steps or last_step must be specified.")
        if num_steps is not None and num_steps < 0:
            raise ValueError(f"num_steps must be non-negative, got {num_steps}")
        if last_step is not None and last_step < 0:
            raise ValueError(f"last_step must be non-negative, got {last_step}")
        self._num_steps = num_steps
        self._last_step = last_step
        self._global_step_tensor: Any = None
        # Where a restored global step came from, named when there is nothing to
        # train; MonitoredTrainingSession sets it to its checkpoint_dir.
        self.checkpoint_dir: Optional[str] = None

    def begin(self) -> None:
        self._global_step_tensor = require_global_step("StopAtStepHook")

    def after_create_session(self, session: Any, coord: Any) -> None:
        step = int(session.run(self._global_step_tensor))
        if self._last_step is None:
            self._last_step = step + self._num_steps
        if step >= self._last_step and coord is not None:
            # A run at (or past) the target must not take one more step: stopping the
            # coordinator makes should_stop() true before any run.
            if self._restored_at_last_step():
                # A warning, not info: a rerun into an old directory otherwise looks
                # like a successful training that did nothing.
                logger.warning("%s", nothing_to_train_message(step, self._last_step,
                                                              self.checkpoint_dir))
            else:
                # The other workers took the job to its last step while this session
                # was being made: the job is done, not misdirected.
                logger.info("global step %d reached the last step %d while this session "
                            "started: the other workers trained the rest", step,
                            self._last_step)
            coord.request_stop()

    def _restored_at_last_step(self) -> bool:
        """Whether the checkpoint directory held the last step before this run (a rerun
        into an old directory). Without a directory nothing was restored, so a global
        step already at the last step was reached by the other workers of this job."""
        if not self.checkpoint_dir:
            return False
        latest = cm.latest_checkpoint(self.checkpoint_dir)
        if latest is None:
            return False
        try:
            return int(latest.rsplit("-", 1)[1]) >= self._last_step
        except (IndexError, ValueError):
            return True

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(self._global_step_tensor)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if int(run_values.results) + 1 >= self._last_step:
            # The fetched value may predate this step's increment; confirm.
            step = int(run_context.session.run(self._global_step_tensor))
            if step >= self._last_step:
                run_context.request_stop()


def _resolve(graph: Any, t: Any) -> Any:
    return graph.as_graph_element(t) if isinstance(t, str) else t


class LoggingTensorHook(SessionRunHook):
    """Logs the values of tensors (at INFO) every N local steps, every N seconds,
    and/or at the end.

    Args:
      tensors: a dict from tag to tensor (or tensor name), or a list of tensors or
        names (their names become the tags).
      every_n_iter: log every this many ``run`` calls of this session.
      every_n_secs: log when this many seconds passed since the last log.
      at_end: also log once in ``end()``.
      formatter: a function from the dict {tag: value} to the string to log.
    """

    def __init__(self, tensors: Union[Dict[str, Any], Sequence[Any]],
                 every_n_iter: Optional[int] = None, every_n_secs: Optional[float] = None,
                 at_end: bool = False,
                 formatter: Optional[Callable[[Dict[str, Any]], str]] = None):
        only_log_at_end = at_end and every_n_iter is None and every_n_secs is None
        if not only_log_at_end and (every_n_iter is None) == (every_n_secs is None):
            raise ValueError("either at_end and/or exactly one of every_n_iter and every_n_secs "
                             "must be provided.")
        if every_n_iter is not None and every_n_iter <= 0:
            raise ValueError(f"invalid every_n_iter={every_n_iter}.")
        if isinstance(tensors, dict):
            self._tag_order = list(tensors.keys())
            self._tensors = dict(tensors)
        else:
            tensors = list(tensors)
            self._tag_order = [t if isinstance(t, str) else t.name for t in tensors]
            self._tensors = dict(zip(self._tag_order, tensors))
        self._formatter = formatter
        self._log_at_end = at_end
        self._timer = None if only_log_at_end else SecondOrStepTimer(
            every_secs=every_n_secs, every_steps=every_n_iter)
        self._current: Dict[str, Any] = {}
        self._iter_count = 0
        self._should_trigger = False

    def begin(self) -> None:
        if self._timer is not None:
            self._timer.reset()
        self._iter_count = 0
        graph = get_default_graph()
        # Names are resolved now, while lookups in the (unfinalized) graph are cheap.
        self._current = {tag: _resolve(graph, t) for tag, t in self._tensors.items()}

    def before_run(self, run_context: SessionRunContext) -> Optional[SessionRunArgs]:
        self._should_trigger = (self._timer is not None
                                and self._timer.should_trigger_for_step(self._iter_count))
        return SessionRunArgs(self._current) if self._should_trigger else None

    def _log_tensors(self, values: Dict[str, Any]) -> None:
        elapsed = None
        if self._timer is not None:
            elapsed, _ = self._timer.update_last_triggered_step(self._iter_count)
        if self._formatter is not None:
            logger.info("%s", self._formatter(values))
            return
        line = ", ".join(f"{tag} = {values[tag]}" for tag in self._tag_order)
        if elapsed is not None:
            logger.info("%s (%.3f sec)", line, elapsed)
        else:
            logger.info("%s", line)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        if self._should_trigger:
            self._log_tensors(run_values.results)
        self._iter_count += 1

    def end(self, session: Any) -> None:
        if self._log_at_end:
            self._log_tensors(session.run(self._current))


class NanLossDuringTrainingError(RuntimeError):
    """Raised by ``NanTensorHook`` when the loss is NaN; ``step`` names the step."""

    def __init__(self, step: Optional[int] = None, message: Optional[str] = None):
        self.step = step
        super().__init__(message or (f"NaN loss during training at step {step}."
                                     if step is not None else "NaN loss during training."))


class NanTensorHook(SessionRunHook):
    """Checks the loss of every step for NaN; raises or requests a stop.

    The loss is fetched in the same ``run`` as the train op, so -- as in
    TensorFlow -- the check happens *after* the step: by the time the hook sees
    a NaN the update of that step has already been applied. To keep the
    parameters clean, gate the update in the graph on a finite loss, e.g.
    ``train_op = tf.cond(tf.reduce_all(tf.is_finite(loss)), lambda:
    opt.apply_gradients(grads, global_step=gs), tf.no_op)``: the NaN step then
    changes nothing (not even the global step) and this hook still reports it.

    Args:
      loss_tensor: the scalar loss.
      fail_on_nan_loss: raise ``NanLossDuringTrainingError`` (True) or log a
        warning and request a stop (False).
    """

    def __init__(self, loss_tensor: Any, fail_on_nan_loss: bool = True):
        self._loss_tensor = loss_tensor
        self._fail_on_nan_loss = fail_on_nan_loss
        self._global_step_tensor: Any = None
        self._runs = 0

    def begin(self) -> None:
        # The global step is optional here: without one the hook counts its runs.
        self._global_step_tensor = training_util.get_global_step()
        self._runs = 0

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        fetches = {"loss": self._loss_tensor}
        if self._global_step_tensor is not None:
            fetches["step"] = self._global_step_tensor
        return SessionRunArgs(fetches)

    def after_run(self, run_context: SessionRunContext, run_values: SessionRunValues) -> None:
        results = run_values.results
        self._runs += 1
        if not np.any(np.isnan(results["loss"])):
            return
        if "step" in results:
            step = int(results["step"])
            where = f"global step {step}"
        else:
            step = self._runs
            where = f"run {step} of this session"
        message = f"NaN loss during training at {where}."
        if self._fail_on_nan_loss:
            logger.error("Model diverged with loss = NaN at %s.", where)
            raise NanLossDuringTrainingError(step, message)
        logger.warning("Model diverged with loss = NaN at %s; requesting stop.", where)
        run_context.request_stop()


class FinalOpsHook(SessionRunHook):
    """Runs ops (or evaluates tensors) once when the session ends.

    Args:
      final_ops: anything ``Session.run`` accepts as fetches.
      final_ops_feed_dict: the feeds for that run.
    """

    def __init__(self, final_ops: Any, final_ops_feed_dict: Optional[dict] = None):
        self._final_ops = final_ops
        self._final_ops_feed_dict = final_ops_feed_dict
        self._final_ops_values: Any = None

    @property
    def final_ops_values(self) -> Any:
        """The values of ``final_ops`` from ``end()`` (None before it ran)."""
        return self._final_ops_values

    def end(self, session: Any) -> None:
        if self._final_ops is None:
            return
        try:
            self._final_ops_values = session.run(self._final_ops,
                                                 feed_dict=self._final_ops_feed_dict)
        except Exception as e:
            # Usually an exhausted input feeding the final ops; say which hook it was.
            logger.warning("FinalOpsHook: running the final ops failed: %s", e)
            raise


class FeedFnHook(SessionRunHook):
    """Adds the feeds returned by ``feed_fn()`` to every step."""

    def __init__(self, feed_fn: Callable[[], dict]):
        self.feed_fn = feed_fn

    def before_run(self, run_context: SessionRunContext) -> SessionRunArgs:
        return SessionRunArgs(fetches=None, feed_dict=self.feed_fn())


class GlobalStepWaiterHook(SessionRunHook):
    """Delays a worker's first step until the global step reaches ``wait_until_step``.

    Used so that replicas start after the chief has trained a little (slow
    start of asynchronous training).
    """

    # How often the global step is read while waiting.
    poll_secs = 0.5

    def __init__(self, wait_until_step: int):
        self._wait_until_step = int(wait_until_step)
        self._worker_is_started = False
        self._global_step_tensor: Any = None

    def begin(self) -> None:
        self._worker_is_started = False
        self._global_step_tensor = require_global_step("GlobalStepWaiterHook")

    def before_run(self, run_context: SessionRunContext) -> None:
        if self._worker_is_started:
            return None
        if self._wait_until_step <= 0:
            self._worker_is_started = True
            return None
        logger.info("Waiting for global step %d before starting training.",
                    self._wait_until_step)
        last_logged = 0
        while True:
            current = int(run_context.session.run(self._global_step_tensor))
            if current >= self._wait_until_step:
                self._worker_is_started = True
                return None
            if current - last_logged >= 1000:
                logger.info("Waiting for global step %d before starting training. Current "
                            "step is %d.", self._wait_until_step, current)
                last_logged = current
            time.sleep(self.poll_secs)

