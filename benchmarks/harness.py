"""Side-by-side benchmark harness: tensorfleet against TensorFlow.

Each benchmark program (``bench_local.py``, ``bench_cluster.py``) runs one case under
one framework in a fresh subprocess and prints one JSON line.  This harness runs
every selected case under both frameworks, alternately and ``--repeats`` times, so
that load from other users of the machine falls on both sides alike; it then
reports, per case, the median over runs of each run's median step time and the
ratio tensorfleet / TensorFlow (time; below 1 means tensorfleet is faster).

tensorfleet runs in this interpreter's environment.  TensorFlow runs in its own
virtual environment, ``benchmarks/.venv-tf``, created on first use with
``python -m venv`` and ``pip install tensorflow-cpu numpy scikit-learn``, or in the
interpreter given by ``--tf-python``.

Suites are subcommands (``local``, ``cluster``, ``trainer``); a new suite is a ``Suite`` entry in
``SUITES`` whose cases name a program and its arguments.

Usage::

    python benchmarks/harness.py setup
    python benchmarks/harness.py local [--repeats 5] [--cases empty,mlp,convnet] [--markdown]
    python benchmarks/harness.py cluster [--repeats 5] [--cases mean_step,fetch64mb]
    python benchmarks/harness.py trainer [--repeats 3] [--cases trainer_async,trainer_sync]
    python benchmarks/harness.py setup --anchor tf215     # TensorFlow 2.15.1 + tf.estimator
    python benchmarks/harness.py widedeep --repeats 3     # runs TensorFlow from .venv-tf215

A suite names its anchor (``Suite.anchor``, a key of ``ANCHORS``): the TensorFlow
environment its TensorFlow side needs.  ``tf`` is the current TensorFlow in
``benchmarks/.venv-tf``; ``tf215`` is TensorFlow 2.15.1 with tensorflow-estimator 2.15.0
and numpy < 2 in ``benchmarks/.venv-tf215``, for programs that use ``tf.estimator``.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import resource
import shlex
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
VENV_DIR = BENCH_DIR / ".venv-tf"
RESULTS_DIR = BENCH_DIR / "results"
TF_REQUIREMENTS = ("tensorflow-cpu", "numpy", "scikit-learn")
FRAMEWORKS = ("tensorfleet", "tensorflow")
LABELS = {"tensorfleet": "tensorfleet", "tensorflow": "TensorFlow"}


@dataclass(frozen=True)
class Anchor:
    """A TensorFlow environment: its venv, what to install there, and how to check it."""

    venv: Path
    requirements: Tuple[str, ...]
    probe: str


ANCHORS: Dict[str, Anchor] = {
    "tf": Anchor(VENV_DIR, TF_REQUIREMENTS,
                 "import numpy, sklearn, tensorflow as t; print(t.__version__)"),
    # TensorFlow 2.16+ dropped tf.estimator; 2.15 is the last release that has it.
    "tf215": Anchor(BENCH_DIR / ".venv-tf215",
                    ("tensorflow-cpu==2.15.1", "tensorflow-estimator==2.15.0", "numpy<2",
                     "scikit-learn"),
                    "import numpy, sklearn, tensorflow as t; "
                    "from importlib.metadata import version as v; "
                    "print(t.__version__, 'with tf.estimator', v('tensorflow-estimator'), "
                    "t.compat.v1.estimator.DNNLinearCombinedClassifier.__name__)"),
}


# ---------------------------------------------------------------------------
# Cases, goals and suites.
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Goal:
    """A target for one case; ``check(tensorfleet_seconds, ratio)`` says if it is met."""

    text: str
    check: Callable[[float, float], bool]
    needs_ratio: bool


def ratio_at_most(limit: float) -> Goal:
    """Goal: tensorfleet's step time is at most ``limit`` times TensorFlow's."""
    return Goal(f"ratio <= {limit:g}", lambda _s, ratio: ratio <= limit, True)


def throughput_at_least_tf(factor: float) -> Goal:
    """Goal for a GB/s case: tensorfleet moves at least ``factor`` times TensorFlow's bytes/s."""
    return Goal(f"GB/s >= {factor:g}x TF's", lambda _s, ratio: ratio <= 1.0 / factor, True)


