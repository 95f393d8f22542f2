"""``tf.linalg.expm`` / ``logm`` / ``sqrtm``, the LU family (``lu``, ``lu_reconstruct``,
``lu_solve``, ``lu_matrix_inverse``) and the tridiagonal ops (``tridiagonal_matmul``,
``tridiagonal_solve``, ``eigh_tridiagonal``) against numpy/scipy, with gradients
checked numerically."""

import numpy as np
import pytest
import scipy.linalg as sl

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

la = tf.linalg
RNG = np.random.RandomState(0)
A = RNG.randn(2, 3, 3) * 0.5
SPD = A @ A.transpose(0, 2, 1) + np.eye(3)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def test_matrix_functions_match_scipy():
    e, q, lg, q2 = _run(la.expm(A), la.sqrtm(SPD), la.logm(SPD.astype(np.complex128)),
                        tf.matrix_square_root(SPD.astype(np.float32)))
    for i in range(2):
        np.testing.assert_allclose(e[i], sl.expm(A[i]), rtol=1e-10)
        np.testing.assert_allclose(q[i], sl.sqrtm(SPD[i]).real, rtol=1e-8)
        np.testing.assert_allclose(lg[i], sl.logm(SPD[i]), rtol=1e-8, atol=1e-10)
    assert q2.dtype == np.float32
    check_gradients(la.expm, [A])
    check_gradients(la.sqrtm, [SPD])
    with pytest.raises(TypeError, match="complex64 or complex128"):
        la.logm(SPD)
    with pytest.raises(ValueError, match="square"):
        la.expm(np.ones((2, 3)))


def test_lu_family():
    lu, p = la.lu(A)
    rhs = RNG.randn(2, 3, 2)
    packed, perm, rec, sol, inv = _run(lu, p, la.lu_reconstruct(lu, p),
                                       la.lu_solve(lu, p, rhs),
                                       la.lu_matrix_inverse(lu, p, validate_args=True))
    for i in range(2):
        low = np.tril(packed[i], -1) + np.eye(3)
        np.testing.assert_allclose(A[i][perm[i]], low @ np.triu(packed[i]), atol=1e-12)
    assert perm.dtype == np.int32
    np.testing.assert_allclose(rec, A, atol=1e-12)
    np.testing.assert_allclose(sol, np.linalg.solve(A, rhs), rtol=1e-10)
    np.testing.assert_allclose(inv, np.linalg.inv(A), rtol=1e-10)
    check_gradients(lambda x: la.lu(x).lu, [A])
    check_gradients(lambda x: la.lu_solve(*la.lu(x), rhs), [A])
    bad = la.lu_reconstruct(lu, tf.constant([[0, 1, 5], [0, 1, 2]]), validate_args=True)
    with pytest.raises(tf.errors.InvalidArgumentError):
        _run(bad)
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        _run(la.lu(np.zeros((2, 2))).lu)


def _dense(d):
    n = d.shape[-1]
    out = np.zeros(d.shape[:-2] + (n, n))
    for i in range(n):
        out[..., i, i] = d[..., 1, i]
        if i < n - 1:
            out[..., i, i + 1] = d[..., 0, i]
        if i > 0:
            out[..., i, i - 1] = d[..., 2, i]
    return out


def test_tridiagonal_products_and_solves():
    d = RNG.randn(2, 3, 4)
    d[:, 1] += 4.0
    b = RNG.randn(2, 4, 2)
    seq = (d[:, 0], d[:, 1], d[:, 2])
    out = _run(la.tridiagonal_matmul(d, b), la.tridiagonal_matmul(_dense(d), b, "matrix"),
               la.tridiagonal_matmul(seq, b, "sequence"), la.tridiagonal_solve(d, b),
               la.tridiagonal_solve(d, b, partial_pivoting=False),
               la.tridiagonal_solve(_dense(d), b[..., 0], "matrix"),
               la.tridiagonal_solve(seq, np.swapaxes(b, -1, -2), "sequence",
                                    transpose_rhs=True))
    full = _dense(d)
    want = np.linalg.solve(full, b)
    for o, r in zip(out, [full @ b, full @ b, full @ b, want, want, want[..., 0], want]):
        np.testing.assert_allclose(o, r, rtol=1e-9, atol=1e-12)
    check_gradients(lambda dd, bb: la.tridiagonal_solve(dd, bb), [d, b])
    check_gradients(lambda dd, bb: la.tridiagonal_matmul(dd, bb), [d, b])
    with pytest.raises(ValueError, match="perturb_singular"):
        la.tridiagonal_solve(d, b, perturb_singular=True)
    with pytest.raises(ValueError, match="diagonals_format"):
        la.tridiagonal_matmul(d, b, "banded")
    singular = np.zeros((3, 4))
    with pytest.raises(tf.errors.InvalidArgumentError, match="singular"):
        _run(la.tridiagonal_solve(singular, b[0]))


def test_eigh_tridiagonal():
    alpha, beta = RNG.randn(5), RNG.randn(4)
    w, (w2, v), sel = _run(la.eigh_tridiagonal(alpha, beta),
                           la.eigh_tridiagonal(alpha, beta, eigvals_only=False),
                           la.eigh_tridiagonal(alpha, beta, select="i", select_range=(1, 2)))
    full = np.diag(alpha) + np.diag(beta, 1) + np.diag(beta, -1)
    np.testing.assert_allclose(w, np.linalg.eigvalsh(full), rtol=1e-10)
    np.testing.assert_allclose(full @ v, v * w2, atol=1e-10)
    np.testing.assert_allclose(sel, np.linalg.eigvalsh(full)[1:3], rtol=1e-10)
    with pytest.raises(ValueError, match="select_range"):
        la.eigh_tridiagonal(alpha, beta, select="v")
