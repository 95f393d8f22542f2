"""``tf.keras.estimator``: Keras models as Estimators."""

from tensorfleet.keras.keras_estimator import model_to_estimator

__all__ = ["model_to_estimator"]
