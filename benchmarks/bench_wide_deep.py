"""Criteo-shaped wide & deep training, run under TensorFlow (with tf.estimator) or tensorfleet.

One TF 1.x program, the same under both frameworks: it reads a CSV file shaped like the
Criteo display-advertising logs (a 0/1 label, 13 integer columns, 26 hashed categorical
columns) through ``tf.data.TextLineDataset`` and ``tf.decode_csv``, and trains
``tf.estimator.DNNLinearCombinedClassifier`` with its default optimizers (FTRL for the
linear part, Adagrad for the deep part):

* wide: the 26 categorical columns hashed into 100,000 buckets each, and two crossed
  columns (``C1 x C2``, ``C3 x C4``, 100,000 buckets each);
* deep: the 13 numeric columns (``log1p``) and an 8-wide embedding of every categorical
  column, into a 256-128-64 ReLU network; batch 256.

The files are generated once (numpy, fixed seed) under ``--data-dir`` and shared by both
frameworks; the batch order is the file order, the same on both sides. A
``SessionRunHook`` stamps the end of every training step; the figure is the mean step
time over the steady phase (all steps after ``--warmup``), i.e. examples/s = batch /
that time. After training, ``evaluate`` on a held-out file gives the AUC, after the same
number of steps on both sides. TensorFlow 2.21 has no ``tf.estimator``, so the TensorFlow
side runs in ``benchmarks/.venv-tf215`` (TensorFlow 2.15.1 + tensorflow-estimator 2.15.0).

``--cluster`` runs the same program as a cluster on this machine: ``tensorfleet
launch --chief --ps 2 --workers 1 --evaluator`` starts one process per task, each with
its ``TF_CONFIG``, running this file with ``--cluster-task`` (under the TensorFlow
interpreter for ``--framework tensorflow``: the task re-executes itself with it);
``tf.estimator.train_and_evaluate`` trains on the chief and the worker (each reads
its own shard of the file) against the variables on the two parameter servers. The
chief stamps every step with the global step; the figure is the global examples/s
over the steady phase (global steps after ``--warmup``). The evaluator waits for the
chief to finish and evaluates the final checkpoint on the held-out file. The
launcher ends every task, and the run ends the launcher's whole process group.

    python benchmarks/bench_wide_deep.py --framework tensorfleet
    python benchmarks/bench_wide_deep.py --framework tensorfleet --profile /tmp/wd.prof
    python benchmarks/bench_wide_deep.py --framework tensorfleet --cluster
"""

from __future__ import annotations

import argparse
import collections
import cProfile
import importlib
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from bench_local import FRAMEWORKS, emit, framework_version, load_framework

NUMERIC = [f"I{i}" for i in range(1, 14)]
CATEGORICAL = [f"C{i}" for i in range(1, 27)]
COLUMNS = ["label"] + NUMERIC + CATEGORICAL
HASH_BUCKETS = 100_000
EMBEDDING_DIM = 8
HIDDEN = [256, 128, 64]
BATCH = 256
SEED = 2024
DEFAULT_DATA_DIR = Path(__file__).resolve().parent / "results" / "widedeep-data"


