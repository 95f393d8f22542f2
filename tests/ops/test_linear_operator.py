"""``tf.linalg.LinearOperator*``: every operator's dense form against a numpy
construction, and its products, solves, determinants, diagonals and adjoints against the
same dense matrix; ``conjugate_gradient`` against ``numpy.linalg.solve``; gradients
through operators numerically."""

import numpy as np
import pytest

import tensorfleet as tf
from tensorfleet.testing.gradient_checker import check_gradients

la = tf.linalg
RNG = np.random.RandomState(0)
SQ = RNG.randn(2, 3, 3) + 3 * np.eye(3)
SPD = SQ @ SQ.transpose(0, 2, 1) + np.eye(3)
V = RNG.randn(3)


def _run(*ts):
    with tf.Session() as s:
        return s.run(list(ts))


def _toeplitz(col, row):
    n = len(col)
    return np.array([[col[i - j] if i >= j else row[j - i] for j in range(n)]
                     for i in range(n)])


def _tridiag(sup, main, sub):
    return np.diag(main) + np.diag(sup[:-1], 1) + np.diag(sub[1:], -1)


def _circulant(spec):
    n = spec.shape[-1]
    return np.stack([np.fft.ifft(spec * np.fft.fft(e)) for e in np.eye(n)], -1)


def _circulant2d(spec):
    n0, n1 = spec.shape
    cols = [np.fft.ifft2(spec * np.fft.fft2(e.reshape(n0, n1))).reshape(-1)
            for e in np.eye(n0 * n1)]
    return np.stack(cols, -1)


