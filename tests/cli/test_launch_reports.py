"""The launcher's closing lines say where the checkpoint went after Ctrl-C, and that a
job already at its last step trained nothing."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tensorfleet.cli.task_reports import TaskReports
from tensorfleet.training.basic_hooks import nothing_to_train_message
from tensorfleet.training.signal_hooks import stopped_message

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def _env():
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("TENSORFLEET_TOKEN", None)
    return env


def test_reports_read_the_lines_the_hooks_write_even_split_across_reads():
    reports = TaskReports()
    line = ("12:00:00 WARNING x: " + stopped_message("SIGTERM", "/d/ck/model.ckpt-52")
            + "\n").encode()
    reports.feed("worker:0", line[:30])
    assert reports.checkpoint_summary() is None
    reports.feed("worker:0", line[30:])
    assert reports.checkpoint_summary() == \
        "checkpoint /d/ck/model.ckpt-52 (global step 52) written by worker:0"
    reports.feed("worker:1", (nothing_to_train_message(7, 7, "/d") + "\n").encode())
    assert reports.nothing_to_train == {"worker:1"}


def test_ctrl_c_names_the_checkpoint_its_step_and_directory(tmp_path):
    ckpt = tmp_path / "ckpt"
    proc = subprocess.Popen(
        [sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "1", "--workers", "1",
         str(EXAMPLES / "trainer.py"), "--train_steps", "100000000",
         "--checkpoint_dir", str(ckpt)],
        env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        start_new_session=True, cwd=str(EXAMPLES))
    try:
        deadline = time.monotonic() + 120
        while not (ckpt / "checkpoint").exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (ckpt / "checkpoint").exists(), "no first checkpoint"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130, err
    closing = err.strip().splitlines()[-1]
    assert closing.startswith("[launch] stopped every task; checkpoint "), err
    path = closing.split("checkpoint ", 1)[1].split(" ", 1)[0]
    step = int(path.rsplit("-", 1)[1])
    assert path.startswith(str(ckpt) + os.sep) and f"(global step {step})" in closing
    assert "written by worker:0" in closing and "resume" in closing
    assert list(Path(path).parent.glob(Path(path).name + ".*")), path  # the files exist


def test_a_rerun_at_the_last_step_says_it_trained_nothing(tmp_path):
    cmd = [sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "1", "--workers",
           "1", str(EXAMPLES / "trainer.py"), "--train_steps", "20",
           "--checkpoint_dir", str(tmp_path / "ckpt")]
    first = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=180,
                           cwd=str(EXAMPLES))
    assert first.returncode == 0, first.stderr
    assert "all workers finished successfully" in first.stderr
    again = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=180,
                           cwd=str(EXAMPLES))
    assert again.returncode == 0, again.stderr
    assert "already at global step 20" in again.stdout and "nothing to train" in again.stdout
    assert "had nothing to train" in again.stderr.strip().splitlines()[-1], again.stderr


def test_the_trainer_modes_write_under_directories_of_their_own():
    text = (EXAMPLES / "trainer.py").read_text()
    assert "/tmp/train_logs" not in text
    assert '"trainer_sync" if FLAGS.sync else "trainer_async"' in text
