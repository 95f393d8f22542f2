"""The program every task of ``tensorfleet demo`` runs: the seed's trainer, on real digits.

Between-graph replication, as in the seed's example trainer: each worker builds
the same graph, with the variables on the parameter servers
(``tf.train.replica_device_setter``) and the computation on itself, and trains
asynchronously (or synchronously with ``--sync``) on scikit-learn's 8x8 digits
until the global step reaches ``--steps``. The chief draws a progress bar and, at
the end, prints the accuracy on held-out digits. Each task reads its role from
``TF_CONFIG``. Run it through ``tensorfleet demo`` or ``tensorfleet launch``::

    tensorfleet launch --ps 1 --workers 2 -m tensorfleet.cli.demo_train --steps 1500
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
import time
from typing import Any, Iterator, List, Optional, Tuple

import numpy as np

import tensorfleet as tf
from tensorfleet.cli.digits import digits_arrays
from tensorfleet.platform.logs import configure_from_env
from tensorfleet.distributed.remote import client_for
from tensorfleet.distributed.resolver import TFConfigClusterResolver, cluster_from_flags
from tensorfleet.training.progress import ProgressBarHook

logger = logging.getLogger("tensorfleet.demo")


def _api(name: str, module: str) -> Any:
    """``tf.train.<name>`` if tensorfleet has it, else from its module, else None."""
    found = getattr(tf.train, name, None)
    if found is not None:
        return found
    try:
        return getattr(importlib.import_module(module), name, None)
    except Exception:  # noqa: BLE001 - a part still being written must not break the demo
        return None


def load_digits(test_fraction: float = 0.2, split_seed: int = 0) -> Tuple[np.ndarray, ...]:
    """``(x_train, y_train, x_test, y_test)``: flattened 8x8 images in [0, 1], int labels."""
    data, target = digits_arrays()
    x = data.astype(np.float32) / 16.0
    y = target
    order = np.random.RandomState(split_seed).permutation(len(y))
    x, y = x[order], y[order]
    n_test = int(round(len(y) * test_fraction))
    return x[:-n_test], y[:-n_test], x[-n_test:], y[-n_test:]


def batches(x: np.ndarray, y: np.ndarray, size: int, seed: int) -> Iterator[Tuple[np.ndarray,
                                                                                 np.ndarray]]:
    rng = np.random.RandomState(seed)
    while True:
        order = rng.permutation(len(y))
        for i in range(0, len(y) - size + 1, size):
            idx = order[i:i + size]
            yield x[idx], y[idx]


def build_model(images: Any, hidden: int) -> Any:
    """A 64-hidden-10 perceptron; its variables go wherever the device function says."""
    with tf.variable_scope("hidden"):
        w1 = tf.get_variable("weights", [64, hidden],
                             initializer=tf.truncated_normal_initializer(stddev=0.125))
        b1 = tf.get_variable("biases", [hidden], initializer=tf.zeros_initializer())
    with tf.variable_scope("logits"):
        init = tf.truncated_normal_initializer(stddev=1.0 / hidden ** 0.5)
        w2 = tf.get_variable("weights", [hidden, 10], initializer=init)
        b2 = tf.get_variable("biases", [10], initializer=tf.zeros_initializer())
    h = tf.nn.relu(tf.matmul(images, w1) + b1)
    return tf.matmul(h, w2) + b2


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=1500, help="global steps to train")
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--learning_rate", type=float, default=0.01)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--sync", action="store_true",
                   help="synchronous training with SyncReplicasOptimizer")
    p.add_argument("--seed", type=int, default=1)
    # The seed's flags; TF_CONFIG wins when it is set.
    p.add_argument("--ps_hosts", default="")
    p.add_argument("--worker_hosts", default="")
    p.add_argument("--job_name", default="")
    p.add_argument("--task_index", type=int, default=0)
    args, _ = p.parse_known_args(argv)
    return args


def _role(args: argparse.Namespace) -> Tuple[Any, str, int]:
    import os
    if os.environ.get("TF_CONFIG"):
        r = TFConfigClusterResolver()
        return r.cluster_spec(), r.task_type, int(r.task_id)
    return cluster_from_flags(args.ps_hosts, args.worker_hosts, args.job_name, args.task_index)


def _wait_for(cluster: Any, job: str, timeout: float = 60.0) -> None:
    """Blocks until every task of ``job`` answers (they start at the same time as we do)."""
    for addr in cluster.job_tasks(job) if job in cluster.jobs else []:
        if addr:
            client_for(addr).call("GetStatus", {}, [], timeout=timeout, wait_for_ready=True)


def main(argv: Optional[List[str]] = None) -> int:
    configure_from_env()
    args = parse_args(argv)
    cluster, job, index = _role(args)
    server = tf.train.Server(cluster, job_name=job, task_index=index)
    if job == "ps":
        tf.train.join_until_workers_done(server)
        return 0
    if job != "worker":
        print(f"{job}:{index} has nothing to do in this demo")
        return 0
    num_workers = cluster.num_tasks("worker")
    is_chief = index == 0
    x_train, y_train, x_test, y_test = load_digits()
    tf.set_random_seed(args.seed)

    worker_device = f"/job:worker/task:{index}"
    setter = _api("replica_device_setter", "tensorfleet.training.device_setter")
    device = (setter(worker_device=worker_device, cluster=cluster) if setter is not None
              and "ps" in cluster.jobs else None)
    sync_cls = _api("SyncReplicasOptimizer", "tensorfleet.training.sync_replicas_optimizer")
    with tf.device(device if device is not None else worker_device):
        images = tf.placeholder(tf.float32, [None, 64], name="images")
        labels = tf.placeholder(tf.int64, [None], name="labels")
        if device is None and "ps" in cluster.jobs:
            with tf.device("/job:ps/task:0"):
                logits = build_model(images, args.hidden)
                global_step = tf.train.get_or_create_global_step()
        else:
            logits = build_model(images, args.hidden)
            global_step = tf.train.get_or_create_global_step()
        onehot = tf.one_hot(labels, 10)
        loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits_v2(labels=onehot,
                                                                         logits=logits))
        accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.argmax(logits, 1), labels), tf.float32))
        opt = tf.train.AdamOptimizer(args.learning_rate)
        if args.sync:
            if sync_cls is None:
                print("--sync needs tf.train.SyncReplicasOptimizer, which this tensorfleet "
                      "lacks", file=sys.stderr)
                return 2
            opt = sync_cls(opt, replicas_to_aggregate=num_workers, total_num_replicas=num_workers)
        train_op = opt.minimize(loss, global_step=global_step)

    bar = ProgressBarHook(last_step=args.steps, loss=loss, is_chief=is_chief,
                          desc=f"{'sync' if args.sync else 'async'} training, "
                               f"{num_workers} workers")
    _wait_for(cluster, "ps")
    data = batches(x_train, y_train, args.batch_size, seed=args.seed * 1000 + index)
    start = time.time()
    local_steps = _train(args, server, is_chief, train_op, global_step, loss, images, labels,
                         data, bar, opt if args.sync else None)
    elapsed = time.time() - start
    if is_chief:
        with tf.Session(server.target) as sess:
            acc, step = sess.run([accuracy, global_step], {images: x_test, labels: y_test})
        # Asynchronous workers finish the steps they had in flight when the last step
        # was reached, so the counter may pass --steps by up to one step per worker.
        extra = (f" (global step {step}: the other workers' steps in flight at the stop "
                 f"count too)" if step > args.steps else "")
        print(f"trained {min(int(step), args.steps)} global steps in {elapsed:.1f} s "
              f"({step / max(elapsed, 1e-9):.0f} steps/s){extra}; this worker ran "
              f"{local_steps}")
        print(f"test accuracy: {acc:.4f}")
    else:
        print(f"worker {index} done after {local_steps} local steps")
    tf.train.signal_workers_done(server.target, cluster, worker_index=index)
    return 0


def _train(args: argparse.Namespace, server: Any, is_chief: bool, train_op: Any,
           global_step: Any, loss: Any, images: Any, labels: Any, data: Iterator[Any],
           bar: Any, sync_opt: Any) -> int:
    """The training loop; returns the steps this worker ran."""
    mts = _api("MonitoredTrainingSession", "tensorfleet.training.monitored_session")
    stop_hook = _api("StopAtStepHook", "tensorfleet.training.basic_hooks")
    local = 0
    if mts is not None and stop_hook is not None:
        hooks = [stop_hook(last_step=args.steps)]
        if sync_opt is not None:
            hooks.append(sync_opt.make_session_run_hook(is_chief))
        with mts(master=server.target, is_chief=is_chief, hooks=hooks, chief_only_hooks=[bar],
                 save_checkpoint_secs=None, save_summaries_steps=None,
                 log_step_count_steps=None) as sess:
            while not sess.should_stop():
                bx, by = next(data)
                sess.run(train_op, feed_dict={images: bx, labels: by})
                local += 1
        return local
    # Without MonitoredTrainingSession: the chief initializes, the others wait for it.
    if sync_opt is not None:
        raise RuntimeError("--sync needs tf.train.MonitoredTrainingSession")
    with tf.Session(server.target) as sess:
        if is_chief:
            sess.run(tf.global_variables_initializer())
        else:
            uninit = tf.report_uninitialized_variables()
            while len(sess.run(uninit)):
                time.sleep(0.2)
        bar.start(int(sess.run(global_step)))
        step = 0
        while step < args.steps:
            bx, by = next(data)
            _, step, lv = sess.run([train_op, global_step, loss],
                                   feed_dict={images: bx, labels: by})
            bar.update(step, lv)
            local += 1
        bar.close()
    return local


if __name__ == "__main__":
    sys.exit(main())
