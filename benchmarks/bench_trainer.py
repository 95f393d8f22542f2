"""The seed's between-graph trainer, 1 ps + 2 workers on loopback, under either framework.

One program in the TF1 API, run as ``tensorflow.compat.v1`` (v2 behaviour disabled)
or as ``tensorfleet``.  It follows the seed template (``examples/trainer.py``): every
task is a process started with ``--ps_hosts/--worker_hosts/--job_name/--task_index``;
the ps serves the variables; each worker builds a 784-256-10 MLP (ReLU, sparse
softmax cross-entropy, ``AdagradOptimizer(0.1)``, batch 64) under
``tf.train.replica_device_setter``, takes ``tf.train.get_or_create_global_step()``,
and trains in ``tf.train.MonitoredTrainingSession`` with ``StopAtStepHook``;
``--sync`` wraps the optimizer in ``SyncReplicasOptimizer(2, 2)`` and adds its hook
(``num_tokens=0``).  The data are fixed synthetic inputs labelled by a fixed random
teacher, and the initial weights fixed numpy arrays: identical for both frameworks.

``run`` is the driver.  It starts the three tasks as subprocesses (each in a process
group of its own, with no thread-tuning variable: as a user starts them by hand) on
free ports, reads their progress lines, and stops them by pid.  Cases:

  async     steady global steps/s of asynchronous training.
  sync      steady global steps/s of synchronous training.
  sync_job  a 300-step sync job: seconds from launching the tasks until both workers
            have exited, capped at ``--timeout`` (a run that hits the cap is reported
            as not finished, with the cap as its figure).

For ``async`` and ``sync`` the steady window starts once *both* workers have done
``--warmup`` steps (TensorFlow's non-chief worker may sleep up to 30 s before its
first step, so the chief's own 50th step would time one worker alone) and lasts
``--measure-seconds``; the driver then sends SIGUSR1 to the chief, which leaves its
loop at the next step and reports, and then to worker 1 (in that order: in sync
training a worker 1 that stopped first would leave the chief's step waiting
forever).  The rate is the global step delta over the chief's wall time in that
window.  ``--threads 1`` gives every session and server a ``ConfigProto`` with one
intra-op and one inter-op thread; by default both frameworks keep their own
defaults.

The ps calls ``server.join()`` (TensorFlow) or ``tf.train.join_until_workers_done``
(tensorfleet, where it exists), but the driver always kills it once the workers
are done, so no figure depends on how a ps ends.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from bench_cluster import _exit_when_orphaned, free_ports
from bench_local import BATCH, FRAMEWORKS, emit, framework_version, glorot, load_framework

INPUT_DIM, HIDDEN, CLASSES = 784, 256, 10
DATA_SEED, INIT_SEED = 1234, 42
NUM_BATCHES = 16
CASES = ("async", "sync", "sync_job")
DEFAULT_LAST_STEP = {"async": 10**7, "sync": 10**7, "sync_job": 300}

_stop_requested = threading.Event()


# ---------------------------------------------------------------------------
# One task of the cluster.
# ---------------------------------------------------------------------------

def worker_batches(task_index: int, num_workers: int = 2) -> List[Tuple[np.ndarray, np.ndarray]]:
    """This worker's fixed batches: uniform inputs, labels from a random linear teacher.

    Batches are cut ahead of time so the timed loop does no data work; each worker
    draws from its own half of the examples, as the seed's sharding does.
    """
    rng = np.random.RandomState(DATA_SEED)
    x = rng.rand(4096, INPUT_DIM).astype(np.float32)
    y = np.argmax(x @ rng.randn(INPUT_DIM, CLASSES), axis=1).astype(np.int64)
    x, y = x[task_index::num_workers], y[task_index::num_workers]
    pick = np.random.RandomState(DATA_SEED + 1 + task_index)
    out = []
    for _ in range(NUM_BATCHES):
        idx = pick.randint(0, len(x), BATCH)
        out.append((x[idx], y[idx]))
    return out


def session_config(tf: Any, threads: str) -> Any:
    """None (the framework's defaults) or a ConfigProto with single-thread pools."""
    if threads == "default":
        return None
    return tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)


