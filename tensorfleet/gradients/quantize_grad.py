"""``QuantizeV2`` and ``Dequantize`` have no gradient, as in TensorFlow."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("QuantizeV2")
no_gradient("Dequantize")
