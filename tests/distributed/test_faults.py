"""Real processes killed at chosen points: what the seed says happens when a task dies.

A 1 ps + 2 worker job (a small linear-regression trainer, between-graph replicated
with ``replica_device_setter`` and ``MonitoredTrainingSession``, as in the seed)
runs as three processes; each test kills one of them with SIGKILL (or freezes it
with SIGSTOP) at a chosen point -- after the chief has written a checkpoint, while
it writes one -- restarts it on the same port and checks that training reaches
its last step, losing at most the steps since the last checkpoint. The scenarios
and what tensorfleet does in each are listed in docs/faults.md.

Every process is started with a bounded timeout and killed by pid in a finally.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence

import pytest

from tensorfleet.testing.cluster import free_ports

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.timeout(150)

# The trainer every task runs (one program for all tasks, as in the seed). It prints
# "STEP <global step> <loss>" after every step and "RESULT <json>" at the end.
TRAINER = textwrap.dedent('''
    import argparse, json, logging, os, sys, time
    import numpy as np
    import tensorfleet as tf

    p = argparse.ArgumentParser()
    p.add_argument("--ps_hosts"); p.add_argument("--worker_hosts")
    p.add_argument("--job_name"); p.add_argument("--task_index", type=int)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--checkpoint_dir", default=None)
    p.add_argument("--save_steps", type=int, default=20)
    p.add_argument("--sleep", type=float, default=0.0)
    p.add_argument("--sync", action="store_true")
    p.add_argument("--backup", type=int, default=0)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--batch", type=int, default=32)
    a, _ = p.parse_known_args()
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format="%(created).3f %(levelname)s %(name)s: %(message)s")

    # Test-only: hang between writing the shards of a checkpoint and writing its index,
    # so that the test can kill the chief in the middle of a save.
    hang_at = os.environ.get("FAULT_HANG_SAVE_AT_STEP")
    if hang_at:
        import re
        from tensorfleet.training import checkpoint_management as cm
        real_atomic_write = cm.atomic_write
        def atomic_write(path, data):
            m = re.search(r"-(\\d+)\\.index$", path)
            if m and int(m.group(1)) >= int(hang_at):
                print("HANG_IN_SAVE %d" % int(m.group(1)), flush=True)
                time.sleep(3600)
            return real_atomic_write(path, data)
        cm.atomic_write = atomic_write

    cluster = tf.train.ClusterSpec({"ps": a.ps_hosts.split(","),
                                    "worker": a.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=a.job_name, task_index=a.task_index)
    if a.job_name == "ps":
        print("PS_UP", flush=True)
        tf.train.join_until_workers_done(server)
        sys.exit(0)

    n = len(a.worker_hosts.split(","))
    rng = np.random.RandomState(0)
    dim = 16
    teacher = rng.randn(dim, 1).astype(np.float32)
    x_all = rng.randn(2048, dim).astype(np.float32)
    y_all = x_all @ teacher + 0.1 * rng.randn(2048, 1).astype(np.float32)
    x_test, y_test = x_all[:256], y_all[:256]
    x_tr, y_tr = x_all[256 + a.task_index::n], y_all[256 + a.task_index::n]
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % a.task_index, cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, dim], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.get_variable("w", [dim, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        gs = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(a.lr)
        hooks = [tf.train.StopAtStepHook(last_step=a.steps)]
        if a.sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=n - a.backup,
                                                 total_num_replicas=n)
            hooks.append(opt.make_session_run_hook(a.task_index == 0, num_tokens=0))
        train = opt.minimize(loss, global_step=gs)
    r = np.random.RandomState(100 + a.task_index)
    local = 0
    with tf.train.MonitoredTrainingSession(
            master=server.target, is_chief=a.task_index == 0,
            checkpoint_dir=a.checkpoint_dir, save_checkpoint_steps=a.save_steps,
            save_checkpoint_secs=None, save_summaries_steps=None, log_step_count_steps=0,
            hooks=hooks, max_wait_secs=120) as sess:
        print("SESSION_READY", flush=True)
        while not sess.should_stop():
            i = r.randint(0, len(x_tr), a.batch)
            _, step, l = sess.run([train, gs, loss], {x: x_tr[i], y: y_tr[i]})
            local += 1
            print("STEP %d %.6f" % (step, l), flush=True)
            if a.sleep:
                time.sleep(a.sleep)
        final = float(sess._tf_sess().run(loss, {x: x_test, y: y_test}))
        last = int(sess._tf_sess().run(gs))
    print("RESULT " + json.dumps({"local_steps": local, "global_step": last,
                                  "loss": final}), flush=True)
    tf.train.signal_workers_done(server.target, cluster, a.task_index)
''')

_STEP = re.compile(r"^STEP (\d+) ([-+0-9.eE]+|nan|inf)$", re.M)


def subprocess_env(**extra: str) -> Dict[str, str]:
    """The environment of every task: one BLAS thread, this checkout importable."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", TENSORFLEET_BLAS_THREADS="1",
               PYTHONPATH=str(ROOT), PYTHONUNBUFFERED="1")
    env.update(extra)
    return env


