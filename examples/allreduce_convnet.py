"""The digits conv net trained by ring all-reduce on several worker processes.

Every worker is a replica with the whole model: it reads its own slice of each
global batch, computes gradients, and the gradients are averaged over the
workers with ring all-reduce before Adam applies them, so all workers keep
identical weights. There is no parameter server. With ``--workers N`` the
script starts N worker processes on this machine, each with its ``TF_CONFIG``
(as a cluster manager would), and prints rank 0's test accuracy;
``--workers 1`` trains the same global batch in one process, for comparison:

    python examples/allreduce_convnet.py --workers 1 --steps 300
    python examples/allreduce_convnet.py --workers 2 --steps 300
    python examples/allreduce_convnet.py --workers 3 --steps 300

When ``TF_CONFIG`` names a task (``tensorfleet launch --allreduce 2
examples/allreduce_convnet.py``, Kubernetes, ...), the process is that worker of
the cluster it lists and starts no other.

The training code itself is the conv net of ``mnist_convnet.py`` plus three
lines: the strategy, ``DistributedOptimizer`` and the broadcast hook.
"""

import tensorfleet as tf

import argparse
import json
import os
import socket
import subprocess
import sys
import time

import numpy as np

from _data import batches, load_digits_split, one_hot
from mnist_convnet import build_model


def train(args):
    """One worker (or the single process): trains and returns (accuracy, weights)."""
    strategy = tf.distribute.experimental.MultiWorkerMirroredStrategy()
    rank, workers = strategy.rank, strategy.num_replicas_in_sync
    if args.global_batch % workers:
        raise SystemExit(f"--global_batch {args.global_batch} is not divisible by {workers}")
    local = args.global_batch // workers
    x_train, y_train, x_test, y_test = load_digits_split()
    tf.set_random_seed(args.seed)
    with strategy.scope():
        images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
        labels = tf.placeholder(tf.float32, [None, 10], name="labels")
        logits = build_model(images)
        loss = tf.reduce_mean(
            tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.distribute.DistributedOptimizer(
            tf.train.AdamOptimizer(args.learning_rate),
            fusion_threshold_bytes=args.fusion_threshold,
            compression="fp16" if args.fp16 else "none")
        train_op = opt.minimize(loss, global_step=global_step)
        correct = tf.equal(tf.argmax(logits, 1), tf.argmax(labels, 1))
        accuracy = tf.reduce_mean(tf.cast(correct, tf.float32))
    hooks = [tf.distribute.BroadcastGlobalVariablesHook(0),
             tf.train.StopAtStepHook(last_step=args.steps)]
    data = batches(x_train, y_train, args.global_batch, seed=args.seed)
    start = time.time()
    with tf.train.MonitoredTrainingSession(hooks=hooks) as sess:
        while not sess.should_stop():
            bx, by = next(data)
            mine = slice(rank * local, (rank + 1) * local)
            _, step, value = sess.run([train_op, global_step, loss],
                                      {images: bx[mine], labels: one_hot(by[mine])})
            if rank == 0 and args.log_every and step % args.log_every == 0:
                print("step %d: loss %.4f (%.1f s)" % (step, value, time.time() - start))
        acc = sess.run(accuracy, {images: x_test, labels: one_hot(y_test)})
        weights = {v.op.name: sess.run(v) for v in tf.trainable_variables()}
    return float(acc), weights, time.time() - start


def _free_ports(n):
    socks = [socket.socket() for _ in range(n)]
    for s in socks:
        s.bind(("localhost", 0))
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def launch(args):
    """Starts ``--workers`` processes of this script, each with its TF_CONFIG; waits."""
    hosts = ["localhost:%d" % p for p in _free_ports(args.workers)]
    argv = [a for a in sys.argv[1:]]
    procs = []
    for i in range(args.workers):
        # With TF_CONFIG naming its task, each child is that worker and starts no other.
        env = dict(os.environ, TF_CONFIG=json.dumps(
            {"cluster": {"worker": hosts}, "task": {"type": "worker", "index": i}}))
        procs.append(subprocess.Popen([sys.executable, os.path.abspath(__file__)] + argv,
                                      env=env))
    codes = []
    try:
        for p in procs:
            codes.append(p.wait(timeout=args.launch_timeout))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    if any(codes):
        raise SystemExit("a worker failed: exit codes %s" % codes)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=None,
                        help="worker processes to start (default 2); not with a TF_CONFIG "
                             "that names this process's task")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--global_batch", type=int, default=96)
    parser.add_argument("--learning_rate", type=float, default=0.003)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--log_every", type=int, default=100)
    parser.add_argument("--fusion_threshold", type=int, default=64 << 20)
    parser.add_argument("--fp16", action="store_true", help="fp16 gradients on the wire")
    parser.add_argument("--dump", default=None, help="write rank 0's weights to this .npz")
    parser.add_argument("--launch_timeout", type=float, default=1800)
    args = parser.parse_args()
    cluster = _cluster_from_env()
    if cluster is not None:
        size = sum(len(cluster.get(job, ())) for job in ("chief", "worker"))
        if args.workers is not None and args.workers != size:
            parser.error(f"TF_CONFIG makes this process one of {size} workers; --workers "
                         f"{args.workers} disagrees (leave it out under a launcher)")
        args.workers = size
    else:
        args.workers = 2 if args.workers is None else args.workers
        if args.workers < 1:
            parser.error(f"--workers must be at least 1, got {args.workers}")
        if args.workers > 1:
            launch(args)
            return
    acc, weights, seconds = train(args)
    rank = _rank_from_env()
    if args.dump:
        path = args.dump if rank == 0 else "%s.rank%d.npz" % (args.dump[:-4], rank)
        np.savez(path, **{k.replace("/", "__"): v for k, v in weights.items()})
    if rank == 0:
        print("trained %d steps on %d worker(s) in %.1f s" % (args.steps, args.workers, seconds))
        print("test accuracy: %.4f" % acc)


def _cluster_from_env():
    """The cluster of ``TF_CONFIG`` when it names this process's task, else None."""
    cfg = json.loads(os.environ.get("TF_CONFIG") or "{}")
    if not cfg.get("task"):
        return None
    return cfg.get("cluster") or {}


def _rank_from_env():
    cfg = json.loads(os.environ.get("TF_CONFIG") or "{}")
    return int(cfg.get("task", {}).get("index", 0))


if __name__ == "__main__":
    main()
