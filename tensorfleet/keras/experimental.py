"""``tf.keras.experimental``: the premade models and cosine schedules under their
earlier names."""

from tensorfleet.keras.learning_rate_schedules import CosineDecay, CosineDecayRestarts
from tensorfleet.keras.premade_models import LinearModel, WideDeepModel

__all__ = ["CosineDecay", "CosineDecayRestarts", "LinearModel", "WideDeepModel"]
