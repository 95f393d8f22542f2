"""Digits classification with tf.estimator and train_and_evaluate, locally or on a cluster.

A small 64-H-10 network on scikit-learn's 8x8 digits, written as a TensorFlow
1.x Estimator: a ``model_fn``, ``tf.data`` input functions and one call to
``tf.estimator.train_and_evaluate``. Swap the first import to run it under
TensorFlow.

Locally (train, then evaluate the final checkpoint)::

    python examples/estimator_digits.py --model_dir /tmp/digits

On a cluster every task runs the same command with its own ``TF_CONFIG``;
the evaluator is not part of the cluster and only reads ``--model_dir``
(which every task must see, e.g. a shared volume)::

    CLUSTER='{"chief": ["h0:2222"], "worker": ["h1:2222"], "ps": ["h2:2222"]}'
    TF_CONFIG='{"cluster": '$CLUSTER', "task": {"type": "ps", "index": 0}}' python ...
    TF_CONFIG='{"cluster": '$CLUSTER', "task": {"type": "chief", "index": 0}}' python ...
    TF_CONFIG='{"cluster": '$CLUSTER', "task": {"type": "worker", "index": 0}}' python ...
    TF_CONFIG='{"cluster": '$CLUSTER', "task": {"type": "evaluator", "index": 0}}' python ...

Each training task reads its own shard of the training set
(``Dataset.shard(num_worker_replicas, global_id_in_cluster)``). The ps tasks
exit once the chief and the workers are done; the evaluator exits after
evaluating the checkpoint at ``--max_steps`` and, with ``--results_file``,
writes its metrics there as JSON. After the final evaluation the model is exported as a
SavedModel under ``<model_dir>/export/digits/<timestamp>`` (its ``serving_default``
signature takes serialized ``tf.train.Example``s with 64 ``pixels`` and gives the
classes and probabilities), which TensorFlow's SavedModel loader loads too.
"""

import tensorfleet as tf

import argparse
import json
import logging
import os
import tempfile

import numpy as np

from _data import load_digits_split

logger = logging.getLogger("estimator_digits")


def dense(x, n_in, n_out, name, activation=None):
    """A fully connected layer made with tf.get_variable (so it lands on a ps)."""
    with tf.variable_scope(name):
        w = tf.get_variable("weights", [n_in, n_out],
                            initializer=tf.glorot_uniform_initializer())
        b = tf.get_variable("biases", [n_out], initializer=tf.zeros_initializer())
        y = tf.matmul(x, w) + b
        return activation(y) if activation else y


def model_fn(features, labels, mode, params):
    """The network, its loss, its training op and its metrics, for each mode."""
    hidden = dense(features["pixels"], 64, params["hidden"], "hidden", tf.nn.relu)
    logits = dense(hidden, params["hidden"], 10, "logits")
    classes = tf.argmax(logits, 1)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(
            mode, predictions={"classes": classes, "probabilities": tf.nn.softmax(logits)})
    loss = tf.reduce_mean(
        tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    if mode == tf.estimator.ModeKeys.EVAL:
        return tf.estimator.EstimatorSpec(
            mode, loss=loss,
            eval_metric_ops={"accuracy": tf.metrics.accuracy(labels=labels, predictions=classes)})
    optimizer = tf.train.AdagradOptimizer(params["learning_rate"])
    train_op = optimizer.minimize(loss, global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


def make_input_fns(batch_size, seed):
    """The training and evaluation input functions over a fixed train/test split
    (loaded on first use: a ps task never needs it)."""
    cache = {}

    def split():
        if not cache:
            x_train, y_train, x_test, y_test = load_digits_split()
            cache["train"] = (x_train.reshape(len(x_train), 64), y_train)
            cache["test"] = (x_test.reshape(len(x_test), 64), y_test)
        return cache

    def train_input_fn(config):
        x_train, y_train = split()["train"]
        ds = tf.data.Dataset.from_tensor_slices(({"pixels": x_train}, y_train))
        if config.num_worker_replicas > 1:
            # Shard before shuffling: every worker shuffles only its own part.
            ds = ds.shard(config.num_worker_replicas, config.global_id_in_cluster)
        return ds.shuffle(1024, seed=seed).repeat().batch(batch_size)

    def eval_input_fn():
        x_test, y_test = split()["test"]
        return tf.data.Dataset.from_tensor_slices(({"pixels": x_test}, y_test)).batch(256)

    return train_input_fn, eval_input_fn


def serving_input_receiver_fn():
    """The serving input: a batch of serialized ``tf.train.Example``s of 64 pixels."""
    return tf.estimator.export.build_parsing_serving_input_receiver_fn(
        {"pixels": tf.FixedLenFeature([64], tf.float32)})()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model_dir", default=os.path.join(tempfile.gettempdir(), "tensorfleet_examples",
                                                     "estimator_digits"))
    parser.add_argument("--max_steps", type=int, default=600)
    parser.add_argument("--batch_size", type=int, default=32)
    parser.add_argument("--hidden", type=int, default=32)
    parser.add_argument("--learning_rate", type=float, default=0.2)
    parser.add_argument("--save_checkpoints_steps", type=int, default=100)
    parser.add_argument("--start_delay_secs", type=float, default=0.0)
    parser.add_argument("--throttle_secs", type=float, default=2.0)
    parser.add_argument("--max_wait_secs", type=float, default=600.0)
    parser.add_argument("--save_summary_steps", type=int, default=100,
                        help="0 writes no TensorBoard summaries")
    parser.add_argument("--log_step_count_steps", type=int, default=100,
                        help="0 logs no loss / steps-per-second lines")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--results_file", default="",
                        help="where the evaluator (or a local run) writes its final metrics")
    args = parser.parse_args()
    # This program's own lines at INFO; tensorfleet's at its default (warnings), or
    # as --log-level / TENSORFLEET_LOG_LEVEL says (``--log-level info`` shows the
    # estimator's loss and step lines).
    handler = logging.StreamHandler()
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False

    train_input_fn, eval_input_fn = make_input_fns(args.batch_size, args.seed)
    config = tf.estimator.RunConfig(model_dir=args.model_dir, tf_random_seed=args.seed,
                                    save_checkpoints_steps=args.save_checkpoints_steps,
                                    save_summary_steps=args.save_summary_steps,
                                    log_step_count_steps=args.log_step_count_steps)
    estimator = tf.estimator.Estimator(
        model_fn, config=config,
        params={"hidden": args.hidden, "learning_rate": args.learning_rate})
    train_spec = tf.estimator.TrainSpec(train_input_fn, max_steps=args.max_steps)
    eval_spec = tf.estimator.EvalSpec(eval_input_fn, steps=None,
                                      start_delay_secs=args.start_delay_secs,
                                      throttle_secs=args.throttle_secs,
                                      max_wait_secs=args.max_wait_secs,
                                      exporters=tf.estimator.FinalExporter(
                                          "digits", serving_input_receiver_fn))
    metrics, exports = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    role = f"{config.task_type}:{config.task_id}"
    if metrics is None:
        logger.info("%s finished", role)
        return
    for path in exports or []:
        logger.info("%s exported the model to %s", role, os.fsdecode(path))
    logger.info("%s final metrics: %s", role, metrics)
    if args.results_file:
        tmp = args.results_file + ".tmp"
        with open(tmp, "w") as f:
            json.dump({k: float(np.asarray(v)) for k, v in metrics.items()}, f)
        os.replace(tmp, args.results_file)


if __name__ == "__main__":
    main()