def write_criteo_like(path: Path, rows: int, seed: int) -> None:
    """Writes ``rows`` Criteo-shaped CSV lines to ``path`` (atomically), vectorised.

    Category cardinalities run from tens to about a million (log-uniform, Zipf-distributed
    values), as in the real logs, so the 100,000-bucket tables are touched sparsely. The
    click probability depends on two integer columns, three categories and one pair.
    """
    rng = np.random.RandomState(seed)
    ints = rng.poisson(lam=rng.uniform(1, 20, size=13), size=(rows, 13))
    vocab = np.exp(rng.uniform(np.log(20), np.log(1e6), size=26)).astype(np.int64)
    cats = (rng.zipf(1.3, size=(rows, 26)) - 1) % vocab
    score = (0.3 * (ints[:, 0] - ints[:, 0].mean()) - 0.2 * (ints[:, 1] - ints[:, 1].mean())
             + 2.0 * (cats[:, 0] == 1) - 1.5 * (cats[:, 5] == 2)
             + 2.5 * ((cats[:, 2] % 3 == 0) & (cats[:, 3] % 2 == 1)) - 1.0)
    label = (rng.uniform(size=rows) < 1.0 / (1.0 + np.exp(-score))).astype(np.int64)
    cols = [label.astype(str)]
    for j in range(13):
        col = ints[:, j].astype(str)
        col[rng.uniform(size=rows) < 0.05] = ""
        cols.append(col)
    for j in range(26):
        # Criteo's categories are 8-hex-digit hashes; per-column salt keeps columns apart.
        hashed = (cats[:, j] * 2654435761 + j * 97531) % 2 ** 32
        col = np.char.mod("%08x", hashed).astype(object)
        col[rng.uniform(size=rows) < 0.05] = ""
        cols.append(col.astype(str))
    lines = cols[0].astype(object)
    for col in cols[1:]:
        lines = lines + "," + col.astype(object)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text("\n".join(lines.tolist()) + "\n")
    os.replace(tmp, path)


def data_files(data_dir: Path, train_rows: int, eval_rows: int) -> Tuple[Path, Path]:
    """The training and held-out files, written on first use."""
    data_dir.mkdir(parents=True, exist_ok=True)
    train = data_dir / f"train-{train_rows}-{SEED}.csv"
    held_out = data_dir / f"eval-{eval_rows}-{SEED + 1}.csv"
    for path, rows, seed in ((train, train_rows, SEED), (held_out, eval_rows, SEED + 1)):
        if not path.exists():
            write_criteo_like(path, rows, seed)
    return train, held_out


def make_input_fn(tf: Any, path: Path, batch: int, epochs: Optional[int],
                  sharded: bool = False) -> Any:
    """An input_fn: batches of (features dict, label) parsed by ``tf.decode_csv``;
    ``sharded``: each trainer of a cluster reads every n-th line (its own shard)."""
    defaults = [[0]] + [[0.0]] * 13 + [[""]] * 26

    def parse(lines: Any) -> Tuple[Dict[str, Any], Any]:
        fields = tf.decode_csv(lines, record_defaults=defaults)
        features = dict(zip(COLUMNS, fields))
        return features, features.pop("label")

    def input_fn() -> Any:
        ds = tf.data.TextLineDataset(str(path)).repeat(epochs).batch(batch)
        return ds.map(parse).prefetch(2)

    def sharded_input_fn(config: Any) -> Any:
        ds = tf.data.TextLineDataset(str(path))
        if config.num_worker_replicas > 1:
            ds = ds.shard(config.num_worker_replicas, config.global_id_in_cluster)
        return ds.repeat(epochs).batch(batch).map(parse).prefetch(2)

    return sharded_input_fn if sharded else input_fn


def feature_columns(tf: Any) -> Tuple[List[Any], List[Any]]:
    """The wide (linear) and deep (DNN) feature columns."""
    fc = tf.feature_column
    categorical = [fc.categorical_column_with_hash_bucket(k, HASH_BUCKETS) for k in CATEGORICAL]
    crossed = [fc.crossed_column(["C1", "C2"], HASH_BUCKETS),
               fc.crossed_column(["C3", "C4"], HASH_BUCKETS)]
    numeric = [fc.numeric_column(k, normalizer_fn=lambda x: tf.log1p(tf.maximum(x, 0.0)))
               for k in NUMERIC]
    embeddings = [fc.embedding_column(c, EMBEDDING_DIM) for c in categorical]
    return categorical + crossed, numeric + embeddings


def step_timer(tf: Any, warmup: int, max_seconds: Optional[float]) -> Any:
    """A hook stamping the end of every training step; it stops training at the time cap."""

    class StepTimer(tf.train.SessionRunHook):
        """Records ``perf_counter`` after each ``run`` of the training loop."""

        def __init__(self) -> None:
            self.stamps: List[float] = []

        def after_run(self, run_context: Any, run_values: Any) -> None:
            self.stamps.append(time.perf_counter())
            if (max_seconds is not None and len(self.stamps) > warmup
                    and self.stamps[-1] - self.stamps[warmup - 1] > max_seconds):
                run_context.request_stop()

    return StepTimer()


