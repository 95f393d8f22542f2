"""Keras callbacks that watch the epoch logs: ``BaseLogger`` (epoch means of the batch
logs), ``CSVLogger`` (one CSV row per epoch), ``RemoteMonitor`` (POSTs each epoch's logs
to a server), ``ReduceLROnPlateau`` (lowers the learning rate when a metric stalls) and
``SidecarEvaluatorModelExport`` (saves the model when an evaluation improves)."""

from __future__ import annotations

import csv
import json
import logging
import os
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.keras.fit_callbacks import Callback, Logs, ModelCheckpoint, _monitor_op

logger = logging.getLogger(__name__)


class BaseLogger(Callback):
    """Sets each epoch's logs to the sample-weighted means of its batch logs (metrics in
    ``stateful_metrics`` keep their last batch value)."""

    def __init__(self, stateful_metrics: Optional[List[str]] = None):
        super().__init__()
        self.stateful_metrics = set(stateful_metrics or [])

    def on_epoch_begin(self, epoch: int, logs: Logs = None) -> None:
        """Resets the sums."""
        self.seen = 0
        self.totals: Dict[str, float] = {}

    def on_batch_end(self, batch: int, logs: Logs = None) -> None:
        """Adds the batch's values, weighted by its size."""
        logs = logs or {}
        size = logs.get("size", 0)
        self.seen += size
        for k, v in logs.items():
            if k in ("batch", "size"):
                continue
            if k in self.stateful_metrics:
                self.totals[k] = v
            else:
                self.totals[k] = self.totals.get(k, 0.0) + float(v) * size

    on_train_batch_end = on_batch_end

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Writes the means into the epoch's logs."""
        if logs is None:
            return
        for k in self.params.get("metrics", []):
            if k in self.totals:
                logs[k] = self.totals[k] if k in self.stateful_metrics else \
                    self.totals[k] / max(self.seen, 1)


class CSVLogger(Callback):
    """Appends one row per epoch (``epoch`` and the sorted log keys) to ``filename``."""

    def __init__(self, filename: str, separator: str = ",", append: bool = False):
        super().__init__()
        self.filename, self.sep, self.append = str(filename), separator, bool(append)
        self.keys: Optional[List[str]] = None
        self._file: Any = None
        self._writer: Any = None

    def on_train_begin(self, logs: Logs = None) -> None:
        """Opens the file (appending when asked and it exists)."""
        existed = self.append and os.path.exists(self.filename) and \
            os.path.getsize(self.filename) > 0
        self._file = open(self.filename, "a" if self.append else "w", newline="")
        self._append_header = not existed
        self.keys = None

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Writes the epoch's row (the header first)."""
        logs = dict(logs or {})
        if self.keys is None:
            self.keys = sorted(logs)
            self._writer = csv.DictWriter(self._file, fieldnames=["epoch"] + self.keys,
                                          delimiter=self.sep)
            if self._append_header:
                self._writer.writeheader()

        def fmt(v: Any) -> Any:
            if isinstance(v, (list, tuple, np.ndarray)) and np.ndim(v) > 0:
                return '"[%s]"' % ", ".join(str(x) for x in np.ravel(v))
            return v
        row = {"epoch": epoch, **{k: fmt(logs.get(k, "NA")) for k in self.keys}}
        self._writer.writerow(row)
        self._file.flush()

    def on_train_end(self, logs: Logs = None) -> None:
        """Closes the file."""
        if self._file is not None:
            self._file.close()
            self._file = None


