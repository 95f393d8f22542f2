"""``EditDistance`` has no gradient: it counts edits between discrete sequences."""

from tensorfleet.gradients.registry import no_gradient

no_gradient("EditDistance")