def run_ps(tf: Any, server: Any) -> int:
    """A parameter server: serve until the workers are done (or until killed)."""
    join_done = getattr(tf.train, "join_until_workers_done", None)
    if join_done is not None:
        join_done(server)
    else:
        server.join()
    return 0


def _line(text: str) -> None:
    """One progress line for the driver, flushed at once so it is timed on arrival."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def run_worker(tf: Any, flags: argparse.Namespace, cluster: Any, server: Any,
               config: Any) -> int:
    """Trains until StopAtStepHook or SIGUSR1 ends the loop, printing progress lines.

    Lines: ``WARM t gs`` after ``--warmup`` local steps, ``REPORT {json}`` as soon as
    the loop ends (still inside the session, because closing it is one of the
    things that may take long), ``CLOSED t`` once the session is closed.
    """
    is_chief = flags.task_index == 0
    num_workers = len(flags.worker_hosts.split(","))
    init = np.random.default_rng(INIT_SEED)
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % flags.task_index, cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, INPUT_DIM], name="x")
        y = tf.placeholder(tf.int64, [None], name="y")
        w1 = tf.Variable(glorot(init, [INPUT_DIM, HIDDEN], INPUT_DIM, HIDDEN), name="w1")
        b1 = tf.Variable(np.zeros([HIDDEN], np.float32), name="b1")
        w2 = tf.Variable(glorot(init, [HIDDEN, CLASSES], HIDDEN, CLASSES), name="w2")
        b2 = tf.Variable(np.zeros([CLASSES], np.float32), name="b2")
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.AdagradOptimizer(0.1)
        hooks = [tf.train.StopAtStepHook(last_step=flags.last_step)]
        if flags.sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=num_workers,
                                                 total_num_replicas=num_workers)
            hooks.append(opt.make_session_run_hook(is_chief, num_tokens=0))
        train_op = opt.minimize(loss, global_step=global_step)

    feeds = [{x: bx, y: by} for bx, by in worker_batches(flags.task_index, num_workers)]
    times: List[float] = []
    steps: List[int] = []
    first_loss = last_loss = None
    t0 = flags.t0
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=is_chief, checkpoint_dir=None,
            save_checkpoint_secs=None, save_summaries_steps=None, hooks=hooks,
            log_step_count_steps=0, config=config) as mon_sess:
        ready = time.time() - t0
        while not mon_sess.should_stop() and not _stop_requested.is_set():
            _, gs, lv = mon_sess.run([train_op, global_step, loss],
                                     feed_dict=feeds[len(times) % NUM_BATCHES])
            times.append(time.time() - t0)
            steps.append(int(gs))
            last_loss = lv
            if len(times) == 1:
                first_loss = float(lv)
                _line(f"FIRST {times[0]:.6f}")
            if len(times) == flags.warmup:
                _line(f"WARM {times[-1]:.6f} {int(gs)}")
        _line("REPORT " + json.dumps({
            "task": flags.task_index, "version": framework_version(tf),
            "ready": round(ready, 4), "steps": len(times),
            "t": [round(v, 5) for v in times], "gs": steps,
            "first_loss": first_loss,
            "last_loss": None if last_loss is None else float(last_loss)}))
    _line(f"CLOSED {time.time() - t0:.6f}")
    signal_done = getattr(tf.train, "signal_workers_done", None)
    if signal_done is not None:
        signal_done(server.target, cluster, flags.task_index)
    return 0


def run_task(flags: argparse.Namespace) -> int:
    """One task, started with the seed's flags."""
    _exit_when_orphaned()
    signal.signal(signal.SIGUSR1, lambda *_: _stop_requested.set())
    tf = load_framework(flags.framework)
    cluster = tf.train.ClusterSpec({"ps": flags.ps_hosts.split(","),
                                    "worker": flags.worker_hosts.split(",")})
    config = session_config(tf, flags.threads)
    kwargs = {"config": config} if config is not None else {}
    server = tf.train.Server(cluster, job_name=flags.job_name, task_index=flags.task_index,
                             **kwargs)
    if flags.job_name == "ps":
        return run_ps(tf, server)
    return run_worker(tf, flags, cluster, server, config)


