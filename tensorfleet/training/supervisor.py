"""``tf.train.Supervisor``: the older way to run a (distributed) training loop.

A Supervisor bundles a ``Coordinator``, a ``SessionManager`` and, on the chief,
background services that run while the loop trains: a thread saving a
checkpoint every ``save_model_secs``, one writing the summaries every
``save_summaries_secs`` and one recording the global steps per second. Those
threads are daemons registered with the coordinator, so ``stop()`` ends them.

The graph is finalized when the Supervisor is built: everything it needs (init
and ready ops, the saver, the summary op) is created or looked up first.
"""

from __future__ import annotations

import contextlib
import logging
import os
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence

from tensorfleet.framework.graph import Graph, GraphKeys, get_default_graph
from tensorfleet.ops import variables as variables_lib
from tensorfleet.training import training_util
from tensorfleet.training.coordinator import Coordinator, LooperThread
from tensorfleet.training.saver_hooks import scalar_summary_bytes, write_session_log
from tensorfleet.training.scaffold import Scaffold, _default_saver, _merge_all_summaries
from tensorfleet.training.session_manager import SessionManager, import_training_module

logger = logging.getLogger(__name__)

__all__ = ["Supervisor"]


def _is_use_default(value: Any) -> bool:
    # USE_DEFAULT is the int 0, as in TensorFlow; compare without touching
    # tensors (``tensor == 0`` would build an op).
    return type(value) is int and value == 0


def _first_in_collection(graph: Graph, key: str) -> Any:
    found = graph.get_collection(key)
    return found[0] if found else None


