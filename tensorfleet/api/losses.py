"""``tf.losses``: the TF 1.x losses, added to the ``LOSSES`` collection."""

from tensorfleet.ops.losses_ops import (Reduction, absolute_difference, add_loss,
    compute_weighted_loss, cosine_distance, get_losses, get_regularization_loss,
    get_regularization_losses, get_total_loss, hinge_loss, huber_loss, log_loss,
    mean_squared_error, sigmoid_cross_entropy, softmax_cross_entropy,
    sparse_softmax_cross_entropy)
from tensorfleet.ops.losses_pairwise_ops import mean_pairwise_squared_error

__all__ = ["Reduction", "absolute_difference", "add_loss", "compute_weighted_loss",
           "cosine_distance", "get_losses", "get_regularization_loss",
           "get_regularization_losses", "get_total_loss", "hinge_loss", "huber_loss",
           "log_loss", "mean_pairwise_squared_error", "mean_squared_error",
           "sigmoid_cross_entropy", "softmax_cross_entropy", "sparse_softmax_cross_entropy"]
