"""``tf.linalg.experimental``: iterative solvers."""

from tensorfleet.ops.conjugate_gradient import conjugate_gradient

__all__ = ["conjugate_gradient"]