class RemoteMonitor(Callback):
    """POSTs each epoch's logs (with ``epoch``) to ``root + path``: as a form field
    ``field`` holding JSON, or as a JSON body with ``send_as_json``. A failed request is
    logged, not raised, as in Keras."""

    def __init__(self, root: str = "http://localhost:9000", path: str = "/publish/epoch/end/",
                 field: str = "data", headers: Optional[Dict[str, str]] = None,
                 send_as_json: bool = False):
        super().__init__()
        if not str(root).startswith(("http://", "https://")):
            raise ValueError(f"RemoteMonitor: root must be an http(s) URL, got {root!r}")
        self.root, self.path, self.field = root, path, field
        self.headers, self.send_as_json = dict(headers or {}), bool(send_as_json)

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Sends the logs."""
        send = {"epoch": epoch}
        for k, v in (logs or {}).items():
            send[k] = v.item() if isinstance(v, (np.ndarray, np.generic)) else v
        if self.send_as_json:
            body = json.dumps(send).encode("utf8")
            headers = {"Content-Type": "application/json", **self.headers}
        else:
            body = urllib.parse.urlencode({self.field: json.dumps(send)}).encode("utf8")
            headers = {"Content-Type": "application/x-www-form-urlencoded", **self.headers}
        req = urllib.request.Request(self.root + self.path, data=body, headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=10) as resp:
                resp.read(1 << 16)
        except (urllib.error.URLError, OSError) as e:
            logger.warning("Warning: could not reach RemoteMonitor root server at %s (%s)",
                           self.root, e)


class ReduceLROnPlateau(Callback):
    """Multiplies the learning rate by ``factor`` once ``monitor`` has not improved by
    ``min_delta`` for ``patience`` epochs, then waits ``cooldown`` epochs; never below
    ``min_lr``."""

    def __init__(self, monitor: str = "val_loss", factor: float = 0.1, patience: int = 10,
                 verbose: int = 0, mode: str = "auto", min_delta: float = 1e-4,
                 cooldown: int = 0, min_lr: float = 0.0, **kwargs: Any):
        super().__init__()
        if "epsilon" in kwargs:
            min_delta = kwargs.pop("epsilon")
        if kwargs:
            raise ValueError(f"ReduceLROnPlateau: unsupported arguments {sorted(kwargs)}")
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau does not support a factor >= 1.0, got "
                             f"{factor}")
        self.monitor, self.factor, self.patience = monitor, float(factor), int(patience)
        self.verbose, self.min_delta, self.cooldown = verbose, float(min_delta), int(cooldown)
        self.min_lr = float(min_lr)
        self.monitor_op = _monitor_op(mode, monitor)
        self._reset()

    def _reset(self) -> None:
        self.best = -np.inf if self.monitor_op is np.greater else np.inf
        self.wait, self.cooldown_counter = 0, 0

    def on_train_begin(self, logs: Logs = None) -> None:
        """Resets the counters."""
        self._reset()

    def _improved(self, current: float) -> bool:
        if self.monitor_op is np.greater:
            return current > self.best + self.min_delta
        return current < self.best - self.min_delta

    def on_epoch_end(self, epoch: int, logs: Logs = None) -> None:
        """Checks the metric and lowers the rate when it has stalled."""
        logs = logs if logs is not None else {}
        lr_var = self.model.optimizer.lr
        logs["lr"] = float(K.get_value(lr_var))
        current = logs.get(self.monitor)
        if current is None:
            logger.warning("Learning rate reduction is conditioned on metric `%s` which is "
                           "not available. Available metrics are: %s", self.monitor,
                           ",".join(logs))
            return
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.wait = 0
        if self._improved(current):
            self.best, self.wait = current, 0
        elif self.cooldown_counter <= 0:
            self.wait += 1
            if self.wait >= self.patience:
                old = logs["lr"]
                if old > self.min_lr:
                    new = max(old * self.factor, self.min_lr)
                    K.set_value(lr_var, new)
                    if self.verbose > 0:
                        logger.info("Epoch %05d: ReduceLROnPlateau reducing learning rate to "
                                    "%s.", epoch + 1, new)
                    self.cooldown_counter, self.wait = self.cooldown, 0

    def in_cooldown(self) -> bool:
        """Whether the rate was lowered within the last ``cooldown`` epochs."""
        return self.cooldown_counter > 0


class SidecarEvaluatorModelExport(ModelCheckpoint):
    """Saves the model to ``export_filepath`` (formatted with ``epoch`` and the logs)
    when an evaluation improves ``monitor`` -- the export of a side-car evaluator, which
    calls ``evaluate`` on checkpoints written during training. ``checkpoint_filepath`` is
    the training checkpoint being evaluated, kept for the logs."""

    def __init__(self, export_filepath: str, checkpoint_filepath: str, **kwargs: Any):
        kwargs.setdefault("save_best_only", True)
        kwargs.setdefault("monitor", "loss")
        super().__init__(export_filepath, **kwargs)
        self.checkpoint_filepath = checkpoint_filepath
        self._evaluations = 0

    def on_test_end(self, logs: Logs = None) -> None:
        """Exports when this evaluation is the best so far."""
        self._evaluations += 1
        self.epochs_since_last_save = self.period - 1
        self.on_epoch_end(self._evaluations - 1, logs)


__all__ = ["BaseLogger", "CSVLogger", "RemoteMonitor", "ReduceLROnPlateau",
           "SidecarEvaluatorModelExport"]
