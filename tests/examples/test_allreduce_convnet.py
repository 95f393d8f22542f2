"""All-reduce training across real worker processes equals one process on the combined batch.

Runs ``examples/allreduce_convnet.py`` (the digits conv net with Adam,
``MultiWorkerMirroredStrategy``, ``DistributedOptimizer`` and the broadcast
hook) for one step with 1, 2 and 3 workers, each worker its own process with
its own ``TF_CONFIG``, and compares every rank's weights.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLE = os.path.join(os.path.dirname(os.path.dirname(HERE)), "examples", "allreduce_convnet.py")

pytest.importorskip("sklearn")


def _train(tmp_path, workers: int, steps: int = 1, extra=()):
    dump = str(tmp_path / f"w{workers}.npz")
    env = dict(os.environ)
    env.pop("TF_CONFIG", None)
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(HERE)) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run(
        [sys.executable, EXAMPLE, "--workers", str(workers), "--steps", str(steps),
         "--global_batch", "96", "--log_every", "0", "--dump", dump,
         "--launch_timeout", "240", *extra],
        env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    ranks = [dump] + [f"{dump[:-4]}.rank{r}.npz" for r in range(1, workers)]
    return [dict(np.load(p)) for p in ranks], proc.stdout


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    weights, _ = _train(tmp_path_factory.mktemp("single"), 1)
    return weights[0]


@pytest.mark.parametrize("workers", [2, 3])
def test_one_step_every_rank_identical_and_equal_to_single_process(tmp_path, single, workers):
    ranks, out = _train(tmp_path, workers)
    assert "test accuracy" in out
    for r, weights in enumerate(ranks):
        assert sorted(weights) == sorted(single)
        for name, value in weights.items():
            # Identical on every rank, bit for bit ...
            np.testing.assert_array_equal(value, ranks[0][name], err_msg=f"rank {r} {name}")
            # ... and the single-process result up to float summation order.
            np.testing.assert_allclose(value, single[name], rtol=1e-4, atol=2e-5,
                                       err_msg=f"rank {r} {name}")


def test_fp16_compression_trains_identically_on_every_rank(tmp_path, single):
    ranks, _ = _train(tmp_path, 2, steps=2, extra=["--fp16", "--fusion_threshold", "4096"])
    for weights in ranks[1:]:
        for name, value in weights.items():
            np.testing.assert_array_equal(value, ranks[0][name])
