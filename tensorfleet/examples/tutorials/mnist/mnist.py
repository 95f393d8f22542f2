"""The two-hidden-layer MNIST model of the TensorFlow 1.x tutorials
(``fully_connected_feed.py``, ``mnist_replica.py``): ``inference``, ``loss``,
``training`` and ``evaluation``, building on the public ``tensorfleet`` API.

Variables keep the tutorial's names (``hidden1/weights``, ``hidden1/biases``,
``hidden2/...``, ``softmax_linear/...``), so its checkpoints and summaries line up;
weights start from a truncated normal of standard deviation ``1/sqrt(fan_in)``,
biases from zero.
"""

from __future__ import annotations

import math
from typing import Any

# The model is built from the public API, as a program would: nothing in tensorfleet
# imports this module.
import tensorfleet as tf

NUM_CLASSES = 10
IMAGE_SIZE = 28
IMAGE_PIXELS = IMAGE_SIZE * IMAGE_SIZE


def _layer(scope: str, inputs: Any, fan_in: int, units: int, relu: bool) -> Any:
    with tf.name_scope(scope):
        weights = tf.Variable(tf.truncated_normal([fan_in, units],
                                                  stddev=1.0 / math.sqrt(float(fan_in))),
                              name="weights")
        biases = tf.Variable(tf.zeros([units]), name="biases")
        out = tf.matmul(inputs, weights) + biases
        return tf.nn.relu(out) if relu else out


def inference(images: Any, hidden1_units: int, hidden2_units: int) -> Any:
    """Logits ``[batch, NUM_CLASSES]`` of ``images`` ``[batch, IMAGE_PIXELS]`` through
    two ReLU layers of ``hidden1_units`` and ``hidden2_units`` units."""
    if int(hidden1_units) < 1 or int(hidden2_units) < 1:
        raise ValueError(f"inference: hidden layer sizes must be positive, got "
                         f"{hidden1_units} and {hidden2_units}")
    hidden1 = _layer("hidden1", images, IMAGE_PIXELS, int(hidden1_units), True)
    hidden2 = _layer("hidden2", hidden1, int(hidden1_units), int(hidden2_units), True)
    return _layer("softmax_linear", hidden2, int(hidden2_units), NUM_CLASSES, False)


def loss(logits: Any, labels: Any) -> Any:
    """Mean sparse softmax cross entropy of ``logits`` against int ``labels``
    ``[batch]`` (added to the ``LOSSES`` collection)."""
    return tf.losses.sparse_softmax_cross_entropy(labels=tf.to_int64(labels), logits=logits)


def training(loss: Any, learning_rate: float) -> Any:  # noqa: A002 - tutorial name
    """A gradient-descent train op on ``loss``; it increments a new non-trainable
    ``global_step`` variable and records a ``loss`` scalar summary."""
    tf.summary.scalar("loss", loss)
    optimizer = tf.train.GradientDescentOptimizer(learning_rate)
    global_step = tf.Variable(0, name="global_step", trainable=False)
    return optimizer.minimize(loss, global_step=global_step)


def evaluation(logits: Any, labels: Any) -> Any:
    """The number (int32 scalar) of examples whose label is the top logit."""
    correct = tf.nn.in_top_k(logits, labels, 1)
    return tf.reduce_sum(tf.cast(correct, tf.int32))


__all__ = ["NUM_CLASSES", "IMAGE_SIZE", "IMAGE_PIXELS", "inference", "loss", "training",
           "evaluation"]