class KernelTimes:
    """Wall time and calls of every tensorfleet kernel, by op type (``--kernel-times``).

    cProfile's per-call cost inflates kernels made of many small Python calls; timing
    each kernel call as a whole costs about a microsecond per call instead. Plans built
    after ``install`` wrap each kernel; ``snapshot`` freezes the training figures so that
    evaluation does not mix in.
    """

    def __init__(self) -> None:
        self.seconds: Dict[str, float] = collections.defaultdict(float)
        self.calls: Dict[str, int] = collections.Counter()
        self.frozen: Optional[Tuple[Dict[str, float], Dict[str, int]]] = None

    def install(self) -> None:
        """Wraps the kernels of every plan the tensorfleet executor builds from now on."""
        plan_cls = importlib.import_module("tensorfleet.runtime.executor").Plan
        build = plan_cls.__init__
        times = self

        def timed_init(plan: Any, *a: Any, **k: Any) -> None:
            build(plan, *a, **k)
            plan.steps = [(times.wrap(kern, op.type), ctx, ins, out, multi, op)
                          for kern, ctx, ins, out, multi, op in plan.steps]

        plan_cls.__init__ = timed_init

    def wrap(self, kern: Any, op_type: str) -> Any:
        """``kern``, adding its wall time to ``op_type``'s total."""
        def timed(ctx: Any, *ins: Any) -> Any:
            start = time.perf_counter()
            try:
                return kern(ctx, *ins)
            finally:
                self.seconds[op_type] += time.perf_counter() - start
                self.calls[op_type] += 1
        return timed

    def snapshot(self) -> None:
        """Keeps the figures so far (training) apart from what follows (evaluation)."""
        self.frozen = (dict(self.seconds), dict(self.calls))

    def report(self, steps: int, top: int = 25) -> str:
        """The op types with the most time, per training step (start-up included)."""
        seconds, calls = self.frozen or (dict(self.seconds), dict(self.calls))
        lines = [f"kernels per step: {sum(calls.values()) / steps:.0f} calls, "
                 f"{sum(seconds.values()) / steps * 1e3:.1f} ms (over {steps} steps, "
                 "start-up and checkpoints included)"]
        for name, sec in sorted(seconds.items(), key=lambda kv: -kv[1])[:top]:
            lines.append(f"  {name:<28} {sec / steps * 1e3:7.2f} ms  "
                         f"{calls[name] / steps:7.1f} calls")
        return "\n".join(lines)


def make_estimator(tf: Any, model_dir: str) -> Any:
    """The DNNLinearCombinedClassifier with its default optimizers and partitioners."""
    wide, deep = feature_columns(tf)
    # No summaries, step-rate logs or timed checkpoints inside the timed phase on
    # either side: the figure is the training step itself.
    config = tf.estimator.RunConfig(model_dir=model_dir, tf_random_seed=SEED,
                                    save_summary_steps=10 ** 9,
                                    save_checkpoints_secs=10 ** 6,
                                    log_step_count_steps=10 ** 9)
    return tf.estimator.DNNLinearCombinedClassifier(
        linear_feature_columns=wide, dnn_feature_columns=deep,
        dnn_hidden_units=HIDDEN, config=config)


