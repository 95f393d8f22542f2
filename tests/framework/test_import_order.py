"""A module of the package imports as the first thing a process imports: the public
names load on first use, so nothing may rely on ``import tensorfleet`` having loaded
the op families and kernels before it (each module in a fresh interpreter)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Modules that once reached a partly imported module when imported first.
FIRST_IMPORTS = ["tensorfleet.framework.sparse_tensor", "tensorfleet.framework.type_spec",
                 "tensorfleet.kernels.accumulator_resources", "tensorfleet.estimator.metrics",
                 "tensorfleet.kernels.dynamic_embedding_resources"]


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_module_imports_first(module):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-c", f"import {module}"], env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]
