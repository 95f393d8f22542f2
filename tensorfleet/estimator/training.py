"""``tf.estimator.train_and_evaluate``: one call that every task of a cluster makes.

What a task does follows from its ``TF_CONFIG`` role (``estimator.config``):

* ``ps``: serves the variables (a ``tf.train.Server``) and returns once every
  chief/worker has said it is done (``join_until_workers_done``), instead of
  blocking forever in ``server.join()``;
* ``chief`` / ``worker``: starts its own server, trains against it up to
  ``train_spec.max_steps`` (workers wait for the chief to initialize), then
  tells the ps tasks it is done and stops its server;
* ``evaluator``: starts no server. It waits for checkpoints in ``model_dir``,
  evaluates each new one (at most once per ``throttle_secs``), logs the
  metrics, runs the ``eval_spec.exporters``, and stops after evaluating one at ``max_steps`` -- or after
  ``eval_spec.max_wait_secs`` without a new checkpoint;
* no ``TF_CONFIG``: trains locally, then evaluates the final checkpoint and runs
  the exporters (as the final export).
"""

from __future__ import annotations

import collections
import logging
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from tensorfleet import errors
from tensorfleet.platform import logs
from tensorfleet.estimator.estimator import Estimator
from tensorfleet.estimator.exporter import check_exporters, run_exporters
from tensorfleet.estimator.run_config import TaskType
from tensorfleet.distributed.server import Server
from tensorfleet.training.job_done import join_until_workers_done, signal_workers_done

logger = logging.getLogger(__name__)

# Polling period of the evaluator while it waits for a new checkpoint: short,
# so that the final checkpoint is picked up soon after the chief writes it.
_POLL_SECS = 0.5


class TrainSpec(collections.namedtuple("TrainSpec", ["input_fn", "max_steps", "hooks"])):
    """What to train on and for how long: ``input_fn``, ``max_steps`` (None: until the
    input ends) and extra ``hooks``."""

    def __new__(cls, input_fn: Callable[..., Any], max_steps: Optional[int] = None,
                hooks: Optional[Sequence[Any]] = None) -> "TrainSpec":
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        return super().__new__(cls, input_fn, max_steps, tuple(hooks or ()))


class EvalSpec(collections.namedtuple("EvalSpec", [
        "input_fn", "steps", "name", "hooks", "exporters", "start_delay_secs", "throttle_secs",
        "max_wait_secs"])):
    """How to evaluate: ``input_fn``, ``steps`` batches (None: until the input ends),
    a ``name`` for the results, ``hooks``, ``exporters`` (an ``Exporter`` or a list of
    them, run after each evaluation); the evaluator starts after
    ``start_delay_secs``, evaluates at most once per ``throttle_secs``, and gives
    up after ``max_wait_secs`` without a new checkpoint (a tensorfleet addition,
    so that an evaluator whose trainers died does not wait forever)."""

    def __new__(cls, input_fn: Callable[..., Any], steps: Optional[int] = 100,
                name: Optional[str] = None, hooks: Optional[Sequence[Any]] = None,
                exporters: Any = None, start_delay_secs: float = 120,
                throttle_secs: float = 600, max_wait_secs: float = 3600) -> "EvalSpec":
        if not callable(input_fn):
            raise TypeError(f"`input_fn` must be callable, given: {input_fn!r}")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if start_delay_secs < 0 or throttle_secs < 0 or max_wait_secs <= 0:
            raise ValueError("start_delay_secs and throttle_secs must be >= 0 and max_wait_secs "
                             "> 0")
        exporters = check_exporters(exporters)
        return super().__new__(cls, input_fn, steps, name, tuple(hooks or ()), exporters,
                               start_delay_secs, throttle_secs, max_wait_secs)


def train_and_evaluate(estimator: Estimator, train_spec: TrainSpec,
                       eval_spec: EvalSpec) -> Tuple[Optional[Dict[str, Any]], List[Any]]:
    """Trains and evaluates ``estimator`` in the role ``TF_CONFIG`` gives this task.

    Returns:
      ``(metrics, export_results)``: the last evaluation's metrics and what the
      exporters returned after it (on the evaluator and in local mode; None and
      an empty list on other tasks).

    Raises:
      TypeError: wrong argument types.
      ValueError: a task type that has no role here.
    """
    if not isinstance(estimator, Estimator):
        raise TypeError(f"`estimator` must have type `tf.estimator.Estimator`, given "
                        f"{type(estimator)}")
    if not isinstance(train_spec, TrainSpec):
        raise TypeError(f"`train_spec` must have type `tf.estimator.TrainSpec`, given "
                        f"{type(train_spec)}")
    if not isinstance(eval_spec, EvalSpec):
        raise TypeError(f"`eval_spec` must have type `tf.estimator.EvalSpec`, given "
                        f"{type(eval_spec)}")
    # Every role honours TENSORFLEET_LOG_LEVEL, the evaluator too, which starts no server.
    logs.configure_from_env()
    config = estimator.config
    if not config.cluster_spec.jobs:
        return _run_local(estimator, train_spec, eval_spec)
    task = config.task_type
    logger.info("Running train_and_evaluate as %s:%s", task, config.task_id)
    if task == TaskType.PS:
        _run_ps(estimator)
        return None, []
    if task in (TaskType.CHIEF, TaskType.MASTER, TaskType.WORKER):
        _run_trainer(estimator, train_spec)
        return None, []
    if task == TaskType.EVALUATOR:
        return _run_evaluator(estimator, train_spec, eval_spec)
    raise ValueError(f"Task type {task!r} is not supported by train_and_evaluate; expected "
                     f"one of chief, worker, ps, evaluator")