class Supervisor:
    """Creates ready sessions, runs the chief's background services, coordinates stops.

    Pass ``None`` for an op (``init_op=None``, ``saver=None``, ``summary_op=None``...)
    to do without it; leave ``USE_DEFAULT`` to take it from the graph's collection
    or build the standard one.

    Args:
      graph: the graph (default: the default graph).
      ready_op: names what is uninitialized; default ``report_uninitialized_variables()``.
      ready_for_local_init_op: names uninitialized global variables.
      is_chief: whether this task initializes the model and runs the services.
      init_op: run by the chief when no checkpoint was restored.
      init_feed_dict: feeds for ``init_op``.
      local_init_op: initializes local variables in every session.
      logdir: where checkpoints and event files go (services need one).
      summary_op: the summary op; default ``tf.summary.merge_all()``.
      saver: the ``Saver``; default the ``SAVERS`` collection's or a new one.
      global_step: the global step; default the graph's.
      save_summaries_secs: period of the summary service (None or 0 disables).
      save_model_secs: period of the checkpoint service (None or 0 disables).
      recovery_wait_secs: the longest pause while polling for readiness.
      stop_grace_secs: how long ``stop()`` waits for threads.
      checkpoint_basename: checkpoint file prefix inside ``logdir``.
      session_manager: a ``SessionManager`` to use instead of the default one.
      summary_writer: the event-file writer; default one for ``logdir`` (chief only).
      init_fn: called with the session after ``init_op``.
      local_init_run_options: run options for ``local_init_op``.
    """

    USE_DEFAULT = 0

    def __init__(self, graph: Optional[Graph] = None, ready_op: Any = USE_DEFAULT,
                 ready_for_local_init_op: Any = USE_DEFAULT, is_chief: bool = True,
                 init_op: Any = USE_DEFAULT, init_feed_dict: Optional[dict] = None,
                 local_init_op: Any = USE_DEFAULT, logdir: Optional[str] = None,
                 summary_op: Any = USE_DEFAULT, saver: Any = USE_DEFAULT,
                 global_step: Any = USE_DEFAULT, save_summaries_secs: Optional[float] = 120,
                 save_model_secs: Optional[float] = 600, recovery_wait_secs: float = 30,
                 stop_grace_secs: float = 120, checkpoint_basename: str = "model.ckpt",
                 session_manager: Optional[SessionManager] = None,
                 summary_writer: Any = USE_DEFAULT,
                 init_fn: Optional[Callable[[Any], None]] = None,
                 local_init_run_options: Any = None):
        self._graph = graph if graph is not None else get_default_graph()
        with self._graph.as_default():
            self._init_ops(ready_op, ready_for_local_init_op, init_op, local_init_op)
            self._saver = _default_saver() if _is_use_default(saver) else saver
            self._summary_op = (Scaffold.get_or_default("summary_op", GraphKeys.SUMMARY_OP,
                                                        _merge_all_summaries)
                                if _is_use_default(summary_op) else summary_op)
            self._global_step = (training_util.get_global_step(self._graph)
                                 if _is_use_default(global_step) else global_step)
        self._init_feed_dict = init_feed_dict
        self._init_fn = init_fn
        self._is_chief = is_chief
        self._coord = Coordinator()
        self._logdir = logdir
        self._save_summaries_secs = save_summaries_secs
        self._save_model_secs = save_model_secs
        self._stop_grace_secs = stop_grace_secs
        self._save_path = os.path.join(logdir, checkpoint_basename) if logdir else None
        self._summary_writer = None
        if is_chief and logdir:
            self._summary_writer = (_open_file_writer(logdir)
                                    if _is_use_default(summary_writer) else summary_writer)
        self._graph_added_to_summary = False
        self._session_manager = session_manager or SessionManager(
            local_init_op=self._local_init_op, ready_op=self._ready_op,
            ready_for_local_init_op=self._ready_for_local_init_op, graph=self._graph,
            recovery_wait_secs=recovery_wait_secs,
            local_init_run_options=local_init_run_options)
        self._verify_setup()
        self._graph.finalize()

    def _init_ops(self, ready_op: Any, ready_for_local_init_op: Any, init_op: Any,
                  local_init_op: Any) -> None:
        g = self._graph
        if _is_use_default(ready_op):
            ready_op = Scaffold.get_or_default(
                "ready_op", GraphKeys.READY_OP, variables_lib.report_uninitialized_variables)
        if _is_use_default(local_init_op):
            local_init_op = Scaffold.get_or_default(
                "local_init_op", GraphKeys.LOCAL_INIT_OP, Scaffold.default_local_init_op)
        if _is_use_default(ready_for_local_init_op):
            # Checking readiness for a local init that does not exist is pointless
            # (and SessionManager refuses it).
            ready_for_local_init_op = None if local_init_op is None else \
                Scaffold.get_or_default(
                    "ready_for_local_init_op", GraphKeys.READY_FOR_LOCAL_INIT_OP,
                    lambda: variables_lib.report_uninitialized_variables(
                        variables_lib.global_variables()))
        if _is_use_default(init_op):
            init_op = _first_in_collection(g, GraphKeys.INIT_OP)
            if init_op is None:
                init_op = variables_lib.global_variables_initializer()
                g.add_to_collection(GraphKeys.INIT_OP, init_op)
        self._ready_op = ready_op
        self._ready_for_local_init_op = ready_for_local_init_op
        self._init_op = init_op
        self._local_init_op = local_init_op

    def _verify_setup(self) -> None:
        """Replicas must agree on where variables live: refuse unplaced ones."""
        if self._is_chief:
            return
        for op in self._graph.get_operations():
            if op.type in ("Variable", "VariableV2") and not op.device:
                raise ValueError(f"When using replicas, all Variables must have their device "
                                 f"set: {op.name} has none (use tf.device or "
                                 f"tf.train.replica_device_setter)")

    # -- properties -----------------------------------------------------------------------
    @property
    def is_chief(self) -> bool:
        """Whether this task initializes the model and runs the services."""
        return self._is_chief

    @property
    def session_manager(self) -> SessionManager:
        """The SessionManager creating this supervisor's sessions."""
        return self._session_manager

    @property
    def coord(self) -> Coordinator:
        """The coordinator of the training and service threads."""
        return self._coord

    @property
    def init_op(self) -> Any:
        """The op the chief runs when no checkpoint was restored."""
        return self._init_op

    @property
    def init_feed_dict(self) -> Optional[dict]:
        """Feeds for ``init_op``."""
        return self._init_feed_dict

    @property
    def ready_op(self) -> Any:
        """The op naming what is still uninitialized (empty when ready)."""
        return self._ready_op

    @property
    def ready_for_local_init_op(self) -> Any:
        """The op naming the global variables local_init_op waits for."""
        return self._ready_for_local_init_op

    @property
    def summary_writer(self) -> Any:
        """The chief's event-file writer (None elsewhere or without a logdir)."""
        return self._summary_writer

    @property
    def summary_op(self) -> Any:
        """The summary op the summary service runs, or None."""
        return self._summary_op

    @property
    def save_summaries_secs(self) -> Optional[float]:
        """Period of the summary and steps/sec services."""
        return self._save_summaries_secs

    @property
    def global_step(self) -> Any:
        """The global step variable, or None."""
        return self._global_step

    @property
    def saver(self) -> Any:
        """The Saver of the checkpoint service, or None."""
        return self._saver

    @property
    def save_model_secs(self) -> Optional[float]:
        """Period of the checkpoint service."""
        return self._save_model_secs

    @property
    def save_path(self) -> Optional[str]:
        """The checkpoint prefix, ``<logdir>/<checkpoint_basename>``."""
        return self._save_path

    # -- sessions -------------------------------------------------------------------------
    def prepare_or_wait_for_session(self, master: str = "", config: Any = None,
                                    wait_for_checkpoint: bool = False,
                                    max_wait_secs: float = 7200,
                                    start_standard_services: bool = True) -> Any:
        """The chief restores or initializes the model (and starts its services);
        other tasks wait until it is ready. Queue runners start in both cases."""
        self._coord.clear_stop()
        reopen = getattr(self._summary_writer, "reopen", None)
        if reopen is not None:
            # A previous stop() closed it; continue in a new event file.
            reopen()
        if self._is_chief:
            sess = self._session_manager.prepare_session(
                master, init_op=self._init_op, saver=self._saver, checkpoint_dir=self._logdir,
                wait_for_checkpoint=wait_for_checkpoint, max_wait_secs=max_wait_secs,
                config=config, init_feed_dict=self._init_feed_dict, init_fn=self._init_fn)
            self._write_graph()
            if start_standard_services:
                logger.info("Starting standard services.")
                self.start_standard_services(sess)
        else:
            sess = self._session_manager.wait_for_session(master, config=config,
                                                          max_wait_secs=max_wait_secs)
        if start_standard_services:
            logger.info("Starting queue runners.")
            self.start_queue_runners(sess)
        return sess

    PrepareSession = prepare_or_wait_for_session

    @contextlib.contextmanager
    def managed_session(self, master: str = "", config: Any = None,
                        start_standard_services: bool = True,
                        close_summary_writer: bool = True) -> Iterator[Any]:
        """``with sv.managed_session(target) as sess:`` -- a ready session; on exit the
        services and threads stop and the session closes. An exception from the
        block is reported through the coordinator and re-raised by ``stop()``,
        except ``OutOfRangeError``, which ends training cleanly."""
        sess = None
        try:
            sess = self.prepare_or_wait_for_session(
                master=master, config=config, start_standard_services=start_standard_services)
            yield sess
        except Exception as e:  # noqa: BLE001 - handed to the coordinator, re-raised by stop
            self.request_stop(e)
        finally:
            try:
                self.stop(close_summary_writer=close_summary_writer)
            finally:
                if sess is not None:
                    try:
                        sess.close()
                    except Exception as e:  # noqa: BLE001 - shutting down anyway
                        logger.debug("Ignoring error while closing the session: %s", e)

    # -- services and threads ---------------------------------------------------------------
    def start_standard_services(self, sess: Any) -> List[LooperThread]:
        """Starts the chief's checkpoint, summary and steps/sec threads.

        Raises:
          RuntimeError: when called on a non-chief.
        """
        if not self._is_chief:
            raise RuntimeError("Only chief supervisor can start standard services, because "
                               "only chief supervisors can write events.")
        if not self._logdir:
            logger.warning("Standard services need a 'logdir' passed to the Supervisor")
            return []
        if self._global_step is not None and self._summary_writer is not None:
            write_session_log(self._summary_writer, "START",
                              training_util.global_step(sess, self._global_step))
        threads: List[LooperThread] = []
        if self._save_summaries_secs and self._summary_writer is not None:
            if self._summary_op is not None:
                threads.append(_SummaryThread(self, sess))
            if self._global_step is not None:
                threads.append(_StepCounterThread(self, sess))
        if self._saver is not None and self._save_model_secs:
            threads.append(_CheckpointThread(self, sess))
        for t in threads:
            t.start()
        return threads

    def start_queue_runners(self, sess: Any, queue_runners: Optional[Sequence[Any]] = None
                            ) -> List[Any]:
        """Starts threads for ``queue_runners`` (default: the graph's) on this coordinator."""
        if queue_runners is None:
            queue_runners = self._graph.get_collection(GraphKeys.QUEUE_RUNNERS)
        threads: List[Any] = []
        for qr in queue_runners:
            threads.extend(qr.create_threads(sess, coord=self._coord, daemon=True, start=True))
        return threads

    def loop(self, timer_interval_secs: Optional[float], target: Callable[..., Any],
             args: Optional[Sequence[Any]] = None, kwargs: Optional[Dict[str, Any]] = None
             ) -> LooperThread:
        """Starts a thread calling ``target(*args, **kwargs)`` every interval until stop."""
        looper = LooperThread(self._coord, timer_interval_secs, target=target,
                              args=args or (), kwargs=kwargs)
        looper.start()
        return looper

    Loop = loop

    def stop(self, threads: Optional[Sequence[Any]] = None, close_summary_writer: bool = True,
             ignore_live_threads: bool = False) -> None:
        """Requests a stop, joins the threads (re-raising a reported exception) and
        closes the summary writer."""
        self._coord.request_stop()
        try:
            self._coord.join(threads, stop_grace_period_secs=self._stop_grace_secs,
                             ignore_live_threads=ignore_live_threads)
        finally:
            if close_summary_writer and self._summary_writer is not None:
                write_session_log(self._summary_writer, "STOP", None)
                self._summary_writer.close()
                self._graph_added_to_summary = False

    Stop = stop

    def request_stop(self, ex: Any = None) -> None:
        """Asks every coordinated thread to stop (``ex`` is re-raised by ``stop()``)."""
        self._coord.request_stop(ex=ex)

    RequestStop = request_stop

    def should_stop(self) -> bool:
        """True once a stop was requested."""
        return self._coord.should_stop()

    ShouldStop = should_stop

    def stop_on_exception(self) -> Any:
        """A context manager turning an exception into a stop request."""
        return self._coord.stop_on_exception()

    StopOnException = stop_on_exception

    def wait_for_stop(self) -> None:
        """Blocks until a stop is requested."""
        self._coord.wait_for_stop()

    WaitForStop = wait_for_stop

    def summary_computed(self, sess: Any, summary: Any, global_step: Optional[int] = None
                         ) -> None:
        """Writes a summary computed by the caller, at ``global_step`` (default: current)."""
        if self._summary_writer is None:
            raise RuntimeError("Writing a summary requires a summary writer.")
        if global_step is None and self._global_step is not None:
            global_step = training_util.global_step(sess, self._global_step)
        self._summary_writer.add_summary(summary, global_step)

    def _write_graph(self) -> None:
        writer = self._summary_writer
        if writer is None or self._graph_added_to_summary:
            return
        add_graph = getattr(writer, "add_graph", None)
        if add_graph is not None:
            add_graph(self._graph)
            self._graph_added_to_summary = True


