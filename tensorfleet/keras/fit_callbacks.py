"""Keras's callbacks: hooks into ``fit``/``evaluate``/``predict``.

``fit`` always adds a ``History`` (returned to the caller) and, when
``verbose`` is set, a ``ProgbarLogger`` that writes progress to standard
output. Epoch logs hold the sample-weighted means of the loss and metrics
over the epoch, and ``val_``-prefixed ones when validating.
"""

from __future__ import annotations

import logging
import math
import os
import sys
import time
from typing import Any, Callable, Dict, Iterable, List, Optional

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.ops import summary_ops as _summary_ops
from tensorfleet.training.summary_io import FileWriter

logger = logging.getLogger(__name__)

Logs = Optional[Dict[str, Any]]


class Callback:
    """Base class: override the ``on_*`` methods you need; ``self.model`` and
    ``self.params`` are set before training starts."""

    def __init__(self) -> None:
        self.model: Any = None
        self.params: Dict[str, Any] = {}
        self.validation_data: Any = None

    def set_params(self, params: Dict[str, Any]) -> None:
        """Records the training parameters (epochs, samples, metrics ...)."""
        self.params = params

    def set_model(self, model: Any) -> None:
        """Records the model being trained."""
        self.model = model

    def on_epoch_begin(self, epoch: int, logs: Logs = None) -> None:
        """Called at the start of each epoch."""

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Called at the end of each epoch with the epoch's logs."""

    def on_batch_begin(self, batch: int, logs: Logs = None) -> None:
        """Called before each training batch."""

    def on_batch_end(self, batch: int, logs: Logs = None) -> None:
        """Called after each training batch with its loss and metrics."""

    on_train_batch_begin = on_batch_begin
    on_train_batch_end = on_batch_end

    def on_train_begin(self, logs: Logs = None) -> None:
        """Called once before training."""

    def on_train_end(self, logs: Logs = None) -> None:
        """Called once after training."""

    def on_test_begin(self, logs: Logs = None) -> None:
        """Called when ``evaluate`` starts."""

    def on_test_end(self, logs: Logs = None) -> None:
        """Called when ``evaluate`` ends, with its results by metric name."""


class CallbackList:
    """Calls every callback of a list in turn."""

    def __init__(self, callbacks: Iterable[Callback]):
        self.callbacks = list(callbacks)

    def set_params(self, params: Dict[str, Any]) -> None:
        """``set_params`` on every callback."""
        for c in self.callbacks:
            c.set_params(params)

    def set_model(self, model: Any) -> None:
        """``set_model`` on every callback."""
        for c in self.callbacks:
            c.set_model(model)

    def call(self, hook: str, *args: Any) -> None:
        """Calls ``hook`` (e.g. ``'on_epoch_end'``) on every callback."""
        for c in self.callbacks:
            getattr(c, hook)(*args)


class History(Callback):
    """Records the epoch logs: ``history.history['loss']`` and ``history.epoch``."""

    def on_train_begin(self, logs: Logs = None) -> None:
        """Starts a fresh record."""
        self.epoch: List[int] = []
        self.history: Dict[str, List[Any]] = {}

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Appends the epoch's logs."""
        self.epoch.append(epoch)
        for k, v in (logs or {}).items():
            self.history.setdefault(k, []).append(v)


def _fmt(logs: Dict[str, Any], names: List[str]) -> str:
    return "".join(f" - {k}: {float(logs[k]):.4f}" for k in names if k in logs)


class ProgbarLogger(Callback):
    """Writes progress to standard output: a bar per batch (``verbose=1``) or one
    line per epoch (``verbose=2``)."""

    def __init__(self, count_mode: str = "samples", stream: Any = None):
        super().__init__()
        if count_mode != "samples":
            raise ValueError(f"ProgbarLogger: only count_mode='samples' is supported, got "
                             f"{count_mode!r}")
        self._stream = stream

    def _write(self, text: str) -> None:
        stream = self._stream or sys.stdout
        stream.write(text)
        stream.flush()

    def on_train_begin(self, logs: Logs = None) -> None:
        """Announces the numbers of samples."""
        self.verbose = self.params.get("verbose", 1)
        self.epochs = self.params.get("epochs", 1)
        self.target = self.params.get("samples") or 0
        if self.verbose and self.target:
            val = self.params.get("val_samples")
            self._write(f"Train on {self.target} samples" +
                        (f", validate on {val} samples" if val else "") + "\n")

    def on_epoch_begin(self, epoch: int, logs: Logs = None) -> None:
        """Starts the epoch's progress."""
        if self.verbose:
            self._write(f"Epoch {epoch + 1}/{self.epochs}\n")
        self.seen = 0
        self.start = time.time()
        self._last = 0.0
        self.names = [m for m in self.params.get("metrics", []) if not m.startswith("val_")]
        self.sums: Dict[str, float] = {}

    def on_batch_end(self, batch: int, logs: Logs = None) -> None:
        """Advances the bar (``verbose=1``)."""
        logs = logs or {}
        size = int(logs.get("size", 0))
        self.seen += size
        for k in self.names:
            if k in logs:
                self.sums[k] = self.sums.get(k, 0.0) + float(logs[k]) * size
        now = time.time()
        # The bar is redrawn at most every 50 ms; the epoch's end draws it in full.
        if self.verbose == 1 and self.target and self.seen < self.target and \
                now - self._last >= 0.05:
            self._last = now
            means = {k: v / max(self.seen, 1) for k, v in self.sums.items()}
            self._write(f"\r{self._bar()}{_fmt(means, self.names)}")

    def _bar(self) -> str:
        width = 30
        done = int(width * self.seen / self.target)
        bar = "=" * max(done - 1, 0) + (">" if done < width else "=") + "." * (width - done)
        return f"{self.seen:{len(str(self.target))}d}/{self.target} [{bar}]"

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Finishes the epoch's line with its loss and metrics."""
        logs = logs or {}
        names = self.params.get("metrics", [])
        elapsed = time.time() - self.start
        if self.verbose == 1:
            self._write(f"\r{self._bar()} - {elapsed:.0f}s{_fmt(logs, names)}\n")
        elif self.verbose == 2:
            self._write(f"{self.target}/{self.target} - {elapsed:.0f}s{_fmt(logs, names)}\n")


