"""Choosing the CPU kernel backend: oneDNN by default where it loads, numpy when
selected or when oneDNN cannot load (with one INFO line), errors for unknown names."""

from __future__ import annotations

import logging

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.kernels import backends, registry
from tensorfleet.kernels.onednn import conv, library


@pytest.fixture(autouse=True)
def _default_backend(monkeypatch):
    monkeypatch.delenv(backends.ENV, raising=False)
    tf.set_cpu_kernel_backend(None)
    yield
    monkeypatch.delenv(backends.ENV, raising=False)
    tf.set_cpu_kernel_backend(None)


def _conv_kernel():
    return registry.resolve_kernel("Conv2D", "conv", "/device:CPU:0", False)


def _run_conv() -> np.ndarray:
    x = np.arange(2 * 5 * 5 * 3, dtype=np.float32).reshape(2, 5, 5, 3) / 50
    k = np.ones((3, 3, 3, 2), np.float32)
    with tf.Graph().as_default():
        y = tf.nn.conv2d(tf.constant(x), tf.constant(k), [1, 1, 1, 1], "SAME")
        with tf.Session() as sess:
            return sess.run(y)


def test_environment_selects_numpy(monkeypatch):
    monkeypatch.setenv(backends.ENV, "numpy")
    tf.set_cpu_kernel_backend(None)
    assert tf.cpu_kernel_backend() == "numpy"
    assert _conv_kernel() is registry.reference_kernel("Conv2D")


def test_python_call_selects_numpy_and_back():
    tf.set_cpu_kernel_backend("numpy")
    assert tf.cpu_kernel_backend() == "numpy"
    assert _conv_kernel() is registry.reference_kernel("Conv2D")
    tf.set_cpu_kernel_backend(None)
    expected = "onednn" if _loads() else "numpy"
    assert tf.cpu_kernel_backend() == expected


def _loads() -> bool:
    try:
        library.load()
        return True
    except library.LibraryUnavailable:
        return False


@pytest.mark.skipif(not _loads(), reason="oneDNN is not available on this platform")
def test_onednn_is_the_default_where_it_loads(monkeypatch):
    assert tf.cpu_kernel_backend() == "onednn"
    assert _conv_kernel() is conv.conv2d
    monkeypatch.setenv(backends.ENV, "onednn")
    tf.set_cpu_kernel_backend(None)
    assert tf.cpu_kernel_backend() == "onednn"


def test_unknown_environment_value_is_an_error(monkeypatch):
    monkeypatch.setenv(backends.ENV, "cuda")
    tf.set_cpu_kernel_backend(None)
    with pytest.raises(ValueError, match="TENSORFLEET_CPU_KERNELS.*'numpy', 'onednn'"):
        tf.cpu_kernel_backend()
    with pytest.raises(ValueError, match="Unknown CPU kernel backend 'cuda'"):
        _run_conv()


def test_unknown_python_value_is_an_error():
    with pytest.raises(ValueError, match="Unknown CPU kernel backend 'mkl'"):
        tf.set_cpu_kernel_backend("mkl")
    with pytest.raises(ValueError, match="one of"):
        tf.set_cpu_kernel_backend(3)


def _unloadable(monkeypatch):
    """oneDNN as a process sees it where the library is missing."""
    def missing() -> str:
        raise library.LibraryUnavailable("libdnnl.so.3 not found (simulated)")
    monkeypatch.setattr(library, "library_path", missing)
    monkeypatch.setattr(library, "_lib", None)
    monkeypatch.setattr(library, "_error", None)


def test_falls_back_to_numpy_with_one_info_line(monkeypatch, caplog):
    want = _run_conv()
    _unloadable(monkeypatch)
    tf.set_cpu_kernel_backend(None)
    with caplog.at_level(logging.INFO, logger=backends.__name__):
        assert tf.cpu_kernel_backend() == "numpy"
        got = _run_conv()
        assert _conv_kernel() is registry.reference_kernel("Conv2D")
    lines = [r for r in caplog.records if r.name == backends.__name__]
    assert len(lines) == 1 and lines[0].levelno == logging.INFO
    assert "oneDNN unavailable" in lines[0].getMessage()
    np.testing.assert_allclose(got, want, rtol=1e-5)


def test_explicit_onednn_that_cannot_load_is_an_error(monkeypatch):
    _unloadable(monkeypatch)
    with pytest.raises(OSError, match="'onednn' selected by set_cpu_kernel_backend"):
        tf.set_cpu_kernel_backend("onednn")
    monkeypatch.setenv(backends.ENV, "onednn")
    tf.set_cpu_kernel_backend(None)
    with pytest.raises(OSError, match="TENSORFLEET_CPU_KERNELS=onednn"):
        tf.cpu_kernel_backend()


def test_loaded_version_is_the_bound_one():
    if not _loads():
        pytest.skip("oneDNN is not available on this platform")
    assert library.load().version[:2] == library.VERSION