def _open_file_writer(logdir: str) -> Any:
    try:
        summary_io = import_training_module("summary_io")
    except ImportError as e:
        logger.warning("Supervisor summaries disabled: %s", e)
        return None
    return summary_io.FileWriter(logdir)


class _SummaryThread(LooperThread):
    """Runs the summary op every ``save_summaries_secs`` and writes the result."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self.name = "SupervisorSummaries"
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        if self._sv.global_step is not None:
            summary, step = self._sess.run([self._sv.summary_op, self._sv.global_step])
        else:
            summary, step = self._sess.run(self._sv.summary_op), None
        if self._sv.summary_writer is not None:
            self._sv.summary_writer.add_summary(summary, None if step is None else int(step))


class _StepCounterThread(LooperThread):
    """Records the global steps per second every ``save_summaries_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_summaries_secs)
        self.name = "SupervisorStepCounter"
        self._sv = sv
        self._sess = sess
        self._tag = f"{sv.global_step.op.name}/sec"
        self._last_time = 0.0
        self._last_step = 0

    def start_loop(self) -> None:
        self._last_time = time.monotonic()
        self._last_step = training_util.global_step(self._sess, self._sv.global_step)

    def run_loop(self) -> None:
        step = training_util.global_step(self._sess, self._sv.global_step)
        now = time.monotonic()
        elapsed = now - self._last_time
        rate = (step - self._last_step) / elapsed if elapsed > 0 else 0.0
        self._last_time, self._last_step = now, step
        if self._sv.summary_writer is not None:
            self._sv.summary_writer.add_summary(scalar_summary_bytes(self._tag, rate), step)
        logger.info("%s: %g", self._tag, rate)


class _CheckpointThread(LooperThread):
    """Saves a checkpoint every ``save_model_secs``."""

    def __init__(self, sv: Supervisor, sess: Any):
        super().__init__(sv.coord, sv.save_model_secs)
        self.name = "SupervisorCheckpoints"
        self._sv = sv
        self._sess = sess

    def run_loop(self) -> None:
        step = (training_util.global_step(self._sess, self._sv.global_step)
                if self._sv.global_step is not None else None)
        logger.info("Saving checkpoint to path %s", self._sv.save_path)
        os.makedirs(os.path.dirname(self._sv.save_path) or ".", exist_ok=True)
        self._sv.saver.save(self._sess, self._sv.save_path, global_step=step)