def _run_local(estimator: Estimator, train_spec: TrainSpec,
               eval_spec: EvalSpec) -> Tuple[Dict[str, Any], List[Any]]:
    estimator.train(train_spec.input_fn, hooks=train_spec.hooks, max_steps=train_spec.max_steps)
    ckpt = estimator.latest_checkpoint()
    metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps,
                                 hooks=eval_spec.hooks, checkpoint_path=ckpt,
                                 name=eval_spec.name)
    return metrics, run_exporters(estimator, eval_spec.exporters, ckpt, metrics, True)


def _start_server(estimator: Estimator) -> Any:
    config = estimator.config
    return Server(config.cluster_spec, job_name=config.task_type, task_index=config.task_id,
                  config=config.session_config, start=True)


def _run_ps(estimator: Estimator) -> None:
    server = _start_server(estimator)
    try:
        join_until_workers_done(server, stop=False)
    finally:
        server.stop()
    logger.info("Parameter server %s done: every worker finished", server.task)


def _run_trainer(estimator: Estimator, train_spec: TrainSpec) -> None:
    config = estimator.config
    server = _start_server(estimator)
    try:
        estimator.train(train_spec.input_fn, hooks=train_spec.hooks,
                        max_steps=train_spec.max_steps)
        signal_workers_done(server.target, config.cluster_spec,
                            worker_index=config.global_id_in_cluster or 0)
    finally:
        server.stop()


def _run_evaluator(estimator: Estimator, train_spec: TrainSpec,
                   eval_spec: EvalSpec) -> Tuple[Optional[Dict[str, Any]], List[Any]]:
    """Evaluates new checkpoints until one reaches ``max_steps`` (or none comes), running
    the exporters after each evaluation."""
    if eval_spec.start_delay_secs:
        logger.info("Waiting %.1f secs before starting evaluation.", eval_spec.start_delay_secs)
        time.sleep(eval_spec.start_delay_secs)
    last_ckpt: Optional[str] = None
    last_metrics: Optional[Dict[str, Any]] = None
    last_exports: List[Any] = []
    last_new = time.monotonic()
    last_eval = -float("inf")
    while True:
        ckpt = estimator.latest_checkpoint()
        now = time.monotonic()
        if ckpt is None or ckpt == last_ckpt:
            if now - last_new > eval_spec.max_wait_secs:
                logger.warning("No new checkpoint in %s for %.0f secs; evaluator stops.",
                               estimator.model_dir, eval_spec.max_wait_secs)
                return last_metrics, last_exports
            time.sleep(_POLL_SECS)
            continue
        last_new = now
        wait = last_eval + eval_spec.throttle_secs - now
        if wait > 0:
            # Throttled: the checkpoint evaluated then is the newest one at that time.
            time.sleep(min(wait, _POLL_SECS))
            continue
        try:
            metrics = estimator.evaluate(eval_spec.input_fn, steps=eval_spec.steps,
                                         hooks=eval_spec.hooks, checkpoint_path=ckpt,
                                         name=eval_spec.name)
        except (errors.NotFoundError, errors.DataLossError) as e:
            # Rotated away (max_to_keep) between listing and reading: take the next one.
            # Routine when a newer checkpoint replaced it, so a warning only otherwise.
            newer = estimator.latest_checkpoint() not in (None, ckpt)
            logger.log(logging.INFO if newer else logging.WARNING,
                       "Checkpoint %s vanished before it was evaluated: %s", ckpt, e)
            last_ckpt = ckpt
            continue
        last_ckpt, last_metrics, last_eval = ckpt, metrics, time.monotonic()
        step = metrics.get("global_step", 0)
        final = train_spec.max_steps is not None and step >= train_spec.max_steps
        try:
            last_exports = run_exporters(estimator, eval_spec.exporters, ckpt, metrics, final)
        except (errors.NotFoundError, errors.DataLossError) as e:
            logger.warning("Checkpoint %s vanished before it was exported: %s", ckpt, e)
            last_exports = []
        if final:
            logger.info("Exiting evaluation, global_step=%d >= train max_steps=%d", step,
                        train_spec.max_steps)
            return metrics, last_exports


__all__ = ["TrainSpec", "EvalSpec", "train_and_evaluate"]