def wait_until(pred: Callable[[], object], timeout: float, what: str,
               on_timeout: Optional[Callable[[], str]] = None, every: float = 0.05) -> object:
    """Polls ``pred`` until it returns something truthy; fails the test after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            detail = on_timeout() if on_timeout else ""
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}\n{detail}")
        time.sleep(every)


class FaultCluster:
    """The tasks of one job as real processes, each started and restarted on its port.

    ``start(task)`` runs the trainer for ``task`` ("ps:0", "worker:1"); every start
    writes a new log file, ``log(task)`` reads the latest one. ``stop_all()`` kills
    every process still alive by pid (SIGKILL also ends a SIGSTOPped one).
    """

    def __init__(self, tmp_path: Path, workers: int = 2, args: Sequence[str] = (),
                 ps_host: str = "localhost", worker_host: str = "localhost",
                 script: str = TRAINER, env: Optional[Dict[str, str]] = None):
        self.dir = tmp_path
        self.script = tmp_path / "fault_trainer.py"
        self.script.write_text(script)
        self.ckpt = tmp_path / "ckpt"
        ports = free_ports(1 + workers)
        self.ps_hosts = f"{ps_host}:{ports[0]}"
        self.worker_hosts = ",".join(f"{worker_host}:{p}" for p in ports[1:])
        self.args = list(args)
        self.env = env or {}
        self.procs: Dict[str, subprocess.Popen] = {}
        self.runs: Dict[str, int] = {}
        self.all_procs: List[subprocess.Popen] = []

    def command(self, task: str, args: Sequence[str] = ()) -> List[str]:
        job, index = task.split(":")
        return [sys.executable, "-u", str(self.script), f"--ps_hosts={self.ps_hosts}",
                f"--worker_hosts={self.worker_hosts}", f"--job_name={job}",
                f"--task_index={index}", f"--checkpoint_dir={self.ckpt}", *self.args, *args]

    def start(self, task: str, args: Sequence[str] = (), env: Optional[Dict[str, str]] = None,
              prefix: Sequence[str] = ()) -> subprocess.Popen:
        n = self.runs.get(task, 0) + 1
        self.runs[task] = n
        logf = open(self.log_path(task, n), "wb")
        try:
            p = subprocess.Popen([*prefix, *self.command(task, args)],
                                 env=subprocess_env(**self.env, **(env or {})),
                                 stdout=logf, stderr=subprocess.STDOUT,
                                 stdin=subprocess.DEVNULL, cwd=str(self.dir))
        finally:
            logf.close()
        self.procs[task] = p
        self.all_procs.append(p)
        return p

    def start_all(self, **kw) -> None:
        for task in self.tasks():
            self.start(task, **kw)

    def tasks(self) -> List[str]:
        return ["ps:0"] + [f"worker:{i}" for i in range(len(self.worker_hosts.split(",")))]

    def log_path(self, task: str, run: Optional[int] = None) -> Path:
        return self.dir / f"{task.replace(':', '')}.{run or self.runs.get(task, 1)}.log"

    def log(self, task: str, run: Optional[int] = None) -> str:
        path = self.log_path(task, run)
        return path.read_text(errors="replace") if path.exists() else ""

    def all_logs(self) -> str:
        out = []
        for task, n in self.runs.items():
            for r in range(1, n + 1):
                text = self.log(task, r)
                out.append(f"----- {task} run {r} (last 40 lines) -----\n"
                           + "\n".join(text.splitlines()[-40:]))
        return "\n".join(out)

    def steps(self, task: str, run: Optional[int] = None) -> List[int]:
        """The global steps ``task`` printed, in order."""
        return [int(m.group(1)) for m in _STEP.finditer(self.log(task, run))]

    def last_step(self, task: str, run: Optional[int] = None) -> int:
        s = self.steps(task, run)
        return s[-1] if s else -1

    def wait_log(self, task: str, pattern: str, timeout: float, run: Optional[int] = None) -> str:
        """Waits until the latest log of ``task`` matches ``pattern``; returns the match."""
        rx = re.compile(pattern, re.M)

        def found():
            m = rx.search(self.log(task, run))
            return m.group(0) if m else None
        return wait_until(found, timeout, f"{pattern!r} in the log of {task}", self.all_logs)

    def wait_step(self, task: str, step: int, timeout: float) -> int:
        return wait_until(lambda: self.last_step(task) >= step and self.last_step(task),
                          timeout, f"{task} to reach global step {step}", self.all_logs)

    def latest_checkpoint_step(self) -> int:
        import tensorfleet as tf
        latest = tf.train.latest_checkpoint(str(self.ckpt))
        return int(latest.rsplit("-", 1)[1]) if latest else -1

    def wait_checkpoint(self, step: int, timeout: float) -> int:
        return wait_until(lambda: self.latest_checkpoint_step() >= step
                          and self.latest_checkpoint_step(), timeout,
                          f"a checkpoint at step >= {step}", self.all_logs)

    def signal(self, task: str, sig: int) -> None:
        os.kill(self.procs[task].pid, sig)

    def kill(self, task: str) -> None:
        p = self.procs[task]
        p.kill()
        p.wait(10)

    def wait_exit(self, task: str, timeout: float) -> int:
        try:
            return self.procs[task].wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"{task} did not exit within {timeout:g} s\n{self.all_logs()}")

    def result(self, task: str) -> dict:
        import json
        m = re.search(r"^RESULT (.*)$", self.log(task), re.M)
        assert m, f"{task} printed no RESULT\n{self.all_logs()}"
        return json.loads(m.group(1))

    def stop_all(self) -> None:
        for p in self.all_procs:
            if p.poll() is None:
                try:
                    p.kill()
                except ProcessLookupError:
                    pass
        for p in self.all_procs:
            try:
                p.wait(10)
            except subprocess.TimeoutExpired:
                pass


@pytest.fixture
def fault_cluster(tmp_path):
    """A factory of ``FaultCluster`` objects whose processes die with the test."""
    made: List[FaultCluster] = []

    def make(**kw) -> FaultCluster:
        c = FaultCluster(tmp_path, **kw)
        made.append(c)
        return c
    try:
        yield make
    finally:
        for c in made:
            c.stop_all()


# ------------------------------------------------------------------------------------------
# helpers over the logs

_TIME = re.compile(r"^(\d+\.\d+) ", re.M)


def logged_at(line: str) -> float:
    """The wall-clock time a log line was written (the trainer logs ``%(created)``)."""
    m = _TIME.match(line)
    assert m, f"no timestamp in {line!r}"
    return float(m.group(1))


def steps_after(text: str, offset: int) -> List[int]:
    return [int(m.group(1)) for m in _STEP.finditer(text, offset)]


def report(name: str, seconds: float) -> None:
    """Measured detection/recovery times, shown with ``pytest -s`` (and in -rA output)."""
    print(f"TIMING {name}: {seconds:.2f} s", flush=True)


def finish(c: FaultCluster, timeout: float = 60) -> None:
    """Every task exits 0; both workers reached the last step."""
    for task in ["worker:0", "worker:1", "ps:0"]:
        rc = c.wait_exit(task, timeout)
        assert rc == 0, f"{task} exited with {rc}\n{c.all_logs()}"
    steps = int(next(a for a in c.args if a.startswith("--steps=")).split("=")[1])
    assert c.result("worker:0")["global_step"] >= steps


ASYNC = ["--steps=240", "--save_steps=40", "--sleep=0.01"]


# ------------------------------------------------------------------------------------------
# (1) a non-chief worker dies

def test_killed_worker_restarts_and_rejoins(fault_cluster):
    # The chief goes on alone at about 100 steps/s while worker:1 restarts: enough steps
    # that it cannot reach the last one before worker:1 is back on a loaded machine.
    c = fault_cluster(args=["--steps=800", *ASYNC[1:]])
    c.start_all()
    c.wait_step("worker:1", 20, 60)
    c.kill("worker:1")
    at_kill = c.last_step("worker:0")
    # The chief does not wait for it: asynchronous training goes on.
    c.wait_step("worker:0", at_kill + 20, 30)
    c.start("worker:1")
    c.wait_log("worker:1", r"^SESSION_READY", 60)
    c.wait_log("worker:1", r"^STEP \d+", 30)
    finish(c)
    assert c.result("worker:1")["local_steps"] > 0


@pytest.mark.parametrize("backup", [1, 0], ids=["backup_worker", "no_backup"])
def test_killed_worker_in_sync_mode(fault_cluster, backup):
    """SyncReplicasOptimizer: with a backup worker the chief keeps stepping; without one
    it waits for the missing replica, saying so in its log, and goes on once the worker
    is back."""
    # With a backup worker the chief steps alone at full speed, also while worker:1 is
    # still starting: enough steps that it cannot reach the last one before worker:1
    # is back, however slowly worker:1 starts on a loaded machine.
    steps = 600 if backup else 120
    c = fault_cluster(args=[f"--steps={steps}", "--save_steps=40", "--sleep=0.01", "--sync",
                            f"--backup={backup}"],
                      env={"TENSORFLEET_SLOW_STEP_REPORT_SECS": "2"})
    c.start_all()
    c.wait_step("worker:1", 3, 60)
    c.kill("worker:1")
    at_kill = c.last_step("worker:0")
    if backup:
        c.wait_step("worker:0", at_kill + 20, 30)
    else:
        t = time.monotonic()
        c.wait_log("worker:0", r"^.*WARNING .*Step \d+ has been running for .*"
                   r"waiting for /job:ps/task:0.*SyncReplicasOptimizer.*$", 30)
        report("sync, no backup: chief reports the wait", time.monotonic() - t)
        assert c.last_step("worker:0") <= at_kill + 3, "a synchronous step needs both workers"
    c.start("worker:1")
    c.wait_log("worker:1", r"^STEP \d+", 60)
    finish(c)


# ------------------------------------------------------------------------------------------
# (2) the parameter server dies

def test_killed_ps_is_restored_from_the_latest_checkpoint(fault_cluster):
    c = fault_cluster(args=ASYNC)
    c.start_all()
    c.wait_step("worker:1", 10, 60)  # both workers are training
    c.wait_checkpoint(40, 60)
    c.kill("ps:0")
    killed_at = time.time()
    before = c.last_step("worker:0")
    ckpt = c.latest_checkpoint_step()  # nothing can be saved while the ps is gone
    # Both workers notice at once, and wait for the ps to come back, saying so.
    for w in ("worker:0", "worker:1"):
        line = c.wait_log(w, r"^.*WARNING .*A step failed with UnavailableError.*"
                             r"/job:ps/task:0.*$", 30)
        report(f"ps killed -> {w}'s step fails naming it", logged_at(line) - killed_at)
        c.wait_log(w, r"^.*waiting for /job:ps/task:0 to come up.*$", 30)
    restarted = time.time()
    c.start("ps:0")  # the same port, as a launcher or a cluster manager restarts it
    line = c.wait_log("worker:0", r"^.*Restoring parameters from .*model\.ckpt-(\d+)$", 60)
    report("ps restarted -> chief restored its variables", logged_at(line) - restarted)
    restored = int(line.rsplit("-", 1)[1])
    assert restored == ckpt, "the chief restores the latest checkpoint"
    restore_at = c.log("worker:0").index(line)
    # The other worker waits until the chief has restored the model, then goes on.
    line = c.wait_log("worker:1", r"^.*Recovered: a new session is ready.*$", 30)
    report("ps restarted -> other worker recovered", logged_at(line) - restarted)
    finish(c)
    after = steps_after(c.log("worker:0"), restore_at)
    # Training resumed from the checkpoint: at most the steps since it were lost.
    assert after and min(after) >= restored
    assert before - restored <= 40 + 5, (before, restored)


# ------------------------------------------------------------------------------------------
# (3) the chief dies

def test_killed_chief_restarts_restores_and_resumes(fault_cluster):
    c = fault_cluster(args=ASYNC)
    c.start_all()
    c.wait_checkpoint(40, 60)
    c.kill("worker:0")
    ckpt = c.latest_checkpoint_step()
    c.start("worker:0")
    line = c.wait_log("worker:0", r"^.*Restoring parameters from .*model\.ckpt-(\d+)$", 60)
    assert int(line.rsplit("-", 1)[1]) == ckpt
    c.wait_log("worker:0", r"^STEP \d+", 30)
    finish(c)
    assert min(c.steps("worker:0")) >= ckpt


# ------------------------------------------------------------------------------------------
# (4) the chief dies in the middle of writing a checkpoint

def test_chief_killed_while_saving_leaves_the_previous_checkpoint_loadable(fault_cluster):
    import tensorfleet as tf
    c = fault_cluster(args=["--steps=160", "--save_steps=30", "--sleep=0.01"])
    c.start("ps:0")
    c.start("worker:1")
    # The trainer hangs after the shards of the checkpoint at step >= 60 are written
    # and before its index is (see TRAINER); the test kills it there.
    c.start("worker:0", env={"FAULT_HANG_SAVE_AT_STEP": "60"})
    hang = int(c.wait_log("worker:0", r"^HANG_IN_SAVE \d+$", 60).split()[1])
    previous = tf.train.latest_checkpoint(str(c.ckpt))
    c.kill("worker:0")
    assert list(c.ckpt.glob(f"model.ckpt-{hang}.data-*")), "the data file was written"
    assert not (c.ckpt / f"model.ckpt-{hang}.index").exists()
    # The previous checkpoint is still the latest, and complete.
    assert tf.train.latest_checkpoint(str(c.ckpt)) == previous
    step = int(previous.rsplit("-", 1)[1])
    assert 0 < step < hang
    # The other worker trains on while the chief saves (asynchronous training), so
    # the saved global step may be a little past the one in the checkpoint's name.
    assert step <= int(tf.train.load_variable(previous, "global_step")) <= step + 10
    assert tf.train.load_variable(previous, "w").shape == (16, 1)
    c.start("worker:0")
    line = c.wait_log("worker:0", r"^.*Restoring parameters from .*$", 60)
    assert line.endswith(previous)
    finish(c)


# ------------------------------------------------------------------------------------------
# (5) the parameter server freezes (SIGSTOP) during steps

def test_frozen_ps_fails_steps_within_seconds_naming_it_and_training_resumes(fault_cluster):
    c = fault_cluster(args=ASYNC)
    c.start_all()
    c.wait_step("worker:0", 30, 60)
    c.wait_step("worker:1", 30, 60)
    c.signal("ps:0", signal.SIGSTOP)
    stopped = time.time()
    try:
        for w in ("worker:0", "worker:1"):
            line = c.wait_log(w, r"^.*A step failed with UnavailableError: Task /job:ps/task:0 "
                                 r"stopped responding.*$", 20)
            took = logged_at(line) - stopped
            report(f"SIGSTOP ps -> {w}'s step fails naming /job:ps/task:0", took)
            assert took < 10
        time.sleep(2)
    finally:
        c.signal("ps:0", signal.SIGCONT)
    resumed = time.time()
    at = c.last_step("worker:0")
    c.wait_step("worker:0", at + 10, 60)
    report("SIGCONT ps -> chief steps again", time.time() - resumed)
    finish(c)
    # The ps kept its variables: the chief went on with them instead of restoring.
    assert "Restoring parameters" not in c.log("worker:0")
    assert "still initialized on every task" in c.log("worker:0")


# ------------------------------------------------------------------------------------------
# incarnations: a restarted task is a new incarnation (in-process, fast)

def test_restarted_task_is_a_new_incarnation_and_stale_graphs_are_aborted():
    import numpy as np
    import tensorfleet as tf
    from tensorfleet.distributed.server import Server
    from tensorfleet.testing.cluster import LocalCluster

    c = LocalCluster({"ps": 1, "worker": 1})
    try:
        with tf.device("/job:ps/task:0"):
            v = tf.Variable(np.float32(1.0), name="v")
        with tf.device("/job:worker/task:0"):
            y = v * 2.0
        sess = tf.Session(c.target("worker"))
        sess.run(v.initializer)
        assert sess.run(y) == 2.0
        old = c.servers[("ps", 0)]
        before = old.worker.incarnation
        old.stop()
        c.servers[("ps", 0)] = new = Server(c.spec, job_name="ps", task_index=0)
        assert new.worker.incarnation != before
        # The session's graphs were registered with the old incarnation: refused, named.
        with pytest.raises(tf.errors.AbortedError) as e:
            sess.run(y)
        assert e.value.task == "/job:ps/task:0" and "restarted" in e.value.message
        sess.close()
        # A new session registers again; the new ps has lost the variable.
        with tf.Session(c.target("worker")) as s2:
            with pytest.raises(tf.errors.FailedPreconditionError):
                s2.run(y)
            s2.run(v.initializer)
            assert s2.run(y) == 2.0
    finally:
        c.stop()
