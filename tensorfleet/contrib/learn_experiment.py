"""``tf.contrib.learn.Experiment`` and ``learn_runner``: the TF 1.x (before 1.4) way to
train and evaluate an estimator on a cluster, on top of ``tf.estimator.train_and_evaluate``.

An ``Experiment`` holds an estimator, its train and eval input functions and step
counts; ``learn_runner.run(experiment_fn, output_dir=..., schedule=...)`` builds one
from a ``RunConfig`` and calls the method its schedule names. Without a schedule the
task's role in ``TF_CONFIG`` chooses it, as TF 1.x's runner does: ``run_std_server``
for a ps, ``train`` for a worker, ``train_and_evaluate`` for the chief or a local run,
``continuous_eval`` for an evaluator.
"""

from __future__ import annotations

import inspect
import logging
import time
from typing import Any, Callable, Dict, List, Optional, Sequence

from tensorfleet.estimator.estimator import Estimator
from tensorfleet.estimator.run_config import RunConfig, TaskType
from tensorfleet.estimator.training import (
    EvalSpec, TrainSpec, _run_evaluator, _run_ps, _run_trainer)

logger = logging.getLogger(__name__)

_SCHEDULES = ("train", "evaluate", "train_and_evaluate", "continuous_eval",
              "run_std_server", "test")


class Experiment:
    """An estimator with what to train and evaluate it on (``tf.contrib.learn.Experiment``).

    Args:
      estimator: a ``tf.estimator.Estimator``.
      train_input_fn, eval_input_fn: the input functions.
      train_steps: training stops at this global step (None: when the input ends).
      eval_steps: batches per evaluation (None: until the input ends).
      train_monitors, eval_hooks: extra session-run hooks for training and evaluation.
      eval_delay_secs: how long an evaluator waits before its first evaluation.
      continuous_eval_throttle_secs: the least time between two evaluations.
      min_eval_frequency: in a local ``train_and_evaluate``, evaluate after every this
        many training steps (None: once, at the end).
      export_strategies: unsupported: anything but None raises ``ValueError``.
    """

    def __init__(self, estimator: Estimator, train_input_fn: Callable[..., Any],
                 eval_input_fn: Callable[..., Any], eval_metrics: Any = None,
                 train_steps: Optional[int] = None, eval_steps: Optional[int] = 100,
                 train_monitors: Optional[Sequence[Any]] = None,
                 eval_hooks: Optional[Sequence[Any]] = None, local_eval_frequency: Any = None,
                 eval_delay_secs: float = 120, continuous_eval_throttle_secs: float = 60,
                 min_eval_frequency: Optional[int] = None, delay_workers_by_global_step: bool = False,
                 export_strategies: Any = None, train_steps_per_iteration: Optional[int] = None):
        if not isinstance(estimator, Estimator):
            raise TypeError(f"`estimator` must be a tf.estimator.Estimator, got {type(estimator)}")
        for name, value in (("eval_metrics", eval_metrics),
                            ("local_eval_frequency", local_eval_frequency),
                            ("export_strategies", export_strategies),
                            ("train_steps_per_iteration", train_steps_per_iteration)):
            if value is not None:
                raise ValueError(f"Experiment({name}=...) is not supported by tensorfleet: "
                                 "put metrics in the model_fn's eval_metric_ops and export "
                                 "with tf.estimator exporters")
        if delay_workers_by_global_step:
            raise ValueError("Experiment(delay_workers_by_global_step=True) is not supported")
        if min_eval_frequency is not None and min_eval_frequency <= 0:
            raise ValueError(f"min_eval_frequency must be positive, got {min_eval_frequency}")
        self._estimator = estimator
        self._min_eval_frequency = min_eval_frequency
        self._train_spec = TrainSpec(train_input_fn, max_steps=train_steps,
                                     hooks=train_monitors)
        self._eval_spec = EvalSpec(eval_input_fn, steps=eval_steps, hooks=eval_hooks,
                                   start_delay_secs=eval_delay_secs,
                                   throttle_secs=continuous_eval_throttle_secs)

    @property
    def estimator(self) -> Estimator:
        """The estimator this experiment trains."""
        return self._estimator

    @property
    def train_steps(self) -> Optional[int]:
        """The global step at which training stops."""
        return self._train_spec.max_steps

    @property
    def eval_steps(self) -> Optional[int]:
        """Batches per evaluation."""
        return self._eval_spec.steps

    def train(self, delay_secs: Optional[float] = None) -> Any:
        """Trains until ``train_steps`` (after ``delay_secs``, if given); on a cluster
        worker, as one of its trainers."""
        if delay_secs:
            time.sleep(delay_secs)
        if self._estimator.config.cluster_spec.jobs:
            _run_trainer(self._estimator, self._train_spec)
            return self._estimator
        return self._estimator.train(self._train_spec.input_fn, hooks=self._train_spec.hooks,
                                     max_steps=self._train_spec.max_steps)

    def evaluate(self, delay_secs: Optional[float] = None, name: Optional[str] = None
                 ) -> Dict[str, Any]:
        """Evaluates the latest checkpoint once (after ``delay_secs``, if given)."""
        if delay_secs:
            time.sleep(delay_secs)
        return self._estimator.evaluate(self._eval_spec.input_fn, steps=self._eval_spec.steps,
                                        hooks=self._eval_spec.hooks, name=name)

    def test(self) -> Dict[str, Any]:
        """One training step and one evaluation step: a check that the graph builds."""
        self._estimator.train(self._train_spec.input_fn, steps=1)
        return self._estimator.evaluate(self._eval_spec.input_fn, steps=1)

    def train_and_evaluate(self) -> Dict[str, Any]:
        """Trains, then evaluates the final checkpoint; locally with
        ``min_eval_frequency``, evaluates after every that many steps as well."""
        every = self._min_eval_frequency
        if not every or self._estimator.config.cluster_spec.jobs:
            self.train()
            return self.evaluate()
        spec, est = self._train_spec, self._estimator
        step = 0 if est.latest_checkpoint() is None else int(est.get_variable_value("global_step"))
        while True:
            target = step + every if spec.max_steps is None else min(step + every, spec.max_steps)
            est.train(spec.input_fn, hooks=spec.hooks, max_steps=target)
            metrics = self.evaluate()
            last, step = step, int(metrics["global_step"])
            # Done at train_steps, or when the input ran out (no step was taken).
            if step == last or (spec.max_steps is not None and step >= spec.max_steps):
                return metrics

    def continuous_eval(self, delay_secs: Optional[float] = None,
                        throttle_delay_secs: Optional[float] = None) -> Optional[Dict[str, Any]]:
        """Evaluates each new checkpoint until training reaches ``train_steps`` (or no new
        checkpoint comes for ``EvalSpec.max_wait_secs``); returns the last metrics."""
        spec = self._eval_spec._replace(
            start_delay_secs=_or(delay_secs, self._eval_spec.start_delay_secs),
            throttle_secs=_or(throttle_delay_secs, self._eval_spec.throttle_secs))
        metrics, _ = _run_evaluator(self._estimator, self._train_spec, spec)
        return metrics

    def run_std_server(self) -> None:
        """Serves this task's variables (a ps) until every worker is done."""
        _run_ps(self._estimator)


