"""`tf.linalg`: matrix products, inverse, determinant, norms."""

from minitf.ops.array.creation import eye  # noqa: F401
from minitf.ops.linalg.composed import (  # noqa: F401
    cross,
    matrix_rank,
    normalize,
    pinv,
    set_diag,
    svd,
    tensor_diag,
    tensor_diag_part,
)
from minitf.ops.linalg.decomposition_ops import (  # noqa: F401
    cholesky,
    cholesky_solve,
    eigh,
    eigvalsh,
    logdet,
    slogdet,
    triangular_solve,
)
from minitf.ops.linalg.factorizations import (  # noqa: F401
    expm,
    lstsq,
    lu,
    lu_matrix_inverse,
    lu_reconstruct,
    lu_solve,
    qr,
)
from minitf.ops.linalg.linalg_ops import (  # noqa: F401
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
from minitf.ops.linalg.matrix_ops import band_part, diag, diag_part, einsum  # noqa: F401
from minitf.ops.linalg.norms import global_norm, l2_normalize, norm  # noqa: F401
