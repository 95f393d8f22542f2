"""Cluster benchmark programs over gRPC, run under TensorFlow or tensorfleet.

Like ``bench_local.py`` this is one program parameterized by ``--framework``.  The
client (``run``) starts every task of a small cluster as its own server process
(``server`` mode: build ``tf.train.Server`` and ``join()``), opens a ``tf.Session``
on ``grpc://localhost:<port of task 0>`` from a separate process, times each
``sess.run`` and prints one JSON line.  The servers are killed by pid when the
case ends, whatever happens; a server whose client disappears exits by itself.

Under TensorFlow the servers are ``tf.compat.v1.train.Server`` (the TF1 in-process
gRPC server, the one the seeds describe); under tensorfleet
``tensorfleet.api.train.Server``.

Cases:
  mean_step  ClusterSpec {"local": [2 ports]}; x = placeholder float32 [100];
             task 1 computes reduce_mean(x[0:50]), task 0 reduce_mean(x[50:100]),
             mean = (m1 + m2) / 2.  Time per ``sess.run(mean)``: the fixed cost of
             a step that crosses two tasks.
  fetch64mb  a float32 variable of 16M elements (64 MiB) on /job:local/task:1,
             fetched by a client of task 0.  Reported as GB/s (1 GB = 1e9 bytes).
  remote_sum64mb  the same variable on task 1, ``reduce_sum(big + 1.0)`` computed
             on task 0: a big tensor received from another task and computed on
             there.  Reported as GB/s of the variable.

Client layout (``--client``): ``separate`` (the default, as in the seeds: every task
is a ``join()`` subprocess and the client is a process of its own that reaches task
0's master over gRPC) or ``in-task0`` (the client process hosts task 0's server and
opens its session on that server's target, so only task 1 is across the network).
TensorFlow's client-to-master path copies every fetched tensor through a protobuf
response, so the two layouts differ a lot for the 64 MiB fetch.

A later 1 ps + 2 worker trainer fits the same shape: a case function that asks
``LocalCluster`` for ``{"ps": 1, "worker": 2}``.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

import numpy as np

from bench_local import FRAMEWORKS, base_record, emit, load_framework, time_calls

READY = "SERVER-READY"
FETCH_ELEMENTS = 16 * 1024 * 1024  # 64 MiB of float32


# ---------------------------------------------------------------------------
# Server side: one task of the cluster.
# ---------------------------------------------------------------------------

def _exit_when_orphaned(poll_s: float = 0.5) -> None:
    """Ends this process once its parent (the client) is gone.

    ``server.join()`` never returns, so a client killed before its cleanup ran
    would otherwise leave servers holding ports and CPU on a shared machine.
    """
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="orphan-watch", daemon=True).start()


def serve(framework: str, cluster: Dict[str, List[str]], job: str, task: int) -> int:
    """Runs one task's server until killed."""
    _exit_when_orphaned()
    tf = load_framework(framework)
    spec = tf.train.ClusterSpec(cluster)
    server = tf.train.Server(spec, job_name=job, task_index=task)
    # The client waits for this line, so it never connects to a port not yet bound.
    sys.stdout.write(f"{READY} {job}:{task} {server.target}\n")
    sys.stdout.flush()
    server.join()
    return 0


# ---------------------------------------------------------------------------
# Client side: starting and stopping the cluster.
# ---------------------------------------------------------------------------

def free_ports(count: int) -> List[int]:
    """``count`` distinct localhost ports that were free a moment ago.

    All sockets are held open until every port is chosen so the OS cannot hand the
    same one out twice; the small window before the servers bind is accepted.
    """
    socks = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("localhost", 0))
            socks.append(s)
        return [s.getsockname()[1] for s in socks]
    finally:
        for s in socks:
            s.close()


