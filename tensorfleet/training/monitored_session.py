"""``tf.train.MonitoredSession`` and ``tf.train.MonitoredTrainingSession``.

A monitored session is a training loop's session: it is created ready to use
(by a session creator: the chief restores or initializes, other workers wait),
it calls hooks around every ``run``, and it survives the restart of a task of
the cluster. When a step fails with ``AbortedError`` or ``UnavailableError``
(a parameter server or worker went away and came back) the raw session is
closed, a new one is created by the same creator -- the chief restores the
latest checkpoint if a parameter server lost its variables (else it goes on
with them), workers wait until the model is ready again -- hooks see
``after_create_session`` again, and the step is retried, a bounded number of
times.

Life cycle: hooks' ``begin()`` when the monitored session is constructed,
then the graph is finalized and a session created; ``after_create_session``
after every creation; ``before_run``/``after_run`` around each step; ``end()``
at ``close()`` unless the session is closing because of an exception. Leaving
a ``with`` block through ``OutOfRangeError`` (an input ran dry) counts as a
clean stop: hooks' ``end()`` runs and the error is not propagated.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Callable, List, Optional, Sequence

from tensorfleet import errors
from tensorfleet.distributed.cluster import RunMetadata
from tensorfleet.framework.graph import Graph, get_default_graph
from tensorfleet.training.coordinator import Coordinator
from tensorfleet.training.queue_runner import start_queue_runners
from tensorfleet.training.scaffold import (ChiefSessionCreator, Scaffold, SessionCreator,
                                           WorkerSessionCreator)
from tensorfleet.training.session_run_hook import (SessionRunArgs, SessionRunContext,
                                                   SessionRunHook, SessionRunValues,
                                                   gather_run_args)
from tensorfleet.training import saver_hooks
from tensorfleet.training.basic_hooks import StopAtStepHook
from tensorfleet.training.signal_hooks import StopOnSignalHook

logger = logging.getLogger(__name__)

__all__ = ["Scaffold", "SessionCreator", "ChiefSessionCreator", "WorkerSessionCreator",
           "MonitoredSession", "SingularMonitoredSession", "MonitoredTrainingSession",
           "StepContext"]

# The failures a monitored session recovers from by re-creating its session.
_PREEMPTION_ERRORS = (errors.AbortedError, errors.UnavailableError)

# Pause before re-creating a session after a failed creation; doubles up to the cap.
_RECREATE_FIRST_PAUSE_SECS = 0.05
_RECREATE_MAX_PAUSE_SECS = 5.0
# How long session creation keeps retrying while a task of the cluster is unreachable.
_DEFAULT_RECOVERY_WAIT_SECS = 30 * 60

# Marks MonitoredTrainingSession arguments left at their default, whose meaning
# depends on the other arguments (as in TensorFlow).
_USE_DEFAULT = object()


class _StopRequested(Exception):
    """Raised by ``StepContext.request_stop`` to leave a step function early."""


class StepContext:
    """What ``run_step_fn``'s function receives: the raw session, and a way to run
    with hooks or to stop."""

    def __init__(self, session: Any, run_with_hooks_fn: Callable[..., Any]):
        self._session = session
        self._run_with_hooks_fn = run_with_hooks_fn

    @property
    def session(self) -> Any:
        """The raw session (runs here do not call hooks)."""
        return self._session

    def run_with_hooks(self, *args: Any, **kwargs: Any) -> Any:
        """``MonitoredSession.run`` semantics on this step's session (hooks called)."""
        return self._run_with_hooks_fn(*args, **kwargs)

    def request_stop(self) -> None:
        """Ends the step function now and makes ``should_stop()`` true."""
        raise _StopRequested()


