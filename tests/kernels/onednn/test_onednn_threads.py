"""oneDNN's OpenMP threads: the limit follows the BLAS policy, and primitives are
built with the thread count they run with."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels.numpy import blas_threads

from tensorfleet.kernels.onednn import library, plan, threads
from tensorfleet.runtime import threads as runtime_threads

from tests.kernels.onednn.backend_helpers import onednn_loads

pytestmark = pytest.mark.skipif(not onednn_loads(),
                                reason="oneDNN cannot load on this platform")


def test_blas_limit_is_onednn_limit(monkeypatch):
    monkeypatch.setattr(threads, "_limit", None)
    monkeypatch.setattr(runtime_threads, "_current", None)
    monkeypatch.setattr(runtime_threads, "threadpool_limits", lambda **kw: None)
    runtime_threads.set_blas_threads(1)
    assert threads.limit() == 1
    runtime_threads.set_blas_threads(3)
    assert threads.limit() == 3


def test_limit_rejects_non_positive():
    with pytest.raises(ValueError, match="positive"):
        threads.set_limit(0)


def test_plans_are_built_under_the_thread_count_they_run_with(monkeypatch):
    lib = library.load()
    seen = []
    monkeypatch.setattr(threads, "_limit", 1)

    def build(lib_, n):
        # The building thread's OpenMP setting decides the primitives' partitioning.
        seen.append((n, lib_._threads.n))
        return plan.Plan(lib_)

    key = ("probe", np.random.default_rng().integers(1 << 30))
    monkeypatch.setattr(lib._threads, "n", 2, raising=False)
    plan.cached(key, build)
    assert seen == [(1, 1)]
    # Another limit is another plan.
    monkeypatch.setattr(threads, "_limit", 2)
    plan.cached(key, build)
    assert seen == [(1, 1), (2, 2)]


def test_blas_keeps_one_thread_while_onednn_is_the_backend(monkeypatch):
    # oneDNN's team runs the parallel kernels; a second pool of BLAS threads spinning
    # beside it took a core from every oneDNN kernel.
    calls = []
    monkeypatch.setattr(runtime_threads, "_current", None)
    monkeypatch.setattr(runtime_threads, "_blas_single", False)
    monkeypatch.setattr(runtime_threads, "threadpool_limits",
                        lambda limits, user_api: calls.append(limits))
    runtime_threads.set_blas_threads(2)
    assert calls == [2] and threads.limit() == 2
    runtime_threads._follow_backend("CPU", "onednn")
    assert calls[-1] == 1 and threads.limit() == 2
    runtime_threads.set_blas_threads(3)
    assert calls[-1] == 1 and threads.limit() == 3
    runtime_threads._follow_backend("GPU", None)
    assert calls[-1] == 1
    runtime_threads._follow_backend("CPU", None)
    assert calls[-1] == 3


def test_choosing_a_backend_sets_the_blas_threads():
    try:
        tf.set_cpu_kernel_backend("onednn")
        assert blas_threads.current() and set(blas_threads.current()) == {1}
        tf.set_cpu_kernel_backend("numpy")
        assert runtime_threads._blas_single is False
    finally:
        tf.set_cpu_kernel_backend(None)
        tf.cpu_kernel_backend()


def _openmp_settings(extra_env):
    code = ("import os\nfrom tensorfleet.kernels.onednn import library\nlibrary.load()\n"
            "print('after:', os.environ.get('OMP_WAIT_POLICY'))\n")
    env = dict(os.environ, OMP_DISPLAY_ENV="TRUE", **extra_env)
    if "OMP_WAIT_POLICY" not in extra_env:
        env.pop("OMP_WAIT_POLICY", None)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout + r.stderr


def test_openmp_threads_sleep_between_calls_unless_the_user_chose():
    out = _openmp_settings({})
    assert "OMP_WAIT_POLICY = 'PASSIVE'" in out
    # Set only while the library loaded: the environment is as it was.
    assert "after: None" in out
    assert "OMP_WAIT_POLICY = 'ACTIVE'" in _openmp_settings({"OMP_WAIT_POLICY": "ACTIVE"})
