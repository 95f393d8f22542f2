"""The set operations have no gradient: their values are integers or strings."""

from tensorfleet.gradients.registry import no_gradient

for _t in ("DenseToDenseSetOperation", "DenseToSparseSetOperation",
           "SparseToSparseSetOperation", "SetSize"):
    no_gradient(_t)
