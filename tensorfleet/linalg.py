"""``tf.linalg``: linear algebra under its ``tf.linalg`` names."""

from tensorfleet.ops.linalg_ops import (  # noqa: F401
    adjoint, cholesky, cholesky_solve, einsum, eye, logdet, matrix_transpose, matvec, norm, qr,
    svd, trace)
from tensorfleet.ops.linalg_ops import diag as tensor_diag  # noqa: F401
from tensorfleet.ops.linalg_ops import diag_part as tensor_diag_part  # noqa: F401
from tensorfleet.ops.linalg_ops import log_matrix_determinant as slogdet  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_band_part as band_part  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_determinant as det  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_diag as diag  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_diag_part as diag_part  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_inverse as inv  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_set_diag as set_diag  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_solve as solve  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_transpose as transpose  # noqa: F401
from tensorfleet.ops.linalg_ops import matrix_triangular_solve as triangular_solve  # noqa
from tensorfleet.ops.math_ops import matmul, tensordot  # noqa: F401
from tensorfleet.ops.math_ops import global_norm  # noqa: F401
from tensorfleet.ops.nn_ops import l2_normalize  # noqa: F401
from tensorfleet.ops.linalg_ops import self_adjoint_eig as eigh  # noqa: F401
from tensorfleet.ops.linalg_ops import self_adjoint_eigvals as eigvalsh  # noqa: F401