def _or(value: Optional[float], default: float) -> float:
    return default if value is None else value


def _default_schedule(config: RunConfig) -> str:
    if not config.cluster_spec.jobs:
        return "train_and_evaluate"
    return {TaskType.PS: "run_std_server", TaskType.WORKER: "train",
            TaskType.CHIEF: "train", TaskType.MASTER: "train",
            TaskType.EVALUATOR: "continuous_eval"}.get(config.task_type, "")


def run(experiment_fn: Callable[..., Experiment], output_dir: Optional[str] = None,
        schedule: Optional[str] = None, run_config: Optional[RunConfig] = None,
        hparams: Any = None) -> Any:
    """Builds the experiment and runs its ``schedule`` (``learn_runner.run``).

    ``experiment_fn`` is called as ``experiment_fn(output_dir)`` when ``output_dir`` is
    given, else as ``experiment_fn(run_config, hparams)``. Returns what the schedule's
    method returns.
    """
    if (output_dir is None) == (run_config is None):
        raise ValueError("learn_runner.run needs exactly one of output_dir and run_config")
    if output_dir is not None:
        if hparams is not None:
            raise ValueError("hparams go with run_config, not output_dir")
        experiment = experiment_fn(output_dir)
    else:
        params = list(inspect.signature(experiment_fn).parameters)
        experiment = experiment_fn(run_config, hparams) if len(params) >= 2 \
            else experiment_fn(run_config)
    if not isinstance(experiment, Experiment):
        raise TypeError(f"experiment_fn must return an Experiment, got {type(experiment)}")
    schedule = schedule or _default_schedule(experiment.estimator.config)
    if schedule not in _SCHEDULES:
        raise ValueError(f"Schedule {schedule!r} is not one of {list(_SCHEDULES)}")
    logger.info("Running the experiment's schedule %r", schedule)
    return getattr(experiment, schedule)()


class _LearnRunner:
    """The ``tf.contrib.learn.learn_runner`` module: ``run``."""

    run = staticmethod(run)


learn_runner = _LearnRunner()

__all__: List[str] = ["Experiment", "learn_runner", "run"]
