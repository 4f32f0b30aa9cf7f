"""`tf.math`: elementwise math, comparisons and reductions."""

from minitf.api.math import special  # tf.math.special: the Bessel functions again
from minitf.ops.array.positions import invert_permutation
from minitf.ops.array.sort_ops import (
    in_top_k,
    top_k,
)
from minitf.ops.checks.check_ops import is_non_decreasing, is_strictly_increasing
from minitf.ops.linalg.norms import l2_normalize
from minitf.ops.math.binary_math import (
    accumulate_n,
    add,
    add_n,
    divide,
    divide_no_nan,
    floordiv,
    floormod,
    maximum,
    minimum,
    mod,
    multiply,
    nextafter,
    pow,
    scalar_mul,
    squared_difference,
    subtract,
    truediv,
)
from minitf.ops.math.comparisons import (
    equal,
    greater,
    greater_equal,
    less,
    less_equal,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    not_equal,
)
from minitf.ops.math.complex_ops import angle
from minitf.ops.math.reductions import (
    argmax,
    argmin,
    count_nonzero,
    cumprod,
    cumsum,
    cumulative_logsumexp,
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
)
from minitf.ops.math.segment_ops import (
    bincount,
    confusion_matrix,
    polyval,
    segment_mean,
    segment_sum,
    unsorted_segment_mean,
    unsorted_segment_sqrt_n,
    unsorted_segment_sum,
)
from minitf.ops.math.segment_reductions import (
    segment_max,
    segment_min,
    segment_prod,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
)
from minitf.ops.math.special import (
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    digamma,
    erf,
    erfc,
    erfcinv,
    erfinv,
    lbeta,
    lgamma,
    multiply_no_nan,
    ndtri,
    reciprocal_no_nan,
    rint,
    xdivy,
    xlog1py,
    xlogy,
)
from minitf.ops.math.trigonometry import acos, acosh, asin, asinh, atan, atan2, atanh, cos, cosh, sin, sinh, tan
from minitf.ops.math.unary_math import (
    abs,
    ceil,
    conj,
    exp,
    expm1,
    floor,
    imag,
    is_finite,
    is_inf,
    is_nan,
    log,
    log1p,
    negative,
    real,
    reciprocal,
    round,
    rsqrt,
    sigmoid,
    sign,
    sqrt,
    square,
    tanh,
)
from minitf.ops.nn.nn_ops import log_sigmoid, log_softmax, softmax, softplus, softsign
from minitf.ops.nn.normalization import zero_fraction