D = RNG.rand(3) + 0.5
U = RNG.randn(3, 2)
CASES = {
    "full": (lambda: la.LinearOperatorFullMatrix(SQ), SQ),
    "diag": (lambda: la.LinearOperatorDiag(D), np.diag(D)),
    "tril": (lambda: la.LinearOperatorLowerTriangular(SQ), np.tril(SQ)),
    "identity": (lambda: la.LinearOperatorIdentity(3, batch_shape=[2], dtype=tf.float64),
                 np.tile(np.eye(3), (2, 1, 1))),
    "scaled": (lambda: la.LinearOperatorScaledIdentity(3, np.array([2.0, -0.5])),
               np.array([2.0, -0.5])[:, None, None] * np.eye(3)),
    "householder": (lambda: la.LinearOperatorHouseholder(V),
                    np.eye(3) - 2 * np.outer(V, V) / V.dot(V)),
    "permutation": (lambda: la.LinearOperatorPermutation([1, 2, 0], dtype=tf.float64),
                    np.eye(3)[[1, 2, 0]]),
    "toeplitz": (lambda: la.LinearOperatorToeplitz([3.0, 2.0, 1.0], [9.0, 0.5, 0.25]),
                 _toeplitz([3.0, 2.0, 1.0], [9.0, 0.5, 0.25])),
    "tridiag": (lambda: la.LinearOperatorTridiag(np.array([[1.0, 2.0, 0.0], [4.0, 5.0, 6.0],
                                                            [0.0, 0.5, 1.5]])),
                _tridiag([1.0, 2.0, 0.0], [4.0, 5.0, 6.0], [0.0, 0.5, 1.5])),
    "lowrank": (lambda: la.LinearOperatorLowRankUpdate(la.LinearOperatorDiag(D), U,
                                                       diag_update=[2.0, 3.0]),
                np.diag(D) + U @ np.diag([2.0, 3.0]) @ U.T),
    "adjoint": (lambda: la.LinearOperatorAdjoint(la.LinearOperatorFullMatrix(SQ)),
                SQ.transpose(0, 2, 1)),
    "inversion": (lambda: la.LinearOperatorInversion(la.LinearOperatorFullMatrix(SQ)),
                  np.linalg.inv(SQ)),
    "composition": (lambda: la.LinearOperatorComposition([
        la.LinearOperatorFullMatrix(SQ), la.LinearOperatorDiag(D)]), SQ @ np.diag(D)),
    "blockdiag": (lambda: la.LinearOperatorBlockDiag([
        la.LinearOperatorFullMatrix(SQ[0, :2, :2]), la.LinearOperatorDiag(D)]),
        np.block([[SQ[0, :2, :2], np.zeros((2, 3))], [np.zeros((3, 2)), np.diag(D)]])),
    "blocklower": (lambda: la.LinearOperatorBlockLowerTriangular([
        [la.LinearOperatorFullMatrix(SQ[0, :2, :2])],
        [la.LinearOperatorFullMatrix(SQ[1, :1, :2]),
         la.LinearOperatorFullMatrix(np.array([[2.5]]))]]),
        np.block([[SQ[0, :2, :2], np.zeros((2, 1))], [SQ[1, :1, :2], np.array([[2.5]])]])),
    "kronecker": (lambda: la.LinearOperatorKronecker([
        la.LinearOperatorFullMatrix(SQ[0, :2, :2]), la.LinearOperatorFullMatrix(SQ[1])]),
        np.kron(SQ[0, :2, :2], SQ[1])),
    "circulant": (lambda: la.LinearOperatorCirculant(np.array([4.0, 1 + 1j, 2.0, 1 - 1j]),
                                                     input_output_dtype=tf.complex128),
                  _circulant(np.array([4.0, 1 + 1j, 2.0, 1 - 1j]))),
    "circulant2d": (lambda: la.LinearOperatorCirculant2D(
        np.array([[5.0, 1.0], [2.0, 3.0]]), input_output_dtype=tf.complex128),
        _circulant2d(np.array([[5.0, 1.0], [2.0, 3.0]]))),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_operator_matches_its_dense_matrix(case):
    make, want = CASES[case]
    op = make()
    assert op.shape.as_list() == list(want.shape)
    x = RNG.randn(*(want.shape[:-2] + (want.shape[-1], 2))).astype(want.dtype)
    fetch = [op.to_dense(), op.matmul(x), op.matmul(x, adjoint=True) if want.shape[-1] ==
             want.shape[-2] else op.to_dense(), op.diag_part(), op.trace(), op.add_to_tensor(want)]
    square = want.shape[-1] == want.shape[-2]
    if square:
        fetch += [op.solve(x), op.determinant(), op.log_abs_determinant(), op.matvec(x[..., 0]),
                  op.solvevec(x[..., 0], adjoint=True), op.adjoint().to_dense(),
                  op.inverse().to_dense()]
    out = _run(*fetch)
    wh = np.conj(np.swapaxes(want, -1, -2))
    ref = [want, want @ x, wh @ x if square else want, np.diagonal(want, 0, -2, -1),
           np.trace(want, 0, -2, -1), 2 * want]
    if square:
        ref += [np.linalg.solve(want, x), np.linalg.det(want),
                np.log(np.abs(np.linalg.det(want))), (want @ x)[..., 0],
                np.linalg.solve(wh, x[..., :1])[..., 0], wh, np.linalg.inv(want)]
    # float32 products summed in another order than numpy's differ by a few ulps of the
    # largest term, which is large next to an entry that cancels to near zero.
    tol = 1e-5 if want.dtype in (np.float32, np.complex64) else 1e-6
    for i, (o, r) in enumerate(zip(out, ref)):
        scale = float(np.max(np.abs(r))) if np.size(r) else 0.0
        np.testing.assert_allclose(o, r, rtol=tol, atol=tol * scale + 1e-8,
                                   err_msg=f"output {i}")


def test_zeros_and_hints():
    z = la.LinearOperatorZeros(2, 3, dtype=tf.float64)
    dense, prod = _run(z.to_dense(), z.matmul(np.ones((3, 1))))
    np.testing.assert_array_equal(dense, np.zeros((2, 3)))
    np.testing.assert_array_equal(prod, np.zeros((2, 1)))
    assert z.is_square is False and z.domain_dimension == 3 and z.range_dimension == 2
    with pytest.raises(ValueError, match="square"):
        z.determinant()
    with pytest.raises(ValueError, match="singular"):
        la.LinearOperatorZeros(2).solve(np.ones((2, 1)))
    with pytest.raises(ValueError, match="self-adjoint positive definite"):
        la.LinearOperatorFullMatrix(SQ).cholesky()
    op = la.LinearOperatorFullMatrix(SPD, is_self_adjoint=True, is_positive_definite=True)
    chol, eig = _run(op.cholesky().to_dense(), op.eigvals())
    np.testing.assert_allclose(chol, np.linalg.cholesky(SPD), rtol=1e-8)
    np.testing.assert_allclose(eig, np.linalg.eigvalsh(SPD), rtol=1e-8)
    assert isinstance(op.matmul(la.LinearOperatorDiag(D)), la.LinearOperatorComposition)


def test_conjugate_gradient_solves_spd_systems():
    op = la.LinearOperatorFullMatrix(SPD, is_self_adjoint=True, is_positive_definite=True)
    b = RNG.randn(2, 3)
    state = la.experimental.conjugate_gradient(op, b, tol=1e-10, max_iter=10)
    pre = la.experimental.conjugate_gradient(
        op, b, preconditioner=la.LinearOperatorDiag(1.0 / np.diagonal(SPD, 0, 1, 2)),
        tol=1e-10, max_iter=10)
    i, x, r, xp = _run(state.i, state.x, state.r, pre.x)
    want = np.linalg.solve(SPD, b[..., None])[..., 0]
    np.testing.assert_allclose(x, want, rtol=1e-8)
    np.testing.assert_allclose(xp, want, rtol=1e-8)
    assert 1 <= i <= 4 and np.abs(r).max() < 1e-8
    with pytest.raises(ValueError, match="self-adjoint positive definite"):
        la.experimental.conjugate_gradient(la.LinearOperatorFullMatrix(SQ), b)


def test_gradients_flow_through_operators():
    x = RNG.randn(3, 2)
    check_gradients(lambda m: la.LinearOperatorFullMatrix(m).solve(x), [SQ[0]])
    check_gradients(lambda d: la.LinearOperatorDiag(d).log_abs_determinant(), [D])
    check_gradients(lambda c, r: la.LinearOperatorToeplitz(c, r).matmul(x),
                    [np.array([3.0, 2.0, 1.0]), np.array([9.0, 0.5, 0.25])])
    check_gradients(lambda v: la.LinearOperatorHouseholder(v).matmul(x), [V])
