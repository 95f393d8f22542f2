"""``slim.learning.train`` and ``slim.learning.train_step``: the training loop of TF-slim
model zoos (``train_image_classifier.py``), on a ``tf.train.Supervisor``.

The chief initialises (or restores from ``logdir``) the model, runs ``init_fn`` once on a
fresh start, and runs the supervisor's summary, step-counter and checkpoint threads;
other workers wait for the model to be ready (and, with ``startup_delay_steps``, for the
global step to get that far). Every worker then runs ``train_step_fn`` until it says to
stop (``number_of_steps`` reached), an input runs out (``OutOfRangeError``) or the
supervisor stops; the chief saves a final checkpoint. A step aborted by a restarting
server (``AbortedError``) starts the session over. With ``sync_optimizer`` (a
``SyncReplicasOptimizer`` or a list of them) the chief also runs the token queue.
"""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

from tensorfleet import errors
from tensorfleet.framework.graph import Graph, get_default_graph, name_scope
from tensorfleet.ops import array_ops, control_flow_ops, math_ops
from tensorfleet.ops.lookup_ops import tables_initializer
from tensorfleet.ops.variables import (global_variables_initializer, local_variables_initializer,
                                       report_uninitialized_variables)
from tensorfleet.training.saver import Saver
from tensorfleet.ops.summary_ops import merge_all as merge_all_summaries
from tensorfleet.training.supervisor import Supervisor
from tensorfleet.training.sync_replicas_optimizer import SyncReplicasOptimizer
from tensorfleet.training.training_util import get_or_create_global_step

logger = logging.getLogger(__name__)


class _UseDefault:
    def __repr__(self) -> str:
        return "<use default>"


_USE_DEFAULT = _UseDefault()


def train_step(sess: Any, train_op: Any, global_step: Any,
               train_step_kwargs: Dict[str, Any]) -> Tuple[Any, bool]:
    """Runs ``train_op`` once; logs the loss when ``train_step_kwargs['should_log']`` is
    true and returns ``(loss, should_stop)`` (``should_stop`` from
    ``train_step_kwargs['should_stop']``, else False)."""
    start = time.time()
    loss, step = sess.run([train_op, global_step])
    elapsed = time.time() - start
    if "should_log" in train_step_kwargs and sess.run(train_step_kwargs["should_log"]):
        logger.info("global step %d: loss = %.4f (%.3f sec/step)", int(step), float(loss),
                    elapsed)
    should_stop = bool(sess.run(train_step_kwargs["should_stop"])) \
        if "should_stop" in train_step_kwargs else False
    return loss, should_stop


def _wait_for_step(sess: Any, global_step: Any, step: int) -> None:
    """Blocks until the global step reaches ``step`` (a worker's startup delay)."""
    while int(sess.run(global_step)) < step:
        time.sleep(1.0)


def _sync_list(sync_optimizer: Any) -> Optional[List[SyncReplicasOptimizer]]:
    if sync_optimizer is None:
        return None
    opts = sync_optimizer if isinstance(sync_optimizer, (list, tuple)) else [sync_optimizer]
    for opt in opts:
        if not isinstance(opt, SyncReplicasOptimizer):
            raise ValueError(f"sync_optimizer must be a SyncReplicasOptimizer or a list of "
                             f"them, got {opt!r}")
    return list(opts)


