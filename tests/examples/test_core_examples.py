"""End-to-end: the core examples train for real in a subprocess."""

import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXAMPLES = os.path.join(ROOT, "examples")


def _run(script, *args, timeout=120):
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    # On a shared 2-core machine OpenBLAS's spinning worker threads make these small
    # matmuls ~10x slower; one BLAS thread gives the same results, faster.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    proc = subprocess.run([sys.executable, os.path.join(EXAMPLES, script), *args],
                          check=False, cwd=EXAMPLES, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout


def test_mnist_convnet_reaches_high_test_accuracy():
    out = _run("mnist_convnet.py", "--steps", "250", "--log_every", "0")
    m = re.search(r"test accuracy: ([0-9.]+)", out)
    assert m, out
    assert float(m.group(1)) >= 0.9, out


def test_mlp_loss_decreases():
    out = _run("mlp.py", "--steps", "60", "--log_every", "30", "--examples", "1024")
    losses = [float(v) for v in re.findall(r"loss ([0-9.]+)", out)]
    assert len(losses) >= 3, out
    assert losses[-1] < 0.7 * losses[0], out
