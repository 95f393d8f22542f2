"""``tf.train.SessionManager``: creates sessions whose model is ready to use.

The chief *prepares* a session: it restores the latest checkpoint if there is
one, otherwise runs the init op, then runs the local init op and checks that
nothing is left uninitialized. Every other task *waits*: it polls the ready op
(normally ``report_uninitialized_variables()``) until the chief has made the
shared variables ready, then runs its own local init op. While waiting it logs,
at INFO, what it is still waiting for.

Polls start fast and back off up to ``recovery_wait_secs``, so a worker that
starts a moment before its chief begins within a fraction of a second, while a
long wait still costs little.
"""

from __future__ import annotations

import importlib
import logging
import time
from typing import Any, Callable, Optional, Tuple

import numpy as np

from tensorfleet import errors
from tensorfleet.framework.graph import Graph, GraphKeys, get_default_graph
from tensorfleet.runtime.session import Session

logger = logging.getLogger(__name__)

__all__ = ["SessionManager"]

# First poll interval; doubled after each poll up to recovery_wait_secs.
_FIRST_POLL_SECS = 0.05

# Errors meaning "a task is (re)starting"; while waiting they mean "not ready yet".
_TRANSIENT_ERRORS = (errors.AbortedError, errors.UnavailableError)


def import_training_module(name: str) -> Any:
    """Imports ``tensorfleet.training.<name>`` (saver, checkpoint_management,
    summary_io) or ``tensorfleet.ops.<name>`` on first use.

    These modules are imported lazily so that sessions and hooks work (without
    checkpoints or summaries) when they are absent, and so that importing this
    package does not pull in file-writing code.

    Raises:
      ImportError: naming the missing module and what needed it.
    """
    package = "tensorfleet.ops" if name.endswith("_ops") else "tensorfleet.training"
    try:
        return importlib.import_module(f"{package}.{name}")
    except ImportError as e:
        raise ImportError(f"{package}.{name} is required here but cannot be imported: {e}") from e


def _decode(name: Any) -> str:
    return name.decode("utf-8", "replace") if isinstance(name, bytes) else str(name)


class _Backoff:
    """Poll intervals: ``_FIRST_POLL_SECS`` doubling up to ``limit``."""

    def __init__(self, limit: float):
        self._limit = max(0.0, float(limit))
        self._next = min(_FIRST_POLL_SECS, self._limit)

    def next(self) -> float:
        now = self._next
        self._next = min(self._limit, max(self._next * 2, _FIRST_POLL_SECS))
        return now


