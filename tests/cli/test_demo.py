"""`tensorfleet demo`: a real 1 ps + 2 worker cluster trains on the digits and reports."""

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_demo_trains_and_prints_the_test_accuracy():
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    env.pop("TENSORFLEET_TOKEN", None)
    r = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "demo", "--steps", "300"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    # The chief drew a progress bar (tqdm on its stderr, merged into its prefixed output).
    assert re.search(r"\[worker:0\] .*\d+/300 \[", r.stdout), r.stdout
    m = re.search(r"^test accuracy: (0\.\d+)", r.stdout, re.M)
    assert m, r.stdout
    assert float(m.group(1)) >= 0.9, r.stdout
    assert "worker 1 done" in r.stdout


def test_demo_sync_trains_with_sync_replicas():
    env = dict(os.environ, PYTHONPATH=str(ROOT), OPENBLAS_NUM_THREADS="1")
    env.pop("TENSORFLEET_TOKEN", None)
    r = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "demo", "--sync",
                        "--steps", "100", "--no-progress"],
                       env=env, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "synchronous training" in r.stderr
    m = re.search(r"^test accuracy: (0\.\d+)", r.stdout, re.M)
    assert m and float(m.group(1)) >= 0.8, r.stdout
