"""A large sharded embedding trained sparsely over 2 ps, under TensorFlow or tensorfleet.

One TF 1.x program for both frameworks. Two parameter-server processes and the worker
run on loopback (``bench_cluster.LocalCluster``: the ps tasks are ``server.join()``
subprocesses, the worker hosts its own server and opens its session on it). The worker
builds, under ``replica_device_setter``:

* ``emb``: a float32 ``get_variable`` of 10^7 x 16, ``fixed_size_partitioner(2)``, so each
  ps holds one shard of 5 x 10^6 rows, initialised on the ps (uniform +-0.05);
* ``tf.nn.embedding_lookup_sparse(emb, sp_ids, None, combiner="sum")`` over a
  ``SparseTensor`` of 512 examples x 8 ids = 4,096 ids per step (uniform over the rows),
  a fixed 16 -> 1 projection, squared-error loss against fixed targets;
* ``AdagradOptimizer(0.1)``: each ps receives only the rows it holds and updates them
  (and their accumulator rows) in place.

Figures: steps/s (per-step ``sess.run`` times after warm-up), and ps memory: the summed
RSS of both ps processes right after initialisation, divided by the 10^7 rows. The
variable and its Adagrad accumulator are 128 bytes per row of payload; everything
else (interpreter, framework, buffers) is in the figure too, as a user would see it.

    python benchmarks/bench_embedding.py --framework tensorfleet
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, Dict, List, Optional

import numpy as np

from bench_cluster import LocalCluster
from bench_local import FRAMEWORKS, base_record, emit, load_framework, time_calls

ROWS = 10_000_000
DIM = 16
EXAMPLES = 512
IDS_PER_EXAMPLE = 8  # 4,096 ids per step
SEED = 99


def rss_bytes(pid: int) -> int:
    """Resident set size of a process, from /proc (Linux)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def batches(count: int, rows: int) -> List[Dict[str, np.ndarray]]:
    """Fixed id batches: sparse indices, ids, and regression targets."""
    rng = np.random.default_rng(SEED)
    row = np.repeat(np.arange(EXAMPLES), IDS_PER_EXAMPLE)
    col = np.tile(np.arange(IDS_PER_EXAMPLE), EXAMPLES)
    indices = np.stack([row, col], axis=1).astype(np.int64)
    return [{"indices": indices,
             "ids": rng.integers(0, rows, size=EXAMPLES * IDS_PER_EXAMPLE).astype(np.int64),
             "target": rng.normal(size=[EXAMPLES, 1]).astype(np.float32)}
            for _ in range(count)]


def run(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """Starts the cluster, builds and initialises the model, times the training steps."""
    data = batches(args.batches, args.rows)
    proj_init = np.random.default_rng(SEED + 1).normal(size=[DIM, 1]).astype(np.float32)
    cluster = LocalCluster(tf, args.framework, {"ps": 2, "worker": 1}, host=("worker", 0),
                           start_timeout=180.0)
    with cluster.running():
        ps_pids = [p.pid for p in cluster.procs]
        rss_before = sum(rss_bytes(pid) for pid in ps_pids)
        with tf.Graph().as_default():
            spec = tf.train.ClusterSpec(cluster.spec)
            with tf.device(tf.train.replica_device_setter(cluster=spec)):
                emb = tf.get_variable(
                    "emb", [args.rows, DIM], tf.float32,
                    initializer=tf.random_uniform_initializer(-0.05, 0.05, seed=SEED),
                    partitioner=tf.fixed_size_partitioner(2))
                proj = tf.Variable(proj_init, name="proj", trainable=False)
            indices = tf.placeholder(tf.int64, [None, 2], name="indices")
            ids = tf.placeholder(tf.int64, [None], name="ids")
            target = tf.placeholder(tf.float32, [None, 1], name="target")
            sp_ids = tf.SparseTensor(indices, ids, [EXAMPLES, IDS_PER_EXAMPLE])
            pooled = tf.nn.embedding_lookup_sparse(emb, sp_ids, None, combiner="sum")
            loss = tf.reduce_mean(tf.square(tf.matmul(pooled, proj) - target))
            train_op = tf.train.AdagradOptimizer(0.1).minimize(loss)
            feeds = [{indices: b["indices"], ids: b["ids"], target: b["target"]} for b in data]
            with tf.Session(cluster.target("worker", 0)) as sess:
                sess.run(tf.global_variables_initializer())
                rss_after = sum(rss_bytes(pid) for pid in ps_pids)
                first_loss = float(sess.run(loss, feed_dict=feeds[0]))
                counter = iter(range(10 ** 9))
                step = lambda: sess.run(train_op, feed_dict=feeds[next(counter) % len(feeds)])  # noqa: E731
                for _ in range(args.warmup):
                    step()
                samples = time_calls(step, args.steps, args.max_seconds)
                last_loss = float(sess.run(loss, feed_dict=feeds[0]))
                rss_trained = sum(rss_bytes(pid) for pid in ps_pids)
    record = base_record(args.framework, "embedding", tf, samples)
    record.update({
        "rows": args.rows, "dim": DIM, "ids_per_step": EXAMPLES * IDS_PER_EXAMPLE,
        "ps_rss_before_init": rss_before, "ps_rss_after_init": rss_after,
        "ps_rss_after_train": rss_trained, "ps_bytes_per_row": rss_after / args.rows,
        "ps_init_bytes_per_row": (rss_after - rss_before) / args.rows,
        "loss_before": first_loss, "loss_after": last_loss,
        "trained_steps": args.warmup + len(samples),
    })
    return record


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """Command-line options (``server`` mode belongs to ``bench_cluster.py``)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", choices=FRAMEWORKS, required=True)
    p.add_argument("--steps", type=int, default=200, help="timed steps")
    p.add_argument("--warmup", type=int, default=10, help="untimed steps first")
    p.add_argument("--max-seconds", type=float, default=60.0, help="cap on the timed phase")
    p.add_argument("--rows", type=int, default=ROWS)
    p.add_argument("--batches", type=int, default=8, help="distinct id batches cycled")
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the program once and prints its JSON line."""
    args = parse_args(argv)
    tf = load_framework(args.framework)
    emit(run(tf, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