class LocalCluster:
    """Servers for the tasks of ``jobs`` on localhost, one process each.

    With ``host`` set to ``(job, task)``, that one task's server lives in this (the
    client's) process instead, and ``target`` of it is the in-process server's own
    target, which both frameworks may serve without a network hop to the master.
    """

    def __init__(self, tf: Any, framework: str, jobs: Dict[str, int],
                 host: Optional[Tuple[str, int]] = None, start_timeout: float = 60.0):
        self.tf = tf
        self.framework = framework
        ports = iter(free_ports(sum(jobs.values())))
        self.spec: Dict[str, List[str]] = {
            job: [f"localhost:{next(ports)}" for _ in range(n)] for job, n in jobs.items()}
        self.host = host
        self.start_timeout = start_timeout
        self.procs: List[subprocess.Popen] = []
        self.logs: List[Any] = []
        self.local_server: Any = None
        if framework == "tensorfleet":
            # tensorfleet lets loopback-only servers run without a cluster token, but
            # a real cluster always has one; measure with the per-call check switched
            # on.  Servers inherit it from this process's environment.
            os.environ.setdefault("TENSORFLEET_TOKEN", secrets.token_urlsafe(32))

    def target(self, job: str, task: int) -> str:
        """The ``grpc://`` session target of one task."""
        if self.local_server is not None and (job, task) == self.host:
            return self.local_server.target
        return "grpc://" + self.spec[job][task]

    def start(self) -> None:
        """Starts every task and waits until each one reports that it is serving."""
        script = os.path.abspath(__file__)
        for job, addrs in self.spec.items():
            for task in range(len(addrs)):
                if (job, task) == self.host:
                    continue
                cmd = [sys.executable, script, "server", "--framework", self.framework,
                       "--cluster", json.dumps(self.spec), "--job", job, "--task", str(task)]
                # stderr goes to a file, read back only to explain a server that dies.
                log = tempfile.TemporaryFile(mode="w+")
                self.logs.append(log)
                self.procs.append(subprocess.Popen(
                    cmd, stdout=subprocess.PIPE, stderr=log, text=True))
        if self.host is not None:
            # Built after the subprocesses are launched so their start-up overlaps.
            self.local_server = self.tf.train.Server(
                self.tf.train.ClusterSpec(self.spec), job_name=self.host[0],
                task_index=self.host[1])
        deadline = time.monotonic() + self.start_timeout
        for proc, log in zip(self.procs, self.logs):
            self._wait_ready(proc, log, deadline)

    def _wait_ready(self, proc: subprocess.Popen, log: Any, deadline: float) -> None:
        """Reads the server's stdout until its ready line; fails if it dies or stalls."""
        found = threading.Event()

        def reader() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.startswith(READY):
                    found.set()
                    return

        threading.Thread(target=reader, daemon=True).start()
        while not found.wait(0.05):
            if proc.poll() is not None:
                log.seek(0)
                lines = [ln.strip() for ln in log.read().splitlines() if ln.strip()]
                raise RuntimeError(f"server pid {proc.pid} exited with {proc.returncode} "
                                   f"before serving: {lines[-1] if lines else 'no output'}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"server pid {proc.pid} not serving after "
                                   f"{self.start_timeout:.0f}s")

    def stop(self) -> None:
        """Terminates each server by pid, then kills any that outlive a grace period."""
        for proc in self.procs:
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in self.logs:
            log.close()
        self.procs.clear()
        self.logs.clear()

    @contextlib.contextmanager
    def running(self) -> Iterator["LocalCluster"]:
        """Starts the cluster for the duration of a ``with`` block."""
        try:
            self.start()
            yield self
        finally:
            self.stop()


# ---------------------------------------------------------------------------
# The cases.
# ---------------------------------------------------------------------------

CLIENTS = ("separate", "in-task0")


def _cluster(tf: Any, args: argparse.Namespace) -> LocalCluster:
    """The two-task ``local`` job, with the client separate or inside task 0."""
    host = ("local", 0) if args.client == "in-task0" else None
    return LocalCluster(tf, args.framework, {"local": 2}, host=host)


def case_mean_step(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """Per-step time of a mean computed half on each of two tasks."""
    values = np.arange(100, dtype=np.float32)
    with _cluster(tf, args).running() as cluster:
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [100], name="x")
            with tf.device("/job:local/task:1"):
                m1 = tf.reduce_mean(x[0:50])
            with tf.device("/job:local/task:0"):
                m2 = tf.reduce_mean(x[50:100])
                mean = (m1 + m2) / 2
            feed = {x: values}
            with tf.Session(cluster.target("local", 0)) as sess:
                result = float(sess.run(mean, feed_dict=feed))
                if abs(result - float(values.mean())) > 1e-4:
                    raise RuntimeError(f"mean_step computed {result}, expected "
                                       f"{values.mean()}")
                for _ in range(args.warmup):
                    sess.run(mean, feed_dict=feed)
                samples = time_calls(lambda: sess.run(mean, feed_dict=feed),
                                     args.steps, args.max_seconds)
    return base_record(args.framework, "mean_step", tf, samples)


