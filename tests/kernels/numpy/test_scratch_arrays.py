"""Work arrays lent to kernels: the same memory is lent again once given back, two
borrowed at once are distinct, and the arrays kept stay under the byte bound."""

from __future__ import annotations

import numpy as np
import pytest

from tensorfleet.kernels.numpy import scratch_arrays


@pytest.fixture(autouse=True)
def empty_pool():
    scratch_arrays.clear()
    yield
    scratch_arrays.clear()


def test_an_array_given_back_is_lent_again():
    with scratch_arrays.borrowed((3, 4), np.float32) as a:
        assert a.shape == (3, 4) and a.dtype == np.float32 and a.flags.c_contiguous
        with scratch_arrays.borrowed((3, 4), np.float32) as b:
            assert not np.shares_memory(a, b)
    assert scratch_arrays.held_bytes() == 2 * a.nbytes
    with scratch_arrays.borrowed((3, 4), np.float32) as c:
        assert c is a or c is b
    with scratch_arrays.borrowed((3, 4), np.float64) as d:
        assert d.dtype == np.float64 and d is not a and d is not b


def test_the_arrays_kept_stay_under_the_bound(monkeypatch):
    monkeypatch.setattr(scratch_arrays, "MAX_BYTES", 1000)
    with scratch_arrays.borrowed((100,), np.float32) as old:
        pass
    with scratch_arrays.borrowed((150,), np.float32):
        pass
    # 400 + 600 bytes fit; an array of 800 bytes more drops the oldest until it fits.
    assert scratch_arrays.held_bytes() == 1000
    with scratch_arrays.borrowed((100,), np.float64):
        pass
    assert scratch_arrays.held_bytes() == 800
    with scratch_arrays.borrowed((100,), np.float32) as again:
        assert again is not old
    # An array larger than the bound is never kept.
    with scratch_arrays.borrowed((1000,), np.float32):
        pass
    assert scratch_arrays.held_bytes() <= 1000
