"""``DecodeCompressed`` has no gradient: it turns bytes into bytes."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("DecodeCompressed")
