"""The processor's approximate reciprocal, `rcpps`, on float32 arrays: Numba compiles a loop that calls LLVM's
`llvm.x86.sse.rcp.ps` intrinsic on four values at a time, and LLVM emits the instruction (x86-64 only).

Imported only by `reciprocal.py`, when TensorFlow-exact numerics first need a packet reciprocal.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def rcp4(typingctx: Any, a: Any, b: Any, c: Any, d: Any) -> Any:
    """Four float32 values through one `rcpps`: build a vector, call LLVM's intrinsic, unpack."""
    f32 = types.float32
    signature = types.UniTuple(f32, 4)(f32, f32, f32, f32)

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        vector_type = ir.VectorType(ir.FloatType(), 4)
        vector = ir.Constant(vector_type, ir.Undefined)
        for i, value in enumerate(args):
            vector = builder.insert_element(vector, value, ir.Constant(ir.IntType(32), i))
        function = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vector_type, [vector_type]), "llvm.x86.sse.rcp.ps"
        )
        result = builder.call(function, [vector])
        lanes = [builder.extract_element(result, ir.Constant(ir.IntType(32), i)) for i in range(4)]
        return context.make_tuple(builder, sig.return_type, lanes)

    return signature, codegen


@njit(cache=False)
def _loop(src: np.ndarray, dst: np.ndarray) -> None:  # compiled on its first call
    for i in range(0, src.size, 4):
        r = rcp4(src[i], src[i + 1], src[i + 2], src[i + 3])  # type: ignore[call-arg, var-annotated]
        dst[i], dst[i + 1], dst[i + 2], dst[i + 3] = r


def approximate(a: np.ndarray) -> np.ndarray:
    """`rcpps` of every value of a float32 array (padded with ones to a multiple of 4)."""
    padded = np.ones(-(-a.size // 4) * 4, dtype=np.float32)
    padded[: a.size] = a.ravel()
    out = np.empty_like(padded)
    _loop(padded, out)
    return out[: a.size].reshape(a.shape)