class _MonitoredSession:
    """The shared implementation of ``MonitoredSession`` and ``SingularMonitoredSession``."""

    def __init__(self, session_creator: SessionCreator, hooks: Optional[Sequence[Any]],
                 should_recover: bool, stop_grace_period_secs: float = 120,
                 max_recovery_attempts: int = 10,
                 max_recovery_wait_secs: float = _DEFAULT_RECOVERY_WAIT_SECS):
        self._graph = get_default_graph()
        self._graph_was_finalized = self._graph.finalized
        self._hooks: List[SessionRunHook] = list(hooks or [])
        self._creator = session_creator
        self._should_recover = should_recover
        self._stop_grace_period_secs = stop_grace_period_secs
        self._max_recovery_attempts = max_recovery_attempts
        self._max_recovery_wait_secs = max_recovery_wait_secs
        self._sess: Any = None
        self._coord: Optional[Coordinator] = None
        self._stop_requested = False
        # should_stop() discarded a session a task restart broke; run() makes a new one.
        self._session_lost = False
        self._closed = False
        for h in self._hooks:
            h.begin()
        try:
            self._ensure_session()
        except BaseException:
            # No hook end(): the session never became usable.
            self._closed = True
            self._restore_graph_state()
            raise

    @property
    def graph(self) -> Graph:
        """The graph this session runs."""
        return self._graph

    # -- session creation and disposal -------------------------------------------------------
    def _create_session(self) -> None:
        sess = self._creator.create_session()
        # Hooks built their ops in begin(); from now on the graph must not change
        # (every task of a cluster relies on the same graph). A Scaffold has usually
        # done this already; custom creators might not have.
        if not self._graph.finalized:
            self._graph.finalize()
        coord = Coordinator(clean_stop_exception_types=[])
        self._sess, self._coord = sess, coord
        self._session_lost = False
        start_queue_runners(sess=sess, coord=coord)
        for h in self._hooks:
            h.after_create_session(sess, coord)

    def _ensure_session(self) -> Any:
        """The current raw session, creating one (retrying preemptions) if needed."""
        attempt = 0
        pause = _RECREATE_FIRST_PAUSE_SECS
        start = time.monotonic()
        while self._sess is None:
            try:
                self._create_session()
            except _PREEMPTION_ERRORS as e:
                self._discard_session()
                attempt += 1
                waited = time.monotonic() - start
                # A task being restarted (by the launcher or a cluster manager) may take
                # a while to come back: keep trying for max_recovery_wait_secs, not a
                # number of attempts that fast failures would use up in seconds.
                if not self._should_recover or (attempt > self._max_recovery_attempts and
                                                waited + pause > self._max_recovery_wait_secs):
                    raise
                logger.warning("Creating a session failed with %s: %s (attempt %d, waited "
                               "%.1f of at most %.0f s for %s); retrying in %.2fs.",
                               type(e).__name__, e, attempt, waited,
                               self._max_recovery_wait_secs, e.task or "the cluster", pause)
                time.sleep(pause)
                pause = min(_RECREATE_MAX_PAUSE_SECS, pause * 2)
        return self._sess

    def _discard_session(self, quiet: bool = True) -> None:
        """Stops the session's threads and closes it; errors are only logged if quiet."""
        sess, coord = self._sess, self._coord
        self._sess = self._coord = None
        try:
            if coord is not None:
                coord.request_stop()
                coord.join(stop_grace_period_secs=self._stop_grace_period_secs,
                           ignore_live_threads=True)
        except Exception as e:  # noqa: BLE001 - see quiet
            if not quiet:
                raise
            logger.debug("Ignoring error from the threads of a discarded session: %s", e)
        finally:
            if sess is not None:
                try:
                    sess.close()
                except Exception as e:  # noqa: BLE001 - the session is gone either way
                    logger.debug("Ignoring error while closing a session: %s", e)

    def _restore_graph_state(self) -> None:
        # So that the caller can keep building a graph it did not finalize itself.
        if not self._graph_was_finalized:
            self._graph._unsafe_unfinalize()

    # -- running ------------------------------------------------------------------------------
    def _with_recovery(self, fn: Callable[[Any], Any]) -> Any:
        """Calls ``fn(raw_session)``, re-creating the session and retrying on preemption."""
        if self._closed:
            raise RuntimeError("Run called on a closed MonitoredSession.")
        attempt = 0
        failed_at: Optional[float] = None
        first_failure: Optional[float] = None
        pause = _RECREATE_FIRST_PAUSE_SECS
        while True:
            sess = self._ensure_session()
            if failed_at is not None:
                logger.warning("Recovered: a new session is ready %.1f s after the step "
                               "failed; retrying the step.", time.monotonic() - failed_at)
                failed_at = None
            try:
                return self._run_coordinated(fn, sess)
            except _PREEMPTION_ERRORS as e:
                attempt += 1
                now = time.monotonic()
                first_failure = now if first_failure is None else first_failure
                # As for creating a session: a peer coming back (and the channels to it
                # leaving their reconnect backoff) takes time that quick failures would
                # not wait out, so the budget is in seconds as well as attempts.
                if not self._should_recover or (
                        attempt > self._max_recovery_attempts and
                        now - first_failure + pause > self._max_recovery_wait_secs):
                    raise
                logger.warning(
                    "A step failed with %s: %s. A parameter server or worker may have "
                    "restarted; closing this session, creating a new one (attempt %d) "
                    "and retrying the step in %.2fs.", type(e).__name__, e, attempt, pause)
                failed_at = now
                self._discard_session()
                if attempt > 1:
                    time.sleep(pause)
                    pause = min(_RECREATE_MAX_PAUSE_SECS, pause * 2)

    def _run_coordinated(self, fn: Callable[[Any], Any], sess: Any) -> Any:
        try:
            return fn(sess)
        except _PREEMPTION_ERRORS:
            raise
        except errors.OpError:
            # A queue-runner thread may have failed first (e.g. its parameter server
            # went away) and made this step fail differently; recover from that cause.
            coord = self._coord
            if coord is not None:
                try:
                    coord.raise_requested_exception()
                except _PREEMPTION_ERRORS:
                    raise
                except Exception:  # noqa: BLE001 - report the step's own error instead
                    pass
            raise

    def _hooked_run(self, sess: Any, fetches: Any, feed_dict: Optional[dict] = None,
                    options: Any = None, run_metadata: Any = None) -> Any:
        """One step on ``sess`` with every hook's before_run/after_run around it."""
        context = SessionRunContext(SessionRunArgs(fetches, feed_dict), sess)
        hook_fetches, feeds, options = gather_run_args(self._hooks, context, self._graph,
                                                       options)
        if run_metadata is None and options is not None:
            # A hook that asked for options (a trace) reads what they produced here.
            run_metadata = RunMetadata()
        outputs = sess.run({"caller": fetches, "hooks": hook_fetches}, feed_dict=feeds or None,
                           options=options, run_metadata=run_metadata)
        for i, hook in enumerate(self._hooks):
            hook.after_run(context, SessionRunValues(results=outputs["hooks"].get(i),
                                                     options=options,
                                                     run_metadata=run_metadata))
        if context.stop_requested:
            self._stop_requested = True
        return outputs["caller"]

    def run(self, fetches: Any, feed_dict: Optional[dict] = None, options: Any = None,
            run_metadata: Any = None) -> Any:
        """Runs one step like ``Session.run``, calling hooks around it.

        On ``AbortedError``/``UnavailableError`` (recovering sessions only) the
        session is re-created and the step retried.
        """
        return self._with_recovery(
            lambda sess: self._hooked_run(sess, fetches, feed_dict, options, run_metadata))

    def run_step_fn(self, step_fn: Callable[[StepContext], Any]) -> Any:
        """Calls ``step_fn(step_context)``; the whole function is retried on recovery.

        ``step_context.request_stop()`` ends the function early and returns None.
        """
        def call(sess: Any) -> Any:
            ctx = StepContext(sess, lambda *a, **k: self._hooked_run(sess, *a, **k))
            try:
                return step_fn(ctx)
            except _StopRequested:
                self._stop_requested = True
                return None
        return self._with_recovery(call)

    def should_stop(self) -> bool:
        """True once a hook or a thread requested a stop, or the session is closed.

        A thread (a queue runner) that failed because a task restarted does not end
        training: the session is discarded and the next ``run`` creates a new one.
        """
        if self._closed or self._stop_requested:
            return True
        coord = self._coord
        if coord is None:
            return not self._session_lost
        if not coord.should_stop():
            return False
        if self._should_recover:
            try:
                coord.raise_requested_exception()
            except _PREEMPTION_ERRORS as e:
                logger.warning("A thread of the session failed with %s: %s. A parameter "
                               "server or worker may have restarted; closing this session; "
                               "the next step creates a new one.", type(e).__name__, e)
                self._discard_session()
                self._session_lost = True
                return False
            except Exception:  # noqa: BLE001 - any other failure ends training, as below
                pass
        return True

    def _tf_sess(self) -> Any:
        """The raw ``tf.Session`` (created if there is none at the moment)."""
        if self._closed:
            raise RuntimeError("MonitoredSession is closed.")
        return self._ensure_session()

    # -- closing ------------------------------------------------------------------------------
    def close(self) -> None:
        """Calls hooks' ``end()``, stops the threads and closes the session."""
        self._close_internal(None)

    def _close_internal(self, exception_type: Optional[type]) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            if exception_type is None and self._sess is not None:
                for h in self._hooks:
                    h.end(self._sess)
        finally:
            try:
                self._discard_session(quiet=exception_type is not None)
            finally:
                self._restore_graph_state()

    def __enter__(self) -> "_MonitoredSession":
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool:
        if exc_type is not None and issubclass(exc_type, (errors.OutOfRangeError,
                                                          StopIteration)):
            exc_type = None  # the input is exhausted: a normal end of training
        self._close_internal(exc_type)
        return exc_type is None


