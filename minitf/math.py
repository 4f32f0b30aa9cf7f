"""`tf.math`: elementwise math, comparisons and reductions."""

from types import SimpleNamespace as _Namespace

from minitf.ops.complex_ops import angle  # noqa: F401
from minitf.ops.math_extra_ops import (  # noqa: F401
    accumulate_n,
    cumulative_logsumexp,
    in_top_k,
    invert_permutation,
    is_non_decreasing,
    is_strictly_increasing,
    lbeta,
    nextafter,
    segment_mean,
    unsorted_segment_mean,
    unsorted_segment_sqrt_n,
)
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
from minitf.ops.nn_extra_ops import zero_fraction  # noqa: F401
from minitf.ops.nn_ops import log_sigmoid, log_softmax, softmax, softplus, softsign  # noqa: F401
from minitf.ops.norms import l2_normalize  # noqa: F401
from minitf.ops.segment_ops import bincount, confusion_matrix, polyval, segment_sum, unsorted_segment_sum  # noqa: F401
from minitf.ops.segment_reductions import (  # noqa: F401
    segment_max,
    segment_min,
    segment_prod,
    unsorted_segment_max,
    unsorted_segment_min,
    unsorted_segment_prod,
)
from minitf.ops.sort_ops import top_k  # noqa: F401
from minitf.ops.special_functions import (  # noqa: F401
    bessel_i0,
    bessel_i0e,
    bessel_i1,
    bessel_i1e,
    erfcinv,
    erfinv,
    ndtri,
)
from minitf.ops.special_math_ops import (  # noqa: F401
    digamma,
    erf,
    erfc,
    lgamma,
    multiply_no_nan,
    reciprocal_no_nan,
    rint,
    xdivy,
    xlog1py,
    xlogy,
)
from minitf.ops.trigonometry import acos, acosh, asin, asinh, atan, atan2, atanh, cosh, sinh  # noqa: F401

# tf.math.special: the Bessel functions again (the same functions, as in TensorFlow)
special = _Namespace(bessel_i0=bessel_i0, bessel_i0e=bessel_i0e, bessel_i1=bessel_i1, bessel_i1e=bessel_i1e)
