"""``tf.estimator.Estimator``: a model function trained, evaluated and used for prediction.

Every call builds a fresh graph: ``input_fn`` gives features and labels (or a
``tf.data.Dataset`` of ``(features, labels)`` elements), ``model_fn`` turns
them into an ``EstimatorSpec`` for the mode. ``train`` runs that graph in a
``MonitoredTrainingSession`` against this task's server when ``TF_CONFIG``
names a cluster (variables placed on the ps tasks by ``replica_device_setter``;
the chief initializes, restores and checkpoints into ``model_dir``, other
workers wait for it). ``evaluate`` and ``predict`` restore a checkpoint into a
local graph, so they need no cluster at all.
"""

from __future__ import annotations

import collections
import contextlib
import inspect
import logging
import os
import tempfile
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from tensorfleet.estimator import metrics as metrics_lib
from tensorfleet.estimator import warm_starting as _warm_starting
from tensorfleet.estimator.export import export_lib as _export_lib
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.framework.graph import Graph, Operation, Tensor, convert_to_tensor
from tensorfleet.ops import control_flow_ops, summary_ops
from tensorfleet.training import basic_hooks
from tensorfleet.training.basic_hooks import (FinalOpsHook, StopAtStepHook,
                                               nothing_to_train_message)
from tensorfleet.training.checkpoint_management import latest_checkpoint, load_variable
from tensorfleet.training.device_setter import replica_device_setter
from tensorfleet.training.monitored_session import MonitoredSession, MonitoredTrainingSession
from tensorfleet.training.saver import Saver
from tensorfleet.training.saver_hooks import CheckpointSaverHook
from tensorfleet.training.scaffold import ChiefSessionCreator, Scaffold
from tensorfleet.training.summary_io import FileWriterCache
from tensorfleet.training.training_util import get_or_create_global_step

logger = logging.getLogger(__name__)


class ModeKeys:
    """The three things a ``model_fn`` is asked to build."""

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


_SPEC_FIELDS = ("mode", "predictions", "loss", "train_op", "eval_metric_ops", "export_outputs",
                "training_chief_hooks", "training_hooks", "scaffold", "evaluation_hooks",
                "prediction_hooks")


def _check_hooks(hooks: Any, what: str) -> Tuple[Any, ...]:
    hooks = tuple(hooks or ())
    for h in hooks:
        if not all(hasattr(h, m) for m in ("begin", "before_run", "after_run", "end")):
            raise TypeError(f"All hooks must be SessionRunHook instances, given: {h!r} in {what}")
    return hooks


class EstimatorSpec(collections.namedtuple("EstimatorSpec", _SPEC_FIELDS)):
    """What ``model_fn`` returns: the ops of one mode.

    TRAIN needs ``loss`` and ``train_op``; EVAL needs ``loss`` (and may give
    ``eval_metric_ops``, a dict of ``(value, update_op)`` pairs such as
    ``tf.metrics.accuracy`` returns); PREDICT needs ``predictions`` (a tensor
    or a dict of tensors).
    """

    def __new__(cls, mode: str, predictions: Any = None, loss: Any = None, train_op: Any = None,
                eval_metric_ops: Optional[Dict[str, Tuple[Any, Any]]] = None,
                export_outputs: Any = None, training_chief_hooks: Any = None,
                training_hooks: Any = None, scaffold: Any = None, evaluation_hooks: Any = None,
                prediction_hooks: Any = None) -> "EstimatorSpec":
        if mode not in (ModeKeys.TRAIN, ModeKeys.EVAL, ModeKeys.PREDICT):
            raise ValueError(f"mode must be one of ModeKeys, got {mode!r}")
        if mode == ModeKeys.TRAIN and train_op is None:
            raise ValueError("Missing train_op.")
        if mode in (ModeKeys.TRAIN, ModeKeys.EVAL) and loss is None:
            raise ValueError("Missing loss.")
        if mode == ModeKeys.PREDICT and predictions is None:
            raise ValueError("Missing predictions.")
        if loss is not None:
            loss = convert_to_tensor(loss)
            if loss.shape.ndims not in (None, 0):
                raise ValueError(f"Loss must be scalar, given: {loss}")
        if train_op is not None and not isinstance(train_op, (Operation, Tensor)):
            raise TypeError(f"train_op must be Operation or Tensor, given: {train_op!r}")
        if predictions is not None and not isinstance(predictions, (Tensor, dict)):
            raise TypeError(f"predictions must be Tensor or dict of Tensor, given: "
                            f"{predictions!r}")
        eval_metric_ops = dict(eval_metric_ops or {})
        for key, pair in eval_metric_ops.items():
            if not isinstance(pair, tuple) or len(pair) != 2:
                raise TypeError(f"Values of eval_metric_ops must be (metric_value, update_op) "
                                f"tuples, given: {pair!r} for key: {key}")
        return super().__new__(
            cls, mode, predictions, loss, train_op, eval_metric_ops, export_outputs,
            _check_hooks(training_chief_hooks, "training_chief_hooks"),
            _check_hooks(training_hooks, "training_hooks"), scaffold,
            _check_hooks(evaluation_hooks, "evaluation_hooks"),
            _check_hooks(prediction_hooks, "prediction_hooks"))