class MonitoredSession(_MonitoredSession):
    """A session that creates itself ready, calls hooks and recovers from task restarts.

    Args:
      session_creator: how to create the raw session (default: ``ChiefSessionCreator()``).
      hooks: ``SessionRunHook`` objects.
      stop_grace_period_secs: how long ``close()`` waits for threads to stop.
      max_recovery_attempts: how many session re-creations one step may cause
        before its error propagates (tensorfleet addition; TensorFlow retries
        without bound).
      max_recovery_wait_secs: while a task is unreachable, creating a session is
        retried (with a warning naming the task) at least
        ``max_recovery_attempts`` times and for up to this many seconds.
    """

    def __init__(self, session_creator: Optional[SessionCreator] = None,
                 hooks: Optional[Sequence[Any]] = None, stop_grace_period_secs: float = 120,
                 *, max_recovery_attempts: int = 10,
                 max_recovery_wait_secs: float = _DEFAULT_RECOVERY_WAIT_SECS):
        super().__init__(session_creator or ChiefSessionCreator(), hooks, should_recover=True,
                         stop_grace_period_secs=stop_grace_period_secs,
                         max_recovery_attempts=max_recovery_attempts,
                         max_recovery_wait_secs=max_recovery_wait_secs)


class SingularMonitoredSession(_MonitoredSession):
    """A monitored session for one process (no cluster recovery), created by the chief
    creator; ``raw_session()`` gives the underlying session.
    """

    def __init__(self, hooks: Optional[Sequence[Any]] = None,
                 scaffold: Optional[Scaffold] = None, master: str = "", config: Any = None,
                 checkpoint_dir: Optional[str] = None, stop_grace_period_secs: float = 120,
                 checkpoint_filename_with_path: Optional[str] = None):
        creator = ChiefSessionCreator(
            scaffold=scaffold, master=master, config=config, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path)
        super().__init__(creator, hooks, should_recover=False,
                         stop_grace_period_secs=stop_grace_period_secs)

    def raw_session(self) -> Any:
        """The underlying ``tf.Session``."""
        return self._tf_sess()


