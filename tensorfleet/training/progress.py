"""``ProgressBarHook``: a tqdm progress bar of the global step, with loss and steps/s.

Give it to the chief (``chief_only_hooks`` of ``MonitoredTrainingSession``), or
to every worker with ``is_chief``: only the chief draws. The bar counts the
global step, so with several asynchronous workers it shows the cluster's
progress and steps/s, not one worker's::

    hooks = [tf.train.StopAtStepHook(last_step=1000)]
    bar = ProgressBarHook(last_step=1000, loss=loss)
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           hooks=hooks, chief_only_hooks=[bar]) as sess:
        ...

Without a monitored session, call ``start(step)``, ``update(step, loss)`` and
``close()`` directly. ``TENSORFLEET_PROGRESS=0`` turns every bar off (for logs
that a CI system keeps); ``=1`` forces it on.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, Optional

from tensorfleet.training import training_util
from tensorfleet.training.session_run_hook import SessionRunArgs, SessionRunHook

logger = logging.getLogger(__name__)

ENV = "TENSORFLEET_PROGRESS"


def progress_enabled(default: bool = True) -> bool:
    """Whether bars are drawn: ``$TENSORFLEET_PROGRESS`` if set, else ``default``."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in ("0", "false", "no", "off"):
        return False
    if raw in ("1", "true", "yes", "on"):
        return True
    return default


class ProgressBarHook(SessionRunHook):
    """Draws the global step as a tqdm bar with the loss and steps/s (chief only).

    Args:
      last_step: the global step training stops at (the bar's total); None: no total.
      loss: a loss tensor to fetch with every step and show; None: no loss.
      is_chief: only the chief draws (pass ``is_chief`` of your worker).
      desc: the bar's label.
      every_n_steps: fetch and redraw every n steps (the bar still counts all).
      file: where to draw (default stderr).
      mininterval: the least time between redraws, in seconds.
    """

    def __init__(self, last_step: Optional[int] = None, loss: Any = None, is_chief: bool = True,
                 desc: str = "train", every_n_steps: int = 1, file: Any = None,
                 mininterval: float = 0.5):
        self.last_step = last_step
        self.loss = loss
        self.enabled = bool(is_chief) and progress_enabled()
        self.desc = desc
        self.every_n_steps = max(1, int(every_n_steps))
        self.file = file
        self.mininterval = mininterval
        self.bar: Any = None
        self.last_loss: Optional[float] = None
        self._global_step: Any = None
        self._calls = 0

    # -- manual use ---------------------------------------------------------------------------
    def start(self, step: int = 0) -> None:
        """Opens the bar at global step ``step``."""
        if not self.enabled or self.bar is not None:
            return
        from tqdm import tqdm
        self.bar = tqdm(total=self.last_step, initial=int(step), desc=self.desc, unit="step",
                        file=self.file if self.file is not None else sys.stderr,
                        mininterval=self.mininterval, dynamic_ncols=True, leave=True,
                        smoothing=0.1)

    def update(self, step: int, loss: Optional[float] = None) -> None:
        """Moves the bar to global step ``step`` and shows ``loss``."""
        if loss is not None:
            self.last_loss = float(loss)
        if self.bar is None:
            return
        step = int(step)
        if self.last_step is not None:
            step = min(step, int(self.last_step))
        if loss is not None:
            self.bar.set_postfix(loss=f"{float(loss):.4f}", refresh=False)
        if step > self.bar.n:
            self.bar.update(step - self.bar.n)

    def close(self) -> None:
        """Draws the final state and closes the bar."""
        if self.bar is not None:
            self.bar.refresh()
            self.bar.close()
            self.bar = None

    # -- SessionRunHook ----------------------------------------------------------------------
    def begin(self) -> None:
        if not self.enabled:
            return
        self._global_step = training_util.get_global_step()
        if self._global_step is None:
            logger.warning("ProgressBarHook: the graph has no global step; no bar is drawn")
            self.enabled = False

    def after_create_session(self, session: Any, coord: Any) -> None:
        if self.enabled and self.bar is None:
            self.start(int(session.run(self._global_step)))

    def before_run(self, run_context: Any) -> Any:
        self._calls += 1
        if not self.enabled or self._calls % self.every_n_steps:
            return None
        fetches = {"step": self._global_step}
        if self.loss is not None:
            fetches["loss"] = self.loss
        return SessionRunArgs(fetches)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        results = getattr(run_values, "results", None)
        if not self.enabled or not results:
            return
        # The step was read before this run's increment: this run finished step + 1.
        self.update(int(results["step"]) + 1, results.get("loss"))

    def end(self, session: Any) -> None:
        if self.bar is not None and self._global_step is not None:
            try:
                self.update(int(session.run(self._global_step)))
            except Exception:  # noqa: BLE001 - a bar must never fail the training run
                logger.debug("ProgressBarHook: could not read the final step", exc_info=True)
        self.close()


__all__ = ["ProgressBarHook", "progress_enabled"]
