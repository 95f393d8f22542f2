"""Big element-wise results computed a block at a time on the kernel threads give the
values of the one numpy call, and only inputs that split cleanly take that path."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from tensorfleet.kernels.numpy import parallel_tasks, pooled_output
from tensorfleet.kernels.numpy.pooled_output import SPLIT_MIN_BYTES, pooled_ufunc
from tensorfleet.kernels.onednn import threads

# Just over the split size, and not a whole number of blocks: the last one is short.
N = SPLIT_MIN_BYTES // 4 + 12345


@pytest.fixture
def split_calls(monkeypatch):
    monkeypatch.setattr(threads, "spare", lambda: 2)
    assert parallel_tasks.spare_thread_count() == 2
    calls = []
    run = parallel_tasks.run

    def counting(tasks, spare=False):
        assert spare
        calls.append(len(tasks))
        return run(tasks, spare)

    monkeypatch.setattr(parallel_tasks, "run", counting)
    return calls


def test_split_results_equal_numpy_for_scalars_and_same_shaped_arrays(split_calls):
    rng = np.random.RandomState(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    one = np.array(1.0, np.float32)
    np.testing.assert_array_equal(pooled_ufunc(np.add)(x, one), x + one)
    np.testing.assert_array_equal(pooled_ufunc(np.multiply)(x, y), x * y)
    np.testing.assert_array_equal(pooled_ufunc(np.tanh)(x), np.tanh(x))
    m = x[:N - N % 64].reshape(-1, 64)
    got = pooled_ufunc(np.subtract)(m, np.ones((1, 1), np.float32))
    assert got.shape == m.shape
    np.testing.assert_array_equal(got, m - 1.0)
    blocks = -(-N // pooled_output.SPLIT_BLOCK)
    assert split_calls[:3] == [blocks] * 3 and len(split_calls) == 4


def test_broadcast_strided_or_small_inputs_take_the_one_call(split_calls):
    rng = np.random.RandomState(1)
    m = rng.standard_normal((N // 64, 64)).astype(np.float32)
    row = rng.standard_normal(64).astype(np.float32)
    np.testing.assert_array_equal(pooled_ufunc(np.add)(m, row), m + row)
    t = m.T
    np.testing.assert_array_equal(pooled_ufunc(np.add)(t, t), t + t)
    small = m[:100]
    np.testing.assert_array_equal(pooled_ufunc(np.add)(small, small), small + small)
    assert split_calls == []


def test_one_spare_core_takes_the_one_call(split_calls, monkeypatch):
    monkeypatch.setattr(threads, "spare", lambda: 1)
    x = np.ones(N, np.float32)
    np.testing.assert_array_equal(pooled_ufunc(np.add)(x, x), x + x)
    assert split_calls == []


def test_the_callers_floating_point_error_state_holds_on_every_thread(split_calls):
    big = np.full(N, 3e38, np.float32)
    ten = np.array(10.0, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(over="ignore"):
            assert np.isinf(pooled_ufunc(np.multiply)(big, ten)).all()
        with np.errstate(over="raise"):
            with pytest.raises(FloatingPointError):
                pooled_ufunc(np.multiply)(big, ten)
    assert len(split_calls) == 2
