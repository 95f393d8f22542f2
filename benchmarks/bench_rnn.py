"""Recurrent-model benchmark programs, run under TensorFlow or tensorfleet.

The same TF 1.x program runs under both frameworks (see ``bench_local.py`` for the
shared helpers: framework loading, timing, the JSON line).

  ptb_lstm  one training step of the PTB "small" language model: vocabulary 10,000,
            embedding 200, two ``BasicLSTMCell(200, forget_bias=0.0)`` layers in a
            ``MultiRNNCell`` run by ``tf.nn.dynamic_rnn`` over 20 steps, batch 20,
            softmax over the vocabulary, cost = summed cross entropy / batch,
            ``clip_by_global_norm(5)`` and ``GradientDescentOptimizer(1.0)``.

``--kernel-times`` (tensorfleet only) also prints, on stderr, the time each op type's
kernels took per step, summed over the run: where a step's time goes.

The token ids are fixed random numbers (the step's cost does not depend on them).
Every variable starts from a numpy array drawn from fixed seeds and loaded into
both frameworks after initialization, so equal losses after equal steps show the
same work was done. TensorFlow 2.x keeps ``tf.nn.rnn_cell`` only with its legacy
Keras, so ``TF_USE_LEGACY_KERAS=1`` is set before it is imported (``bench_local.bench_main``).
"""

from __future__ import annotations

import argparse
import collections
import sys
import time
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
        timed = _time_kernels(tf) if getattr(args, "kernel_times", False) else None
        record = _train_loop(tf, args, case, train_op, cost, feeds,
                             after_init=lambda sess: sess.run(loads, feed_dict=load_feed))
        if timed is not None:
            _print_kernel_times(timed, record["trained_steps"] + 2)
        return record


def _time_kernels(tf: Any) -> Dict[str, List[float]]:
    """Wraps the CPU kernel of every op type in the default graph with a timer; returns
    the [seconds, calls] table the wrappers fill."""
    if tf.__name__ != "tensorfleet":
        raise SystemExit("--kernel-times needs --framework tensorfleet")
    registry = tf.kernels.registry
    table: Dict[str, List[float]] = collections.defaultdict(lambda: [0.0, 0])

    def wrap(op_type: str, kernel: Callable[..., Any]) -> Callable[..., Any]:
        def timed(ctx: Any, *inputs: Any) -> Any:
            start = time.perf_counter()
            try:
                return kernel(ctx, *inputs)
            finally:
                entry = table[op_type]
                entry[0] += time.perf_counter() - start
                entry[1] += 1
        return timed

    # The wrappers replace the kernels of the backend in use (the reference kernels when
    # it is numpy's): a backend kernel hands what it does not run to the reference
    # kernel, which must stay the unwrapped one.
    backend = registry.active_backend("CPU")
    for op_type in {op.type for op in tf.get_default_graph().get_operations()}:
        timed = wrap(op_type, registry.get_kernel(op_type))
        if backend is None:
            registry.register_kernel(op_type)(timed)
        else:
            registry.register_backend_kernel(op_type, "CPU", backend)(timed)
    return table


def _print_kernel_times(table: Dict[str, List[float]], runs: int) -> None:
    total = sum(sec for sec, _ in table.values())
    print(f"kernel time per run ({runs} runs, initialization included): "
          f"{total / runs * 1e3:.2f} ms", file=sys.stderr)
    for op_type, (sec, calls) in sorted(table.items(), key=lambda kv: -kv[1][0]):
        print(f"  {op_type:40s} {sec / runs * 1e3:8.3f} ms  {calls / runs:6.1f} calls",
              file=sys.stderr)


CASES: Dict[str, Callable[[Any, argparse.Namespace], Dict[str, Any]]] = {
    "ptb_lstm": case_ptb_lstm,
    "ptb_lstm_static": case_ptb_lstm_static,
}
DEFAULT_STEPS = {"ptb_lstm": 100, "ptb_lstm_static": 100}
DEFAULT_WARMUP = {"ptb_lstm": 5, "ptb_lstm_static": 5}


def main(argv: Optional[List[str]] = None) -> int:
    """Runs one case under one framework and prints its JSON result line."""
    extra = argparse.ArgumentParser(add_help=False)
    extra.add_argument("--kernel-times", action="store_true")
    own, rest = extra.parse_known_args(argv)
    cases = CASES
    if own.kernel_times:
        def with_times(fn: Callable[[Any, argparse.Namespace], Dict[str, Any]]) -> Any:
            def run(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
                args.kernel_times = True
                return fn(tf, args)
            return run
        cases = {name: with_times(fn) for name, fn in CASES.items()}
    return bench_main(__doc__, cases, DEFAULT_STEPS, DEFAULT_WARMUP, rest, max_seconds=60.0,
                      batches=4)


if __name__ == "__main__":
    sys.exit(main())
