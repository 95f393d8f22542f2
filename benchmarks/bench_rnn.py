"""Recurrent-model benchmark programs, run under TensorFlow or tensorfleet.

The same TF 1.x program runs under both frameworks (see ``bench_local.py`` for the
shared helpers: framework loading, timing, the JSON line).

  ptb_lstm  one training step of the PTB "small" language model: vocabulary 10,000,
            embedding 200, two ``BasicLSTMCell(200, forget_bias=0.0)`` layers in a
            ``MultiRNNCell`` run by ``tf.nn.dynamic_rnn`` over 20 steps, batch 20,
            softmax over the vocabulary, cost = summed cross entropy / batch,
            ``clip_by_global_norm(5)`` and ``GradientDescentOptimizer(1.0)``.

The token ids are fixed random numbers (the step's cost does not depend on them).
Every variable starts from a numpy array drawn from fixed seeds and loaded into
both frameworks after initialization, so equal losses after equal steps show the
same work was done. TensorFlow 2.x keeps ``tf.nn.rnn_cell`` only with its legacy
Keras, so ``TF_USE_LEGACY_KERAS=1`` is set before it is imported (``bench_local.bench_main``).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from bench_local import DATA_SEED, INIT_SEED, _train_loop, bench_main

VOCAB, HIDDEN, LAYERS, STEPS, BATCH = 10000, 200, 2, 20, 20
INIT_SCALE, MAX_GRAD_NORM = 0.1, 5.0


def _initial_values(variables: List[Any]) -> List[np.ndarray]:
    """Uniform(-0.1, 0.1) values for every variable, in a fixed (sorted-name) order."""
    rng = np.random.default_rng(INIT_SEED)
    out = {}
    for v in sorted(variables, key=lambda v: v.op.name):
        shape = [int(d) for d in v.shape.as_list()]
        out[v.op.name] = rng.uniform(-INIT_SCALE, INIT_SCALE, size=shape).astype(np.float32)
    return [out[v.op.name] for v in variables]


def case_ptb_lstm(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """One SGD step of the PTB-small LSTM language model (2 x 200, 20 steps, batch 20),
    the recurrence by ``tf.nn.dynamic_rnn``."""
    return _ptb(tf, args, "ptb_lstm")


def case_ptb_lstm_static(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """The same model, the recurrence by ``tf.nn.static_rnn`` over 20 unstacked inputs."""
    return _ptb(tf, args, "ptb_lstm_static")


def _ptb(tf: Any, args: argparse.Namespace, case: str) -> Dict[str, Any]:
    rng = np.random.default_rng(DATA_SEED)
    data = [(rng.integers(0, VOCAB, size=(BATCH, STEPS)).astype(np.int32),
             rng.integers(0, VOCAB, size=(BATCH, STEPS)).astype(np.int32))
            for _ in range(args.batches)]
    with tf.Graph().as_default():
        ids = tf.placeholder(tf.int32, [BATCH, STEPS], name="ids")
        targets = tf.placeholder(tf.int32, [BATCH, STEPS], name="targets")
        embedding = tf.get_variable("embedding", [VOCAB, HIDDEN], dtype=tf.float32)
        inputs = tf.nn.embedding_lookup(embedding, ids)
        cell = tf.nn.rnn_cell.MultiRNNCell(
            [tf.nn.rnn_cell.BasicLSTMCell(HIDDEN, forget_bias=0.0) for _ in range(LAYERS)])
        if case == "ptb_lstm_static":
            steps = tf.unstack(inputs, num=STEPS, axis=1)
            outputs, _ = tf.nn.static_rnn(cell, steps, dtype=tf.float32)
            output = tf.reshape(tf.stack(outputs, axis=1), [-1, HIDDEN])
        else:
            outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
            output = tf.reshape(outputs, [-1, HIDDEN])
        softmax_w = tf.get_variable("softmax_w", [HIDDEN, VOCAB], dtype=tf.float32)
        softmax_b = tf.get_variable("softmax_b", [VOCAB], dtype=tf.float32)
        logits = tf.matmul(output, softmax_w) + softmax_b
        xent = tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=tf.reshape(targets, [-1]), logits=logits)
        cost = tf.reduce_sum(xent) / BATCH
        tvars = tf.trainable_variables()
        grads, _ = tf.clip_by_global_norm(tf.gradients(cost, tvars), MAX_GRAD_NORM)
        train_op = tf.train.GradientDescentOptimizer(1.0).apply_gradients(zip(grads, tvars))
        values = _initial_values(tvars)

        phs = [tf.placeholder(tf.float32, v.shape, name=f"init_{i}")
               for i, v in enumerate(tvars)]
        loads = tf.group(*[tf.assign(v, p) for v, p in zip(tvars, phs)])
        feeds = [{ids: x, targets: y} for x, y in data]
        load_feed = dict(zip(phs, values))
        return _train_loop(tf, args, case, train_op, cost, feeds,
                           after_init=lambda sess: sess.run(loads, feed_dict=load_feed))


CASES: Dict[str, Callable[[Any, argparse.Namespace], Dict[str, Any]]] = {
    "ptb_lstm": case_ptb_lstm,
    "ptb_lstm_static": case_ptb_lstm_static,
}
DEFAULT_STEPS = {"ptb_lstm": 100, "ptb_lstm_static": 100}
DEFAULT_WARMUP = {"ptb_lstm": 5, "ptb_lstm_static": 5}


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one case under one framework and prints its JSON result line."""
    return bench_main(__doc__, CASES, DEFAULT_STEPS, DEFAULT_WARMUP, argv, max_seconds=60.0,
                      batches=4)


if __name__ == "__main__":
    sys.exit(main())
