"""Gradients of ``tf.py_func``: none, as in TensorFlow (the function is opaque)."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("PyFunc")
no_gradient("PyFuncStateless")
