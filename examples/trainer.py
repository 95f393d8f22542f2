"""The seed's distributed trainer: between-graph replication with parameter servers.

One program for every task, as in the seed article. Start it once per task:

    python examples/trainer.py --ps_hosts=localhost:2222 \
        --worker_hosts=localhost:2223,localhost:2224 --job_name=ps --task_index=0
    python examples/trainer.py ... --job_name=worker --task_index=0
    python examples/trainer.py ... --job_name=worker --task_index=1

or let the launcher do it: ``tensorfleet launch --ps 1 --workers 2 examples/trainer.py``.
It trains an MLP on scikit-learn's handwritten digits asynchronously by default,
synchronously with ``--sync`` (SyncReplicasOptimizer), checkpoints to
``--checkpoint_dir`` (default: a directory of its own for each mode,
``/tmp/tensorfleet_examples/trainer_async`` or ``.../trainer_sync``) and resumes
from it when restarted; a run that finds the last step already reached there says
so and trains nothing.
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

import tensorfleet as tf
from _data import load_digits_split, teacher_task

FLAGS = None


def load_data(input_dim: int, seed: int):
    """Digits (8x8 = 64 features) or, for ``--input_dim`` other than 64, synthetic
    inputs of that width labelled by a fixed random linear teacher."""
    if input_dim == 64:
        x_train, y_train, x_test, y_test = load_digits_split(split_seed=seed)
        return ((x_train.reshape(len(x_train), -1), y_train),
                (x_test.reshape(len(x_test), -1), y_test))
    x, y = teacher_task(4096, dim=input_dim, seed=seed)
    n_test = len(x) // 5
    return (x[n_test:], y[n_test:]), (x[:n_test], y[:n_test])


def build_model(x, input_dim: int, hidden: int):
    w1 = tf.get_variable("w1", [input_dim, hidden],
                         initializer=tf.truncated_normal_initializer(stddev=0.1, seed=1))
    b1 = tf.get_variable("b1", [hidden], initializer=tf.zeros_initializer())
    w2 = tf.get_variable("w2", [hidden, 10],
                         initializer=tf.truncated_normal_initializer(stddev=0.1, seed=2))
    b2 = tf.get_variable("b2", [10], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    return tf.matmul(h, w2) + b2


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)

    if FLAGS.job_name == "ps":
        # Returns once every worker has said it is done (server.join() never returns).
        tf.train.join_until_workers_done(server)
        return 0

    num_workers = len(worker_hosts)
    is_chief = FLAGS.task_index == 0
    (x_train, y_train), (x_test, y_test) = load_data(FLAGS.input_dim, FLAGS.seed)
    # Each worker reads its own shard of the training data.
    x_train = x_train[FLAGS.task_index::num_workers]
    y_train = y_train[FLAGS.task_index::num_workers]

    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, FLAGS.input_dim], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        logits = build_model(x, FLAGS.input_dim, FLAGS.hidden)
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), y), tf.float32))
        global_step = tf.contrib.framework.get_or_create_global_step()
        opt = tf.train.AdagradOptimizer(FLAGS.learning_rate)
        hooks = [tf.train.StopAtStepHook(last_step=FLAGS.train_steps)]
        if FLAGS.sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=num_workers,
                                                 total_num_replicas=num_workers)
            hooks.append(opt.make_session_run_hook(is_chief, num_tokens=0))
        train_op = opt.minimize(loss, global_step=global_step)

    rng = np.random.RandomState(FLAGS.seed + FLAGS.task_index)
    steps = 0
    start = time.time()
    final = {}
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           checkpoint_dir=FLAGS.checkpoint_dir or None,
                                           save_checkpoint_steps=FLAGS.save_checkpoint_steps,
                                           save_checkpoint_secs=None,
                                           save_summaries_steps=None, hooks=hooks,
                                           log_step_count_steps=0) as mon_sess:
        while not mon_sess.should_stop():
            idx = rng.randint(0, len(x_train), FLAGS.batch_size)
            # mon_sess.run handles AbortedError in case of preempted PS.
            _, step, l = mon_sess.run([train_op, global_step, loss],
                                      feed_dict={x: x_train[idx], y: y_train[idx]})
            steps += 1
            if FLAGS.log_every and steps % FLAGS.log_every == 0:
                print("worker %d: local step %d, global step %d, loss %.4f"
                      % (FLAGS.task_index, steps, step, l), flush=True)
        # Evaluate with the raw session: hooks (and the step limit) do not apply.
        final = dict(zip(("loss", "accuracy"), mon_sess._tf_sess().run(
            [loss, accuracy], {x: x_test, y: y_test})))
    elapsed = time.time() - start
    report = {"worker": FLAGS.task_index, "local_steps": steps, "seconds": round(elapsed, 3)}
    report.update({k: float(v) for k, v in final.items()})
    print("RESULT " + json.dumps(report), flush=True)
    tf.train.signal_workers_done(server.target, cluster, FLAGS.task_index)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.register("type", "bool", lambda v: v.lower() == "true")
    parser.add_argument("--ps_hosts", type=str, default="",
                        help="Comma-separated list of hostname:port pairs")
    parser.add_argument("--worker_hosts", type=str, default="",
                        help="Comma-separated list of hostname:port pairs")
    parser.add_argument("--job_name", type=str, default="", help="One of 'ps', 'worker'")
    parser.add_argument("--task_index", type=int, default=0, help="Index of task within the job")
    parser.add_argument("--sync", action="store_true", help="train with SyncReplicasOptimizer")
    parser.add_argument("--train_steps", type=int, default=1000, help="last global step")
    parser.add_argument("--batch_size", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--input_dim", type=int, default=64,
                        help="64 trains on the digits; other widths use synthetic data")
    parser.add_argument("--learning_rate", type=float, default=0.1)
    parser.add_argument("--checkpoint_dir", type=str, default=None,
                        help="default: <tmp>/tensorfleet_examples/trainer_async, or "
                             "trainer_sync with --sync; '' writes no checkpoints")
    parser.add_argument("--save_checkpoint_steps", type=int, default=200)
    parser.add_argument("--log_every", type=int, default=0)
    parser.add_argument("--seed", type=int, default=0)
    # Every argument must be known: a misspelt one (--steps for --train_steps) is an
    # error, not silently ignored.
    FLAGS = parser.parse_args()
    if FLAGS.checkpoint_dir is None:
        # One directory per mode: a sync run must not resume an async run's last step.
        FLAGS.checkpoint_dir = os.path.join(tempfile.gettempdir(), "tensorfleet_examples",
                                            "trainer_sync" if FLAGS.sync else "trainer_async")
    tf.app.run(main=main, argv=[sys.argv[0]])