def absolute_under_us(limit_us: float) -> Goal:
    """Goal: tensorfleet's median step time is below ``limit_us`` microseconds."""
    return Goal(f"tensorfleet < {limit_us:g} us", lambda s, _r: s * 1e6 < limit_us, False)


def absolute_under_s(limit_s: float) -> Goal:
    """Goal: tensorfleet's median figure (a wall time) is below ``limit_s`` seconds."""
    return Goal(f"tensorfleet < {limit_s:g} s", lambda s, _r: s < limit_s, False)


def examples_at_least_tf() -> Goal:
    """Goal for an examples/s case: at least TensorFlow's examples/s (time ratio <= 1)."""
    return Goal("examples/s >= 1.0x TF's", lambda _s, ratio: ratio <= 1.0, True)


def rate_at_least_tf(factor: float = 1.0) -> Goal:
    """Goal for a rate case: tensorfleet's steps/s at least ``factor`` times TensorFlow's
    (time ratio <= 1 / factor)."""
    text = "steps/s >= TF's" if factor == 1.0 else f"steps/s >= {factor:g}x TF's"
    return Goal(text, lambda _s, ratio: ratio <= 1.0 / factor, True)


@dataclass(frozen=True)
class Case:
    """One row of a suite: a program, its arguments, how to show its figure."""

    name: str
    script: str
    argv: Tuple[str, ...]
    unit: str  # "us", "ms", "GB/s", "steps/s", "examples/s" (median_s is s per step) or "s"
    goal: Optional[Goal] = None
    timeout_s: float = 600.0
    # The key in ANCHORS of the TensorFlow environment this case needs, when it is not
    # its suite's (a program using tf.estimator in a suite of TensorFlow 2.21 programs).
    anchor: Optional[str] = None
    # The figure is the child's whole wall time, interpreter start and imports included,
    # measured here from outside, rather than the step time the program reports.
    whole_program: bool = False


@dataclass(frozen=True)
class Suite:
    """A subcommand: a named list of cases."""

    description: str
    cases: Tuple[Case, ...]
    anchor: str = "tf"  # the key in ANCHORS of the TensorFlow environment it needs
    # A command (script and arguments) run once under tensorfleet's interpreter before
    # any timed run, to write data files that every run then reads.
    prepare: Tuple[str, ...] = ()


def _local(name: str, unit: str, goal: Optional[Goal]) -> Case:
    return Case(name, "bench_local.py", ("--case", name), unit, goal)


def _model(name: str) -> Case:
    # Realistic model sizes: the goal is TensorFlow's step time or better.
    return Case(name, "bench_models.py", ("--case", name), "ms", ratio_at_most(1.0),
                timeout_s=900.0)


def _cluster(name: str, case: str, client: str, unit: str) -> Case:
    # The distributed-runtime goals: a two-task step no slower than TensorFlow's, a
    # 64 MB fetch at 1.5 times its throughput, a 64 MB tensor received and computed
    # on at twice its throughput.
    goal = (ratio_at_most(1.0) if case == "mean_step" else throughput_at_least_tf(2.0)
            if case == "remote_sum64mb" else throughput_at_least_tf(1.5))
    return Case(name, "bench_cluster.py", ("run", "--case", case, "--client", client), unit,
                goal)


def _trainer(name: str, case: str, threads: str, goal: Optional[Goal],
             ps: int = 1, workers: int = 2) -> Case:
    unit = "s" if case == "sync_job" else "steps/s"
    return Case(name, "bench_trainer.py", ("run", "--case", case, "--threads", threads,
                                           "--ps", str(ps), "--workers", str(workers)),
                unit, goal)


def _program(name: str, anchor: Optional[str] = None) -> Case:
    # Whole tutorial-sized programs: the goal is TensorFlow's whole-program time or better.
    return Case(name, "bench_programs.py", ("--case", name), "s", ratio_at_most(1.0),
                timeout_s=900.0, anchor=anchor, whole_program=True)


def _multihost(name: str, case: str, rate: str) -> Case:
    # Issue 25's goal on separate hosts: 1.2 times TensorFlow's steps/s on the same links.
    return Case(name, "bench_multihost.py", ("run", "--case", case, "--rate", rate), "steps/s",
                rate_at_least_tf(1.2))


