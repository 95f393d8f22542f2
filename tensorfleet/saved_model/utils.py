"""``tf.saved_model.utils``: ``build_tensor_info``, ``get_tensor_from_tensor_info``."""

from tensorfleet.saved_model.signature import build_tensor_info  # noqa: F401
from tensorfleet.saved_model.main_op import get_tensor_from_tensor_info  # noqa: F401

__all__ = ["build_tensor_info", "get_tensor_from_tensor_info"]