def case_fetch64mb(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """Throughput of fetching a 64 MiB variable held by task 1 through task 0."""
    with _cluster(tf, args).running() as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:local/task:1"):
                # Filled on task 1 itself, so initialization ships no 64 MiB constant.
                var = tf.Variable(tf.ones([FETCH_ELEMENTS], tf.float32), name="big")
            with tf.Session(cluster.target("local", 0)) as sess:
                sess.run(tf.global_variables_initializer())
                first = sess.run(var)
                if first.shape != (FETCH_ELEMENTS,) or first.dtype != np.float32:
                    raise RuntimeError(f"fetched {first.dtype}{first.shape}, expected "
                                       f"float32({FETCH_ELEMENTS},)")
                nbytes = first.nbytes
                del first
                for _ in range(args.warmup):
                    sess.run(var)
                samples = time_calls(lambda: sess.run(var), args.steps, args.max_seconds)
    record = base_record(args.framework, "fetch64mb", tf, samples)
    record["bytes"] = nbytes
    record["gbps"] = nbytes / 1e9 / record["median_s"]
    return record


def case_remote_sum64mb(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """Throughput of computing on a 64 MiB tensor received from another task:
    ``reduce_sum(big + 1.0)`` on task 0 of a variable held by task 1."""
    with _cluster(tf, args).running() as cluster:
        with tf.Graph().as_default():
            with tf.device("/job:local/task:1"):
                var = tf.Variable(tf.ones([FETCH_ELEMENTS], tf.float32), name="big")
            with tf.device("/job:local/task:0"):
                total = tf.reduce_sum(var + 1.0)
            with tf.Session(cluster.target("local", 0)) as sess:
                sess.run(tf.global_variables_initializer())
                result = float(sess.run(total))
                if result != 2.0 * FETCH_ELEMENTS:
                    raise RuntimeError(f"remote_sum64mb computed {result}, expected "
                                       f"{2.0 * FETCH_ELEMENTS}")
                for _ in range(args.warmup):
                    sess.run(total)
                samples = time_calls(lambda: sess.run(total), args.steps, args.max_seconds)
    record = base_record(args.framework, "remote_sum64mb", tf, samples)
    record["bytes"] = FETCH_ELEMENTS * 4
    record["gbps"] = record["bytes"] / 1e9 / record["median_s"]
    return record


CASES: Dict[str, Callable[[Any, argparse.Namespace], Dict[str, Any]]] = {
    "mean_step": case_mean_step,
    "fetch64mb": case_fetch64mb,
    "remote_sum64mb": case_remote_sum64mb,
}
DEFAULT_STEPS = {"mean_step": 1000, "fetch64mb": 20, "remote_sum64mb": 20}
DEFAULT_WARMUP = {"mean_step": 50, "fetch64mb": 3, "remote_sum64mb": 3}


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """Command line: ``run`` (the client, the default use) or ``server`` (one task)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    run = sub.add_parser("run", help="start a cluster, time one case, print JSON")
    run.add_argument("--framework", choices=FRAMEWORKS, required=True)
    run.add_argument("--case", choices=sorted(CASES), required=True)
    run.add_argument("--steps", type=int, default=None)
    run.add_argument("--warmup", type=int, default=None)
    run.add_argument("--max-seconds", type=float, default=30.0)
    run.add_argument("--client", choices=CLIENTS, default="separate",
                     help="separate: the client is its own process and reaches task 0 "
                          "over gRPC; in-task0: the client process hosts task 0's server")
    srv = sub.add_parser("server", help="run one task's server until killed")
    srv.add_argument("--framework", choices=FRAMEWORKS, required=True)
    srv.add_argument("--cluster", required=True, help="cluster spec as JSON")
    srv.add_argument("--job", required=True)
    srv.add_argument("--task", type=int, required=True)
    args = p.parse_args(argv)
    if args.mode == "run":
        if args.steps is None:
            args.steps = DEFAULT_STEPS[args.case]
        if args.warmup is None:
            args.warmup = DEFAULT_WARMUP[args.case]
    return args


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point for both the client and the server processes."""
    args = parse_args(argv)
    if args.mode == "server":
        return serve(args.framework, json.loads(args.cluster), args.job, args.task)
    tf = load_framework(args.framework)
    record = CASES[args.case](tf, args)
    record.update(warmup=args.warmup, client=args.client)
    emit(record)
    return 0


if __name__ == "__main__":
    sys.exit(main())
