"""The seed trainer on separate network hosts, and what a partition does to it.

1 ps + 2 workers, each task on a host of its own (``tensorfleet.testing.hosts``:
network namespaces on one switch), run as the seed runs them: one program, the
cluster given by flags. The network is then cut as a failed switch port cuts it --
packets dropped both ways, nothing refused -- and healed:

- a worker's host for 10 s and for 60 s: the other worker trains on (asynchronous),
  the cut worker's steps fail naming the ps and it resumes once healed;
- the ps's host for 10 s: both workers' steps fail naming ``/job:ps/task:0`` and go on
  after the heal with the ps's variables (nothing restored from a checkpoint);
- the ps's host while the chief writes a checkpoint: that save fails, no half-written
  checkpoint is left, later ones are intact.

Every scenario asserts that the chief reaches the last step, that every task exits
0, that no global step was applied twice or lost (asynchronous: the final global step
is the number of steps the workers ran, plus at most the steps that failed, whose
update may have landed before the reply was lost) and that every checkpoint named in
the checkpoint state restores. Timeouts are shortened through the runtime's own
environment variables, so each scenario takes seconds beyond its cut.
"""

from __future__ import annotations

import glob
import os
import re
import secrets
import time
from typing import Dict, List, Optional, Sequence

import numpy as np
import pytest

from tests.distributed.test_faults import (ASYNC, TRAINER, FaultCluster, logged_at, report,
                                           wait_until)

pytestmark = pytest.mark.timeout(240)

# Every host has its own ports: the port every task listens on, as on real machines.
PORT = 2222
# Heartbeats every second, a ping unanswered for 1.5 s marks a task gone.
FAST_FAILURE = {"TENSORFLEET_HEARTBEAT_SECS": "1", "TENSORFLEET_PING_TIMEOUT_SECS": "1.5",
                "TENSORFLEET_SLOW_STEP_REPORT_SECS": "3"}
_FAILED = re.compile(r"A step failed with (Unavailable|DeadlineExceeded)Error")

# The trainer with one more test hook: a pause of 3 s before the chief's first save at
# or after a given step, so that a test can cut the network while the save runs.
SAVE_PAUSE = '''
pause_at = os.environ.get("FAULT_PAUSE_SAVE_AT_STEP")
if pause_at:
    from tensorfleet.training import saver as _saver
    _real_write_shards = _saver.Saver._write_shards
    _paused = []
    def _write_shards(self, sess, prefix):
        m = re.search(r"-(\\d+)\\.tmp-", prefix) or re.search(r"-(\\d+)$", prefix)
        if not _paused and m and int(m.group(1)) >= int(pause_at):
            _paused.append(1)
            print("IN_SAVE %d" % int(m.group(1)), flush=True)
            time.sleep(3)
        return _real_write_shards(self, sess, prefix)
    _saver.Saver._write_shards = _write_shards
'''
SCRIPT = TRAINER.replace("\ncluster = tf.train.ClusterSpec", "\nimport re\n" + SAVE_PAUSE
                         + "\ncluster = tf.train.ClusterSpec", 1)
assert SAVE_PAUSE in SCRIPT


class HostCluster(FaultCluster):
    """A ``FaultCluster`` whose ps runs on host 0 and worker ``i`` on host ``i + 1``."""

    def __init__(self, tmp_path, hosts, args: Sequence[str], env: Optional[Dict] = None):
        super().__init__(tmp_path, workers=hosts.n - 1, args=args, script=SCRIPT,
                         env={"TENSORFLEET_TOKEN": secrets.token_urlsafe(24),
                              **FAST_FAILURE, **(env or {})})
        self.hosts = hosts
        self.ps_hosts = f"{hosts.addresses[0]}:{PORT}"
        self.worker_hosts = ",".join(f"{a}:{PORT}" for a in hosts.addresses[1:])

    def host_of(self, task: str) -> int:
        job, index = task.split(":")
        return 0 if job == "ps" else 1 + int(index)

    def start(self, task, args=(), env=None, prefix=()):
        return super().start(task, args, env, prefix=self.hosts.prefix(self.host_of(task)))

    def failed_steps(self, task: str) -> int:
        return len(_FAILED.findall(self.log(task)))

    def cut_for(self, task: str, seconds: float) -> float:
        """Cuts ``task``'s host off for ``seconds``; returns when the cut began."""
        h = self.host_of(task)
        self.hosts.cut(h)
        at = time.time()
        try:
            time.sleep(seconds)
        finally:
            self.hosts.heal(h)
        return at


@pytest.fixture
def host_cluster(tmp_path, network_hosts):
    made: List[HostCluster] = []

    def make(args: Sequence[str], env: Optional[Dict] = None, rate: Optional[str] = None):
        where = tmp_path / f"cluster{len(made)}"
        where.mkdir()
        c = HostCluster(where, network_hosts(3, rate=rate), args, env)
        made.append(c)
        return c
    try:
        yield make
    finally:
        for c in made:
            c.stop_all()


def steps_of(args: Sequence[str]) -> int:
    return int(next(a for a in args if a.startswith("--steps=")).split("=")[1])


