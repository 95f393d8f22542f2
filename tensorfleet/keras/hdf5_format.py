"""Keras's HDF5 files (h5py): weights files (``save_weights('w.h5')``) and whole-model
files (``model.save('m.h5')``) in Keras 2's layout, so that files move between Keras and
tensorfleet.

Layout: the root (or ``model_weights`` in a model file) lists ``layer_names``; each
layer's group lists ``weight_names`` (``dense/kernel:0`` ...) and holds one dataset per
weight at that path. A model file adds ``model_config`` and ``training_config`` (JSON
attributes) and, with the optimizer, ``optimizer_weights``. Files are untrusted: every
dataset's shape is checked against the weight it is read into before it is read, and the
JSON attributes are size-checked.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Any, Dict, List, Optional

import numpy as np

from tensorfleet.keras import backend as K
from tensorfleet.keras import losses as from_losses
from tensorfleet.keras import metrics as from_metrics
from tensorfleet.keras import optimizers as from_optimizers

logger = logging.getLogger(__name__)

KERAS_VERSION = "2.15.0"
MAX_JSON_BYTES = 64 << 20


def _h5py() -> Any:
    try:
        import h5py  # the HDF5 reader/writer; a dependency of tensorfleet's Keras files
    except ImportError:
        raise ImportError("HDF5 files need h5py (pip install h5py)") from None
    return h5py


def _names(values: Any) -> List[str]:
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def _bytes_array(names: List[str]) -> np.ndarray:
    """Names as a fixed-length byte-string array, the attribute type Keras writes."""
    return np.array([n.encode("utf8") for n in names], dtype="S")


def _layers_with_weights(model: Any) -> List[Any]:
    return [layer for layer in model.layers if layer.weights]


def save_weights_to_group(group: Any, model: Any) -> None:
    """Writes every layer's weights into the h5py ``group`` (Keras 2 layout)."""
    layers = model.layers
    group.attrs["layer_names"] = _bytes_array([layer.name for layer in layers])
    group.attrs["backend"] = b"tensorflow"
    group.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
    for layer in layers:
        g = group.create_group(layer.name)
        weights = layer.weights
        values = K.batch_get_value(weights)
        names = [w.name for w in weights]
        g.attrs["weight_names"] = _bytes_array(names)
        for name, value in zip(names, values):
            g.create_dataset(name, data=np.asarray(value))


def _read(ds: Any, weight: Any, where: str) -> np.ndarray:
    want = tuple(weight.get_shape().as_list())
    if tuple(ds.shape) != want:
        raise ValueError(f"{where}: the file holds shape {tuple(ds.shape)}, the model's "
                         f"weight {weight.name} has shape {want}")
    return np.asarray(ds[()])


def load_weights_from_group(group: Any, model: Any, by_name: bool = False,
                            skip_mismatch: bool = False) -> None:
    """Reads weights from the h5py ``group`` into ``model``: layer by layer in order (the
    layers that have weights), or by layer name with ``by_name``.

    Raises:
      ValueError: layer or weight counts, or shapes, that do not match.
    """
    if "layer_names" not in group.attrs:
        raise ValueError("not a Keras weights file: no layer_names attribute")
    file_layers = [n for n in _names(group.attrs["layer_names"])
                   if _names(group[n].attrs.get("weight_names", []))]
    pairs = []
    if by_name:
        by = {layer.name: layer for layer in model.layers}
        for name in file_layers:
            layer = by.get(name)
            if layer is None:
                continue
            pairs.extend(_layer_pairs(group[name], layer, skip_mismatch))
    else:
        layers = _layers_with_weights(model)
        if len(layers) != len(file_layers):
            raise ValueError(f"You are trying to load a weight file containing "
                             f"{len(file_layers)} layers into a model with {len(layers)} "
                             f"layers.")
        for name, layer in zip(file_layers, layers):
            pairs.extend(_layer_pairs(group[name], layer, False))
    K.batch_set_value(pairs)


def _layer_pairs(g: Any, layer: Any, skip_mismatch: bool) -> List[tuple]:
    names = _names(g.attrs["weight_names"])
    weights = layer.weights
    if len(names) != len(weights):
        if skip_mismatch:
            logger.warning("Skipping layer %s: %d weights in the file, %d in the layer",
                           layer.name, len(names), len(weights))
            return []
        raise ValueError(f"Layer {layer.name!r} expects {len(weights)} weights, but the "
                         f"saved weights have {len(names)} elements.")
    out = []
    for n, w in zip(names, weights):
        try:
            out.append((w, _read(g[n], w, f"layer {layer.name}")))
        except ValueError:
            if not skip_mismatch:
                raise
            logger.warning("Skipping weight %s of layer %s: shape mismatch", n, layer.name)
    return out


