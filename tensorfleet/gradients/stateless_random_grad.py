"""The stateless random ops have no gradient (their inputs are a shape and a seed)."""

from tensorfleet.gradients.registry import no_gradient

for _t in ("StatelessRandomUniform", "StatelessRandomUniformInt", "StatelessRandomNormal",
           "StatelessTruncatedNormal", "StatelessMultinomial"):
    no_gradient(_t)