# ---------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------

class Task:
    """A task subprocess in its own process group, with its progress lines collected."""

    def __init__(self, cmd: List[str], env: Dict[str, str], t0: float):
        self.log = tempfile.TemporaryFile(mode="w+")
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=self.log, env=env,
                                     text=True, start_new_session=True)
        self.t0 = t0
        self.lines: Dict[str, str] = {}  # the last WARM / REPORT / CLOSED line's payload
        self.exit_t: Optional[float] = None  # seconds from launch, set when the process ends
        self.killed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            kind, _, rest = line.strip().partition(" ")
            if kind in ("FIRST", "WARM", "REPORT", "CLOSED"):
                self.lines[kind] = rest
        # Stdout closes when the process exits; this is when the job figure is taken.
        self.proc.wait()
        self.exit_t = time.time() - self.t0

    def kill(self) -> None:
        """Kills the task's process group (it has no other members) and reaps it."""
        if self.proc.poll() is None:
            self.killed = True
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        self.proc.wait()
        self.log.close()

    def stderr_tail(self) -> str:
        """The last non-empty stderr line, to explain a task that failed."""
        self.log.seek(0)
        lines = [ln.strip() for ln in self.log.read().splitlines() if ln.strip()]
        return lines[-1] if lines else "no output"


def wait_until(cond: Any, tasks: List[Task], deadline: float) -> bool:
    """Waits until ``cond()`` holds or the deadline passes.

    Fails fast if one of ``tasks`` died with an error; tasks the driver has already
    signalled are left out of ``tasks`` by the caller, since a process that receives
    SIGUSR1 while its interpreter is shutting down dies of it.
    """
    while not cond():
        for task in tasks:
            if task.proc.poll() is not None and task.proc.returncode != 0:
                raise RuntimeError(f"task pid {task.proc.pid} exited with "
                                   f"{task.proc.returncode}: {task.stderr_tail()}")
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


# Thread-tuning variables a user would not set: the tasks run without them.
TUNING_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                    "TENSORFLEET_BLAS_THREADS")


