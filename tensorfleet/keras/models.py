"""``tf.keras.models``: ``Model``, ``Sequential``, configs, cloning and model files."""

from tensorfleet.keras.model_config import (clone_model, model_from_config, model_from_json,
                                            model_from_yaml)
from tensorfleet.keras.model_saving import load_model, save_model
from tensorfleet.keras.premade_models import LinearModel, WideDeepModel
from tensorfleet.keras.sequential import Sequential
from tensorfleet.keras.training import Model

__all__ = ["Model", "Sequential", "clone_model", "model_from_config", "model_from_json",
           "model_from_yaml", "load_model", "save_model", "LinearModel", "WideDeepModel"]
