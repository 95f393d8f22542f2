"""scipy's modules load on the first call of one of their functions, not with tensorfleet:
every task of a cluster would otherwise pay their import at start."""

import subprocess
import sys

import numpy as np

import tensorfleet as tf
from tensorfleet.platform import deferred_scipy


def test_importing_tensorfleet_loads_no_scipy_module():
    code = ("import sys, tensorfleet; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'scipy' "
            "or m.startswith('numpy.f2py')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=True).stdout.strip()
    assert out == "[]", out


def test_a_deferred_function_imports_its_module_on_first_call():
    expm = deferred_scipy.linalg.expm
    assert "imported on first call" in repr(expm)
    np.testing.assert_allclose(expm(np.zeros((2, 2))), np.eye(2))
    with tf.Session() as sess:
        got = sess.run(tf.linalg.expm(tf.constant([[0.0, 1.0], [0.0, 0.0]])))
    np.testing.assert_allclose(got, [[1.0, 1.0], [0.0, 1.0]], rtol=1e-6)
