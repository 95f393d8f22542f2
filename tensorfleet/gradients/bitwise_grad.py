"""The bit operations have no gradient: they are defined on integers only."""

from tensorfleet.gradients.registry import no_gradient

for _t in ("BitwiseAnd", "BitwiseOr", "BitwiseXor", "LeftShift", "RightShift", "Invert"):
    no_gradient(_t)
