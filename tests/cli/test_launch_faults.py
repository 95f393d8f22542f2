"""A 1 ps + 2 worker job under ``tensorfleet launch --max-restarts`` survives, by itself,
the SIGKILL of its ps, then of a worker, then of its chief.

The launcher restarts each killed task on its port; MonitoredTrainingSession does
the rest: after the ps restart the chief restores the latest checkpoint while the
other worker waits, the restarted worker rejoins, the restarted chief restores and
resumes. The job must reach its last step with a final loss within 10% of an
undisturbed run's, having lost at most the steps since the last checkpoint.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import pytest

from tests.distributed.test_faults import TRAINER, report, subprocess_env, wait_until

pytestmark = pytest.mark.timeout(240)

STEPS = 400
SAVE = 40
ARGS = [f"--steps={STEPS}", f"--save_steps={SAVE}", "--sleep=0.02", "--batch=128"]


class Launch:
    """``tensorfleet launch --ps 1 --workers 2 --max-restarts 3`` of the test trainer."""

    def __init__(self, tmp_path: Path, name: str):
        self.ckpt = tmp_path / name
        self.out = tmp_path / f"{name}.log"
        script = tmp_path / "trainer.py"
        script.write_text(TRAINER)
        with open(self.out, "wb") as f:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "1",
                 "--workers", "2", "--max-restarts", "3", "--grace", "5", str(script),
                 f"--checkpoint_dir={self.ckpt}", *ARGS],
                env=subprocess_env(), stdout=f, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, cwd=str(tmp_path))
        self.killed: List[int] = []

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def tail(self) -> str:
        return "\n".join(self.text().splitlines()[-80:])

    def lines(self, task: str, pattern: str) -> List[re.Match]:
        return list(re.finditer(rf"^\[{task}\] {pattern}$", self.text(), re.M))

    def wait_line(self, task: str, pattern: str, count: int = 1, timeout: float = 60) -> re.Match:
        """Waits for the ``count``-th line of ``task`` (``launch`` for the launcher's own)
        matching ``pattern``."""
        def found():
            m = self.lines(task, pattern)
            return m[count - 1] if len(m) >= count else None
        return wait_until(found, timeout, f"line {count} of [{task}] matching {pattern!r}",
                          self.tail)

    def last_step(self, task: str) -> int:
        m = self.lines(task, r"STEP (\d+) \S+")
        return int(m[-1].group(1)) if m else -1

    def checkpoint_step(self) -> int:
        import tensorfleet as tf
        latest = tf.train.latest_checkpoint(str(self.ckpt))
        return int(latest.rsplit("-", 1)[1]) if latest else -1

    def wait_checkpoint(self, step: int, timeout: float = 60) -> int:
        return wait_until(lambda: self.checkpoint_step() >= step and self.checkpoint_step(),
                          timeout, f"a checkpoint at step >= {step}", self.tail)

    def task_pid(self, name: str) -> Optional[int]:
        """The pid of the launcher's live child running task ``name`` (``ps:0``)."""
        want = f"TENSORFLEET_TASK={name}".encode()
        for d in os.listdir("/proc"):
            if not d.isdigit():
                continue
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                if ppid != self.proc.pid:
                    continue
                with open(f"/proc/{d}/environ", "rb") as f:
                    if want in f.read().split(b"\0"):
                        return int(d)
            except (OSError, ValueError, IndexError):
                continue
        return None

    def kill(self, name: str) -> None:
        pid = wait_until(lambda: self.task_pid(name), 10, f"the pid of {name}", self.tail)
        os.kill(pid, signal.SIGKILL)
        self.killed.append(pid)
        self.wait_line("launch", rf"{name} exited \(killed by signal (9|SIGKILL)\); "
                                 rf"restarting it \(\d/3\)", timeout=20)

    def wait(self, timeout: float) -> int:
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the launch did not end within {timeout:g} s\n{self.tail()}")

    def result(self) -> dict:
        m = self.lines("worker:0", r"RESULT (.*)")
        assert m, self.tail()
        return json.loads(m[-1].group(1))

    def stop(self) -> None:
        """Ends the launcher (its tasks with it) and anything it left, by pid."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        for name in ("ps:0", "worker:0", "worker:1"):
            pid = self.task_pid(name)
            if pid:
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass


def _restored_step(launch: Launch, count: int) -> int:
    m = launch.wait_line("worker:0", r".*Restoring parameters from .*model\.ckpt-(\d+)",
                         count=count)
    return int(m.group(1))


def test_launch_survives_killing_the_ps_then_a_worker_then_the_chief(tmp_path):
    # The undisturbed run, for the loss to compare with.
    calm = Launch(tmp_path, "calm")
    try:
        assert calm.wait(120) == 0, calm.tail()
        baseline = calm.result()
    finally:
        calm.stop()
    assert baseline["global_step"] >= STEPS

    run = Launch(tmp_path, "faults")
    try:
        # 1. The ps, after the chief has checkpointed step >= 80.
        run.wait_line("worker:1", r"STEP \d+ \S+")  # both workers are training
        run.wait_checkpoint(2 * SAVE)
        t = time.monotonic()
        before = run.last_step("worker:0")
        run.kill("ps:0")
        ckpt = run.checkpoint_step()
        restored = _restored_step(run, 1)
        report("launch: ps killed -> chief restored the checkpoint", time.monotonic() - t)
        assert restored == ckpt
        assert before - restored <= SAVE + 5, "lost more than the steps since the checkpoint"
        # The other worker noticed, waited for the restore, and went on.
        run.wait_line("worker:1", r".*A step failed with \w+Error.*/job:ps/task:0.*")
        run.wait_line("worker:1", r".*Recovered: a new session is ready.*")
        # 2. A worker, once training is under way again.
        run.wait_checkpoint(restored + SAVE)
        t = time.monotonic()
        run.kill("worker:1")
        run.wait_line("worker:1", r"SESSION_READY", count=2)
        run.wait_line("worker:1", r"STEP \d+ \S+",
                      count=len(run.lines("worker:1", r"STEP \d+ \S+")) + 1)
        report("launch: worker killed -> it rejoined", time.monotonic() - t)
        # 3. The chief, after one more checkpoint.
        run.wait_checkpoint(run.checkpoint_step() + SAVE)
        t = time.monotonic()
        run.kill("worker:0")
        ckpt = run.checkpoint_step()
        restored = _restored_step(run, 2)
        report("launch: chief killed -> it restored and resumed", time.monotonic() - t)
        assert restored == ckpt
        rc = run.wait(150)
        out = run.text()
        assert rc == 0, run.tail()
        assert "all workers finished successfully" in out
        for task in ("ps:0", "worker:1", "worker:0"):
            assert len(re.findall(rf"\[launch\] {task} exited .*restarting it", out)) == 1
        final = run.result()
    finally:
        run.stop()
    assert final["global_step"] >= STEPS
    print(f"LOSS launch: with faults {final['loss']:.6f}, undisturbed {baseline['loss']:.6f} "
          f"(ratio {final['loss'] / baseline['loss']:.3f})", flush=True)
    assert abs(final["loss"] - baseline["loss"]) <= 0.10 * baseline["loss"], (final, baseline)
