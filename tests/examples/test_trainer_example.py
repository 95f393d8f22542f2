"""The seed's trainer template (examples/trainer.py) as 1 ps + 2 worker processes:
asynchronous, synchronous, and a restarted job that resumes from its checkpoint."""

import json
import os
import subprocess
import sys
from pathlib import Path

import tensorfleet as tf

ROOT = Path(__file__).resolve().parents[2]
TRAINER = ROOT / "examples" / "trainer.py"


def _launch(*args, timeout=240):
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    r = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "1",
                        "--workers", "2", str(TRAINER), *args], env=env, capture_output=True,
                       text=True, timeout=timeout)
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr[-3000:]
    results = [json.loads(line.split("RESULT ", 1)[1]) for line in r.stdout.splitlines()
               if "RESULT " in line]
    assert len(results) == 2, r.stdout
    return results


def test_async_training_then_resume_from_checkpoint(tmp_path):
    ckpt = str(tmp_path / "ckpt")
    first = _launch("--train_steps", "200", "--checkpoint_dir", ckpt,
                    "--save_checkpoint_steps", "50")
    assert sum(r["local_steps"] for r in first) >= 200
    assert first[0]["accuracy"] > 0.85
    step = int(tf.train.latest_checkpoint(ckpt).rsplit("-", 1)[1])
    assert step >= 200
    # The restarted job continues from the checkpoint instead of starting over.
    second = _launch("--train_steps", str(step + 60), "--checkpoint_dir", ckpt,
                     "--save_checkpoint_steps", "50")
    assert sum(r["local_steps"] for r in second) < 100
    assert int(tf.train.latest_checkpoint(ckpt).rsplit("-", 1)[1]) >= step + 60


def test_sync_training_with_sync_replicas_optimizer(tmp_path):
    results = _launch("--sync", "--train_steps", "100", "--checkpoint_dir",
                      str(tmp_path / "ckpt"), "--save_checkpoint_steps", "50")
    # Every global step averages one gradient from each worker.
    for r in results:
        assert 100 <= r["local_steps"] <= 102
    assert results[0]["accuracy"] > 0.8
