"""Linear algebra (tf.matrix_*, tf.linalg, tf.einsum, tf.norm ...): values against numpy,
numerical gradients, errors, and the tf.linalg / tf.math namespaces."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

RNG = np.random.RandomState(11)


def run(t, feed=None):
    with tf.Session() as sess:
        return sess.run(t, feed)


def well_conditioned(*lead, n=3):
    return RNG.randn(*lead, n, n) + 3 * np.eye(n)


def spd(*lead, n=3):
    a = well_conditioned(*lead, n=n)
    return a @ np.swapaxes(a, -1, -2)


def sym(x):
    return (x + tf.matrix_transpose(x)) / 2


def test_inverse_determinant_slogdet():
    a = well_conditioned(2)
    np.testing.assert_allclose(run(tf.matrix_inverse(a)), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(run(tf.matrix_inverse(a, adjoint=True)),
                               np.linalg.inv(np.swapaxes(a, 1, 2)), rtol=1e-10)
    np.testing.assert_allclose(run(tf.matrix_determinant(a)), np.linalg.det(a), rtol=1e-10)
    sign, logabs = run(tf.log_matrix_determinant(-a))
    rs, rl = np.linalg.slogdet(-a)
    np.testing.assert_allclose(sign, rs)
    np.testing.assert_allclose(logabs, rl)
    assert tf.matrix_determinant(a).shape.as_list() == [2]
    check_gradients(tf.matrix_inverse, [a])
    check_gradients(lambda x: tf.matrix_inverse(x, adjoint=True), [a])
    check_gradients(tf.matrix_determinant, [a])
    check_gradients(lambda x: tf.log_matrix_determinant(x)[1], [a])
    with pytest.raises(tf.errors.InvalidArgumentError, match="not invertible"):
        run(tf.matrix_inverse(np.ones((2, 2))))
    with pytest.raises(ValueError, match="equal"):
        tf.matrix_inverse(np.ones((2, 3)))


def test_diag_family_and_band_part():
    d = RNG.randn(2, 3)
    np.testing.assert_array_equal(run(tf.matrix_diag(d))[1], np.diag(d[1]))
    x = RNG.randn(2, 3, 4)
    np.testing.assert_array_equal(run(tf.matrix_diag_part(x)),
                                  np.diagonal(x, axis1=1, axis2=2))
    got = run(tf.matrix_set_diag(x, d))
    np.testing.assert_array_equal(np.diagonal(got, axis1=1, axis2=2), d)
    np.testing.assert_array_equal(got[:, 0, 1:], x[:, 0, 1:])
    for lo, hi in [(1, 0), (0, -1), (-1, 1), (0, 0)]:
        mask = np.ones((3, 4), bool)
        i, j = np.indices((3, 4))
        if lo >= 0:
            mask &= i - j <= lo
        if hi >= 0:
            mask &= j - i <= hi
        np.testing.assert_array_equal(run(tf.matrix_band_part(x, lo, hi)), x * mask)
    assert tf.matrix_diag_part(x).shape.as_list() == [2, 3]
    check_gradients(tf.matrix_diag, [d])
    check_gradients(tf.matrix_diag_part, [x])
    check_gradients(tf.matrix_set_diag, [x, d])
    check_gradients(lambda a: tf.matrix_band_part(a, 1, 0), [x])
    t = RNG.randn(2, 3)
    np.testing.assert_array_equal(run(tf.diag(t)).reshape(6, 6), np.diag(t.reshape(-1)))
    np.testing.assert_array_equal(run(tf.diag_part(tf.diag(t))), t)
    check_gradients(tf.diag, [t])


def test_cholesky_and_solves():
    a = spd(2)
    chol = run(tf.cholesky(a))
    np.testing.assert_allclose(chol, np.linalg.cholesky(a), rtol=1e-10)
    # Only the lower triangle is read.
    junk = a + np.triu(np.ones((3, 3)), 1)
    np.testing.assert_allclose(run(tf.cholesky(junk)), chol, rtol=1e-10)
    check_gradients(lambda x: tf.cholesky(sym(x)), [a])
    b = RNG.randn(2, 3, 2)
    m = well_conditioned(2)
    np.testing.assert_allclose(run(tf.matrix_solve(m, b)), np.linalg.solve(m, b), rtol=1e-10)
    np.testing.assert_allclose(run(tf.matrix_solve(m, b, adjoint=True)),
                               np.linalg.solve(np.swapaxes(m, 1, 2), b), rtol=1e-10)
    np.testing.assert_allclose(run(tf.matrix_triangular_solve(m, b)),
                               np.linalg.solve(np.tril(m), b), rtol=1e-10)
    np.testing.assert_allclose(run(tf.matrix_triangular_solve(m, b, lower=False,
                                                              adjoint=True)),
                               np.linalg.solve(np.swapaxes(np.triu(m), 1, 2), b), rtol=1e-10)
    np.testing.assert_allclose(run(tf.cholesky_solve(chol, b)), np.linalg.solve(a, b),
                               rtol=1e-9)
    for adj in (False, True):
        check_gradients(lambda x, y, adj=adj: tf.matrix_solve(x, y, adjoint=adj), [m, b])
        check_gradients(lambda x, y, adj=adj: tf.matrix_triangular_solve(
            x, y, lower=not adj, adjoint=adj), [m, b])
    with pytest.raises(tf.errors.InvalidArgumentError, match="Cholesky"):
        run(tf.cholesky(-np.eye(2)))


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 3)])
def test_qr(shape):
    x = RNG.randn(*shape)
    q, r = run(tf.qr(x))
    np.testing.assert_allclose(q @ r, x, atol=1e-12)
    np.testing.assert_allclose(np.swapaxes(q, -1, -2) @ q, np.broadcast_to(
        np.eye(q.shape[-1]), q.shape[:-2] + (q.shape[-1],) * 2), atol=1e-12)
    np.testing.assert_allclose(r, np.triu(r))
    check_gradients(lambda a: tf.qr(a).q, [x])
    check_gradients(lambda a: tf.qr(a).r, [x])
    qf, rf = run(tf.qr(RNG.randn(4, 2), full_matrices=True))
    assert qf.shape == (4, 4) and rf.shape == (4, 2)


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 3, 3)])
def test_svd_values_and_gradients(shape):
    x = RNG.randn(*shape)
    s_only = tf.svd(x, compute_uv=False)
    np.testing.assert_allclose(run(s_only), np.linalg.svd(x, compute_uv=False), rtol=1e-10)
    s, u, v = run(tf.svd(x))
    np.testing.assert_allclose((u * s[..., None, :]) @ np.swapaxes(v, -1, -2), x, atol=1e-12)
    check_gradients(lambda a: tf.svd(a, compute_uv=False), [x])
    # u and v are defined up to a sign per column; these products are not.
    check_gradients(lambda a: tf.svd(a)[1] ** 2, [x])
    check_gradients(lambda a: tf.svd(a)[2] ** 2, [x])


def test_eye_trace_norm_tensordot():
    np.testing.assert_array_equal(run(tf.eye(2, 3, batch_shape=[2], dtype=tf.int32)),
                                  np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    x = RNG.randn(2, 3, 3)
    np.testing.assert_allclose(run(tf.trace(x)), np.trace(x, axis1=1, axis2=2))
    check_gradients(tf.trace, [x])
    v = RNG.randn(3, 4)
    cases = [({}, np.linalg.norm(v)), ({"ord": 1, "axis": 1}, np.abs(v).sum(1)),
             ({"ord": np.inf, "axis": 0}, np.abs(v).max(0)),
             ({"ord": 3, "axis": 1}, (np.abs(v) ** 3).sum(1) ** (1 / 3)),
             ({"ord": "fro", "axis": [0, 1]}, np.linalg.norm(v, "fro")),
             ({"ord": 1, "axis": [0, 1]}, np.linalg.norm(v, 1)),
             ({"ord": np.inf, "axis": [0, 1]}, np.linalg.norm(v, np.inf))]
    for kwargs, ref in cases:
        np.testing.assert_allclose(run(tf.norm(v, **kwargs)), ref, rtol=1e-12)
    assert run(tf.norm(v, axis=1, keepdims=True)).shape == (3, 1)
    check_gradients(lambda a: tf.norm(a, ord=3, axis=1), [v])
    check_gradients(lambda a: tf.norm(a, ord="fro", axis=[0, 1]), [v])
    with pytest.raises(ValueError, match="ord"):
        tf.norm(v, ord=2, axis=[0, 1])
    np.testing.assert_allclose(run(tf.tensordot(v, x[0], [[0], [0]])), v.T @ x[0])


@pytest.mark.parametrize("eq,shapes", [
    ("ij,jk->ik", [(2, 3), (3, 4)]), ("bij,bjk->bik", [(2, 2, 3), (2, 3, 4)]),
    ("ij->ji", [(2, 3)]), ("ij,k->ijk", [(2, 3), (4,)]), ("ij,ij", [(2, 3), (2, 3)]),
    ("...ij,...jk", [(2, 2, 3), (2, 3, 4)]), ("bij,jk->b", [(2, 3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)])])
def test_einsum_values_and_gradients(eq, shapes):
    xs = [RNG.randn(*s) for s in shapes]
    out = tf.einsum(eq, *xs)
    np.testing.assert_allclose(run(out), np.einsum(eq, *xs), rtol=1e-12)
    if "..." not in eq:
        assert out.shape.as_list() == list(np.einsum(eq, *xs).shape)
    check_gradients(lambda *a: tf.einsum(eq, *a), xs)


def test_einsum_errors_and_namespaces():
    with pytest.raises(ValueError, match="operands"):
        tf.einsum("ij,jk->ik", np.ones((2, 2)))
    with pytest.raises(ValueError, match="malformed"):
        tf.einsum("ij;jk", np.ones((2, 2)), np.ones((2, 2)))
    a = well_conditioned()
    assert tf.linalg.inv is tf.matrix_inverse and tf.linalg.det is tf.matrix_determinant
    b = spd()
    np.testing.assert_allclose(run(tf.linalg.logdet(b)), np.linalg.slogdet(b)[1], rtol=1e-10)
    check_gradients(lambda x: tf.linalg.logdet(sym(x)), [b])
    np.testing.assert_allclose(run(tf.linalg.matvec(a, np.ones(3))), a @ np.ones(3))
    np.testing.assert_allclose(run(tf.linalg.band_part(a, 0, 0)), np.diag(np.diag(a)))
    for name in ("reduce_sum", "log1p", "maximum", "top_k", "bincount", "zero_fraction",
                 "unsorted_segment_sum", "is_nan", "squared_difference"):
        assert callable(getattr(tf.math, name)), name
    np.testing.assert_allclose(run(tf.math.reduce_sum(a)), a.sum())
