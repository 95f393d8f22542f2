"""``tf.linalg``: linear algebra under its ``tf.linalg`` names."""

from tensorfleet.ops.linalg_ops import (adjoint,
    matrix_band_part as band_part, cholesky, cholesky_solve, matrix_determinant as det,
    matrix_diag as diag, matrix_diag_part as diag_part, self_adjoint_eig as eigh,
    self_adjoint_eigvals as eigvalsh, einsum, eye, matrix_inverse as inv, logdet,
    matrix_transpose, matvec, norm, qr, matrix_set_diag as set_diag,
    log_matrix_determinant as slogdet, matrix_solve as solve, svd, diag as tensor_diag,
    diag_part as tensor_diag_part, trace, matrix_transpose as transpose,
    matrix_triangular_solve as triangular_solve)
from tensorfleet.ops.math_ops_core import (matmul, tensordot)
from tensorfleet.ops.math_ops_reduce import global_norm
from tensorfleet.ops.nn_ops import l2_normalize

from tensorfleet.ops.linalg_composite_ops import (cross, lstsq, matrix_rank, normalize,
    pinv)
from tensorfleet.ops.linear_operator import (LinearOperator, LinearOperatorAdjoint,
    LinearOperatorComposition, LinearOperatorInversion)
from tensorfleet.ops.linear_operator_blocks import (LinearOperatorBlockDiag,
    LinearOperatorBlockLowerTriangular, LinearOperatorCirculant, LinearOperatorCirculant2D,
    LinearOperatorCirculant3D, LinearOperatorKronecker)
from tensorfleet.ops.linear_operator_matrices import (LinearOperatorDiag,
    LinearOperatorFullMatrix, LinearOperatorHouseholder, LinearOperatorIdentity,
    LinearOperatorLowerTriangular, LinearOperatorLowRankUpdate, LinearOperatorPermutation,
    LinearOperatorScaledIdentity, LinearOperatorToeplitz, LinearOperatorTridiag,
    LinearOperatorZeros)
from tensorfleet.ops.lu_ops import (lu, lu_matrix_inverse, lu_reconstruct, lu_solve)
from tensorfleet.ops.matrix_functions import (expm, logm, sqrtm)
from tensorfleet.ops.tridiagonal_ops import (eigh_tridiagonal, tridiagonal_matmul,
    tridiagonal_solve)

from tensorfleet.api import linalg_experimental as experimental

__all__ = ["LinearOperator", "LinearOperatorAdjoint", "LinearOperatorBlockDiag",
           "LinearOperatorBlockLowerTriangular", "LinearOperatorCirculant",
           "LinearOperatorCirculant2D", "LinearOperatorCirculant3D", "LinearOperatorComposition",
           "LinearOperatorDiag", "LinearOperatorFullMatrix", "LinearOperatorHouseholder",
           "LinearOperatorIdentity", "LinearOperatorInversion", "LinearOperatorKronecker",
           "LinearOperatorLowRankUpdate", "LinearOperatorLowerTriangular",
           "LinearOperatorPermutation", "LinearOperatorScaledIdentity", "LinearOperatorToeplitz",
           "LinearOperatorTridiag", "LinearOperatorZeros", "adjoint", "band_part", "cholesky",
           "cholesky_solve", "cross", "det", "diag", "diag_part", "eigh", "eigh_tridiagonal",
           "eigvalsh", "einsum", "experimental", "expm", "eye", "global_norm", "inv",
           "l2_normalize", "logdet", "logm", "lstsq", "lu", "lu_matrix_inverse", "lu_reconstruct",
           "lu_solve", "matmul", "matrix_rank", "matrix_transpose", "matvec", "norm", "normalize",
           "pinv", "qr", "set_diag", "slogdet", "solve", "sqrtm", "svd", "tensor_diag",
           "tensor_diag_part", "tensordot", "trace", "transpose", "triangular_solve",
           "tridiagonal_matmul", "tridiagonal_solve"]
