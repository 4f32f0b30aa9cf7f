"""`tf.math`: elementwise math, comparisons and reductions."""

from minitf.api.math import special  # noqa: F401  (tf.math.special: the Bessel functions again)
from minitf.ops.array.positions import invert_permutation  # noqa: F401
from minitf.ops.array.sort_ops import (
    in_top_k,  # noqa: F401
    top_k,  # noqa: F401
)
from minitf.ops.checks.check_ops import is_non_decreasing, is_strictly_increasing  # noqa: F401
from minitf.ops.linalg.norms import l2_normalize  # noqa: F401
from minitf.ops.math.binary_math import accumulate_n, nextafter  # noqa: F401
from minitf.ops.math.complex_ops import angle  # noqa: F401
from minitf.ops.math.reductions import cumulative_logsumexp  # noqa: F401
from minitf.ops.math.segment_ops import (  # noqa: F401  # noqa: F401
    bincount,
    confusion_matrix,
    polyval,
    segment_mean,
    segment_sum,
    unsorted_segment_mean,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from minitf.ops.math.segment_reductions import (  # noqa: F401
    segment_max,
    segment_min,
    segment_prod,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
)
from minitf.ops.math.special import (  # noqa: F401
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    lbeta,  # noqa: F401
    lgamma,
    multiply_no_nan,
    ndtri,
    reciprocal_no_nan,
    rint,
    xdivy,
    xlog1py,
    xlogy,
)
from minitf.ops.math.trigonometry import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, sinh  # noqa: F401
from minitf.ops.math_ops import (  # noqa: F401
    abs,
    add,
    add_n,
    argmax,
    argmin,
    ceil,
    conj,
    cos,
    count_nonzero,
    cumprod,
    cumsum,
    divide,
    divide_no_nan,
    equal,
    exp,
    expm1,
    floor,
    floordiv,
    floormod,
    greater,
    greater_equal,
    imag,
    is_finite,
    is_inf,
    is_nan,
    less,
    less_equal,
    log,
    log1p,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    negative,
    not_equal,
    pow,
    real,
    reciprocal,
    reduce_all,
    reduce_any,
    reduce_euclidean_norm,
    reduce_logsumexp,
    reduce_max,
    reduce_mean,
    reduce_min,
    reduce_prod,
    reduce_std,
    reduce_sum,
    reduce_variance,
    round,
    rsqrt,
    scalar_mul,
    sigmoid,
    sign,
    sin,
    sqrt,
    square,
    squared_difference,
    subtract,
    tan,
    tanh,
    truediv,
)
from minitf.ops.nn.nn_ops import log_sigmoid, log_softmax, softmax, softplus, softsign  # noqa: F401
from minitf.ops.nn.normalization import zero_fraction  # noqa: F401
