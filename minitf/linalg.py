"""`tf.linalg`: matrix products, inverse, determinant, norms."""

from minitf.ops.array_ops import eye  # noqa: F401
from minitf.ops.guide_ops import adjoint, global_norm, l2_normalize, matrix_transpose, matvec  # noqa: F401
from minitf.ops.linalg_ops import det, inv, matmul, norm, solve, tensordot, trace  # noqa: F401
from minitf.ops.matrix_ops import band_part, diag, diag_part, einsum  # noqa: F401
