"""What every tensor offers: its properties (declared here for type checkers) and its Python operators.

`Tensor` (minitf/core/tensor.py) is the common base of eager and symbolic tensors; each kind implements the
properties its own way. The operators (`+`, `@`, `[]`, `==`, ...) are methods of this class, so a reader finds
everything a tensor can do in its classes. What each operator computes is an op, and ops are defined above core
(every op imports core), so each method calls the function minitf/ops/operators.py provides for it in
`OPERATORS` (minitf/core/provided.py says why and how).
Operators return `Self`, the kind of tensor they are called on (true but for an eager tensor combined with a
traced one inside a trace, which gives a traced one).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Self

from minitf.core.provided import Provided

if TYPE_CHECKING:
    from minitf.core import dtypes
    from minitf.core.tensor_shape import TensorShape


class OperatorFunctions(Provided):
    """The function behind each operator: `add` for `__add__`, `radd` for `__radd__`, `and_` for `__and__`..."""

    add: Callable[..., Any]
    radd: Callable[..., Any]
    sub: Callable[..., Any]
    rsub: Callable[..., Any]
    mul: Callable[..., Any]
    rmul: Callable[..., Any]
    truediv: Callable[..., Any]
    rtruediv: Callable[..., Any]
    floordiv: Callable[..., Any]
    rfloordiv: Callable[..., Any]
    mod: Callable[..., Any]
    rmod: Callable[..., Any]
    pow: Callable[..., Any]
    rpow: Callable[..., Any]
    matmul: Callable[..., Any]
    rmatmul: Callable[..., Any]
    and_: Callable[..., Any]
    rand: Callable[..., Any]
    or_: Callable[..., Any]
    ror: Callable[..., Any]
    xor: Callable[..., Any]
    rxor: Callable[..., Any]
    lt: Callable[..., Any]
    le: Callable[..., Any]
    gt: Callable[..., Any]
    ge: Callable[..., Any]
    eq: Callable[..., Any]
    ne: Callable[..., Any]
    neg: Callable[..., Any]
    abs: Callable[..., Any]
    invert: Callable[..., Any]
    getitem: Callable[..., Any]
    iter: Callable[..., Any]
    slice_assign: Callable[..., Any]  # from minitf/ops/variables.py: `variable[key].assign(value)`


OPERATORS = OperatorFunctions()


class TensorInterface:
    """The properties every tensor has (for type checkers) and the operators every tensor has."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def dtype(self) -> dtypes.DType: ...

        @property
        def shape(self) -> TensorShape: ...

        @property
        def name(self) -> str: ...

        @property
        def device(self) -> str: ...

        @property
        def op(self) -> Any: ...  # symbolic tensors: the graph Operation that produces it

        @property
        def graph(self) -> Any: ...  # symbolic tensors: the FuncGraph it belongs to

    def __add__(self, other: Any) -> Self:
        return OPERATORS.add(self, other)

    def __radd__(self, other: Any) -> Self:
        return OPERATORS.radd(self, other)

    def __sub__(self, other: Any) -> Self:
        return OPERATORS.sub(self, other)

    def __rsub__(self, other: Any) -> Self:
        return OPERATORS.rsub(self, other)

    def __mul__(self, other: Any) -> Self:
        return OPERATORS.mul(self, other)

    def __rmul__(self, other: Any) -> Self:
        return OPERATORS.rmul(self, other)

    def __truediv__(self, other: Any) -> Self:
        return OPERATORS.truediv(self, other)

    def __rtruediv__(self, other: Any) -> Self:
        return OPERATORS.rtruediv(self, other)

    def __floordiv__(self, other: Any) -> Self:
        return OPERATORS.floordiv(self, other)

    def __rfloordiv__(self, other: Any) -> Self:
        return OPERATORS.rfloordiv(self, other)

    def __mod__(self, other: Any) -> Self:
        return OPERATORS.mod(self, other)

    def __rmod__(self, other: Any) -> Self:
        return OPERATORS.rmod(self, other)

    def __pow__(self, other: Any) -> Self:
        return OPERATORS.pow(self, other)

    def __rpow__(self, other: Any) -> Self:
        return OPERATORS.rpow(self, other)

    def __matmul__(self, other: Any) -> Self:
        return OPERATORS.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Self:
        return OPERATORS.rmatmul(self, other)

    def __and__(self, other: Any) -> Self:
        return OPERATORS.and_(self, other)

    def __rand__(self, other: Any) -> Self:
        return OPERATORS.rand(self, other)

    def __or__(self, other: Any) -> Self:
        return OPERATORS.or_(self, other)

    def __ror__(self, other: Any) -> Self:
        return OPERATORS.ror(self, other)

    def __xor__(self, other: Any) -> Self:
        return OPERATORS.xor(self, other)

    def __rxor__(self, other: Any) -> Self:
        return OPERATORS.rxor(self, other)

    def __lt__(self, other: Any) -> Self:
        return OPERATORS.lt(self, other)

    def __le__(self, other: Any) -> Self:
        return OPERATORS.le(self, other)

    def __gt__(self, other: Any) -> Self:
        return OPERATORS.gt(self, other)

    def __ge__(self, other: Any) -> Self:
        return OPERATORS.ge(self, other)

    def __eq__(self, other: Any) -> Any:
        return OPERATORS.eq(self, other)

    def __ne__(self, other: Any) -> Any:
        return OPERATORS.ne(self, other)

    def __neg__(self) -> Self:
        return OPERATORS.neg(self)

    def __abs__(self) -> Self:
        return OPERATORS.abs(self)

    def __invert__(self) -> Self:
        return OPERATORS.invert(self)

    def __getitem__(self, key: Any) -> Self:
        return OPERATORS.getitem(self, key)

    def __iter__(self) -> Iterator[Self]:
        return OPERATORS.iter(self)

    @property
    def assign(self) -> Callable[..., Any]:
        """Only a slice of a variable has it: `v[0].assign(9.)` writes into the variable (AttributeError otherwise)."""
        return OPERATORS.slice_assign(self)
