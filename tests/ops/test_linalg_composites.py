"""tf.linalg cross, normalize, lstsq / tf.matrix_solve_ls, pinv, matrix_rank and
tf.nn.silu against numpy, gradients numerically."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(4)


def run(t):
    with tf.Session() as s:
        return s.run(t)


def test_cross_and_normalize():
    a, b = RNG.randn(4, 3), RNG.randn(4, 3)
    np.testing.assert_allclose(run(tf.linalg.cross(a, b)), np.cross(a, b))
    check_gradients(lambda x, y: tf.linalg.cross(x, y), [a, b])
    with pytest.raises(ValueError, match="must be 3"):
        tf.linalg.cross(np.ones((2, 2)), np.ones((2, 2)))
    x = RNG.randn(3, 5)
    unit, n = run(tf.linalg.normalize(x, axis=1))
    np.testing.assert_allclose(n, np.linalg.norm(x, axis=1, keepdims=True), rtol=1e-6)
    np.testing.assert_allclose(unit, x / n, rtol=1e-6)


@pytest.mark.parametrize("rows,cols", [(6, 3), (3, 5)])
def test_least_squares_matches_numpy(rows, cols):
    a, b = RNG.randn(rows, cols), RNG.randn(rows, 2)
    want = np.linalg.lstsq(a, b, rcond=None)[0]
    np.testing.assert_allclose(run(tf.matrix_solve_ls(a, b)), want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(run(tf.linalg.lstsq(a, b, fast=False)), want, rtol=1e-6,
                               atol=1e-8)
    lam = 0.3
    ridge = np.linalg.solve(a.T @ a + lam * np.eye(cols), a.T @ b) if rows >= cols else \
        a.T @ np.linalg.solve(a @ a.T + lam * np.eye(rows), b)
    np.testing.assert_allclose(run(tf.linalg.lstsq(a, b, l2_regularizer=lam)), ridge,
                               rtol=1e-6)
    check_gradients(lambda m, r: tf.matrix_solve_ls(m, r), [a, b])
    with pytest.raises(ValueError, match="l2_regularizer"):
        tf.linalg.lstsq(a, b, l2_regularizer=0.1, fast=False)


def test_pinv_and_rank_of_a_rank_deficient_matrix():
    a = RNG.randn(5, 2) @ RNG.randn(2, 4)
    np.testing.assert_allclose(run(tf.linalg.pinv(a)), np.linalg.pinv(a), atol=1e-8)
    assert run(tf.linalg.matrix_rank(a)) == 2
    batch = np.stack([np.eye(3), np.diag([1.0, 0.0, 0.0])])
    np.testing.assert_array_equal(run(tf.linalg.matrix_rank(batch)), [3, 1])
    full = RNG.randn(3, 3)
    check_gradients(lambda m: tf.linalg.pinv(m), [full])


def test_silu():
    x = RNG.randn(4, 3)
    np.testing.assert_allclose(run(tf.nn.silu(x, beta=2.0)), x / (1 + np.exp(-2 * x)))
    check_gradients(lambda t: tf.nn.silu(t, beta=1.5), [x])