def run(tf: Any, args: argparse.Namespace) -> Dict[str, Any]:
    """Builds, trains and evaluates the model; returns the JSON record."""
    train_path, eval_path = data_files(Path(args.data_dir), args.train_rows, args.eval_rows)
    model_dir = tempfile.mkdtemp(prefix=f"widedeep-{args.framework}-")
    try:
        estimator = make_estimator(tf, model_dir)
        timer = step_timer(tf, args.warmup, args.max_seconds)
        kernel_times = KernelTimes() if args.kernel_times else None
        if kernel_times is not None:
            kernel_times.install()
        total = args.warmup + args.steps
        started = time.perf_counter()
        train = lambda: estimator.train(make_input_fn(tf, train_path, BATCH, None),  # noqa: E731
                                        hooks=[timer], steps=total)
        if args.profile:
            # Wall clock by default; --profile-clock thread counts this thread's CPU only,
            # which separates work from waiting (for BLAS threads, the prefetch thread).
            profiler = cProfile.Profile(time.thread_time if args.profile_clock == "thread"
                                        else time.perf_counter)
            profiler.runcall(train)
            profiler.dump_stats(args.profile)
        else:
            train()
        train_wall = time.perf_counter() - started
        stamps = timer.stamps
        if len(stamps) <= args.warmup + 1:
            raise SystemExit(f"only {len(stamps)} steps ran; need more than {args.warmup}")
        steps = np.diff(stamps[args.warmup - 1:]) if args.warmup else np.diff(stamps)
        steady_s = float(stamps[-1] - stamps[max(args.warmup - 1, 0)])
        if kernel_times is not None:
            kernel_times.snapshot()
            sys.stderr.write(kernel_times.report(len(stamps)) + "\n")
        metrics = estimator.evaluate(make_input_fn(tf, eval_path, 1000, 1))
    finally:
        shutil.rmtree(model_dir, ignore_errors=True)
    ordered = sorted(steps.tolist())
    mean_step = steady_s / len(steps)
    return {
        "framework": args.framework, "version": framework_version(tf), "case": "widedeep",
        "steps": len(steps), "trained_steps": len(stamps), "batch": BATCH,
        # median_s carries the mean step time of the steady phase: with a prefetching
        # input pipeline a few steps wait for data, and the rate must count them.
        "median_s": mean_step, "step_median_s": statistics.median(ordered),
        "p10_s": ordered[len(ordered) // 10], "p90_s": ordered[(len(ordered) * 9) // 10],
        "examples_per_s": BATCH / mean_step, "train_wall_s": train_wall,
        "auc": float(np.asarray(metrics["auc"])),
        "accuracy": float(np.asarray(metrics["accuracy"])),
        "eval_loss": float(np.asarray(metrics["average_loss"])),
        "global_step": int(np.asarray(metrics["global_step"])),
    }


# ---------------------------------------------------------------------------
# The cluster form: chief + 2 ps + 1 worker + evaluator, started by tensorfleet launch.
# ---------------------------------------------------------------------------

CLUSTER_LAUNCH = ["--chief", "--ps", "2", "--workers", "1", "--evaluator", "--no-flags"]


def global_step_timer(tf: Any) -> Any:
    """A hook recording ``(perf_counter, global step)`` after each step of its trainer."""

    class GlobalStepTimer(tf.train.SessionRunHook):
        """The chief's view of the whole cluster's progress."""

        def __init__(self) -> None:
            self.stamps: List[Tuple[float, int]] = []
            self._step: Any = None

        def begin(self) -> None:
            self._step = tf.train.get_global_step()

        def before_run(self, run_context: Any) -> Any:
            return tf.train.SessionRunArgs(self._step)

        def after_run(self, run_context: Any, run_values: Any) -> None:
            self.stamps.append((time.perf_counter(), int(run_values.results)))

    return GlobalStepTimer()


def cluster_traffic() -> Dict[str, Any]:
    """The calls served (by method) and tensor bytes sent by every task of this
    ``TF_CONFIG`` cluster so far, summed (tensorfleet only: its task status)."""
    from tensorfleet.distributed.remote import client_for  # tensorfleet's tasks only

    spec = json.loads(os.environ["TF_CONFIG"])["cluster"]
    calls: Dict[str, int] = collections.Counter()
    sent = 0
    for addresses in spec.values():
        for address in addresses:
            st = client_for(address).call("GetStatus", {}, [], timeout=30)[0]
            calls.update(st.get("calls") or {})
            sent += int(st.get("bytes_out", 0))
    return {"calls": dict(calls), "bytes_out": sent}


def traffic_meter(tf: Any, warmup: int, every: int = 10) -> Any:
    """A chief hook that takes ``cluster_traffic`` when the global step reaches
    ``warmup`` and every ``every`` global steps after: the first and the last mark
    bound the steady phase's messages and bytes. (Not at the end: the other
    trainer may have finished and stopped serving by then.)"""

    class TrafficMeter(tf.train.SessionRunHook):
        def __init__(self) -> None:
            self.marks: List[Tuple[int, Dict[str, Any]]] = []
            self._step: Any = None

        def begin(self) -> None:
            self._step = tf.train.get_global_step()

        def before_run(self, run_context: Any) -> Any:
            return tf.train.SessionRunArgs(self._step)

        def after_run(self, run_context: Any, run_values: Any) -> None:
            step = int(run_values.results)
            if step < warmup or (self.marks and step - self.marks[-1][0] < every):
                return
            try:
                self.marks.append((step, cluster_traffic()))
            except Exception:  # noqa: BLE001 - a task already gone: keep the marks taken
                pass

    return TrafficMeter()


def per_step_traffic(marks: List[Any]) -> Dict[str, Any]:
    """Calls by method and bytes per global step between the two ``TrafficMeter``
    marks (the two status calls per task of each mark left out)."""
    (g0, a), (g1, b) = marks[0], marks[-1]
    steps = max(1, g1 - g0)
    calls = {m: (n - a["calls"].get(m, 0)) / steps for m, n in b["calls"].items()
             if m != "GetStatus" and n != a["calls"].get(m, 0)}
    return {"traffic_steps": g1 - g0, "calls_per_step": calls,
            "messages_per_step": sum(calls.values()),
            "bytes_per_step": (b["bytes_out"] - a["bytes_out"]) / steps}


def _write_json(path: Path, record: Dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(record))
    os.replace(tmp, path)


def run_cluster_task(tf: Any, args: argparse.Namespace) -> None:
    """One task of the cluster (its role comes from ``TF_CONFIG``)."""
    train_path, eval_path = data_files(Path(args.data_dir), args.train_rows, args.eval_rows)
    results = Path(args.results_dir)
    role = json.loads(os.environ.get("TF_CONFIG", "{}")).get("task", {})
    job = role.get("type", "")
    chief_done = results / "chief.json"
    if job == "evaluator":
        # Evaluating a mid-training checkpoint would take the cores the trainers are
        # being timed on: evaluate once, the final checkpoint, after the chief is done.
        deadline = time.monotonic() + args.task_timeout
        while not chief_done.exists():
            if time.monotonic() > deadline:
                raise SystemExit(f"the chief did not finish in {args.task_timeout:.0f}s")
            time.sleep(0.2)
    kernel_times = KernelTimes() if args.kernel_times and args.framework == "tensorfleet" \
        else None
    if kernel_times is not None:
        kernel_times.install()
    estimator = make_estimator(tf, args.model_dir)
    timer = global_step_timer(tf)
    meter = traffic_meter(tf, args.warmup) if args.framework == "tensorfleet" else None
    total = args.warmup + args.steps
    chief_hooks = [timer] + ([meter] if meter is not None else [])
    train_spec = tf.estimator.TrainSpec(
        make_input_fn(tf, train_path, BATCH, None, sharded=True), max_steps=total,
        hooks=chief_hooks if job == "chief" else [])
    eval_spec = tf.estimator.EvalSpec(make_input_fn(tf, eval_path, 1000, 1), steps=None,
                                      start_delay_secs=0, throttle_secs=1)
    started = time.perf_counter()
    # TensorFlow returns None on the trainers, (metrics, exports) on the evaluator.
    if args.profile:
        profiler = cProfile.Profile(time.thread_time if args.profile_clock == "thread"
                                    else time.perf_counter)
        result = profiler.runcall(tf.estimator.train_and_evaluate, estimator, train_spec,
                                  eval_spec)
        profiler.dump_stats(f"{args.profile}.{job}{role.get('index', 0)}")
    else:
        result = tf.estimator.train_and_evaluate(estimator, train_spec, eval_spec)
    metrics = result[0] if result else None
    if job == "evaluator" and metrics is None:
        # TensorFlow 2.15's evaluator evaluates the final checkpoint without returning
        # the metrics: read them back by evaluating that checkpoint once more.
        metrics = estimator.evaluate(make_input_fn(tf, eval_path, 1000, 1))
    # This task's CPU time (all its threads), to see where a global step's work goes.
    usage = resource.getrusage(resource.RUSAGE_SELF)
    _write_json(results / f"cpu-{job}-{role.get('index', 0)}.json",
                {"cpu_s": usage.ru_utime + usage.ru_stime,
                 "kernels": kernel_times.report(total) if kernel_times else ""})
    if job == "chief":
        _write_json(chief_done, {"stamps": timer.stamps, "started": started,
                                 "version": framework_version(tf),
                                 "traffic": meter.marks if meter is not None else []})
    elif job == "evaluator" and metrics is not None:
        _write_json(results / "evaluator.json",
                    {k: float(np.asarray(metrics[k])) for k in
                     ("auc", "accuracy", "average_loss", "global_step")})


def _launcher_python(args: argparse.Namespace) -> str:
    """An interpreter that can import tensorfleet, to run ``tensorfleet launch``."""
    if args.launcher_python:
        return args.launcher_python
    if args.framework == "tensorfleet":
        return sys.executable
    found = shutil.which("python3") or shutil.which("python")
    if not found:
        raise SystemExit("--cluster with TensorFlow needs --launcher-python (an interpreter "
                         "that imports tensorfleet)")
    return found


def run_cluster(args: argparse.Namespace) -> Dict[str, Any]:
    """Launches the cluster, waits for it, and returns the JSON record."""
    data_files(Path(args.data_dir), args.train_rows, args.eval_rows)
    work = Path(tempfile.mkdtemp(prefix=f"widedeep-cluster-{args.framework}-"))
    repo = Path(__file__).resolve().parent.parent
    task_argv = [str(Path(__file__).resolve()), "--framework", args.framework, "--cluster-task",
                 "--steps", str(args.steps), "--warmup", str(args.warmup),
                 "--train-rows", str(args.train_rows), "--eval-rows", str(args.eval_rows),
                 "--data-dir", str(args.data_dir), "--model-dir", str(work / "model"),
                 "--results-dir", str(work), "--task-timeout", str(args.cluster_timeout)]
    if args.kernel_times:
        task_argv.append("--kernel-times")
    if args.profile:
        # One profile per task: FILE.chief0, FILE.worker0, FILE.ps0, ...
        task_argv += ["--profile", os.path.abspath(args.profile),
                      "--profile-clock", args.profile_clock]
    if args.framework != "tensorfleet":
        task_argv += ["--task-python", sys.executable]
    cmd = [_launcher_python(args), "-m", "tensorfleet.cli.main", "launch", *CLUSTER_LAUNCH,
           *task_argv]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(repo), env.get("PYTHONPATH")) if p)
    log = work / "launch.log"
    started = time.perf_counter()
    with open(log, "w") as out:
        proc = subprocess.Popen(cmd, cwd=str(repo), env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
        try:
            rc = proc.wait(timeout=args.cluster_timeout)
        except subprocess.TimeoutExpired:
            rc = None
        finally:
            # The launcher stops its tasks itself; anything left in its process group
            # (a task that outlived it) ends here.
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    wall = time.perf_counter() - started
    try:
        tail = log.read_text().strip().splitlines()[-15:]
        chief = json.loads((work / "chief.json").read_text())
        evaluator = json.loads((work / "evaluator.json").read_text())
    except (OSError, ValueError):
        sys.stderr.write("\n".join(tail) + "\n")
        raise SystemExit(f"the cluster run failed (launcher exit {rc}); log in {log}")
    cpu = {}
    for path in sorted(work.glob("cpu-*.json")):
        task = json.loads(path.read_text())
        cpu[path.stem[4:]] = task["cpu_s"]
        if task["kernels"]:
            sys.stderr.write(f"{path.stem[4:]}: {task['kernels']}\n")
    shutil.rmtree(work, ignore_errors=True)
    stamps = [(t, g) for t, g in chief["stamps"]]
    steady = [(t, g) for t, g in stamps if g >= args.warmup]
    if len(steady) < 2:
        raise SystemExit(f"only {len(steady)} chief steps after global step {args.warmup}")
    (t0, g0), (t1, g1) = steady[0], steady[-1]
    per_step = (t1 - t0) / (g1 - g0)
    traffic = per_step_traffic(chief["traffic"]) if len(chief.get("traffic", [])) > 1 else {}
    return {
        **traffic,
        "framework": args.framework, "version": chief["version"], "case": "widedeep-cluster",
        "cluster": "chief + 2 ps + 1 worker + evaluator", "batch": BATCH,
        "steps": g1 - g0, "trained_steps": int(evaluator["global_step"]),
        "chief_steps": len(stamps), "median_s": per_step, "examples_per_s": BATCH / per_step,
        "launcher_exit": rc, "wall_s": wall,
        # CPU seconds of each task over its whole life (start-up and evaluation too).
        "task_cpu_s": cpu,
        "auc": evaluator["auc"], "accuracy": evaluator["accuracy"],
        "eval_loss": evaluator["average_loss"], "global_step": int(evaluator["global_step"]),
    }


def parse_args(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """Command-line options."""
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--framework", choices=FRAMEWORKS, required=True)
    p.add_argument("--steps", type=int, default=60, help="timed training steps")
    p.add_argument("--warmup", type=int, default=10, help="untimed training steps first")
    p.add_argument("--max-seconds", type=float, default=None,
                   help="cap on the timed phase (the AUC is then after fewer steps)")
    p.add_argument("--train-rows", type=int, default=100_000)
    p.add_argument("--eval-rows", type=int, default=20_000)
    p.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    p.add_argument("--profile", default="", help="write a cProfile of training here")
    p.add_argument("--profile-clock", choices=("wall", "thread"), default="wall",
                   help="the profile's clock: wall time or this thread's CPU time")
    p.add_argument("--kernel-times", action="store_true",
                   help="tensorfleet only: print each op type's kernel time per step")
    p.add_argument("--cluster", action="store_true",
                   help="run as chief + 2 ps + 1 worker + evaluator via tensorfleet launch")
    p.add_argument("--cluster-timeout", type=float, default=1200.0,
                   help="seconds before the cluster run is ended")
    p.add_argument("--launcher-python", default="",
                   help="interpreter that runs tensorfleet launch (default: this one for "
                        "tensorfleet, python3 on PATH for TensorFlow)")
    # Set by --cluster for the tasks it launches.
    p.add_argument("--cluster-task", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--task-python", default="", help=argparse.SUPPRESS)
    p.add_argument("--model-dir", default="", help=argparse.SUPPRESS)
    p.add_argument("--results-dir", default="", help=argparse.SUPPRESS)
    p.add_argument("--task-timeout", type=float, default=1200.0, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the program once and prints its JSON line."""
    args = parse_args(argv)
    if args.kernel_times and args.framework != "tensorfleet":
        raise SystemExit("--kernel-times times tensorfleet's kernels; use it with "
                         "--framework tensorfleet")
    if args.cluster:
        emit(run_cluster(args))
        return 0
    if args.cluster_task:
        if args.task_python and os.path.abspath(args.task_python) != \
                os.path.abspath(sys.executable):
            # tensorfleet launch starts tasks with its own interpreter; a TensorFlow
            # task continues under TensorFlow's, keeping TF_CONFIG.
            argv_now = sys.argv[1:] if argv is None else list(argv)
            os.execv(args.task_python, [args.task_python, "-u", __file__, *argv_now])
        run_cluster_task(load_framework(args.framework), args)
        return 0
    tf = load_framework(args.framework)
    emit(run(tf, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