def MonitoredTrainingSession(  # noqa: N802 - the TensorFlow name
        master: str = "", is_chief: bool = True, checkpoint_dir: Optional[str] = None,
        scaffold: Optional[Scaffold] = None, hooks: Optional[Sequence[Any]] = None,
        chief_only_hooks: Optional[Sequence[Any]] = None,
        save_checkpoint_secs: Any = _USE_DEFAULT, save_summaries_steps: Any = _USE_DEFAULT,
        save_summaries_secs: Any = _USE_DEFAULT, config: Any = None,
        stop_grace_period_secs: float = 120, log_step_count_steps: Optional[int] = 100,
        max_wait_secs: float = 7200, save_checkpoint_steps: Any = _USE_DEFAULT,
        summary_dir: Optional[str] = None) -> MonitoredSession:
    """A ``MonitoredSession`` set up for (distributed) training.

    The chief restores from ``checkpoint_dir`` or initializes the model, and gets
    the standard hooks: ``StepCounterHook`` (every ``log_step_count_steps``, when
    a summary dir is set),
    ``SummarySaverHook`` (when a summary dir -- ``summary_dir`` or else
    ``checkpoint_dir`` -- and a summary period are set) and
    ``CheckpointSaverHook`` (when ``checkpoint_dir`` and a checkpoint period are
    set; it also saves at the end), followed by ``chief_only_hooks`` and ``hooks``.
    Other workers wait (up to ``max_wait_secs``) for the chief and get only ``hooks``.

    Defaults as in TensorFlow: checkpoints every 600 seconds unless
    ``save_checkpoint_steps`` is given (``None`` for both disables them);
    summaries every 100 steps unless ``save_summaries_secs`` is given.
    """
    if save_checkpoint_secs is _USE_DEFAULT and save_checkpoint_steps is _USE_DEFAULT:
        save_checkpoint_secs, save_checkpoint_steps = 600, None
    elif save_checkpoint_secs is _USE_DEFAULT:
        save_checkpoint_secs = None
    elif save_checkpoint_steps is _USE_DEFAULT:
        save_checkpoint_steps = None
    if save_summaries_steps is _USE_DEFAULT and save_summaries_secs is _USE_DEFAULT:
        save_summaries_steps, save_summaries_secs = 100, None
    elif save_summaries_steps is _USE_DEFAULT:
        save_summaries_steps = None
    elif save_summaries_secs is _USE_DEFAULT:
        save_summaries_secs = None

    scaffold = scaffold or Scaffold()
    for h in hooks or []:
        if isinstance(h, StopAtStepHook) and checkpoint_dir and h.checkpoint_dir is None:
            h.checkpoint_dir = checkpoint_dir
    if not is_chief:
        creator = WorkerSessionCreator(scaffold=scaffold, master=master, config=config,
                                       max_wait_secs=max_wait_secs)
        return MonitoredSession(session_creator=creator, hooks=list(hooks or []),
                                stop_grace_period_secs=stop_grace_period_secs)


    all_hooks: List[Any] = list(chief_only_hooks or [])
    creator = ChiefSessionCreator(scaffold=scaffold, master=master, config=config,
                                  checkpoint_dir=checkpoint_dir)
    summary_dir = summary_dir or checkpoint_dir
    # Only with a summary dir, as in TensorFlow: the hook needs a global step, and
    # a program with neither a global step nor a directory must still run.
    if summary_dir and log_step_count_steps and log_step_count_steps > 0:
        all_hooks.append(saver_hooks.StepCounterHook(
            output_dir=summary_dir, every_n_steps=log_step_count_steps))
    if summary_dir and ((save_summaries_steps and save_summaries_steps > 0)
                        or (save_summaries_secs and save_summaries_secs > 0)):
        all_hooks.append(saver_hooks.SummarySaverHook(
            scaffold=scaffold, save_steps=save_summaries_steps,
            save_secs=save_summaries_secs, output_dir=summary_dir))
    if checkpoint_dir and ((save_checkpoint_secs and save_checkpoint_secs > 0)
                           or (save_checkpoint_steps and save_checkpoint_steps > 0)):
        os.makedirs(checkpoint_dir, exist_ok=True)
        all_hooks.append(saver_hooks.CheckpointSaverHook(
            checkpoint_dir, save_steps=save_checkpoint_steps, save_secs=save_checkpoint_secs,
            scaffold=scaffold))
        # SIGTERM then ends training after the current step with a final checkpoint.
        all_hooks.append(StopOnSignalHook(checkpoint_dir=checkpoint_dir))
    all_hooks.extend(hooks or [])
    return MonitoredSession(session_creator=creator, hooks=all_hooks,
                            stop_grace_period_secs=stop_grace_period_secs)
