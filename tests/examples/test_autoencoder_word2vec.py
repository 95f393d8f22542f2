"""End-to-end: the convolutional autoencoder and the partitioned word2vec train for real.

Each runs as its own process with a small step count; word2vec runs under
``tensorfleet launch`` with 2 ps and 2 workers, as its docstring says.
"""

import json
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.pop("TENSORFLEET_TOKEN", None)
    return env


def test_conv_autoencoder_reconstruction_error_falls():
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, "conv_autoencoder.py"),
                           "--steps", "150", "--log_every", "0"],
                          cwd=EXAMPLES, env=_env(), capture_output=True, text=True, timeout=240)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    initial = float(re.search(r"initial reconstruction error: ([0-9.]+)", out).group(1))
    final = float(re.search(r"final reconstruction error: ([0-9.]+)", out).group(1))
    # An untrained sigmoid decoder outputs ~0.5 everywhere (error ~0.18); 150 steps
    # bring the held-out error down by more than a factor of 5.
    assert final < initial / 5, out


def test_word2vec_on_two_ps_puts_related_words_nearest():
    proc = subprocess.run([sys.executable, "-m", "tensorfleet.cli.main", "launch", "--ps", "2",
                           "--workers", "2", os.path.join(EXAMPLES, "word2vec.py"),
                           "--train_steps", "500"],
                          cwd=EXAMPLES, env=_env(), capture_output=True, text=True, timeout=300)
    out = proc.stdout
    assert proc.returncode == 0, out + proc.stderr
    # The embedding's two shards live on the two parameter servers.
    assert "[worker:0] embeddings/part_0:0 [20, 16] on /job:ps/task:0" in out, out
    assert "[worker:0] embeddings/part_1:0 [20, 16] on /job:ps/task:1" in out, out
    nearest = dict(re.findall(r"\[worker:0\] nearest to (\w+): (\w+)", out))
    assert nearest.get("cat") in ("dog", "horse", "cow"), out
    assert nearest.get("paris") in ("london", "berlin", "rome"), out
    reports = [json.loads(m) for m in re.findall(r"RESULT (\{.*\})", out)]
    assert sorted(r["worker"] for r in reports) == [0, 1], out
    chief = next(r for r in reports if r["worker"] == 0)
    # Planted groups: most topic words have a group mate as nearest neighbour
    # (chance is 3 of 39 other words).
    assert chief["neighbour_accuracy"] >= 0.8, out
    assert sum(r["local_steps"] for r in reports) >= 500, out
