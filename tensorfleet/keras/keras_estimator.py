"""``tf.keras.estimator.model_to_estimator``: a compiled Keras model as an Estimator.

The Estimator's ``model_fn`` rebuilds the model from its config in the Estimator's graph
(the same layer and variable names), applies it to the features, and trains with the
model's compiled loss and a fresh optimizer of the same config. Unless ``model_dir``
already holds a checkpoint, its first checkpoint (step 0) is written from the training
graph with the Keras model's current weights, so that training, evaluation and
prediction all start from them; metrics given to ``compile`` as names become
``tf.metrics.mean`` evaluation metrics.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Optional

from tensorfleet.estimator.estimator import Estimator, EstimatorSpec, ModeKeys
from tensorfleet.estimator.metrics import mean as _metric_mean
from tensorfleet.estimator.run_config import RunConfig
from tensorfleet.framework.graph import Graph
from tensorfleet.keras import backend as K
from tensorfleet.keras import hdf5_format as H
from tensorfleet.keras import losses as _losses
from tensorfleet.keras import metrics as _metrics
from tensorfleet.keras import optimizers as _optimizers
from tensorfleet.keras.layers.base import to_list
from tensorfleet.keras.model_config import model_from_config
from tensorfleet.keras.model_saving import load_model
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import control_flow_ops as CF
from tensorfleet.ops import math_ops as M
from tensorfleet.ops.variables import global_variables, global_variables_initializer
from tensorfleet.runtime.session import Session
from tensorfleet.training.checkpoint_management import latest_checkpoint
from tensorfleet.training.saver import Saver
from tensorfleet.training.training_util import get_global_step, get_or_create_global_step


def _save_first_checkpoint(model: Any, model_fn: Any, model_dir: str) -> None:
    """Step 0 of the Estimator: every variable of the training graph initialized, the
    Keras weights set to the model's current values, saved to ``model_dir``."""
    values = dict(zip([w.op.name for w in model.weights], K.batch_get_value(model.weights)))
    g = Graph()
    with g.as_default():
        step = get_or_create_global_step()
        feats = {name: A.placeholder(t.dtype, t.shape) for name, t in
                 zip(model.input_names, model.inputs)}
        labels = [A.placeholder(t.dtype, t.shape) for t in model.outputs]
        model_fn(feats, labels if len(labels) > 1 else labels[0], ModeKeys.TRAIN)
        by_name = {v.op.name: v for v in global_variables()}
        missing = sorted(set(values) - set(by_name))
        if missing:
            raise ValueError(f"model_to_estimator: the rebuilt model lacks the weights "
                             f"{missing}")
        with Session(graph=g) as sess:
            sess.run(global_variables_initializer())
            for name, value in values.items():
                by_name[name].load(value, sess)
            Saver().save(sess, os.path.join(model_dir, "keras_model.ckpt"),
                         global_step=step)


def model_to_estimator(keras_model: Any = None, keras_model_path: Optional[str] = None,
                       custom_objects: Optional[Dict[str, Any]] = None,
                       model_dir: Optional[str] = None, config: Optional[RunConfig] = None,
                       checkpoint_format: str = "saver", metric_names_map: Any = None,
                       export_outputs: Any = None) -> Estimator:
    """An Estimator that trains, evaluates and predicts as the compiled ``keras_model``
    (or the model file at ``keras_model_path``) does, starting from its weights.

    Raises:
      ValueError: neither or both models given, a model that is not compiled or has no
        config (subclassed), or unsupported arguments.
    """
    if (keras_model is None) == (keras_model_path is None):
        raise ValueError("Give exactly one of keras_model and keras_model_path")
    if checkpoint_format != "saver":
        raise ValueError(f"model_to_estimator: only checkpoint_format='saver' is supported, "
                         f"got {checkpoint_format!r}")
    if metric_names_map is not None or export_outputs is not None:
        raise ValueError("model_to_estimator: metric_names_map and export_outputs are not "
                         "supported")
    model = keras_model if keras_model is not None else load_model(keras_model_path,
                                                                   custom_objects)
    if getattr(model, "optimizer", None) is None:
        raise ValueError("model_to_estimator: the model must be compiled (loss and "
                         "optimizer) first")
    model_config = json.loads(json.dumps({"class_name": type(model).__name__,
                                          "config": model.get_config()}))
    train_cfg = H.training_config(model)
    config = config or RunConfig()
    model_dir = model_dir or config.model_dir
    if not model_dir:
        raise ValueError("model_to_estimator: give model_dir (or config.model_dir)")
    input_names, output_names = list(model.input_names), list(model.output_names)

    def model_fn(features: Any, labels: Any, mode: str) -> EstimatorSpec:
        net = model_from_config(model_config, custom_objects)
        if isinstance(features, dict):
            missing = [n for n in input_names if n not in features]
            if missing:
                raise ValueError(f"model_to_estimator: features lack the model inputs "
                                 f"{missing} (have {sorted(features)})")
            inputs = [features[n] for n in input_names]
        else:
            inputs = to_list(features)
        training = mode == ModeKeys.TRAIN
        outs = to_list(net(inputs if len(inputs) > 1 else inputs[0], training=training))
        predictions = dict(zip(output_names, outs))
        if mode == ModeKeys.PREDICT:
            return EstimatorSpec(mode, predictions=predictions)
        targets = to_list(labels) if not isinstance(labels, dict) else \
            [labels[n] for n in output_names]
        loss_fns = to_list(train_cfg["loss"])
        if len(loss_fns) == 1 and len(outs) > 1:
            loss_fns = loss_fns * len(outs)
        terms = [M.reduce_mean(_losses.deserialize(fn, custom_objects)(t, o))
                 for fn, t, o in zip(loss_fns, targets, outs)]
        loss = terms[0] if len(terms) == 1 else M.add_n(terms)
        if net.losses:
            loss = M.add(loss, M.add_n([M.reduce_sum(r) for r in net.losses]))
        metric_ops = {}
        for m in to_list(train_cfg.get("metrics") or []):
            if isinstance(m, str) and m not in ("accuracy", "acc"):
                fn = _metrics.get(m)
                metric_ops[m] = _metric_mean(fn(targets[0], outs[0]))
            elif isinstance(m, str):
                fn = _metrics.accuracy_for(_losses.get(loss_fns[0]) if isinstance(
                    loss_fns[0], str) else None, outs[0].shape)
                metric_ops["acc"] = _metric_mean(fn(targets[0], outs[0]))
        if mode == ModeKeys.EVAL:
            return EstimatorSpec(mode, loss=loss, predictions=predictions,
                                 eval_metric_ops=metric_ops)
        opt = _optimizers.deserialize(train_cfg["optimizer_config"], custom_objects)
        step = opt.minimize(loss, var_list=net.trainable_weights, global_step=get_global_step())
        train_op = CF.group(step, *net.updates)
        return EstimatorSpec(mode, loss=loss, train_op=train_op)

    if latest_checkpoint(model_dir) is None:
        os.makedirs(model_dir, exist_ok=True)
        _save_first_checkpoint(model, model_fn, model_dir)
    return Estimator(model_fn, model_dir=model_dir, config=config)


__all__ = ["model_to_estimator"]