def steady_rate(report: Dict[str, Any], start: float) -> Tuple[Optional[float], int, float]:
    """Global steps/s over the chief's steps from time ``start`` to its last step."""
    t, gs = report["t"], report["gs"]
    first = next((i for i, v in enumerate(t) if v >= start), len(t))
    last = len(t) - 1
    if last - first < 10:
        return None, 0, 0.0
    seconds = t[last] - t[first]
    return (gs[last] - gs[first]) / seconds, gs[last] - gs[first], seconds


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid`` so far (Linux ``/proc``)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def drive(args: argparse.Namespace, hosts: Any = None) -> Dict[str, Any]:
    """Starts the ps and worker tasks, runs one case, always kills every task; the record.

    ``hosts``: a ``tensorfleet.testing.hosts.NetworkHosts`` with one host per task (the
    ps first): each task runs on its own host, and the record gets the bytes the hosts
    sent over their links per global step of the steady window."""
    if hosts is None:
        ports = free_ports(args.ps + args.workers)
        addresses = [f"localhost:{p}" for p in ports]
    else:
        # Every host has its own ports: the same one everywhere, as on real machines.
        addresses = [f"{a}:2222" for a in hosts.addresses[:args.ps + args.workers]]
    ps_hosts = ",".join(addresses[:args.ps])
    worker_hosts = ",".join(addresses[args.ps:])
    env = {k: v for k, v in os.environ.items() if k not in TUNING_VARIABLES}
    env.update(PYTHONUNBUFFERED="1", TF_CPP_MIN_LOG_LEVEL="2")
    if args.framework == "tensorfleet":
        env.setdefault("TENSORFLEET_TOKEN", secrets.token_urlsafe(32))
    sync = args.case != "async"
    t0 = time.time()
    start = time.monotonic()
    base = [sys.executable, os.path.abspath(__file__), "task", "--framework", args.framework,
            "--ps_hosts", ps_hosts, "--worker_hosts", worker_hosts, "--t0", repr(t0),
            "--last_step", str(args.last_step), "--warmup", str(args.warmup),
            "--threads", args.threads] + (["--sync"] if sync else [])
    tasks: List[Task] = []
    ps_cpu: Optional[Tuple[float, float]] = None
    link: Optional[Tuple[int, float]] = None
    try:
        roles = [("ps", i) for i in range(args.ps)] + [("worker", i) for i in range(args.workers)]
        for n, (job, index) in enumerate(roles):
            prefix = hosts.prefix(n) if hosts is not None else []
            tasks.append(Task(prefix + base + ["--job_name", job, "--task_index", str(index)],
                              env, t0))
        ps_tasks, workers = tasks[:args.ps], tasks[args.ps:]
        finished = True
        if args.case == "sync_job":
            finished = wait_until(lambda: all(w.exit_t is not None for w in workers),
                                  tasks, start + args.timeout)
        else:
            if not wait_until(lambda: all("WARM" in w.lines for w in workers), tasks,
                              start + args.timeout):
                raise RuntimeError(f"workers not warm after {args.timeout:.0f}s")
            sent0 = _link_bytes(hosts)
            cpu0, wall0 = sum(cpu_seconds(t.proc.pid) for t in ps_tasks), time.monotonic()
            time.sleep(args.measure_seconds)
            ps_cpu = (sum(cpu_seconds(t.proc.pid) for t in ps_tasks) - cpu0,
                      time.monotonic() - wall0)
            link = (_link_bytes(hosts) - sent0, ps_cpu[1]) if hosts is not None else None
            # The chief first, alone: a sync step needs every worker's gradients, so a
            # worker that left its loop first would leave the chief's step hanging.
            os.kill(workers[0].proc.pid, signal.SIGUSR1)
            if not wait_until(lambda: "REPORT" in workers[0].lines, ps_tasks + workers[:1],
                              time.monotonic() + 60):
                raise RuntimeError("the chief did not report within 60 s of SIGUSR1")
            # The others' reports only fill in their phases; in sync mode they may be
            # blocked in a step that will never complete, so they get a short grace.
            for w in workers[1:]:
                if w.proc.poll() is None:
                    os.kill(w.proc.pid, signal.SIGUSR1)
            wait_until(lambda: all("REPORT" in w.lines for w in workers[1:]), [],
                       time.monotonic() + 3)
        wall = time.time() - t0
    finally:
        for task in tasks:
            task.kill()
    record = make_record(args, workers, finished, wall, ps_cpu)
    if link is not None and record.get("steps_per_s"):
        sent, seconds = link
        record["link_bytes_per_global_step"] = sent / (record["steps_per_s"] * seconds)
    return record


def _link_bytes(hosts: Any) -> int:
    """The bytes every host has sent over its link so far (0 without hosts)."""
    if hosts is None:
        return 0
    return sum(hosts.counters(i)["tx_bytes"] for i in range(hosts.n))