def _fn_args(fn: Callable[..., Any]) -> Tuple[str, ...]:
    try:
        return tuple(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return ()


class _StopAfterNEvalsHook:
    """Stops an evaluation after ``num_evals`` batches."""

    def __init__(self, num_evals: int):
        self._num_evals = num_evals
        self._done = 0

    def begin(self) -> None:
        self._done = 0

    def after_create_session(self, session: Any, coord: Any) -> None:
        pass

    def before_run(self, run_context: Any) -> None:
        return None

    def after_run(self, run_context: Any, run_values: Any) -> None:
        self._done += 1
        if self._done >= self._num_evals:
            run_context.request_stop()

    def end(self, session: Any) -> None:
        pass


class Estimator:
    """Trains, evaluates and predicts with ``model_fn``.

    Args:
      model_fn: ``model_fn(features, labels, mode, params, config)`` returning an
        ``EstimatorSpec``; ``mode``, ``params`` and ``config`` are passed only if
        named in its signature.
      model_dir: checkpoints and summaries (``config.model_dir``, else a temporary
        directory, when None).
      config: a ``RunConfig`` (a default one, reading ``TF_CONFIG``, when None).
      params: a dict handed to ``model_fn`` and ``input_fn``.
      warm_start_from: a checkpoint prefix or directory, or a ``WarmStartSettings``:
        when training starts without a checkpoint in ``model_dir``, the selected
        variables take their first values from that checkpoint.
    """

    def __init__(self, model_fn: Callable[..., EstimatorSpec], model_dir: Optional[str] = None,
                 config: Optional[RunConfig] = None, params: Optional[Dict[str, Any]] = None,
                 warm_start_from: Any = None):
        if not callable(model_fn):
            raise TypeError(f"model_fn must be callable, got {model_fn!r}")
        args = _fn_args(model_fn)
        if args and "features" not in args:
            raise ValueError(f"model_fn ({model_fn}) must include features argument.")
        config = config if config is not None else RunConfig()
        if not isinstance(config, RunConfig):
            raise ValueError(f"config must be an instance of RunConfig, but provided {config}.")
        if model_dir and config.model_dir and \
                os.path.abspath(model_dir) != os.path.abspath(config.model_dir):
            raise ValueError(f"model_dir are set both in constructor and RunConfig, but with "
                             f"different values. In constructor: '{model_dir}', in RunConfig: "
                             f"'{config.model_dir}'.")
        model_dir = model_dir or config.model_dir
        if not model_dir:
            model_dir = tempfile.mkdtemp(prefix="tensorfleet_estimator_")
            logger.warning("Using temporary folder as model directory: %s", model_dir)
        self._warm_start_settings = _warm_starting.to_warm_start_settings(warm_start_from)
        self._model_fn = model_fn
        self._config = config.replace(model_dir=model_dir)
        self._model_dir = model_dir
        self._params = dict(params or {})
        logger.info("Using config: %s", self._config.as_dict())

    @property
    def model_dir(self) -> str:
        return self._model_dir

    @property
    def config(self) -> RunConfig:
        return self._config

    @property
    def params(self) -> Dict[str, Any]:
        return dict(self._params)

    @property
    def model_fn(self) -> Callable[..., EstimatorSpec]:
        return self._model_fn

    # -- graph building ---------------------------------------------------------------------
    def _call_input_fn(self, input_fn: Callable[..., Any], mode: str) -> Tuple[Any, Any]:
        args = _fn_args(input_fn)
        kwargs: Dict[str, Any] = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self._params
        if "config" in args:
            kwargs["config"] = self._config
        result = input_fn(**kwargs)
        if hasattr(result, "make_one_shot_iterator"):
            result = result.make_one_shot_iterator().get_next()
        if isinstance(result, tuple) and not hasattr(result, "_fields"):
            if len(result) != 2:
                raise ValueError(f"input_fn must return (features, labels) or features; got a "
                                 f"tuple of {len(result)}")
            return result[0], result[1]
        return result, None

    def _call_model_fn(self, features: Any, labels: Any, mode: str) -> EstimatorSpec:
        args = _fn_args(self._model_fn)
        kwargs: Dict[str, Any] = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self._params
        if "config" in args:
            kwargs["config"] = self._config
        spec = self._model_fn(features=features, **kwargs)
        if not isinstance(spec, EstimatorSpec):
            raise ValueError(f"model_fn should return an EstimatorSpec. Given: {spec!r}")
        return spec

    def _device_fn(self) -> Any:
        if self._config.device_fn is not None:
            return self._config.device_fn
        if self._config.num_ps_replicas > 0:
            return replica_device_setter(
                cluster=self._config.cluster_spec,
                worker_device=f"/job:{self._config.task_type}/task:{self._config.task_id}")
        return None

    def _new_graph(self) -> Graph:
        g = Graph()
        if self._config.tf_random_seed is not None:
            g.seed = self._config.tf_random_seed
        return g

    def _resolve_checkpoint(self, checkpoint_path: Optional[str]) -> Optional[str]:
        if checkpoint_path and os.path.isdir(checkpoint_path):
            return latest_checkpoint(checkpoint_path)
        return checkpoint_path or latest_checkpoint(self._model_dir)

    def latest_checkpoint(self) -> Optional[str]:
        """The prefix of the newest checkpoint in ``model_dir`` (None when there is none)."""
        return self._resolve_checkpoint(None)

    def get_variable_value(self, name: str) -> np.ndarray:
        """A variable's value in the latest checkpoint."""
        ckpt = self.latest_checkpoint()
        if ckpt is None:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        return load_variable(ckpt, name)

    def _checkpoint_step(self) -> int:
        ckpt = self.latest_checkpoint()
        if ckpt is None:
            return 0
        return int(load_variable(ckpt, "global_step"))

    # -- train ------------------------------------------------------------------------------
    def train(self, input_fn: Callable[..., Any], hooks: Optional[Sequence[Any]] = None,
              steps: Optional[int] = None, max_steps: Optional[int] = None,
              saving_listeners: Optional[Sequence[Any]] = None) -> "Estimator":
        """Trains until ``steps`` more steps, ``max_steps`` in all, or the input ends.

        Raises:
          ValueError: both ``steps`` and ``max_steps``, or a non-positive one.
        """
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            restored = self._checkpoint_step()
            if restored >= max_steps:
                # A warning: a rerun into an old model_dir must not look like training.
                logger.warning("%s", nothing_to_train_message(restored, max_steps,
                                                              self._model_dir))
                return self
        all_hooks = list(_check_hooks(hooks, "hooks"))
        if steps is not None or max_steps is not None:
            all_hooks.append(StopAtStepHook(num_steps=steps, last_step=max_steps))
        loss = self._train_model(input_fn, all_hooks, list(saving_listeners or []))
        logger.info("Loss for final step: %s.", loss)
        return self

    def _train_model(self, input_fn: Callable[..., Any], hooks: List[Any],
                     listeners: List[Any]) -> Any:
        cfg = self._config
        g = self._new_graph()
        with g.as_default():
            device_fn = self._device_fn()
            with g.device(device_fn) if device_fn is not None else contextlib.nullcontext():
                global_step = get_or_create_global_step(g)
                features, labels = self._call_input_fn(input_fn, ModeKeys.TRAIN)
                spec = self._call_model_fn(features, labels, ModeKeys.TRAIN)
                _add_loss_summary(spec.loss)
            if self._warm_start_settings is not None:
                # Only the initializers change, so a run that restores its own
                # checkpoint from model_dir ignores the warm-start checkpoint.
                ws = self._warm_start_settings
                logger.info("Warm-starting with WarmStartSettings: %s", ws)
                _warm_starting.warm_start(*ws)
            scaffold = spec.scaffold or Scaffold()
            if scaffold.saver is None and not g.get_collection("savers"):
                g.add_to_collection("savers", Saver(
                    sharded=True, max_to_keep=cfg.keep_checkpoint_max,
                    keep_checkpoint_every_n_hours=cfg.keep_checkpoint_every_n_hours))
            all_hooks = list(hooks) + list(spec.training_hooks) + [
                basic_hooks.NanTensorHook(spec.loss)]
            if cfg.log_step_count_steps:
                all_hooks.append(basic_hooks.LoggingTensorHook(
                    {"loss": spec.loss, "step": global_step},
                    every_n_iter=cfg.log_step_count_steps))
            chief_hooks = list(spec.training_chief_hooks)
            save_secs, save_steps = cfg.save_checkpoints_secs, cfg.save_checkpoints_steps
            if listeners and (save_secs or save_steps):
                # Listeners need the checkpoint hook; it then replaces the default one.
                chief_hooks.append(CheckpointSaverHook(
                    self._model_dir, save_secs=save_secs, save_steps=save_steps,
                    scaffold=scaffold, listeners=listeners))
                save_secs = save_steps = None
            loss = None
            with MonitoredTrainingSession(
                    master=cfg.master, is_chief=cfg.is_chief, checkpoint_dir=self._model_dir,
                    scaffold=scaffold, hooks=all_hooks, chief_only_hooks=chief_hooks,
                    save_checkpoint_secs=save_secs, save_checkpoint_steps=save_steps,
                    save_summaries_steps=cfg.save_summary_steps, config=cfg.session_config,
                    log_step_count_steps=cfg.log_step_count_steps) as sess:
                while not sess.should_stop():
                    _, loss = sess.run([spec.train_op, spec.loss])
        return loss

    # -- evaluate ---------------------------------------------------------------------------
    def evaluate(self, input_fn: Callable[..., Any], steps: Optional[int] = None,
                 hooks: Optional[Sequence[Any]] = None, checkpoint_path: Optional[str] = None,
                 name: Optional[str] = None) -> Dict[str, Any]:
        """Evaluates a checkpoint (the latest by default) until the input ends or ``steps``.

        Returns:
          The final value of every metric (``loss`` included) and ``global_step``.

        Raises:
          ValueError: no checkpoint, or ``steps`` <= 0.
        """
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        ckpt = self._resolve_checkpoint(checkpoint_path)
        if ckpt is None:
            raise ValueError(f"Could not find trained model in model_dir: {self._model_dir}.")
        g = self._new_graph()
        with g.as_default():
            global_step = get_or_create_global_step(g)
            features, labels = self._call_input_fn(input_fn, ModeKeys.EVAL)
            spec = self._call_model_fn(features, labels, ModeKeys.EVAL)
            metric_ops = dict(spec.eval_metric_ops)
            if "loss" not in metric_ops:
                metric_ops["loss"] = metrics_lib.mean(spec.loss, name="loss_metric")
            update = control_flow_ops.group(*[u for _, u in metric_ops.values()])
            final = FinalOpsHook({"metrics": {k: v for k, (v, _) in metric_ops.items()},
                                  "global_step": global_step})
            all_hooks = list(_check_hooks(hooks, "hooks")) + list(spec.evaluation_hooks)
            if steps is not None:
                all_hooks.append(_StopAfterNEvalsHook(steps))
            all_hooks.append(final)
            self._run_restored(spec.scaffold, ckpt, all_hooks, lambda sess: sess.run(update))
        values = final.final_ops_values
        if values is None:
            raise RuntimeError(f"Evaluation of {ckpt} produced no metrics")
        result = {k: _python_scalar(v) for k, v in values["metrics"].items()}
        result["global_step"] = int(values["global_step"])
        logger.info("Saving dict for global step %d: %s", result["global_step"],
                    ", ".join(f"{k} = {v}" for k, v in sorted(result.items())))
        if self._config.save_summary_steps:
            _write_eval_summaries(self._eval_dir(name), result)
        return result

    def _eval_dir(self, name: Optional[str]) -> str:
        return os.path.join(self._model_dir, "eval" if not name else f"eval_{name}")

    def _run_restored(self, scaffold: Any, ckpt: Optional[str], hooks: List[Any],
                      step: Callable[[Any], Any]) -> None:
        """Runs ``step`` until stop in a session restored from ``ckpt``."""
        for _ in self._restored_steps(scaffold, ckpt, hooks, step):
            pass

    def _restored_steps(self, scaffold: Any, ckpt: Optional[str], hooks: List[Any],
                        step: Callable[[Any], Any]) -> Iterator[Any]:
        """Yields ``step(session)`` until the session stops (the input ran out, or a
        hook asked); the session restores ``ckpt``, or initializes when it is None."""
        if scaffold is None:
            scaffold = Scaffold()
        creator = ChiefSessionCreator(scaffold=scaffold, master=self._config.evaluation_master,
                                      config=self._config.session_config,
                                      checkpoint_filename_with_path=ckpt)
        with MonitoredSession(session_creator=creator, hooks=hooks) as sess:
            while not sess.should_stop():
                yield step(sess)

    # -- export -----------------------------------------------------------------------------
    def export_saved_model(self, export_dir_base: Any,
                           serving_input_receiver_fn: Callable[..., Any],
                           assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False,
                           checkpoint_path: Optional[str] = None,
                           experimental_mode: str = ModeKeys.PREDICT) -> bytes:
        """Writes the PREDICT-mode model fed by ``serving_input_receiver_fn``, with the
        latest (or given) checkpoint, as a SavedModel in a new timestamped directory
        under ``export_dir_base``; returns that directory."""
        if experimental_mode != ModeKeys.PREDICT:
            raise ValueError(f"export_saved_model: only experimental_mode=PREDICT is "
                             f"supported, got {experimental_mode!r}")
        return _export_lib.export_saved_model(self, ModeKeys.PREDICT, export_dir_base,
                                              serving_input_receiver_fn, assets_extra,
                                              as_text, checkpoint_path)

    def export_savedmodel(self, export_dir_base: Any,
                          serving_input_receiver_fn: Callable[..., Any],
                          assets_extra: Optional[Dict[str, str]] = None, as_text: bool = False,
                          checkpoint_path: Optional[str] = None,
                          strip_default_attrs: bool = False) -> bytes:
        """The TensorFlow 1.x spelling of ``export_saved_model`` (``strip_default_attrs``
        changes nothing: tensorfleet graphs store no default-valued attrs)."""
        return self.export_saved_model(export_dir_base, serving_input_receiver_fn,
                                       assets_extra, as_text, checkpoint_path)

    # -- predict ----------------------------------------------------------------------------
    def predict(self, input_fn: Callable[..., Any], predict_keys: Optional[Sequence[str]] = None,
                hooks: Optional[Sequence[Any]] = None, checkpoint_path: Optional[str] = None,
                yield_single_examples: bool = True) -> Iterator[Any]:
        """Yields predictions for every example of ``input_fn`` (or every batch when
        ``yield_single_examples`` is False), from the latest (or given) checkpoint."""
        ckpt = self._resolve_checkpoint(checkpoint_path)
        if ckpt is None:
            logger.warning("Could not find trained model in model_dir: %s, running "
                           "initialization to predict.", self._model_dir)
        g = self._new_graph()
        with g.as_default():
            get_or_create_global_step(g)
            features, _ = self._call_input_fn(input_fn, ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT)
            preds = spec.predictions
            if predict_keys is not None:
                if not isinstance(preds, dict):
                    raise ValueError("predict_keys argument is not valid in case of non-dict "
                                     "predictions.")
                missing = [k for k in predict_keys if k not in preds]
                if missing:
                    raise ValueError(f"Expected to run at least one output from {list(preds)}, "
                                     f"provided {missing}.")
                preds = {k: preds[k] for k in predict_keys}
            all_hooks = list(_check_hooks(hooks, "hooks")) + list(spec.prediction_hooks)
            for batch in self._restored_steps(spec.scaffold, ckpt, all_hooks,
                                              lambda sess: sess.run(preds)):
                if not yield_single_examples:
                    yield batch
                    continue
                if isinstance(batch, dict):
                    n = len(next(iter(batch.values())))
                    for i in range(n):
                        yield {k: v[i] for k, v in batch.items()}
                else:
                    yield from batch


def _python_scalar(v: Any) -> Any:
    arr = np.asarray(v)
    return arr.item() if arr.ndim == 0 else arr


def _add_loss_summary(loss: Any) -> None:
    try:
        summary_ops.scalar("loss", loss)
    except (ImportError, AttributeError) as e:  # summaries are an extra, never a failure
        logger.debug("No loss summary: %s", e)


def _write_eval_summaries(eval_dir: str, result: Dict[str, Any]) -> None:
    """Writes the scalar metrics as one TensorBoard event at their global step."""
    try:
        summary = summary_ops.proto_class("Summary")()
        for k, v in sorted(result.items()):
            if k != "global_step" and np.ndim(v) == 0:
                entry = summary.value.add()
                entry.tag = k
                entry.simple_value = float(v)
        writer = FileWriterCache.get(eval_dir)
        writer.add_summary(summary, result["global_step"])
        writer.flush()
    except Exception as e:  # noqa: BLE001 - evaluation results do not depend on TensorBoard
        logger.warning("Could not write evaluation summaries to %s: %s", eval_dir, e)


__all__ = ["Estimator", "EstimatorSpec", "ModeKeys"]