def _monitor_op(mode: str, monitor: str) -> Callable[[float, float], bool]:
    if mode not in ("auto", "min", "max"):
        raise ValueError(f"mode must be 'auto', 'min' or 'max', got {mode!r}")
    if mode == "max" or (mode == "auto" and ("acc" in monitor or monitor.startswith("fmeasure"))):
        return np.greater
    return np.less


class EarlyStopping(Callback):
    """Stops training once ``monitor`` has not improved by ``min_delta`` for
    ``patience`` epochs; can restore the best epoch's weights."""

    def __init__(self, monitor: str = "val_loss", min_delta: float = 0.0, patience: int = 0,
                 verbose: int = 0, mode: str = "auto", baseline: Optional[float] = None,
                 restore_best_weights: bool = False):
        super().__init__()
        self.monitor, self.patience, self.verbose = monitor, int(patience), verbose
        self.baseline, self.restore_best_weights = baseline, restore_best_weights
        self.monitor_op = _monitor_op(mode, monitor)
        self.min_delta = abs(min_delta) if self.monitor_op is np.greater else -abs(min_delta)
        self.stopped_epoch = 0

    def on_train_begin(self, logs: Logs = None) -> None:
        """Resets the counters."""
        self.wait = 0
        self.stopped_epoch = 0
        self.best = self.baseline if self.baseline is not None else (
            -np.inf if self.monitor_op is np.greater else np.inf)
        self.best_weights: Optional[List[Any]] = None

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Checks for improvement and stops the model when patience runs out."""
        current = (logs or {}).get(self.monitor)
        if current is None:
            logger.warning("Early stopping conditioned on metric `%s` which is not "
                           "available. Available metrics are: %s", self.monitor,
                           ",".join(logs or {}))
            return
        if self.monitor_op(current - self.min_delta, self.best):
            self.best = current
            self.wait = 0
            if self.restore_best_weights:
                self.best_weights = self.model.get_weights()
            return
        self.wait += 1
        if self.wait >= self.patience:
            self.stopped_epoch = epoch
            self.model.stop_training = True
            if self.restore_best_weights and self.best_weights is not None:
                self.model.set_weights(self.best_weights)

    def on_train_end(self, logs: Logs = None) -> None:
        """Reports the epoch training stopped at."""
        if self.stopped_epoch > 0 and self.verbose > 0:
            logger.info("Epoch %05d: early stopping", self.stopped_epoch + 1)


class ModelCheckpoint(Callback):
    """Saves the model's weights after epochs (``save_weights_only=True``), to
    ``filepath`` formatted with ``epoch`` and the epoch's logs."""

    def __init__(self, filepath: str, monitor: str = "val_loss", verbose: int = 0,
                 save_best_only: bool = False, save_weights_only: bool = False,
                 mode: str = "auto", period: int = 1, save_freq: Any = "epoch"):
        super().__init__()
        if not save_weights_only and not str(filepath).endswith((".h5", ".hdf5")):
            raise ValueError("ModelCheckpoint: whole models are saved as Keras HDF5 files: "
                             "give a filepath ending in .h5, or save_weights_only=True")
        self.save_weights_only = bool(save_weights_only)
        if save_freq != "epoch":
            raise ValueError(f"ModelCheckpoint: only save_freq='epoch' is supported, got "
                             f"{save_freq!r}")
        self.filepath, self.monitor, self.verbose = filepath, monitor, verbose
        self.save_best_only, self.period = save_best_only, max(int(period), 1)
        self.monitor_op = _monitor_op(mode, monitor)
        self.best = -np.inf if self.monitor_op is np.greater else np.inf
        self.epochs_since_last_save = 0

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Saves when the period has passed (and, with ``save_best_only``, on improvement)."""
        logs = logs or {}
        self.epochs_since_last_save += 1
        if self.epochs_since_last_save < self.period:
            return
        self.epochs_since_last_save = 0
        path = self.filepath.format(epoch=epoch + 1, **logs)
        if self.save_best_only:
            current = logs.get(self.monitor)
            if current is None:
                logger.warning("Can save best model only with %s available, skipping.",
                               self.monitor)
                return
            if not self.monitor_op(current, self.best):
                return
            self.best = current
        if self.verbose > 0:
            logger.info("Epoch %05d: saving model to %s", epoch + 1, path)
        if self.save_weights_only:
            self.model.save_weights(path, overwrite=True)
        else:
            self.model.save(path, overwrite=True)


class TensorBoard(Callback):
    """Writes the epoch logs as scalar summaries (and the graph) to ``log_dir``."""

    def __init__(self, log_dir: str = "./logs", histogram_freq: int = 0, batch_size: int = 32,
                 write_graph: bool = True, write_grads: bool = False,
                 write_images: bool = False, update_freq: Any = "epoch", **kwargs: Any):
        super().__init__()
        if histogram_freq or write_grads or write_images:
            raise ValueError("TensorBoard: histograms, gradients and images are not "
                             "supported; only scalars and the graph are written")
        if update_freq != "epoch":
            raise ValueError(f"TensorBoard: only update_freq='epoch' is supported, got "
                             f"{update_freq!r}")
        if kwargs:
            raise ValueError(f"TensorBoard: unsupported arguments {sorted(kwargs)}")
        self.log_dir, self.write_graph = log_dir, write_graph
        self.writer: Optional[FileWriter] = None

    def set_model(self, model: Any) -> None:
        """Opens the event file (with the graph if ``write_graph``)."""
        super().set_model(model)
        os.makedirs(self.log_dir, exist_ok=True)
        graph = K.get_session().graph if self.write_graph else None
        self.writer = FileWriter(self.log_dir, graph=graph)

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Writes one scalar per log entry at step ``epoch``."""
        if self.writer is None:
            return
        summary_cls = _summary_ops.Summary  # loaded on first use (see tensorfleet.api.summary)
        values = [summary_cls.Value(tag=k, simple_value=float(v))
                  for k, v in (logs or {}).items() if k not in ("batch", "size")]
        self.writer.add_summary(summary_cls(value=values), epoch)
        self.writer.flush()

    def on_train_end(self, logs: Logs = None) -> None:
        """Closes the event file."""
        if self.writer is not None:
            self.writer.close()
            self.writer = None


