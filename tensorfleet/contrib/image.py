"""``tf.contrib.image``: projective transforms, rotations and translations of images."""

from tensorfleet.ops.image_ops_transform import (  # noqa: F401
    angles_to_projective_transforms, compose_transforms, flat_transforms_to_matrices,
    matrices_to_flat_transforms, rotate, transform, translate,
    translations_to_projective_transforms)

__all__ = ["angles_to_projective_transforms", "compose_transforms",
           "flat_transforms_to_matrices", "matrices_to_flat_transforms", "rotate", "transform",
           "translate", "translations_to_projective_transforms"]