def save_weights(model: Any, filepath: str, overwrite: bool = True) -> None:
    """``model``'s weights to an HDF5 weights file."""
    h5py = _h5py()
    if not overwrite and os.path.exists(filepath):
        raise ValueError(f"save_weights: {filepath} exists and overwrite=False")
    with h5py.File(filepath, "w") as f:
        save_weights_to_group(f, model)


def load_weights(model: Any, filepath: str, by_name: bool = False,
                 skip_mismatch: bool = False) -> None:
    """Reads an HDF5 weights file (or a model file's weights) into ``model``."""
    h5py = _h5py()
    with h5py.File(filepath, "r") as f:
        group = f["model_weights"] if "model_weights" in f else f
        load_weights_from_group(group, model, by_name=by_name, skip_mismatch=skip_mismatch)


def training_config(model: Any) -> Optional[Dict[str, Any]]:
    """The compile arguments of ``model`` as JSON-ready values (None if not compiled)."""
    if getattr(model, "optimizer", None) is None:
        return None

    def loss_value(loss: Any) -> Any:
        if isinstance(loss, str) or loss is None:
            return loss
        if isinstance(loss, dict):
            return {k: loss_value(v) for k, v in loss.items()}
        if isinstance(loss, (list, tuple)):
            return [loss_value(v) for v in loss]
        return from_losses.serialize(loss)

    def metric_value(m: Any) -> Any:
        if isinstance(m, str):
            return m
        if isinstance(m, (list, tuple)):
            return [metric_value(v) for v in m]
        if isinstance(m, dict):
            return {k: metric_value(v) for k, v in m.items()}
        return from_metrics.serialize(m)
    return {"loss": loss_value(model.loss), "metrics": metric_value(model._metrics_arg),
            "loss_weights": model._loss_weights_arg,
            "optimizer_config": from_optimizers.serialize(model.optimizer)}


def save_model(model: Any, filepath: str, overwrite: bool = True,
               include_optimizer: bool = True) -> None:
    """``model``'s config, weights, compile arguments and (``include_optimizer``) the
    optimizer's variables to a Keras HDF5 model file."""
    h5py = _h5py()
    if not overwrite and os.path.exists(filepath):
        raise ValueError(f"save_model: {filepath} exists and overwrite=False")
    config = json.dumps({"class_name": type(model).__name__, "config": model.get_config()})
    train_cfg = training_config(model)
    with h5py.File(filepath, "w") as f:
        f.attrs["keras_version"] = KERAS_VERSION.encode("utf8")
        f.attrs["backend"] = b"tensorflow"
        f.attrs["model_config"] = config.encode("utf8")
        save_weights_to_group(f.create_group("model_weights"), model)
        if train_cfg is not None:
            f.attrs["training_config"] = json.dumps(train_cfg).encode("utf8")
            if include_optimizer:
                opt_vars = model.optimizer.variables()
                g = f.create_group("optimizer_weights")
                g.attrs["weight_names"] = _bytes_array([v.name for v in opt_vars])
                for v, value in zip(opt_vars, K.batch_get_value(opt_vars)):
                    g.create_dataset(v.name, data=np.asarray(value))


def read_json_attr(f: Any, name: str) -> Any:
    """A JSON attribute of the file, size-checked (None if absent).

    Raises:
      ValueError: an attribute over the size limit or not JSON.
    """
    raw = f.attrs.get(name)
    if raw is None:
        return None
    text = raw.decode("utf8") if isinstance(raw, bytes) else str(raw)
    if len(text) > MAX_JSON_BYTES:
        raise ValueError(f"{name}: over {MAX_JSON_BYTES} bytes")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ValueError(f"{name}: not JSON ({e})") from None


def load_optimizer_weights(f: Any, model: Any) -> None:
    """Sets the optimizer's variables (made by building the training step) from the
    file, in order.

    Raises:
      ValueError: counts or shapes that do not match.
    """
    if "optimizer_weights" not in f:
        return
    g = f["optimizer_weights"]
    names = _names(g.attrs["weight_names"])
    model._make_train_function()
    opt_vars = model.optimizer.variables()
    if len(opt_vars) != len(names):
        raise ValueError(f"The optimizer has {len(opt_vars)} variables, the file "
                         f"{len(names)}")
    K.batch_set_value([(v, _read(g[n], v, "optimizer_weights"))
                       for n, v in zip(names, opt_vars)])


__all__ = ["save_weights", "load_weights", "save_model", "save_weights_to_group",
           "load_weights_from_group", "training_config", "read_json_attr",
           "load_optimizer_weights", "KERAS_VERSION"]