SUITES: Dict[str, Suite] = {
    "local": Suite("single-process programs: empty step, MLP and conv net training steps", (
        _local("empty", "us", absolute_under_us(50)),
        _local("mlp", "ms", ratio_at_most(1.5)),
        _local("convnet", "ms", ratio_at_most(1.5)),
    )),
    "rnn": Suite("the PTB-small LSTM language model, by dynamic_rnn and by static_rnn", (
        Case("ptb_lstm", "bench_rnn.py", ("--case", "ptb_lstm"), "ms", ratio_at_most(1.0),
             timeout_s=900.0),
        Case("ptb_lstm_static", "bench_rnn.py", ("--case", "ptb_lstm_static"), "ms",
             ratio_at_most(1.0), timeout_s=900.0),
    )),
    "models": Suite("realistic single-process models: MNIST-size and CIFAR-size conv nets", (
        _model("mnist_cnn"),
        _model("cifar_cnn"),
    )),
    "scale": Suite("the seed trainer with more tasks on one host: 2, 4, 8 workers, 7+1 workers"
                   " and 4 ps", (
        _trainer("scale_async_w2", "async", "default", rate_at_least_tf(), 1, 2),
        _trainer("scale_async_w4", "async", "default", rate_at_least_tf(), 1, 4),
        _trainer("scale_async_w8", "async", "default", rate_at_least_tf(), 1, 8),
        _trainer("scale_async_w8_ps4", "async", "default", rate_at_least_tf(), 4, 8),
        _trainer("scale_sync_w8_ps4", "sync", "default", rate_at_least_tf(), 4, 8),
    )),
    "cluster": Suite("two tasks over gRPC on localhost, servers in subprocesses", (
        _cluster("mean_step", "mean_step", "separate", "ms"),
        _cluster("fetch64mb", "fetch64mb", "separate", "GB/s"),
        _cluster("remote_sum64mb", "remote_sum64mb", "separate", "GB/s"),
        _cluster("mean_step_in_task0", "mean_step", "in-task0", "ms"),
        _cluster("fetch64mb_in_task0", "fetch64mb", "in-task0", "GB/s"),
    )),
    "trainer": Suite("the seed trainer, 1 ps + 2 workers in subprocesses, async and sync", (
        _trainer("trainer_async", "async", "default", rate_at_least_tf()),
        _trainer("trainer_sync", "sync", "default", rate_at_least_tf()),
        _trainer("trainer_sync_job", "sync_job", "default", absolute_under_s(30)),
        _trainer("trainer_async_1thread", "async", "1", None),
        _trainer("trainer_sync_1thread", "sync", "1", None),
    )),
    "multihost": Suite("the seed trainer, 1 ps + 2 workers each on a network host of its own"
                       " (namespaces, tbf-capped links; needs root)", (
        _multihost("multihost_async_1gbit", "async", "1gbit"),
        _multihost("multihost_sync_1gbit", "sync", "1gbit"),
        _multihost("multihost_async_10gbit", "async", "10gbit"),
        _multihost("multihost_sync_10gbit", "sync", "10gbit"),
    )),
    "widedeep": Suite("Criteo-shaped wide & deep DNNLinearCombinedClassifier from CSV (anchor:"
                      " TensorFlow 2.15 with tf.estimator)", (
        Case("widedeep", "bench_wide_deep.py", (), "examples/s", examples_at_least_tf(),
             timeout_s=2400.0),
    ), anchor="tf215"),
    "widedeep-cluster": Suite("the wide & deep program as chief + 2 ps + 1 worker + evaluator"
                              " under TF_CONFIG, started by tensorfleet launch", (
        Case("widedeep-cluster", "bench_wide_deep.py", ("--cluster",), "examples/s",
             examples_at_least_tf(), timeout_s=1500.0),
    ), anchor="tf215"),
    "programs": Suite("whole tutorial-sized programs, timed from interpreter start to exit:"
                      " conv nets, LSTM classifiers, a JPEG folder pipeline, an Estimator", (
        _program("raw_convnet"),
        _program("bilstm"),
        _program("image_folder"),
        _program("data_layers"),
        _program("conv_estimator", anchor="tf215"),
        _program("static_lstm"),
        _program("dynamic_lstm"),
    ), prepare=("bench_programs.py", "--prepare", "--framework", "tensorfleet",
                "--case", "image_folder")),
    "embedding": Suite("a 10^7 x 16 embedding over 2 ps, embedding_lookup_sparse + Adagrad", (
        Case("embedding", "bench_embedding.py", (), "steps/s", rate_at_least_tf(),
             timeout_s=1800.0),
    )),
}


