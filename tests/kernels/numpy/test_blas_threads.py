"""BLAS on one thread inside the kernels made of many small products: the limit inside,
the process's limit restored after, overlapping users on several threads, and the
fused LSTM sequence kernels leaving the limit as they found it."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from tensorfleet.kernels.numpy import blas_threads, rnn_kernels


@pytest.fixture
def two_blas_threads():
    if not blas_threads.current():
        pytest.skip("no BLAS library reports its thread count here")
    saved = blas_threads.current()
    for lib in blas_threads._blas_libraries():
        lib.set_num_threads(2)
    yield
    for lib, n in zip(blas_threads._blas_libraries(), saved):
        lib.set_num_threads(n)


def test_one_thread_inside_and_the_limit_back_after(two_blas_threads):
    with blas_threads.one_thread():
        assert set(blas_threads.current()) == {1}
        with blas_threads.one_thread():
            assert set(blas_threads.current()) == {1}
        assert set(blas_threads.current()) == {1}
    assert set(blas_threads.current()) == {2}


class _FakeBlas:
    """A BLAS controller whose thread count is process-wide, as OpenBLAS's may not be
    when set from a thread other than the main one."""

    def __init__(self, n: int):
        self.num_threads = n

    def set_num_threads(self, n: int) -> None:
        self.num_threads = n


def test_overlapping_threads_restore_only_when_the_last_leaves(monkeypatch):
    fake = _FakeBlas(2)
    monkeypatch.setattr(blas_threads, "_libs", [fake])
    entered, release = threading.Event(), threading.Event()

    def other() -> None:
        with blas_threads.one_thread():
            entered.set()
            release.wait(10)

    t = threading.Thread(target=other)
    t.start()
    assert entered.wait(10)
    assert fake.num_threads == 1
    with blas_threads.one_thread():
        assert fake.num_threads == 1
    # The other thread is still inside: leaving first must not raise the limit.
    assert fake.num_threads == 1
    release.set()
    t.join(10)
    assert fake.num_threads == 2


class _Ctx:
    op_name = "lstm"
    attrs = {"forget_bias": 1.0}

    def __init__(self):
        self.state = {}


def test_lstm_sequence_kernels_restore_the_limit_even_on_error(two_blas_threads):
    rng = np.random.default_rng(0)
    steps, batch, n_in, units = 3, 2, 4, 5
    x = rng.standard_normal((steps, batch, n_in)).astype(np.float32)
    c0 = np.zeros((batch, units), np.float32)
    w = rng.standard_normal((n_in + units, 4 * units)).astype(np.float32)
    b = np.zeros(4 * units, np.float32)
    h_seq, c_seq, gates, c_last, h_last = rnn_kernels._fused_lstm_sequence(
        _Ctx(), x, c0, c0, w, b)
    assert set(blas_threads.current()) == {2}
    # The values are the step-by-step recurrence's.
    h, c = c0, c0
    sig = lambda z: 1 / (1 + np.exp(-z))  # noqa: E731
    for t in range(steps):
        z = np.concatenate([x[t], h], 1) @ w + b
        i, j, f, o = np.split(z, 4, 1)
        c = sig(f + 1.0) * c + sig(i) * np.tanh(j)
        h = sig(o) * np.tanh(c)
        np.testing.assert_allclose(h_seq[t], h, rtol=1e-4, atol=1e-5)
    zeros = np.zeros_like(h_seq)
    grads = rnn_kernels._fused_lstm_sequence_grad(
        _Ctx(), x, c0, c0, w, b, h_seq, c_seq, gates, np.ones_like(h_seq), zeros,
        c0, c0)
    assert grads[3].shape == w.shape
    assert set(blas_threads.current()) == {2}
    with pytest.raises(ValueError):
        with blas_threads.one_thread():
            raise ValueError("a kernel failed")
    assert set(blas_threads.current()) == {2}
