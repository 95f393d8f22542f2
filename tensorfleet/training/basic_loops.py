"""``tf.train.basic_train_loop``, ``tf.train.checkpoints_iterator`` and the
``tf.train.piecewise_constant_decay`` alias, as TensorFlow 1.x has them."""

from __future__ import annotations

import time
from typing import Any, Callable, Iterator, Optional, Sequence

from tensorfleet import errors
from tensorfleet.training.checkpoint_management import latest_checkpoint
from tensorfleet.training.learning_rate_decay import piecewise_constant

piecewise_constant_decay = piecewise_constant

__all__ = ["basic_train_loop", "checkpoints_iterator", "piecewise_constant_decay"]


def basic_train_loop(supervisor: Any, train_step_fn: Callable[..., Any],
                     args: Optional[Sequence[Any]] = None, kwargs: Optional[dict] = None,
                     master: str = "") -> None:
    """Calls ``train_step_fn(sess, *args, **kwargs)`` in a session of ``supervisor`` until it
    should stop; starts over in a new session when a step raises ``AbortedError``."""
    args = list(args or [])
    kwargs = dict(kwargs or {})
    should_retry = True
    while should_retry:
        try:
            should_retry = False
            with supervisor.managed_session(master) as sess:
                while not supervisor.should_stop():
                    train_step_fn(sess, *args, **kwargs)
        except errors.AbortedError:
            should_retry = True


def checkpoints_iterator(checkpoint_dir: str, min_interval_secs: float = 0,
                         timeout: Optional[float] = None,
                         timeout_fn: Optional[Callable[[], bool]] = None) -> Iterator[str]:
    """Yields each new latest checkpoint of ``checkpoint_dir`` as it appears, at most one per
    ``min_interval_secs``; after ``timeout`` seconds without a new one, stops unless
    ``timeout_fn`` returns False (then waits again)."""
    last: Optional[str] = None
    while True:
        start = time.time()
        found: Optional[str] = None
        while True:
            found = latest_checkpoint(checkpoint_dir)
            if found is not None and found != last:
                break
            if timeout is not None and time.time() - start + 1 > timeout:
                found = None
                break
            time.sleep(1)
        if found is None:
            if timeout_fn is None or timeout_fn():
                return
            continue
        last = found
        yield found
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)