# ---------------------------------------------------------------------------
# Interpreters.
# ---------------------------------------------------------------------------

def _probe(python: str, code: str) -> Optional[str]:
    """Runs ``code`` under ``python``; its stripped stdout, or None if it failed."""
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True,
                             timeout=300, env=_child_env("tensorflow"))
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


_TF_PROBE = ANCHORS["tf"].probe


def tensorflow_python(explicit: Optional[str], anchor: str = "tf") -> str:
    """The interpreter that runs the TensorFlow side, creating the anchor's venv if needed."""
    spec = ANCHORS[anchor]
    if explicit:
        if _probe(explicit, spec.probe) is None:
            raise SystemExit(f"--tf-python {explicit} cannot run: {spec.probe}")
        return explicit
    python = spec.venv / "bin" / "python"
    if python.exists() and _probe(str(python), spec.probe) is not None:
        return str(python)
    print(f"creating {spec.venv} with {' '.join(spec.requirements)} (once)", file=sys.stderr)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(spec.venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", *spec.requirements],
                   check=True)
    if _probe(str(python), spec.probe) is None:
        raise SystemExit(f"{python} still cannot run {spec.probe!r} after installing")
    return str(python)


def _child_env(framework: str) -> Dict[str, str]:
    """Environment of a benchmark process: this one's, with TensorFlow's C++ logs muted."""
    env = dict(os.environ)
    env["PYTHONUNBUFFERED"] = "1"
    if framework == "tensorflow":
        env.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return env


# ---------------------------------------------------------------------------
# Running.
# ---------------------------------------------------------------------------

@dataclass
class Outcome:
    """All runs of one case under one framework."""

    records: List[dict] = field(default_factory=list)
    error: Optional[str] = None

    def median_s(self) -> Optional[float]:
        """Median over runs of each run's median step time."""
        if not self.records:
            return None
        return statistics.median(r["median_s"] for r in self.records)


