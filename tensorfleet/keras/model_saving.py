"""``tf.keras.models.save_model`` / ``load_model``: whole models in Keras's HDF5 format
(``.h5``/``.hdf5``, or ``save_format='h5'``) -- config, weights, compile arguments and
optimizer state. Other formats (the SavedModel directory, Keras 3's ``.keras`` zip) are
refused with an error."""

from __future__ import annotations

from typing import Any, Dict, Optional

from tensorfleet.keras import hdf5_format as H
from tensorfleet.keras import losses as _losses
from tensorfleet.keras import metrics as _metrics
from tensorfleet.keras import optimizers as _optimizers
from tensorfleet.keras.model_config import model_from_config
from tensorfleet.keras.object_registry import CustomObjectScope

_H5 = (".h5", ".hdf5", ".keras.h5")


def _format(filepath: str, save_format: Optional[str]) -> str:
    if save_format in ("h5", "hdf5") or (save_format is None and
                                         str(filepath).endswith(_H5)):
        return "h5"
    raise ValueError(f"Only Keras HDF5 model files are supported: give a path ending in "
                     f".h5/.hdf5 or save_format='h5' (got {filepath!r}, "
                     f"save_format={save_format!r})")


def save_model(model: Any, filepath: str, overwrite: bool = True,
               include_optimizer: bool = True, save_format: Optional[str] = None,
               signatures: Any = None, options: Any = None, save_traces: bool = True) -> None:
    """Writes ``model`` to a Keras HDF5 file (``save_traces`` concerns SavedModels only;
    an HDF5 file holds no traced functions, as in Keras).

    Raises:
      ValueError: another format, or SavedModel-only arguments (signatures, options).
    """
    _format(str(filepath), save_format)
    if signatures is not None or options is not None:
        raise ValueError("save_model: signatures and options belong to the SavedModel "
                         "format, which is not supported here")
    H.save_model(model, str(filepath), overwrite=overwrite,
                 include_optimizer=include_optimizer)


def _compile_from(model: Any, cfg: Dict[str, Any], custom: Dict[str, Any]) -> None:
    def loss_of(v: Any) -> Any:
        if isinstance(v, dict) and "class_name" in v:
            return _losses.deserialize(v, custom)
        if isinstance(v, dict):
            return {k: loss_of(x) for k, x in v.items()}
        if isinstance(v, list):
            return [loss_of(x) for x in v]
        return custom.get(v, v) if isinstance(v, str) else v

    def metric_of(v: Any) -> Any:
        if isinstance(v, dict) and "class_name" in v:
            return _metrics.deserialize(v, custom)
        if isinstance(v, dict):
            return {k: metric_of(x) for k, x in v.items()}
        if isinstance(v, list):
            return [metric_of(x) for x in v]
        return custom.get(v, v) if isinstance(v, str) else v
    optimizer = _optimizers.deserialize(cfg["optimizer_config"], custom)
    model.compile(optimizer=optimizer, loss=loss_of(cfg.get("loss")),
                  metrics=metric_of(cfg.get("metrics")), loss_weights=cfg.get("loss_weights"))


def load_model(filepath: str, custom_objects: Optional[Dict[str, Any]] = None,
               compile: bool = True, options: Any = None) -> Any:  # noqa: A002  (Keras name)
    """The model saved in a Keras HDF5 file, with its weights, compiled as it was (and
    its optimizer state restored) when ``compile``.

    Raises:
      ValueError: another format, or a file that is not a Keras model file.
    """
    _format(str(filepath), None if str(filepath).endswith(_H5) else "other")
    if options is not None:
        raise ValueError("load_model: options belong to the SavedModel format")
    custom = dict(custom_objects or {})
    h5py = H._h5py()
    with h5py.File(str(filepath), "r") as f, CustomObjectScope(custom):
        config = H.read_json_attr(f, "model_config")
        if config is None:
            raise ValueError(f"No model config found in the file at {filepath}.")
        model = model_from_config(config, custom)
        H.load_weights_from_group(f["model_weights"], model)
        train_cfg = H.read_json_attr(f, "training_config")
        if compile and train_cfg is not None:
            _compile_from(model, train_cfg, custom)
            H.load_optimizer_weights(f, model)
    return model


__all__ = ["save_model", "load_model"]
