"""``tf.train.CheckpointManager``: numbered saves of a ``tf.train.Checkpoint`` in one
directory, keeping the newest ``max_to_keep`` (and one every
``keep_checkpoint_every_n_hours``), recorded in the directory's ``checkpoint`` state file
so that ``latest_checkpoint`` and a later manager find them."""

from __future__ import annotations

import os
import time
from typing import Any, Callable, List, Optional

from tensorfleet.runtime.session import get_default_session
from tensorfleet.training.checkpoint_management import (get_checkpoint_state,
    remove_checkpoint, update_checkpoint_state)
from tensorfleet.training.checkpoint_object import Checkpoint


class CheckpointManager:
    """Args:
      checkpoint: the ``tf.train.Checkpoint`` to save and restore.
      directory: where the checkpoints and the state file go.
      max_to_keep: how many of the newest checkpoints to keep (None: all).
      keep_checkpoint_every_n_hours: also keep one checkpoint per this many hours.
      checkpoint_name: the file prefix (``<directory>/<name>-<number>``).
      step_counter, checkpoint_interval: with both, ``save`` skips unless the counter
        (a variable read in the session) moved at least ``checkpoint_interval`` since
        the last save.
      init_fn: run by ``restore_or_initialize`` when there is nothing to restore.

    Raises:
      ValueError: a ``max_to_keep`` below 1, or ``checkpoint_interval`` without
        ``step_counter``.
    """

    def __init__(self, checkpoint: Checkpoint, directory: str, max_to_keep: Optional[int],
                 keep_checkpoint_every_n_hours: Optional[float] = None,
                 checkpoint_name: str = "ckpt", step_counter: Any = None,
                 checkpoint_interval: Optional[int] = None,
                 init_fn: Optional[Callable[[], Any]] = None):
        if not isinstance(checkpoint, Checkpoint):
            raise TypeError(f"CheckpointManager needs a tf.train.Checkpoint, got "
                            f"{type(checkpoint).__name__}")
        if max_to_keep is not None and max_to_keep < 1:
            raise ValueError(f"max_to_keep must be a positive integer or None, got "
                             f"{max_to_keep}")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("checkpoint_interval needs a step_counter")
        self._checkpoint = checkpoint
        self._directory = str(directory)
        self._max_to_keep = max_to_keep
        self._keep_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter, self._interval = step_counter, checkpoint_interval
        self._init_fn = init_fn
        self._last_step: Optional[int] = None
        state = get_checkpoint_state(self._directory)
        self._kept: List[str] = list(state.all_model_checkpoint_paths) if state else []
        self._times = {p: time.time() for p in self._kept}
        self._last_preserved = time.time()

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoints(self) -> List[str]:
        """The kept checkpoints, oldest first."""
        return list(self._kept)

    @property
    def latest_checkpoint(self) -> Optional[str]:
        """The newest kept checkpoint, or None."""
        return self._kept[-1] if self._kept else None

    @property
    def checkpoint_interval(self) -> Optional[int]:
        return self._interval

    def save(self, checkpoint_number: Optional[int] = None, check_interval: bool = True,
             session: Any = None) -> Optional[str]:
        """Saves a checkpoint (numbered ``checkpoint_number``, else the checkpoint's save
        counter) and drops the ones no longer kept; returns its path, or None when the
        step interval skipped it."""
        sess = session if session is not None else get_default_session()
        if sess is None:
            raise ValueError("CheckpointManager.save needs a session in graph mode: pass "
                             "session= or call it inside `with tf.Session():`")
        if self._interval is not None:
            step = int(sess.run(self._step_counter))
            if check_interval and self._last_step is not None and \
                    step - self._last_step < self._interval:
                return None
            self._last_step = step
        if checkpoint_number is not None:
            path = self._checkpoint.write(f"{self._prefix}-{int(checkpoint_number)}", sess)
        else:
            path = self._checkpoint.save(self._prefix, sess)
        if path in self._kept:
            self._kept.remove(path)
        self._kept.append(path)
        self._times[path] = time.time()
        self._sweep()
        update_checkpoint_state(self._directory, path, self._kept)
        return path

    def _sweep(self) -> None:
        if self._max_to_keep is None:
            return
        while len(self._kept) > self._max_to_keep:
            old = self._kept.pop(0)
            when = self._times.pop(old, time.time())
            if self._keep_hours is not None and \
                    when - self._last_preserved >= self._keep_hours * 3600:
                self._last_preserved = when  # kept on disk, no longer managed
                continue
            remove_checkpoint(old)

    def restore_or_initialize(self, session: Any = None) -> Optional[str]:
        """Restores the latest checkpoint (running the restore in ``session``, default the
        default session) and returns its path; without one, runs ``init_fn`` and returns
        None."""
        if self.latest_checkpoint is not None:
            status = self._checkpoint.restore(self.latest_checkpoint)
            status.run_restore_ops(session)
            return self.latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None


__all__ = ["CheckpointManager"]
