"""The quantization ops (``QuantizeV2``, ``Dequantize``, quantized pooling and
convolution) have no gradient, as in TensorFlow."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("QuantizeV2")
no_gradient("Dequantize")
no_gradient("QuantizedAvgPool")
no_gradient("QuantizedMaxPool")
no_gradient("QuantizedConv2D")
