"""`tf.dtypes`: the DType objects (minitf/core/dtypes.py) and the casts between them."""

from minitf.core.dtypes import (
    DType,
    as_dtype,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from minitf.ops.math.binary_math import saturate_cast
from minitf.ops.math.cast import cast