def make_record(args: argparse.Namespace, workers: List[Task], finished: bool,
                wall: float, ps_cpu: Optional[Tuple[float, float]] = None) -> Dict[str, Any]:
    """The JSON record: the case's figure as ``median_s`` plus what each worker did."""
    reports = [json.loads(w.lines["REPORT"]) if "REPORT" in w.lines else None
               for w in workers]
    chief = reports[0]
    if chief is None:
        raise RuntimeError("the chief never reported: " + workers[0].stderr_tail())
    warm = [float(w.lines["WARM"].split()[0]) for w in workers if "WARM" in w.lines]
    window_start = max(warm) if len(warm) == len(workers) else float("inf")
    rate, gsteps, seconds = steady_rate(chief, window_start)
    record: Dict[str, Any] = {
        "framework": args.framework, "version": chief.get("version", "unknown"),
        "case": args.case, "threads": args.threads, "ps": args.ps, "workers": args.workers,
        "last_step": args.last_step, "warmup": args.warmup,
        "steps_per_s": rate, "window_global_steps": gsteps, "window_s": seconds,
        "first_loss": chief["first_loss"], "chief_last_loss": chief["last_loss"],
        "finished": finished,
    }
    phases = []
    for i, (w, rep) in enumerate(zip(workers, reports)):
        p = {"ready": rep["ready"] if rep else None,
             "first_step": rep["t"][0] if rep and rep["t"] else None,
             "local_steps": rep["steps"] if rep else None,
             "last_gs": rep["gs"][-1] if rep and rep["gs"] else None,
             "loop_end": rep["t"][-1] if rep and rep["t"] else None,
             "closed": float(w.lines["CLOSED"]) if "CLOSED" in w.lines else None,
             "exit": None if w.killed else w.exit_t}
        phases.append(p)
    record["worker_phases"] = phases
    # Launch to the moment every worker has taken its first step (each says so at
    # once; a sync worker stopped mid-step never reports).
    firsts = [float(w.lines["FIRST"]) for w in workers if "FIRST" in w.lines]
    record["all_first_step_s"] = max(firsts) if len(firsts) == len(workers) else None
    if ps_cpu is not None and rate:
        cpu, seconds = ps_cpu
        record["ps_cpu_ms_per_global_step"] = 1000.0 * cpu / (rate * seconds)
    record["phase_note"] = "; ".join(
        f"w{i}: " + ", ".join(f"{k} {v:.1f}s" if isinstance(v, float) else f"{k} {v}"
                              for k, v in p.items() if v is not None and k != "last_gs")
        for i, p in enumerate(phases))
    if args.case == "sync_job":
        record["job_s"] = wall if finished else None
        record["median_s"] = wall if finished else args.timeout
        record["cap_s"] = args.timeout
    else:
        if rate is None:
            raise RuntimeError("no steady window with both workers running")
        record["median_s"] = 1.0 / rate
    return record


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """``run`` (the driver, what the harness calls) or ``task`` (one cluster task)."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="mode", required=True)
    run = sub.add_parser("run", help="start 1 ps + 2 workers, measure one case, print JSON")
    run.add_argument("--framework", choices=FRAMEWORKS, required=True)
    run.add_argument("--case", choices=CASES, required=True)
    run.add_argument("--last-step", dest="last_step", type=int, default=None,
                     help="StopAtStepHook's last_step (default: 300 for sync_job, "
                          "otherwise unbounded: the driver stops the workers)")
    run.add_argument("--warmup", type=int, default=50,
                     help="local steps each worker does before the steady window")
    run.add_argument("--measure-seconds", type=float, default=10.0,
                     help="async/sync: length of the steady window")
    run.add_argument("--timeout", type=float, default=None,
                     help="sync_job: cap on the job's wall time (default 150 s); "
                          "async/sync: cap on reaching the steady phase (default 120 s)")
    run.add_argument("--threads", choices=("default", "1"), default="default",
                     help="1: ConfigProto with one intra-op and one inter-op thread")
    run.add_argument("--ps", type=int, default=1, help="parameter server tasks")
    run.add_argument("--workers", type=int, default=2, help="worker tasks (task 0 is chief)")
    run.add_argument("--max-seconds", type=float, default=None,
                     help="accepted for the harness; --measure-seconds takes it if given")
    task = sub.add_parser("task", help="one task of the cluster (the seed's flags)")
    task.add_argument("--framework", choices=FRAMEWORKS, required=True)
    task.add_argument("--ps_hosts", required=True)
    task.add_argument("--worker_hosts", required=True)
    task.add_argument("--job_name", choices=("ps", "worker"), required=True)
    task.add_argument("--task_index", type=int, default=0)
    task.add_argument("--sync", action="store_true")
    task.add_argument("--last_step", type=int, default=300)
    task.add_argument("--warmup", type=int, default=50)
    task.add_argument("--threads", choices=("default", "1"), default="default")
    task.add_argument("--t0", type=float, default=0.0, help="the driver's launch time")
    args = p.parse_args(argv)
    if args.mode == "run":
        if args.last_step is None:
            args.last_step = DEFAULT_LAST_STEP[args.case]
        if args.timeout is None:
            args.timeout = 150.0 if args.case == "sync_job" else 120.0
        if args.max_seconds:
            args.measure_seconds = min(args.measure_seconds, args.max_seconds)
    return args


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point for the driver and for each task."""
    args = parse_args(argv)
    if args.mode == "task":
        return run_task(args)
    emit(drive(args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
