"""``SerializeTensor`` and ``ParseTensor`` have no gradient: bytes lie between them."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("SerializeTensor")
no_gradient("ParseTensor")
