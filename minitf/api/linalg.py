"""`tf.linalg`: matrix products, inverse, determinant, norms."""

from minitf.ops.array.creation import eye
from minitf.ops.linalg.decomposition_ops import (
    cholesky,
    cholesky_solve,
    eigh,
    eigvalsh,
    logdet,
    slogdet,
    triangular_solve,
)
from minitf.ops.linalg.einsum import einsum
from minitf.ops.linalg.factorizations import (
    expm,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    qr,
)
from minitf.ops.linalg.linalg_ops import (
    adjoint,
    det,
    inv,
    matmul,
    matrix_transpose,
    matvec,
    solve,
    tensordot,
    trace,
)
from minitf.ops.linalg.matrix_ops import band_part, cross, diag, diag_part, set_diag, tensor_diag, tensor_diag_part
from minitf.ops.linalg.norms import global_norm, l2_normalize, matrix_rank, norm, normalize, pinv, svd
