"""Realistic single-process models, run under TensorFlow or tensorfleet.

The same TF 1.x program runs under both frameworks (see ``bench_local.py`` for the
shared helpers: framework loading, timing, the JSON line). The models are the sizes
users train, not toy ones:

  mnist_cnn  the "Deep MNIST" conv net: 28x28x1 input, conv 5x5x32 SAME + ReLU, max-pool
             2x2, conv 5x5x64 SAME + ReLU, max-pool 2x2, dense 1024 ReLU with dropout
             0.5, dense 10, softmax cross-entropy, ``AdamOptimizer(1e-4)``, batch 128.
  cifar_cnn  the CIFAR-10 tutorial conv net: 24x24x3 crops, conv 5x5x64 SAME + ReLU,
             max-pool 3x3 stride 2 SAME, conv 5x5x64 SAME + ReLU, max-pool 3x3 stride 2
             SAME, dense 384 ReLU, dense 192 ReLU, dense 10, softmax cross-entropy,
             ``GradientDescentOptimizer(0.1)``, batch 128.

The data are fixed random images with random labels (the step's cost does not depend
on the pixels); initial weights are numpy arrays from fixed seeds given to both
frameworks, so equal losses after equal steps show the same work was done.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from bench_local import DATA_SEED, INIT_SEED, _train_loop, bench_main, glorot, one_hot

BATCH = 128


def _batches(shape: List[int], count: int) -> List[tuple]:
    rng = np.random.default_rng(DATA_SEED)
    return [(rng.uniform(0.0, 1.0, size=[BATCH] + shape).astype(np.float32),
             one_hot(rng.integers(0, 10, size=BATCH))) for _ in range(count)]


def _conv_pool(tf: Any, rng: np.random.Generator, h: Any, cin: int, cout: int, pool: int,
               index: int) -> Any:
    """5x5 SAME conv + bias + ReLU, then a ``pool`` x ``pool`` stride-2 SAME max-pool."""
    k = tf.Variable(glorot(rng, [5, 5, cin, cout], 25 * cin, 25 * cout), name=f"k{index}")
    b = tf.Variable(np.full([cout], 0.1, np.float32), name=f"c{index}")
    h = tf.nn.relu(tf.nn.conv2d(h, k, [1, 1, 1, 1], "SAME") + b)
    return tf.nn.max_pool(h, [1, pool, pool, 1], [1, 2, 2, 1], "SAME")


def _dense(tf: Any, rng: np.random.Generator, h: Any, n_in: int, n_out: int, index: int,
           relu: bool = True) -> Any:
    """``h @ w + b``, through a ReLU unless ``relu`` is False."""
    w = tf.Variable(glorot(rng, [n_in, n_out], n_in, n_out), name=f"w{index}")
    b = tf.Variable(np.full([n_out], 0.1, np.float32), name=f"b{index}")
    out = tf.matmul(h, w) + b
    return tf.nn.relu(out) if relu else out


def case_mnist_cnn(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """One Adam step of the Deep-MNIST conv net on 28x28x1 images, batch 128."""
    rng = np.random.default_rng(INIT_SEED)
    data = _batches([28, 28, 1], args.batches)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 28, 28, 1], name="x")
        y = tf.placeholder(tf.float32, [None, 10], name="y")
        keep = tf.placeholder_with_default(0.5, [], name="keep_prob")
        h = _conv_pool(tf, rng, x, 1, 32, 2, 1)
        h = _conv_pool(tf, rng, h, 32, 64, 2, 2)
        h = _dense(tf, rng, tf.reshape(h, [-1, 7 * 7 * 64]), 7 * 7 * 64, 1024, 3)
        h = tf.nn.dropout(h, keep_prob=keep, seed=7)
        logits = _dense(tf, rng, h, 1024, 10, 4, relu=False)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train_op = tf.train.AdamOptimizer(1e-4).minimize(loss)
        # The reported losses are without dropout, so both frameworks' are comparable.
        feeds = [{x: bx, y: by} for bx, by in data]
        return _train_loop(tf, args, "mnist_cnn", train_op, loss, feeds,
                           eval_extra={keep: 1.0})


def case_cifar_cnn(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """One SGD step of the CIFAR-10 tutorial conv net on 24x24x3 crops, batch 128."""
    rng = np.random.default_rng(INIT_SEED)
    data = _batches([24, 24, 3], args.batches)
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [None, 24, 24, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 10], name="y")
        h = _conv_pool(tf, rng, x, 3, 64, 3, 1)
        h = _conv_pool(tf, rng, h, 64, 64, 3, 2)
        h = _dense(tf, rng, tf.reshape(h, [-1, 6 * 6 * 64]), 6 * 6 * 64, 384, 3)
        h = _dense(tf, rng, h, 384, 192, 4)
        logits = _dense(tf, rng, h, 192, 10, 5, relu=False)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=y, logits=logits))
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
        feeds = [{x: bx, y: by} for bx, by in data]
        return _train_loop(tf, args, "cifar_cnn", train_op, loss, feeds)


CASES: Dict[str, Callable[[Any, argparse.Namespace], Dict[str, Any]]] = {
    "mnist_cnn": case_mnist_cnn,
    "cifar_cnn": case_cifar_cnn,
}


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one case under one framework and prints its JSON result line."""
    return bench_main(__doc__, CASES, {c: 60 for c in CASES}, {c: 5 for c in CASES}, argv,
                      max_seconds=60.0, batches=4)


if __name__ == "__main__":
    sys.exit(main())