class SessionManager:
    """Creates sessions for training, restoring or initializing the model.

    Args:
      local_init_op: an op run in every new session once the global variables
        are ready (initializes local variables, tables); None for nothing.
      ready_op: a 1-D string tensor naming what is still uninitialized (empty
        when the model is ready); None to skip the check.
      ready_for_local_init_op: like ``ready_op`` but for the variables that
        ``local_init_op`` reads; None to run it unconditionally.
      graph: the graph (default: the default graph).
      recovery_wait_secs: the longest pause between two polls while waiting for
        the model or for a checkpoint; polls start at a small fraction of a second.
      local_init_run_options: run options for ``local_init_op``.
      local_init_feed_dict: feeds for ``local_init_op``.
    """

    def __init__(self, local_init_op: Any = None, ready_op: Any = None,
                 ready_for_local_init_op: Any = None, graph: Optional[Graph] = None,
                 recovery_wait_secs: float = 30, local_init_run_options: Any = None,
                 local_init_feed_dict: Optional[dict] = None):
        if graph is None:
            graph = get_default_graph()
        if ready_for_local_init_op is not None and local_init_op is None:
            raise ValueError(f"If you pass a ready_for_local_init_op you must also pass a "
                             f"local_init_op, ready_for_local_init_op "
                             f"[{ready_for_local_init_op}]")
        self._local_init_op = local_init_op
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._graph = graph
        self._recovery_wait_secs = recovery_wait_secs
        self._local_init_run_options = local_init_run_options
        self._local_init_feed_dict = local_init_feed_dict

    @property
    def graph(self) -> Graph:
        """The graph whose sessions this manager creates."""
        return self._graph

    # -- checkpoints --------------------------------------------------------------------
    def _latest_checkpoint(self, checkpoint_dir: str) -> Tuple[Optional[str], list]:
        try:
            cm = import_training_module("checkpoint_management")
        except ImportError as e:
            logger.warning("Not restoring from %s: %s", checkpoint_dir, e)
            return None, []
        state = cm.get_checkpoint_state(checkpoint_dir)
        path = cm.latest_checkpoint(checkpoint_dir)
        every = list(getattr(state, "all_model_checkpoint_paths", None) or []) if state else []
        return path, every

    def _restore_checkpoint(self, master: str, saver: Any = None,
                            checkpoint_dir: Optional[str] = None,
                            checkpoint_filename_with_path: Optional[str] = None,
                            wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                            config: Any = None) -> Tuple[Session, bool]:
        """A new session, restored from a checkpoint when one can be found.

        Returns:
          (session, True when a checkpoint was restored).
        """
        if checkpoint_dir and checkpoint_filename_with_path:
            raise ValueError("Can not provide both checkpoint_dir and "
                             "checkpoint_filename_with_path.")
        sess = Session(master, graph=self._graph, config=config)
        if saver is None or not (checkpoint_dir or checkpoint_filename_with_path):
            return sess, False
        try:
            if checkpoint_filename_with_path:
                saver.restore(sess, checkpoint_filename_with_path)
                return sess, True
            path, every = self._latest_checkpoint(checkpoint_dir)
            waited = 0.0
            backoff = _Backoff(self._recovery_wait_secs)
            while not path:
                if not wait_for_checkpoint or waited >= max_wait_secs:
                    return sess, False
                logger.info("Waiting for checkpoint to be available in %s.", checkpoint_dir)
                pause = backoff.next()
                time.sleep(pause)
                waited += pause
                path, every = self._latest_checkpoint(checkpoint_dir)
            path = import_training_module("checkpoint_management").restore_newest_intact(
                saver, sess, path, every)
            # A resumed run must say so: its steps and loss start where the checkpoint
            # left them, not at zero.
            logger.warning("Restored from %s at global step %s (checkpoint %s).",
                           checkpoint_dir, self._restored_step(sess, path), path)
            recover = getattr(saver, "recover_last_checkpoints", None)
            if recover is not None and every:
                # So that max_to_keep keeps deleting the checkpoints of earlier runs.
                recover(every)
            return sess, True
        except BaseException:
            sess.close()
            raise

    def _restored_step(self, sess: Session, path: str) -> str:
        """The global step a restored checkpoint holds: the graph's global step if it
        has one, else the ``-N`` suffix of the checkpoint's name, else ``unknown``."""
        for var in self._graph.get_collection(GraphKeys.GLOBAL_STEP):
            try:
                return str(int(sess.run(var)))
            except (errors.OpError, TypeError, ValueError):
                break
        suffix = path.rsplit("-", 1)[-1]
        return suffix if suffix.isdigit() else "unknown"

    # -- readiness ----------------------------------------------------------------------
    def _ready(self, op: Any, sess: Session, what: str) -> Tuple[bool, Optional[str]]:
        """Runs a ready op; (True, None) when it names nothing, else (False, message)."""
        if op is None:
            return True, None
        try:
            value = sess.run(op)
        except errors.FailedPreconditionError as e:
            if "uninitialized" not in str(e).lower() and \
                    "not initialized" not in str(e).lower():
                logger.warning("%s: error [%s]", what, e)
                raise
            return False, str(e)
        if value is None:
            return True, None
        names = np.asarray(value).ravel()
        if names.size == 0:
            return True, None
        return False, "Variables not initialized: " + ", ".join(_decode(n) for n in names)

    def _model_ready(self, sess: Session) -> Tuple[bool, Optional[str]]:
        return self._ready(self._ready_op, sess, "Model not ready")

    def _model_ready_for_local_init(self, sess: Session) -> Tuple[bool, Optional[str]]:
        return self._ready(self._ready_for_local_init_op, sess,
                           "Model not ready for local init")

    def _try_run_local_init_op(self, sess: Session) -> Tuple[bool, Optional[str]]:
        """Runs ``local_init_op`` if the global variables it reads are ready."""
        if self._local_init_op is None:
            return True, None
        ready, msg = self._model_ready_for_local_init(sess)
        if not ready:
            return False, msg
        logger.info("Running local_init_op.")
        sess.run(self._local_init_op, feed_dict=self._local_init_feed_dict,
                 options=self._local_init_run_options)
        logger.info("Done running local_init_op.")
        return True, None

    # -- the three ways to get a session ----------------------------------------------------
    def prepare_session(self, master: str, init_op: Any = None, saver: Any = None,
                        checkpoint_dir: Optional[str] = None,
                        checkpoint_filename_with_path: Optional[str] = None,
                        wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                        config: Any = None, init_feed_dict: Optional[dict] = None,
                        init_fn: Optional[Callable[[Any], None]] = None) -> Session:
        """A session whose model is ready: restored from a checkpoint, else initialized.

        Args:
          master: the session target (``""`` or ``grpc://host:port``).
          init_op: run when no checkpoint was restored.
          saver: restores the checkpoint.
          checkpoint_dir: where to look for the latest checkpoint.
          checkpoint_filename_with_path: a specific checkpoint to restore instead.
          wait_for_checkpoint: wait (up to ``max_wait_secs``) for a checkpoint.
          max_wait_secs: how long to wait for a checkpoint.
          config: the session's ``ConfigProto``.
          init_feed_dict: feeds for ``init_op``.
          init_fn: called with the session after ``init_op``.

        Raises:
          RuntimeError: if the model is still not ready after initialization.
        """
        sess, restored = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        try:
            if not restored:
                if init_op is None and not init_fn and self._local_init_op is None:
                    raise RuntimeError("Model is not initialized and no init_op or init_fn "
                                       "or local_init_op was given")
                if init_op is not None:
                    sess.run(init_op, feed_dict=init_feed_dict)
                if init_fn:
                    init_fn(sess)
            ok, msg = self._try_run_local_init_op(sess)
            if not ok:
                raise RuntimeError(f"Init operations did not make model ready for local_init. "
                                   f"Init op: {_op_name(init_op)}, init fn: {init_fn}, "
                                   f"error: {msg}")
            ok, msg = self._model_ready(sess)
            if not ok:
                raise RuntimeError(f"Init operations did not make model ready. Init op: "
                                   f"{_op_name(init_op)}, init fn: {init_fn}, local_init_op: "
                                   f"{_op_name(self._local_init_op)}, error: {msg}")
        except BaseException:
            sess.close()
            raise
        return sess

    def session_if_still_ready(self, master: str, config: Any = None) -> Optional[Session]:
        """A new session if the model is still initialized on the cluster, else None.

        After a step failed because a task was unreachable for a moment (frozen,
        cut off by the network) the variables on the parameter servers are still
        there: the chief goes on with them instead of restoring the last checkpoint,
        which would throw away the steps since. A parameter server that restarted
        has lost its variables, so the model is not ready and the caller restores.
        """
        sess = Session(master, graph=self._graph, config=config)
        try:
            ready, msg = self._model_ready_for_local_init(sess)
            if ready:
                ready, msg = self._try_run_local_init_op(sess)
            if ready:
                ready, msg = self._model_ready(sess)
        except BaseException:
            sess.close()
            raise
        if not ready:
            logger.info("The model is no longer initialized on the cluster (%s): a task "
                        "restarted and lost its variables.", msg)
            sess.close()
            return None
        logger.info("The model is still initialized on every task: continuing with it "
                    "instead of restoring a checkpoint.")
        return sess

    def recover_session(self, master: str, saver: Any = None,
                        checkpoint_dir: Optional[str] = None,
                        checkpoint_filename_with_path: Optional[str] = None,
                        wait_for_checkpoint: bool = False, max_wait_secs: float = 7200,
                        config: Any = None) -> Tuple[Session, bool]:
        """A session restored from a checkpoint if possible; never runs the init op.

        Returns:
          (session, initialized): ``initialized`` is True when a checkpoint was
          restored and the model is ready.
        """
        sess, restored = self._restore_checkpoint(
            master, saver, checkpoint_dir=checkpoint_dir,
            checkpoint_filename_with_path=checkpoint_filename_with_path,
            wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
            config=config)
        try:
            # Local variables are this task's own: initialize them whenever possible.
            local_ok, local_msg = self._try_run_local_init_op(sess)
        except BaseException:
            sess.close()
            raise
        if not restored:
            return sess, False
        if not local_ok:
            logger.info("Restoring model from %s did not make model ready for local init: %s",
                        checkpoint_dir or checkpoint_filename_with_path, local_msg)
            return sess, False
        ready, msg = self._model_ready(sess)
        if not ready:
            logger.info("Restoring model from %s did not make model ready: %s",
                        checkpoint_dir or checkpoint_filename_with_path, msg)
            return sess, False
        logger.info("Restored model from %s", checkpoint_dir or checkpoint_filename_with_path)
        return sess, True

    def wait_for_session(self, master: str, config: Any = None,
                         max_wait_secs: float = float("inf")) -> Session:
        """Waits until another task (the chief) has made the model ready.

        Polls ``ready_for_local_init_op``, runs ``local_init_op`` once it passes,
        then polls ``ready_op``; logs at INFO what is missing before every pause.

        Raises:
          DeadlineExceededError: if the model is not ready within ``max_wait_secs``.
        """
        start = time.monotonic()
        backoff = _Backoff(self._recovery_wait_secs)
        sess: Optional[Session] = None
        try:
            while True:
                if sess is None:
                    sess = Session(master, graph=self._graph, config=config)
                local_msg: Optional[str] = None
                ready_msg: Optional[str] = None
                try:
                    local_ok, local_msg = self._try_run_local_init_op(sess)
                    if local_ok:
                        ready, ready_msg = self._model_ready(sess)
                        if ready:
                            result, sess = sess, None
                            return result
                except _TRANSIENT_ERRORS as e:
                    # A parameter server still starting or restarting: start over
                    # with a fresh session on the next poll.
                    ready_msg = f"{type(e).__name__}: {e}"
                    _close_quietly(sess)
                    sess = None
                pause = backoff.next()
                elapsed = time.monotonic() - start
                if elapsed + pause > max_wait_secs:
                    raise errors.DeadlineExceededError(
                        None, None, f"Session was not ready after waiting {elapsed:.1f} secs "
                        f"(max_wait_secs={max_wait_secs}); still waiting for: "
                        f"{ready_msg or local_msg}")
                logger.info("Waiting for model to be ready. Ready_for_local_init_op: %s, "
                            "ready: %s", local_msg, ready_msg)
                time.sleep(pause)
        finally:
            if sess is not None:
                _close_quietly(sess)


def _op_name(op: Any) -> Optional[str]:
    return getattr(op, "name", None) if op is not None else None


def _close_quietly(sess: Any) -> None:
    try:
        sess.close()
    except Exception as e:  # noqa: BLE001 - the session is being abandoned anyway
        logger.debug("Ignoring error while closing a session: %s", e)