def check_checkpoints(c: HostCluster) -> List[int]:
    """Every checkpoint the state names reads whole, with finite values and the global
    step it is named by (or a few more); no staged (half-written) files are left.
    Returns the steps they are named by."""
    import tensorfleet as tf
    state = tf.train.get_checkpoint_state(str(c.ckpt))
    assert state is not None, f"no checkpoint written\n{c.all_logs()}"
    steps = []
    for path in state.all_model_checkpoint_paths:
        reader = tf.train.NewCheckpointReader(path)
        shapes = reader.get_variable_to_shape_map()
        assert {"w", "b", "global_step"} <= set(shapes), (path, shapes)
        for name in shapes:
            assert np.all(np.isfinite(reader.get_tensor(name))), (path, name)
        held = int(reader.get_tensor("global_step"))
        named = int(path.rsplit("-", 1)[1])
        # The hook names a checkpoint by the global step it read before saving; other
        # workers' updates may land while the variables are read (as in TensorFlow).
        assert named <= held <= named + 10, (path, held)
        steps.append(named)
    assert not glob.glob(str(c.ckpt / "*.tmp-*")), os.listdir(c.ckpt)
    return steps


def finish_async(c: HostCluster, timeout: float = 90) -> None:
    """Every task exits 0; the chief reached the last step; each update landed once."""
    for task in ["worker:0", "worker:1", "ps:0"]:
        rc = c.wait_exit(task, timeout)
        assert rc == 0, f"{task} exited with {rc}\n{c.all_logs()}"
    steps = steps_of(c.args)
    assert c.result("worker:0")["global_step"] >= steps
    # Each worker read the global step after its last step: the later read is final.
    final = max(c.result(w)["global_step"] for w in ("worker:0", "worker:1"))
    ran = sum(c.result(w)["local_steps"] for w in ("worker:0", "worker:1"))
    failed = sum(c.failed_steps(w) for w in ("worker:0", "worker:1"))
    # A step whose reply was lost in a cut may have been applied: up to `failed` more.
    assert ran <= final <= ran + failed, (ran, failed, final)
    for w in ("worker:0", "worker:1"):
        seen = c.steps(w)
        assert seen == sorted(set(seen)), f"{w} saw a global step twice or going back"
    check_checkpoints(c)


# ------------------------------------------------------------------------------------------

def test_async_and_sync_training_across_hosts(host_cluster):
    c = host_cluster(ASYNC)
    c.start_all()
    finish_async(c)
    assert c.result("worker:1")["local_steps"] > 0
    assert c.hosts.counters(0)["tx_bytes"] > 0  # the ps's variables crossed its link

    sync_args = ["--steps=60", "--save_steps=20", "--sync"]
    s = host_cluster(sync_args)
    s.start_all()
    for task in ["worker:0", "worker:1", "ps:0"]:
        rc = s.wait_exit(task, 90)
        assert rc == 0, f"{task} exited with {rc}\n{s.all_logs()}"
    # One update per step aggregated from both workers: the global step counts steps.
    assert s.result("worker:0")["global_step"] == 60
    chief = s.steps("worker:0")
    assert chief == sorted(set(chief)) and chief[-1] == 60
    assert s.result("worker:0")["loss"] < 0.5
    assert check_checkpoints(s)[-1] == 60


@pytest.mark.parametrize("seconds", [10, 60])
def test_a_workers_host_cut_off_and_back(host_cluster, seconds):
    # Enough steps that the chief is still training when the cut ends.
    steps = 240 if seconds == 10 else 600
    args = [f"--steps={steps}", "--save_steps=100", "--sleep=0.05"]
    c = host_cluster(args)
    c.start_all()
    c.wait_step("worker:1", 20, 90)
    c.wait_step("worker:0", 20, 90)
    before = c.last_step("worker:0")
    cut = c.cut_for("worker:1", seconds)
    # The chief did not wait for the cut worker: asynchronous training went on.
    assert c.last_step("worker:0") > before + 20
    line = c.wait_log("worker:1", r"^.*A step failed with \w+Error: .*/job:ps/task:0.*$", 30)
    report(f"worker host cut {seconds} s -> its step fails naming the ps",
           logged_at(line) - cut)
    healed = time.time()
    frozen = len(c.steps("worker:1"))
    wait_until(lambda: len(c.steps("worker:1")) > frozen
               or c.procs["worker:1"].poll() is not None, 60,
               "the cut worker to step again or finish", c.all_logs)
    report(f"worker host healed after {seconds} s -> it steps again", time.time() - healed)
    finish_async(c)


def test_the_ps_host_cut_off_for_10_s(host_cluster):
    c = host_cluster(ASYNC)
    c.start_all()
    c.wait_step("worker:0", 30, 90)
    c.wait_step("worker:1", 30, 90)
    cut = c.cut_for("ps:0", 10)
    for w in ("worker:0", "worker:1"):
        line = c.wait_log(w, r"^.*A step failed with \w+Error: .*/job:ps/task:0.*$", 5)
        took = logged_at(line) - cut
        report(f"ps host cut -> {w}'s step fails naming /job:ps/task:0", took)
        assert took < 10
    frozen = c.last_step("worker:0")
    healed = time.time()
    c.wait_step("worker:0", frozen + 10, 60)
    report("ps host healed -> the chief steps again", time.time() - healed)
    finish_async(c)
    # The ps kept its variables through the partition: nothing was restored.
    assert "Restoring parameters" not in c.log("worker:0")


def test_a_partition_during_a_checkpoint_write(host_cluster):
    c = host_cluster(ASYNC, env={"FAULT_PAUSE_SAVE_AT_STEP": "80"})
    c.start_all()
    line = c.wait_log("worker:0", r"^IN_SAVE (\d+)$", 90)
    saving = int(line.split()[1])
    # The chief is about to have the ps write its shards: the ps drops off the network.
    c.cut_for("ps:0", 10)
    finish_async(c)
    steps = check_checkpoints(c)
    # The save cut off wrote nothing under its name, or wrote it whole (checked above).
    assert steps and steps[-1] >= steps_of(ASYNC) - 40, steps
    report(f"checkpoints after a partition in the save at step {saving}: {steps}", 0)