def run_once(python: str, framework: str, case: Case, extra: Sequence[str]) -> dict:
    """Runs one case under one framework in a subprocess; returns its JSON record.

    The child gets a session (process group) of its own so that on timeout it and
    any servers it started are killed together, by that group's id.
    """
    cmd = [python, str(BENCH_DIR / case.script), *case.argv, "--framework", framework,
           *extra]
    started = time.perf_counter()
    cpu_before = _children_cpu_s()
    proc = subprocess.Popen(cmd, cwd=REPO_DIR, env=_child_env(framework), text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=case.timeout_s)
        wall_s = time.perf_counter() - started
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise RuntimeError(f"timed out after {case.timeout_s:.0f}s") from None
    lines = [ln for ln in out.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        tail = [ln for ln in err.strip().splitlines() if ln.strip()][-1:] or ["no output"]
        raise RuntimeError(f"exit {proc.returncode}: {tail[0][:200]}")
    record = json.loads(lines[-1])
    if case.whole_program:
        record["median_s"] = record["wall_s"] = wall_s
        # Cases run one at a time, so the children's CPU time grew by this run's alone:
        # beside the wall time it tells waiting for a core from doing more work.
        record["cpu_s"] = _children_cpu_s() - cpu_before
    return record


def _children_cpu_s() -> float:
    """User + system CPU seconds of this process's waited-for children so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_suite(cases: Sequence[Case], pythons: Dict[str, str], repeats: int,
              extra: Sequence[str],
              anchor_pythons: Optional[Dict[str, str]] = None
              ) -> Dict[str, Dict[str, Outcome]]:
    """Runs each case ``repeats`` times under both frameworks, alternating.

    The framework that goes first flips every repeat, so neither side always runs
    right after the other's warm caches or into the same phase of background load.
    A framework that fails a case is not retried for it (failures here are missing
    ops, not noise), and its error is shown in the table. A case with an anchor of its
    own runs its TensorFlow side under ``anchor_pythons[case.anchor]``.
    """
    results = {c.name: {fw: Outcome() for fw in FRAMEWORKS} for c in cases}
    for rep in range(repeats):
        order = FRAMEWORKS if rep % 2 == 0 else FRAMEWORKS[::-1]
        for case in cases:
            for fw in order:
                outcome = results[case.name][fw]
                if outcome.error is not None:
                    continue
                python = pythons[fw]
                if fw == "tensorflow" and case.anchor is not None:
                    python = (anchor_pythons or {})[case.anchor]
                try:
                    outcome.records.append(run_once(python, fw, case, extra))
                    status = _show(case, outcome.records[-1]["median_s"],
                                   outcome.records[-1])
                except RuntimeError as exc:
                    outcome.error = str(exc)
                    status = f"failed: {exc}"
                print(f"[{rep + 1}/{repeats}] {case.name:<20} {LABELS[fw]:<12} {status}",
                      file=sys.stderr, flush=True)
    return results


# ---------------------------------------------------------------------------
# Reporting.
# ---------------------------------------------------------------------------

def _show(case: Case, seconds: float, record: dict) -> str:
    """A time in the case's unit; ``record`` supplies the byte count of GB/s cases."""
    if case.unit == "GB/s":
        return f"{record['bytes'] / 1e9 / seconds:.3f} GB/s"
    if case.unit == "steps/s":
        return f"{1.0 / seconds:.1f} steps/s"
    if case.unit == "examples/s":
        return f"{record['batch'] / seconds:.0f} examples/s"
    if case.unit == "s":
        return f"{seconds:.{2 if case.whole_program else 1}f} s"
    scale = {"us": 1e6, "ms": 1e3}[case.unit]
    return f"{seconds * scale:.{1 if case.unit == 'us' else 3}f} {case.unit}"


def _capped(outcome: Outcome) -> bool:
    """True when the median run hit its time cap, so the figure is only a lower bound."""
    seconds = outcome.median_s()
    return seconds is not None and any(
        not r.get("finished", True) and r.get("cap_s") == seconds for r in outcome.records)


def _figure(case: Case, outcome: Outcome) -> str:
    """One framework's cell: the median in the case's unit, or why there is none."""
    seconds = outcome.median_s()
    if seconds is None:
        return "failed (see below)" if outcome.error else "not measured"
    text = _show(case, seconds, outcome.records[0])
    unfinished = sum(1 for r in outcome.records if not r.get("finished", True))
    if unfinished:
        # A job that hit the cap counts as the cap; say so rather than hide it.
        text = (">" if _capped(outcome) else "") + text + (
            f" ({unfinished}/{len(outcome.records)} did not finish)")
    return text


def table_rows(cases: Sequence[Case], results: Dict[str, Dict[str, Outcome]]) -> List[List[str]]:
    """Header and one row per case: figures, ratio, goal and whether it is met."""
    rows = [["case", "tensorfleet", "TensorFlow", "ratio (tfleet/TF time)", "goal", "met"]]
    for case in cases:
        mine, theirs = results[case.name]["tensorfleet"], results[case.name]["tensorflow"]
        a, b = mine.median_s(), theirs.median_s()
        ratio = a / b if a is not None and b is not None else None
        met = "-"
        if case.goal is not None and a is not None and (ratio is not None
                                                        or not case.goal.needs_ratio):
            met = "yes" if case.goal.check(a, ratio if ratio is not None else 0.0) else "no"
        bound = "<" if _capped(theirs) and not _capped(mine) else ""
        rows.append([case.name, _figure(case, mine), _figure(case, theirs),
                     f"{bound}{ratio:.2f}" if ratio is not None else "-",
                     case.goal.text if case.goal else "none set", met])
    return rows


def format_table(rows: List[List[str]], markdown: bool) -> str:
    """Renders rows as aligned plain text or as a markdown table."""
    if markdown:
        lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
        lines += ["| " + " | ".join(r) + " |" for r in rows[1:]]
        return "\n".join(lines)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def notes_for(cases: Sequence[Case], results: Dict[str, Dict[str, Outcome]]) -> List[str]:
    """Failures, and the losses of training cases as a check that both did the same work.

    Both start from the same weights and batches, so after the same number of steps
    their losses should agree closely; a large gap means the graphs are not the same
    computation and the timing comparison would be meaningless.
    """
    notes = []
    for case in cases:
        for fw in FRAMEWORKS:
            if results[case.name][fw].error:
                notes.append(f"{case.name}: {LABELS[fw]} failed: {results[case.name][fw].error}")
        recs = {fw: results[case.name][fw].records for fw in FRAMEWORKS}
        for fw in FRAMEWORKS:
            # Multi-process cases say when each task got ready, stepped and exited;
            # the median run's account explains a figure such as a job's wall time.
            timed = sorted((r for r in recs[fw] if "phase_note" in r),
                           key=lambda r: r["median_s"])
            if timed:
                notes.append(f"{case.name} ({LABELS[fw]}, median run, seconds from "
                             f"launch): {timed[len(timed) // 2]['phase_note']}")
            firsts = [r["all_first_step_s"] for r in recs[fw]
                      if r.get("all_first_step_s") is not None]
            cpus = [r["ps_cpu_ms_per_global_step"] for r in recs[fw]
                    if r.get("ps_cpu_ms_per_global_step") is not None]
            if firsts and cpus:
                notes.append(f"{case.name} ({LABELS[fw]}, medians): every worker stepping "
                             f"{statistics.median(firsts):.1f} s after launch; ps CPU "
                             f"{statistics.median(cpus):.2f} ms per global step")
        if all(recs.values()) and "auc" in recs["tensorflow"][0]:
            # Quality beside speed: the AUC on held-out data after the same steps.
            aucs = {fw: statistics.median(r["auc"] for r in recs[fw]) for fw in FRAMEWORKS}
            gap = aucs["tensorfleet"] - aucs["tensorflow"]
            notes.append(f"{case.name}: held-out AUC (median) {aucs['tensorfleet']:.4f} "
                         f"tensorfleet, {aucs['tensorflow']:.4f} TensorFlow after "
                         f"{recs['tensorflow'][0]['trained_steps']} steps; difference "
                         f"{gap:+.4f} (goal: within 0.02, "
                         f"{'met' if abs(gap) <= 0.02 else 'not met'})")
        for fw in FRAMEWORKS:
            mem = [r["ps_bytes_per_row"] for r in recs[fw] if "ps_bytes_per_row" in r]
            if mem:
                notes.append(f"{case.name} ({LABELS[fw]}): ps memory "
                             f"{statistics.median(mem):.1f} bytes per row (median; RSS "
                             f"after initialization, both ps, over the rows)")
        if case.whole_program and all(recs.values()):
            cpu = {fw: statistics.median(r.get("cpu_s", float("nan")) for r in recs[fw])
                   for fw in FRAMEWORKS}
            notes.append(f"{case.name}: CPU seconds (user + system, median) "
                         f"{cpu['tensorfleet']:.1f} tensorfleet, {cpu['tensorflow']:.1f} "
                         "TensorFlow")
        if not all(recs.values()) or "last_loss" not in recs["tensorflow"][0]:
            continue
        a, b = recs["tensorfleet"][0], recs["tensorflow"][0]
        line = (f"{case.name}: loss {a['first_loss']:.4f} -> {a['last_loss']:.4f} after "
                f"{a['trained_steps']} steps (tensorfleet), {b['first_loss']:.4f} -> "
                f"{b['last_loss']:.4f} after {b['trained_steps']} steps (TensorFlow)")
        # Whole programs start from each framework's own random initial values.
        if not case.whole_program and abs(a["first_loss"] - b["first_loss"]) > 1e-3 * max(
                1.0, abs(b["first_loss"])):
            line += "  WARNING: initial losses differ"
        notes.append(line)
    return notes


def _header(argv: Sequence[str], pythons: Dict[str, str], repeats: int) -> str:
    """When, how and where the figures were measured."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (f"{_dt.datetime.now().strftime('%Y-%m-%d %H:%M')}, `python benchmarks/harness.py "
            f"{shlex.join(argv)}`, {repeats} runs each, {os.cpu_count()} CPUs, "
            f"load {load:.2f} at end, Python {platform.python_version()}")


# ---------------------------------------------------------------------------
# Command line.
# ---------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    """One subcommand per suite, plus ``setup``."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    setup = sub.add_parser("setup", help=f"create {VENV_DIR.name} if missing and check it")
    setup.add_argument("--tf-python", help="use this interpreter for TensorFlow instead")
    setup.add_argument("--anchor", choices=sorted(ANCHORS), default="tf",
                       help="which TensorFlow environment to create and check")
    for name, suite in SUITES.items():
        p = sub.add_parser(name, help=suite.description)
        p.add_argument("--repeats", type=int, default=5, help="runs per framework and case")
        p.add_argument("--cases", default=",".join(c.name for c in suite.cases),
                       help="comma-separated subset of: " + ",".join(c.name for c in suite.cases))
        p.add_argument("--markdown", action="store_true", help="print the table as markdown")
        p.add_argument("--tf-python", help="use this interpreter for TensorFlow instead")
        p.add_argument("--anchor-python", action="append", default=[], metavar="NAME=PATH",
                       help="the interpreter of anchor NAME for cases that name it "
                            f"(one of {sorted(ANCHORS)}); repeatable")
        p.add_argument("--max-seconds", type=float, default=None,
                       help="cap on each run's timed phase (passed to the program)")
        p.add_argument("--json-out", default=None,
                       help="where to write every run's record (default benchmarks/results/)")
    return parser


def _anchor_pythons(cases: Sequence[Case], given: Sequence[str]) -> Dict[str, str]:
    """The interpreter of every anchor a case names, from ``NAME=PATH`` or its venv."""
    explicit: Dict[str, str] = {}
    for item in given:
        name, sep, path = item.partition("=")
        if not sep or name not in ANCHORS:
            raise SystemExit(f"--anchor-python {item!r}: expected NAME=PATH with NAME one of "
                             f"{sorted(ANCHORS)}")
        explicit[name] = path
    return {case.anchor: tensorflow_python(explicit.get(case.anchor), case.anchor)
            for case in cases if case.anchor is not None}


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point: run a suite and print its table."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    anchor = args.anchor if args.command == "setup" else SUITES[args.command].anchor
    pythons = {"tensorfleet": sys.executable,
               "tensorflow": tensorflow_python(args.tf_python, anchor)}
    if args.command == "setup":
        print(f"TensorFlow {_probe(pythons['tensorflow'], ANCHORS[anchor].probe)} at "
              f"{pythons['tensorflow']}")
        return 0
    suite = SUITES[args.command]
    by_name = {c.name: c for c in suite.cases}
    wanted = [n.strip() for n in args.cases.split(",") if n.strip()]
    unknown = [n for n in wanted if n not in by_name]
    if unknown:
        raise SystemExit(f"unknown case(s) {unknown}; choose from {sorted(by_name)}")
    cases = [by_name[n] for n in wanted]
    anchor_pythons = _anchor_pythons(cases, args.anchor_python)
    if suite.prepare:
        subprocess.run([sys.executable, str(BENCH_DIR / suite.prepare[0]), *suite.prepare[1:]],
                       cwd=REPO_DIR, check=True)
    extra = ["--max-seconds", str(args.max_seconds)] if args.max_seconds else []
    results = run_suite(cases, pythons, args.repeats, extra, anchor_pythons)

    # The records are written first: they are what a long run is for.
    out = Path(args.json_out) if args.json_out else RESULTS_DIR / (
        f"{args.command}-{_dt.datetime.now().strftime('%Y%m%d-%H%M%S')}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "command": argv, "repeats": args.repeats,
        "results": {c: {fw: {"records": o.records, "error": o.error} for fw, o in r.items()}
                    for c, r in results.items()}}, indent=1))
    print(_header(argv, pythons, args.repeats))
    print()
    print(format_table(table_rows(cases, results), args.markdown))
    for note in notes_for(cases, results):
        print(note)
    print(f"\nall records: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
