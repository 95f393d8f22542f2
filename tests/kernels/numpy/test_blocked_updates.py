"""The blocked, multithreaded optimizer updates of large variables against the
whole-array numpy updates they replace (Adam with and without Nesterov, momentum with
and without Nesterov, gradient descent), on sizes that end in a partial block."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from tensorfleet.kernels.numpy import blocked_updates
from tensorfleet.kernels.onednn import threads

SETTINGS = settings(max_examples=12, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def small_blocks():
    """Small variables take the blocked path, in many small blocks, on two threads."""
    saved = blocked_updates.BLOCK, blocked_updates.MIN_SIZE, threads._limit
    blocked_updates.BLOCK, blocked_updates.MIN_SIZE = 64, 1
    threads.set_limit(2)
    yield
    blocked_updates.BLOCK, blocked_updates.MIN_SIZE, threads._limit = saved


def _arrays(seed: int, shape, dtype, count: int):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(dtype) for _ in range(count)]


shapes = st.lists(st.integers(1, 40), min_size=1, max_size=3)
dtypes = st.sampled_from([np.float32, np.float64])


@SETTINGS
@given(shape=shapes, dtype=dtypes, nesterov=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_adam_matches_the_whole_array_update(small_blocks, shape, dtype, nesterov, seed):
    var, m, g = _arrays(seed, shape, dtype, 3)
    v = np.abs(_arrays(seed + 1, shape, dtype, 1)[0])
    lr, b1, b2, eps = 0.01, 0.9, 0.999, 1e-7
    m_want = m * b1 + g * (1 - b1)
    v_want = v * b2 + g * g * (1 - b2)
    step = (m_want * b1 + g * (1 - b1)) if nesterov else m_want
    var_want = var - lr * step / (np.sqrt(v_want) + eps)
    assert blocked_updates.applies(var, m, v, g)
    blocked_updates.adam(var, m, v, g, lr, b1, b2, eps, nesterov)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(m, m_want, rtol=tol, atol=tol)
    np.testing.assert_allclose(v, v_want, rtol=tol, atol=tol)
    np.testing.assert_allclose(var, var_want, rtol=tol, atol=tol)
    assert var.dtype == dtype


@SETTINGS
@given(shape=shapes, dtype=dtypes, nesterov=st.booleans(), seed=st.integers(0, 2 ** 16))
def test_momentum_and_gradient_descent_match_the_whole_array_update(small_blocks, shape, dtype,
                                                                    nesterov, seed):
    var, acc, g = _arrays(seed, shape, dtype, 3)
    acc_want = acc * 0.9 + g
    var_want = var - 0.1 * ((g + acc_want * 0.9) if nesterov else acc_want)
    blocked_updates.momentum(var, acc, g, 0.1, 0.9, nesterov)
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(acc, acc_want, rtol=tol, atol=tol)
    np.testing.assert_allclose(var, var_want, rtol=tol, atol=tol)
    want = var - 0.5 * g
    blocked_updates.gradient_descent(var, g, 0.5)
    np.testing.assert_allclose(var, want, rtol=tol, atol=tol)


def test_arrays_the_blocked_path_cannot_update_in_place_are_left_to_numpy(small_blocks):
    var = np.zeros((8, 8), np.float32)
    assert not blocked_updates.applies(var, np.zeros((8, 8), np.float64))
    assert not blocked_updates.applies(var, np.zeros((8, 8), np.float32).T[:, :4])
    assert not blocked_updates.applies(np.zeros((8, 8), np.int32))
    frozen = np.zeros((8, 8), np.float32)
    frozen.flags.writeable = False
    assert not blocked_updates.applies(frozen)


def test_an_adam_step_through_the_optimizer_takes_the_blocked_path(small_blocks):
    import tensorfleet as tf
    from unittest import mock
    init = np.linspace(-1, 1, 600, dtype=np.float32).reshape(20, 30)
    with tf.Graph().as_default():
        w = tf.Variable(init)
        loss = tf.reduce_sum(tf.square(w))
        train = tf.train.AdamOptimizer(0.1).minimize(loss)
        with tf.Session() as sess, \
                mock.patch.object(blocked_updates, "adam", wraps=blocked_updates.adam) as spy:
            sess.run(tf.global_variables_initializer())
            sess.run(train)
            got = sess.run(w)
    assert spy.call_count == 1
    # The first Adam step: m = (1 - b1) g, v = (1 - b2) g^2, with the bias-corrected rate.
    g = 2 * init.astype(np.float64)
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    want = init - lr_t * (1 - 0.9) * g / (np.sqrt(1 - 0.999) * np.abs(g) + 1e-8)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