def train(train_op: Any, logdir: Optional[str],
          train_step_fn: Callable[..., Tuple[Any, bool]] = train_step,
          train_step_kwargs: Any = _USE_DEFAULT, log_every_n_steps: int = 1,
          graph: Optional[Graph] = None, master: str = "", is_chief: bool = True,
          global_step: Any = None, number_of_steps: Optional[int] = None,
          init_op: Any = _USE_DEFAULT, init_feed_dict: Optional[dict] = None,
          local_init_op: Any = _USE_DEFAULT, init_fn: Optional[Callable[[Any], None]] = None,
          ready_op: Any = _USE_DEFAULT, summary_op: Any = _USE_DEFAULT,
          save_summaries_secs: Optional[float] = 600, summary_writer: Any = _USE_DEFAULT,
          startup_delay_steps: int = 0, saver: Any = None,
          save_interval_secs: Optional[float] = 600, sync_optimizer: Any = None,
          session_config: Any = None, session_wrapper: Optional[Callable[[Any], Any]] = None,
          trace_every_n_steps: Optional[int] = None,
          ignore_live_threads: bool = False) -> Any:
    """Trains with ``train_op`` (usually from ``slim.learning.create_train_op``) until
    ``number_of_steps`` or the input ends; returns the last loss.

    Raises:
      ValueError: for ``train_op`` None, a summary op or saver without ``logdir``,
        ``startup_delay_steps`` with ``sync_optimizer``, a non-positive
        ``number_of_steps``, or ``trace_every_n_steps`` (no per-step trace files).
    """
    if train_op is None:
        raise ValueError("train_op cannot be None.")
    if trace_every_n_steps is not None:
        raise ValueError("trace_every_n_steps is not supported; use tf.train.ProfilerHook or "
                         "RunOptions(trace_level=FULL_TRACE) for step traces")
    if logdir is None:
        if summary_op is not _USE_DEFAULT:
            raise ValueError("Cannot provide summary_op because logdir=None")
        if saver is not None:
            raise ValueError("Cannot provide saver because logdir=None")
    syncs = _sync_list(sync_optimizer)
    if syncs is not None and startup_delay_steps > 0:
        raise ValueError("startup_delay_steps must be zero when sync_optimizer is supplied.")
    if number_of_steps is not None and number_of_steps <= 0:
        raise ValueError("`number_of_steps` must be either None or a positive number.")
    graph = graph if graph is not None else get_default_graph()
    chief_runners: List[Any] = []
    init_tokens: List[Any] = []
    with graph.as_default():
        if global_step is None:
            global_step = get_or_create_global_step()
        saver = saver if saver is not None else Saver()
        with name_scope("init_ops"):
            if init_op is _USE_DEFAULT:
                init_op = global_variables_initializer()
            if ready_op is _USE_DEFAULT:
                ready_op = report_uninitialized_variables()
            if local_init_op is _USE_DEFAULT:
                local_init_op = control_flow_ops.group(local_variables_initializer(),
                                                       tables_initializer())
            ready_for_local_init_op = None
            if syncs is not None:
                deps = [local_init_op] if local_init_op is not None else []
                with graph.control_dependencies(deps):
                    local_init_op = control_flow_ops.group(
                        *[o.chief_init_op if is_chief else o.local_step_init_op
                          for o in syncs])
                ready_for_local_init_op = control_flow_ops.group(
                    *[o.ready_for_local_init_op for o in syncs])
        if summary_op is _USE_DEFAULT:
            summary_op = merge_all_summaries()
        if is_chief and syncs is not None:
            # Made before the supervisor finalizes the graph.
            init_tokens = [o.get_init_tokens_op() for o in syncs]
            chief_runners = [o.get_chief_queue_runner() for o in syncs]
        if train_step_kwargs is _USE_DEFAULT:
            with name_scope("train_step"):
                step_dt = global_step.dtype.base_dtype
                train_step_kwargs = {
                    "should_stop": math_ops.greater_equal(
                        global_step, array_ops.constant(number_of_steps, dtype=step_dt))
                    if number_of_steps else array_ops.constant(False)}
                if log_every_n_steps > 0:
                    train_step_kwargs["should_log"] = math_ops.equal(
                        math_ops.mod(global_step,
                                     array_ops.constant(log_every_n_steps, dtype=step_dt)),
                        array_ops.constant(0, dtype=step_dt))
    sv = Supervisor(graph=graph, is_chief=is_chief, logdir=logdir, init_op=init_op,
                    init_feed_dict=init_feed_dict, local_init_op=local_init_op,
                    ready_for_local_init_op=ready_for_local_init_op, ready_op=ready_op,
                    summary_op=summary_op,
                    summary_writer=Supervisor.USE_DEFAULT if summary_writer is _USE_DEFAULT
                    else summary_writer,
                    global_step=global_step, saver=saver,
                    save_summaries_secs=save_summaries_secs,
                    save_model_secs=save_interval_secs, init_fn=init_fn)
    if summary_writer is not None:
        train_step_kwargs["summary_writer"] = sv.summary_writer
    total_loss = None
    while True:
        try:
            with sv.managed_session(master, config=session_config,
                                    start_standard_services=False) as sess:
                logger.info("Starting Session.")
                if session_wrapper is not None:
                    sess = session_wrapper(sess)
                if is_chief:
                    if logdir:
                        sv.start_standard_services(sess)
                elif startup_delay_steps > 0:
                    _wait_for_step(sess, global_step,
                                   min(startup_delay_steps, number_of_steps or startup_delay_steps))
                threads = sv.start_queue_runners(sess)
                logger.info("Starting Queues.")
                if chief_runners:
                    sv.start_queue_runners(sess, chief_runners)
                    sess.run(init_tokens)
                try:
                    while not sv.should_stop():
                        total_loss, should_stop = train_step_fn(sess, train_op, global_step,
                                                                train_step_kwargs)
                        if should_stop:
                            logger.info("Stopping Training.")
                            sv.request_stop()
                            break
                except errors.OutOfRangeError as e:
                    # An input with num_epochs ran out: training is complete.
                    logger.info("Caught OutOfRangeError. Stopping Training. %s", e)
                if logdir and sv.is_chief:
                    logger.info("Finished training! Saving model to disk.")
                    sv.saver.save(sess, sv.save_path, global_step=sv.global_step)
                    # The writer is closed once, by the managed session's own stop.
                    sv.stop(threads, close_summary_writer=False,
                            ignore_live_threads=ignore_live_threads)
            return total_loss
        except errors.AbortedError:
            # A server of the cluster restarted: start the session over.
            logger.info("Retrying training!")


__all__ = ["train", "train_step"]