class LambdaCallback(Callback):
    """A callback from plain functions: ``on_epoch_end=lambda epoch, logs: ...``."""

    def __init__(self, on_epoch_begin: Any = None, on_epoch_end: Any = None,
                 on_batch_begin: Any = None, on_batch_end: Any = None,
                 on_train_begin: Any = None, on_train_end: Any = None):
        super().__init__()
        for name, fn in (("on_epoch_begin", on_epoch_begin), ("on_epoch_end", on_epoch_end),
                         ("on_batch_begin", on_batch_begin), ("on_batch_end", on_batch_end),
                         ("on_train_begin", on_train_begin), ("on_train_end", on_train_end)):
            if fn is not None:
                setattr(self, name, fn)


class LearningRateScheduler(Callback):
    """Sets the optimizer's learning rate to ``schedule(epoch[, lr])`` each epoch."""

    def __init__(self, schedule: Callable[..., float], verbose: int = 0):
        super().__init__()
        self.schedule, self.verbose = schedule, verbose

    def on_epoch_begin(self, epoch: int, logs: Logs = None) -> None:
        """Computes and sets this epoch's learning rate.

        Raises:
          ValueError: the optimizer has no ``lr`` variable (a plain ``tf.train`` one).
        """
        opt = self.model.optimizer
        if not hasattr(opt, "lr"):
            raise ValueError('Optimizer must have a "lr" attribute (use a tf.keras '
                             'optimizer).')
        try:
            lr = self.schedule(epoch, float(K.get_value(opt.lr)))
        except TypeError:
            lr = self.schedule(epoch)
        if not isinstance(lr, (float, np.floating, int)) or math.isnan(float(lr)):
            raise ValueError('The output of the "schedule" function should be float.')
        K.set_value(opt.lr, float(lr))
        if self.verbose > 0:
            logger.info("Epoch %05d: LearningRateScheduler setting learning rate to %s.",
                        epoch + 1, lr)


class TerminateOnNaN(Callback):
    """Stops training when the batch loss is NaN or infinite."""

    def on_batch_end(self, batch: int, logs: Logs = None) -> None:
        """Checks the batch loss."""
        loss = (logs or {}).get("loss")
        if loss is not None and not np.isfinite(loss):
            logger.warning("Batch %d: Invalid loss, terminating training", batch)
            self.model.stop_training = True


__all__ = ["Callback", "CallbackList", "History", "ProgbarLogger", "EarlyStopping",
           "ModelCheckpoint", "TensorBoard", "LambdaCallback", "LearningRateScheduler",
           "TerminateOnNaN"]
