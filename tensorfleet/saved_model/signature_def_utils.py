"""``tf.saved_model.signature_def_utils``: building and checking ``SignatureDef``s."""

from tensorfleet.saved_model.signature import (  # noqa: F401
    build_signature_def, classification_signature_def, is_valid_signature,
    predict_signature_def, regression_signature_def)
from tensorfleet.saved_model.method_name_updater import MethodNameUpdater  # noqa: F401

__all__ = ["build_signature_def", "classification_signature_def", "is_valid_signature",
           "predict_signature_def", "regression_signature_def",
           "MethodNameUpdater"]
