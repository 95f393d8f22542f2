"""``tf.keras.Model``: ``compile``, ``fit``, ``evaluate``, ``predict`` and weight files.

``compile`` makes one target placeholder per output (``<output layer>_target``)
and the total loss: the mean of each output's per-sample loss, weighted, plus
the layers' regularization losses. The training op is made on the first
training call, in a ``training`` name scope, together with the layers' update
ops (moving statistics), which run with every step. Every run goes through
``backend.get_session()`` with the learning phase fed as True while training.
A model that does not know its input shapes yet (a subclassed model, or a
``Sequential`` without ``input_shape``) is built from the first data it sees.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from tensorfleet import dtypes as _dtypes
from tensorfleet.framework.graph import get_default_graph
from tensorfleet.keras import backend as K
from tensorfleet.keras import fit_callbacks as cbks
from tensorfleet.keras import losses as _losses
from tensorfleet.keras import metrics as _metrics
from tensorfleet.keras import hdf5_format as H
from tensorfleet.keras import optimizers as _optimizers
from tensorfleet.keras import training_data as D
from tensorfleet.keras.layers.base import Input, to_list, unpack
from tensorfleet.keras.network import Network, _stdout
from tensorfleet.ops import array_ops as A
from tensorfleet.ops import math_ops as M
from tensorfleet.ops import state_ops as S
from tensorfleet.ops.control_flow_ops import group
from tensorfleet.training.saver import Saver

logger = logging.getLogger(__name__)


def _per_output(value: Any, names: List[str], what: str) -> List[Any]:
    """A value given once, as a list (one per output) or as a dict by output name."""
    if isinstance(value, dict):
        unknown = [k for k in value if k not in names]
        if unknown:
            raise ValueError(f"Unknown entries in {what} dictionary: {unknown}. Only "
                             f"expected the following keys: {names}")
        return [value.get(n) for n in names]
    if what == "metrics" and isinstance(value, (list, tuple)) and \
            not any(isinstance(v, (list, tuple)) for v in value):
        return [list(value)] * len(names)  # one flat list: the same metrics for all
    if isinstance(value, (list, tuple)):
        if len(value) != len(names):
            raise ValueError(f"When passing a list as {what}, it should have one entry per "
                             f"model output. The model has {len(names)} outputs, but you "
                             f"passed {what}={value!r}")
        return list(value)
    return [value] * len(names)


def _is_sparse_loss(fn: Any) -> bool:
    inner = getattr(fn, "fn", fn)
    return getattr(inner, "__name__", "") == "sparse_categorical_crossentropy"


class Model(Network):
    """A trainable network: ``Model(inputs, outputs)`` or a subclass with ``call``."""

    def __init__(self, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.optimizer: Any = None
        self.loss: Any = None
        self._compiled = False
        self._train_fetches: Optional[List[Any]] = None
        self._saver: Optional[Saver] = None

    # -- compile ---------------------------------------------------------------------------
    def compile(self, optimizer: Any = "rmsprop", loss: Any = None, metrics: Any = None,
                loss_weights: Any = None, sample_weight_mode: Any = None,
                weighted_metrics: Any = None, target_tensors: Any = None,
                **kwargs: Any) -> None:
        """Sets the optimizer, the loss(es) and the metrics.

        Raises:
          ValueError: no loss, or unsupported arguments (sample weights, extra kwargs).
        """
        if kwargs:
            raise ValueError(f"compile: unsupported arguments {sorted(kwargs)}")
        if sample_weight_mode is not None or weighted_metrics is not None:
            raise ValueError("compile: sample weights (sample_weight_mode, weighted_metrics) "
                             "are not supported")
        if loss is None:
            raise ValueError("compile: a loss is required")
        self.optimizer = _optimizers.get(optimizer)
        self.loss = loss
        self._metrics_arg = metrics or []
        self._loss_weights_arg = loss_weights
        self._target_tensors_arg = target_tensors
        self._compiled = True
        self._train_fetches = None
        if self.outputs is not None:
            self._build_losses()

    def _build_losses(self) -> None:
        outs = list(self.outputs or [])
        names = self.output_names
        loss_fns = [_losses.get(f) if f is not None else None
                    for f in _per_output(self.loss, names, "loss")]
        weights = _per_output(self._loss_weights_arg if self._loss_weights_arg is not None
                              else 1.0, names, "loss_weights")
        metric_lists = _per_output(self._metrics_arg, names, "metrics")
        targets = to_list(self._target_tensors_arg) if self._target_tensors_arg is not None \
            else None
        g = get_default_graph()
        self._sparse = [fn is not None and _is_sparse_loss(fn) for fn in loss_fns]
        self.targets = []
        for i, (out, name) in enumerate(zip(outs, names)):
            if targets is not None:
                self.targets.append(targets[i])
                continue
            shape = None if self._sparse[i] else [None] * (out.shape.ndims or 0)
            with g.name_scope(""):
                self.targets.append(A.placeholder(out.dtype, shape=shape,
                                                  name=name + "_target"))
        per_output, metric_tensors, metric_names = [], [], []
        self._stateful_metrics: List[Any] = []
        with g.name_scope("loss"):
            for i, (out, fn) in enumerate(zip(outs, loss_fns)):
                if fn is None:
                    continue
                value = fn(self.targets[i], out)
                if value.shape.ndims != 0:
                    value = M.reduce_mean(value)
                per_output.append(value)
            weighted = [v if float(w) == 1.0 else M.multiply(v, float(w))
                        for v, w in zip(per_output, [w for w, f in zip(weights, loss_fns)
                                                     if f is not None])]
            total = M.add_n(weighted) if len(weighted) > 1 else weighted[0]
            reg = self.losses
            if reg:
                total = M.add(total, M.add_n([M.reduce_sum(r) for r in reg]))
        with g.name_scope("metrics"):
            for i, (out, name) in enumerate(zip(outs, names)):
                for m in to_list(metric_lists[i] or []):
                    if isinstance(m, _metrics.MeanMetricWrapper):
                        fn, short = m.per_sample, m.name
                    elif isinstance(m, _metrics.Metric):
                        # A stateful metric: its value after the last batch is the result.
                        self._stateful_metrics.append((len(metric_tensors), m))
                        metric_tensors.append(m(self.targets[i], out))
                        metric_names.append(m.name if len(outs) == 1 else f"{name}_{m.name}")
                        continue
                    elif isinstance(m, str) and m in ("accuracy", "acc"):
                        fn, short = _metrics.accuracy_for(loss_fns[i], out.shape), "acc"
                    else:
                        fn = _metrics.get(m)
                        short = getattr(fn, "__name__", None) or str(m)
                    metric_tensors.append(M.reduce_mean(fn(self.targets[i], out)))
                    metric_names.append(short if len(outs) == 1 else f"{name}_{short}")
        self.total_loss = total
        self._output_losses = per_output if len(per_output) > 1 else []
        self._metric_tensors = metric_tensors
        self.metrics_names = (["loss"] + ([f"{n}_loss" for n in names]
                                          if len(per_output) > 1 else []) + metric_names)

    def _eval_fetches(self) -> List[Any]:
        return [self.total_loss] + self._output_losses + self._metric_tensors

    def _make_train_function(self) -> List[Any]:
        if self._train_fetches is None:
            g = get_default_graph()
            params = self.trainable_weights
            if not params:
                raise ValueError("The model has no trainable weights to train")
            with g.name_scope("training"):
                step = getattr(self.optimizer, "iterations", None)
                train_op = self.optimizer.minimize(self.total_loss, var_list=params,
                                                   global_step=step)
                ops = [train_op]
                constrained = [w for w in params if getattr(w, "_constraint", None)]
                if constrained:
                    with g.control_dependencies([train_op]):
                        ops = [group(*[S.assign(w, w._constraint(w.value()))
                                       for w in constrained])]
            for v in self.optimizer.variables():
                K.track_variable(v)
            self._train_fetches = ops + self.updates
        return self._train_fetches

    # -- building from data ----------------------------------------------------------------
    def _build_from_data(self, xs: List[np.ndarray]) -> None:
        """Gives a model without inputs one placeholder per array and calls it."""
        inputs = []
        for x in xs:
            dt = K.floatx() if x.dtype.kind in "fc" else _dtypes.as_dtype(x.dtype).name
            inputs.append(Input(batch_shape=(None,) + x.shape[1:], dtype=dt))
        self._set_inputs(inputs)

    def _set_inputs(self, inputs: List[Any]) -> None:
        self.built = True
        outputs = self(unpack(inputs))
        self.inputs, self.outputs = inputs, to_list(outputs)
        self.built = True

    def _ready(self, x: Any) -> List[np.ndarray]:
        """``x`` as arrays, building the model (and its losses) from it if needed."""
        if self.inputs is None:
            xs = [np.asarray(a) for a in (x if isinstance(x, (list, tuple)) else [x])]
            self._build_from_data(xs)
        if self._compiled and not hasattr(self, "total_loss"):
            self._build_losses()
        return D.standardize(x, self.input_names, self.inputs, "input")

    def _targets(self, y: Any) -> List[np.ndarray]:
        ys = D.standardize(y, self.output_names, None, "target")
        return D.expand_targets(ys, self.outputs or [], self._sparse)

    def _feed(self, xs: List[np.ndarray], ys: Optional[List[np.ndarray]], idx: Any,
              training: bool) -> Dict[Any, Any]:
        feed: Dict[Any, Any] = {t: a[idx] for t, a in zip(self.inputs or [], xs)}
        if ys is not None:
            feed.update({t: a[idx] for t, a in zip(self.targets, ys)})
        feed.update(K.learning_phase_feed(training))
        return feed

    def _check_compiled(self) -> None:
        if not self._compiled:
            raise RuntimeError("You must compile your model before training/testing. Use "
                               "`model.compile(optimizer, loss)`.")

    # -- training and evaluation -----------------------------------------------------------
    def fit(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
            epochs: int = 1, verbose: int = 1, callbacks: Optional[Sequence[Any]] = None,
            validation_split: float = 0.0, validation_data: Any = None, shuffle: Any = True,
            class_weight: Any = None, sample_weight: Any = None, initial_epoch: int = 0,
            steps_per_epoch: Any = None, validation_steps: Any = None,
            validation_freq: int = 1, **kwargs: Any) -> cbks.History:
        """Trains for ``epochs`` epochs on numpy data; returns the ``History``.

        Raises:
          ValueError: unsupported arguments (sample/class weights, step counts,
            generators) or data that does not fit the model.
        """
        self._check_compiled()
        _unsupported(kwargs, sample_weight=sample_weight, class_weight=class_weight,
                     steps_per_epoch=steps_per_epoch, validation_steps=validation_steps)
        xs = self._ready(x)
        ys = self._targets(y)
        n = D.check_lengths(xs + ys)
        val = None
        if validation_data is not None:
            if len(validation_data) == 3 and validation_data[2] is not None:
                raise ValueError("fit: validation sample weights are not supported")
            vx = D.standardize(validation_data[0], self.input_names, self.inputs, "input")
            val = (vx, self._targets(validation_data[1]))
        elif validation_split:
            (xs_ys, vxs_vys) = D.split_validation(xs + ys, validation_split)
            xs, ys = xs_ys[:len(xs)], xs_ys[len(xs):]
            val = (vxs_vys[:len(xs)], vxs_vys[len(xs):])
            n = xs[0].shape[0]
        batch_size = batch_size or 32
        fetches = self._make_train_function()
        sess = K.get_session()
        names = self.metrics_names
        history = cbks.History()
        cb_list = list(callbacks or []) + [history]
        if verbose:
            cb_list.append(cbks.ProgbarLogger())
        cl = cbks.CallbackList(cb_list)
        cl.set_model(self)
        cl.set_params({"batch_size": batch_size, "epochs": epochs, "steps": None,
                       "samples": n, "verbose": verbose, "do_validation": val is not None,
                       "val_samples": val[0][0].shape[0] if val is not None else None,
                       "metrics": names + (["val_" + m for m in names] if val else [])})
        self.stop_training = False
        cl.call("on_train_begin", None)
        evals = self._eval_fetches()
        for epoch in range(initial_epoch, epochs):
            cl.call("on_epoch_begin", epoch, {})
            sums, seen = np.zeros(len(names)), 0
            self._reset_stateful_metrics()
            for b, idx in enumerate(D.batches(n, batch_size, shuffle)):
                logs: Dict[str, Any] = {"batch": b, "size": len(idx)}
                cl.call("on_batch_begin", b, logs)
                outs = sess.run(fetches + evals, self._feed(xs, ys, idx, True))[len(fetches):]
                for k, v in zip(names, outs):
                    logs[k] = v
                cl.call("on_batch_end", b, logs)
                sums += np.asarray(outs, dtype=np.float64) * len(idx)
                seen += len(idx)
                if self.stop_training:
                    break
            means = sums / max(seen, 1)
            self._last_stateful(means, outs if seen else None, 0)
            epoch_logs = {k: float(v) for k, v in zip(names, means)}
            if val is not None and (epoch + 1) % validation_freq == 0:
                for k, v in zip(names, self._test_loop(val[0], val[1], batch_size)):
                    epoch_logs["val_" + k] = v
            cl.call("on_epoch_end", epoch, epoch_logs)
            if self.stop_training:
                break
        cl.call("on_train_end", None)
        return history

    def _test_loop(self, xs: List[np.ndarray], ys: List[np.ndarray],
                   batch_size: int) -> List[float]:
        n = D.check_lengths(xs + ys)
        sess = K.get_session()
        fetches = self._eval_fetches()
        sums = np.zeros(len(fetches))
        self._reset_stateful_metrics()
        outs = None
        for idx in D.batches(n, batch_size):
            outs = sess.run(fetches, self._feed(xs, ys, idx, False))
            sums += np.asarray(outs, dtype=np.float64) * len(idx)
        means = sums / max(n, 1)
        self._last_stateful(means, outs, 0)
        return [float(v) for v in means]

    def _reset_stateful_metrics(self) -> None:
        for _, m in getattr(self, "_stateful_metrics", []):
            m.reset_state()

    def _last_stateful(self, means: np.ndarray, last: Any, offset: int) -> None:
        """Puts each stateful metric's value after the last batch in ``means``."""
        if last is None:
            return
        base = 1 + len(self._output_losses)
        for j, _ in getattr(self, "_stateful_metrics", []):
            means[base + j] = float(np.asarray(last[offset + base + j]))

    def evaluate(self, x: Any = None, y: Any = None, batch_size: Optional[int] = None,
                 verbose: int = 1, sample_weight: Any = None, steps: Any = None,
                 callbacks: Any = None, **kwargs: Any) -> Any:
        """The loss (and metrics) averaged over the samples: a scalar, or a list in
        the order of ``metrics_names``."""
        self._check_compiled()
        _unsupported(kwargs, sample_weight=sample_weight, steps=steps)
        xs = self._ready(x)
        start = time.time()
        cl = cbks.CallbackList(list(callbacks or []))
        cl.set_model(self)
        cl.call("on_test_begin", None)
        out = self._test_loop(xs, self._targets(y), batch_size or 32)
        cl.call("on_test_end", dict(zip(self.metrics_names, out)))
        if verbose:
            _report(xs[0].shape[0], start, dict(zip(self.metrics_names, out)))
        return out[0] if len(out) == 1 else out

    def predict(self, x: Any, batch_size: Optional[int] = None, verbose: int = 0,
                steps: Any = None, callbacks: Any = None, **kwargs: Any) -> Any:
        """The model's outputs for ``x``, batch by batch, as numpy (a list for several
        outputs)."""
        _unsupported(kwargs, steps=steps, callbacks=callbacks)
        xs = self._ready(x)
        n = D.check_lengths(xs)
        sess = K.get_session()
        start = time.time()
        parts: List[List[np.ndarray]] = [[] for _ in self.outputs or []]
        for idx in D.batches(n, batch_size or 32):
            for p, v in zip(parts, sess.run(self.outputs, self._feed(xs, None, idx, False))):
                p.append(v)
        if verbose:
            _report(n, start, {})
        return unpack([np.concatenate(p, axis=0) for p in parts])

    def train_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                       class_weight: Any = None, reset_metrics: bool = True) -> Any:
        """One training step on one batch; its loss (and metrics)."""
        self._check_compiled()
        _unsupported({}, sample_weight=sample_weight, class_weight=class_weight)
        xs = self._ready(x)
        ys = self._targets(y)
        n = D.check_lengths(xs + ys)
        fetches = self._make_train_function()
        if reset_metrics:
            self._reset_stateful_metrics()
        outs = K.get_session().run(fetches + self._eval_fetches(),
                                   self._feed(xs, ys, slice(0, n), True))[len(fetches):]
        outs = [float(v) for v in outs]
        return outs[0] if len(outs) == 1 else outs

    def test_on_batch(self, x: Any, y: Any = None, sample_weight: Any = None,
                      reset_metrics: bool = True) -> Any:
        """Loss (and metrics) on one batch, without training."""
        self._check_compiled()
        _unsupported({}, sample_weight=sample_weight)
        xs = self._ready(x)
        ys = self._targets(y)
        n = D.check_lengths(xs + ys)
        if reset_metrics:
            self._reset_stateful_metrics()
        outs = K.get_session().run(self._eval_fetches(), self._feed(xs, ys, slice(0, n),
                                                                    False))
        outs = [float(v) for v in outs]
        return outs[0] if len(outs) == 1 else outs

    def predict_on_batch(self, x: Any) -> Any:
        """The outputs for one batch."""
        xs = self._ready(x)
        n = D.check_lengths(xs)
        out = K.get_session().run(self.outputs, self._feed(xs, None, slice(0, n), False))
        return unpack(out)

    # -- weights files ---------------------------------------------------------------------
    def _checkpoint_map(self) -> Dict[str, Any]:
        """Checkpoint keys by position (``layer_with_weights-<i>/<weight>``), so that a
        model built again with other layer names reads the same file."""
        out: Dict[str, Any] = {}
        i = 0
        for layer in self.layers:
            ws = layer.weights
            if not ws:
                continue
            used: Dict[str, int] = {}
            for w in ws:
                short = w.op.name.rsplit("/", 1)[-1]
                n = used.get(short, 0)
                used[short] = n + 1
                out[f"layer_with_weights-{i}/{short}" + (f"_{n}" if n else "")] = w
            i += 1
        own = [w for w in self._trainable_weights + self._non_trainable_weights]
        for j, w in enumerate(own):
            out[f"weight-{j}"] = w
        return out

    def _get_saver(self) -> Saver:
        keys = self._checkpoint_map()
        if self._saver is None or getattr(self, "_saver_keys", None) != list(keys):
            self._saver = Saver(var_list=keys, sharded=False)
            self._saver_keys = list(keys)
        return self._saver

    def save_weights(self, filepath: str, overwrite: bool = True,
                     save_format: Optional[str] = None) -> None:
        """Writes the weights: a Keras HDF5 weights file for a path ending in
        ``.h5``/``.hdf5`` (or ``save_format='h5'``), else a tensorfleet checkpoint with
        prefix ``filepath``.

        Raises:
          ValueError: an unknown format, or a model without weights yet.
        """
        if not self.built:
            raise ValueError("save_weights: the model has no weights yet (not built)")
        if save_format in ("h5", "hdf5") or (save_format is None and
                                             str(filepath).endswith((".h5", ".hdf5"))):
            H.save_weights(self, str(filepath), overwrite=overwrite)
            return
        if save_format not in (None, "tf"):
            raise ValueError(f"save_weights: unknown save_format {save_format!r}")
        if not overwrite and os.path.exists(str(filepath) + ".index"):
            raise ValueError(f"save_weights: {filepath} exists and overwrite=False")
        self._get_saver().save(K.get_session(), str(filepath), write_meta_graph=False)

    def load_weights(self, filepath: str, by_name: bool = False,
                     skip_mismatch: bool = False) -> None:
        """Reads weights saved by ``save_weights`` (or Keras) into this model: HDF5 files
        layer by layer in order, or by layer name with ``by_name``; checkpoints by
        position.

        Raises:
          ValueError: ``by_name``/``skip_mismatch`` with a checkpoint, or weights that do
            not fit.
        """
        if not self.built:
            raise ValueError("load_weights: build the model (call it or fit it) before "
                             "loading weights")
        if str(filepath).endswith((".h5", ".hdf5")):
            H.load_weights(self, str(filepath), by_name=by_name, skip_mismatch=skip_mismatch)
            return
        if by_name or skip_mismatch:
            raise ValueError("load_weights: by_name and skip_mismatch need an HDF5 file")
        self._get_saver().restore(K.get_session(), str(filepath))

    def save(self, filepath: str, overwrite: bool = True, include_optimizer: bool = True,
             save_format: Optional[str] = None, **kwargs: Any) -> None:
        """Writes the whole model (config, weights, compile arguments, optimizer state) to
        a Keras HDF5 file; ``tf.keras.models.load_model`` reads it back.

        Raises:
          ValueError: a format other than HDF5, or other arguments.
        """
        if kwargs:
            raise ValueError(f"save: unsupported arguments {sorted(kwargs)}")
        if save_format not in (None, "h5", "hdf5") or (
                save_format is None and not str(filepath).endswith((".h5", ".hdf5"))):
            raise ValueError(f"save: only Keras HDF5 files are supported (a path ending in "
                             f".h5, or save_format='h5'), got {filepath!r}")
        H.save_model(self, str(filepath), overwrite=overwrite,
                     include_optimizer=include_optimizer)

    def build(self, input_shape: Any) -> None:  # type: ignore[override]
        """Builds a subclassed model for inputs of ``input_shape`` (with batch dim)."""
        if self.inputs is not None:
            return
        shapes = input_shape if isinstance(input_shape, list) else [input_shape]
        inputs = [Input(batch_shape=tuple(s.as_list() if hasattr(s, "as_list") else s))
                  for s in shapes]
        self._set_inputs(inputs)


def _report(n: int, start: float, logs: Dict[str, float]) -> None:
    """The one progress line of ``evaluate``/``predict`` with ``verbose`` set."""
    values = "".join(f" - {k}: {v:.4f}" for k, v in logs.items())
    _stdout(f"{n}/{n} [{'=' * 30}] - {time.time() - start:.0f}s{values}")


def _unsupported(kwargs: Dict[str, Any], **named: Any) -> None:
    if kwargs:
        raise ValueError(f"Unsupported arguments: {sorted(kwargs)}")
    given = sorted(k for k, v in named.items() if v is not None)
    if given:
        raise ValueError(f"These arguments are not supported: {given}")


__all__ = ["Model"]
