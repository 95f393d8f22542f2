"""Stopping training cleanly on SIGTERM, so the chief checkpoints before it exits.

Cluster managers (Kubernetes, Slurm, ``tensorfleet launch``) end a task with
SIGTERM and kill it a grace period later. The chief's MonitoredTrainingSession
installs ``StopOnSignalHook``: the signal only requests a stop, the current step
finishes, and the session's normal end (``CheckpointSaverHook.end``) writes a
checkpoint of that step before the program returns.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any, Dict, Optional, Sequence

from tensorfleet.training.session_run_hook import SessionRunHook

logger = logging.getLogger(__name__)


def stopped_message(signal_name: str, checkpoint_path: str) -> str:
    """The one line a chief says after a signal stopped it and its checkpoint is written
    (``tensorfleet launch`` reads it back to say where the checkpoint went)."""
    suffix = checkpoint_path.rsplit("-", 1)[-1]
    step = f" (global step {suffix})" if suffix.isdigit() else ""
    return (f"stopped by {signal_name}: wrote checkpoint {checkpoint_path}{step}; "
            f"a restart with the same checkpoint directory resumes from it")


class StopOnSignalHook(SessionRunHook):
    """Requests a stop after the current step when one of ``signals`` arrives."""

    def __init__(self, signals: Sequence[int] = (signal.SIGTERM,),
                 checkpoint_dir: Optional[str] = None):
        self._signals = tuple(signals)
        # Where the final checkpoint goes: named in the line said once it is written.
        self._checkpoint_dir = checkpoint_dir
        self._previous: Dict[int, Any] = {}
        self._received: Any = None

    def begin(self) -> None:
        # Python delivers signals to the main thread only; elsewhere nothing to do.
        if threading.current_thread() is not threading.main_thread():
            return
        for s in self._signals:
            try:
                self._previous[s] = signal.signal(s, self._on_signal)
            except (ValueError, OSError) as e:
                logger.debug("Cannot handle signal %s: %s", s, e)

    def _on_signal(self, signum: int, frame: Any) -> None:
        self._received = signum
        logger.warning("Received %s: stopping after this step and writing a checkpoint.",
                       signal.Signals(signum).name)

    def after_run(self, run_context: Any, run_values: Any) -> None:
        if self._received is not None:
            run_context.request_stop()

    def end(self, session: Any) -> None:
        self._restore()
        if self._received is not None and self._checkpoint_dir:
            # Runs after CheckpointSaverHook.end (listed before this hook), so the
            # latest checkpoint is the one this stop wrote.
            from tensorfleet.training.checkpoint_management import latest_checkpoint
            path = latest_checkpoint(self._checkpoint_dir)
            if path:
                logger.warning("%s", stopped_message(signal.Signals(self._received).name,
                                                     path))

    def _restore(self) -> None:
        for s, prev in self._previous.items():
            try:
                signal.signal(s, prev)
            except (ValueError, OSError):
                pass
        self._previous.clear()

    @property
    def received(self) -> Any:
        """The signal that asked for the stop, or None."""
        return self._received


__all__ = ["StopOnSignalHook", "stopped_message"]
