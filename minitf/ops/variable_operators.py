"""What arithmetic on a `tf.Variable` does: it reads the variable and applies the tensor's operator.

`v + 1`, `2 * v`, `v @ w`, `-v`, `v < 3`: each operator reads the current value (a `ReadVariableOp`, which tapes
and traces see) and returns an ordinary tensor, as TensorFlow's variables do. `Variable` (variables.py) lists this
class among its bases, so everything a variable can do is declared by its classes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from minitf.core.tensor import Tensor


class VariableOperators:
    """Python's operators on a variable: the same operator on its value."""

    __slots__ = ()

    if TYPE_CHECKING:

        def read_value(self) -> Tensor: ...  # (Variable's)

    def __add__(self, other: Any) -> Any:
        return self.read_value().__add__(other)

    def __radd__(self, other: Any) -> Any:
        return self.read_value().__radd__(other)

    def __sub__(self, other: Any) -> Any:
        return self.read_value().__sub__(other)

    def __rsub__(self, other: Any) -> Any:
        return self.read_value().__rsub__(other)

    def __mul__(self, other: Any) -> Any:
        return self.read_value().__mul__(other)

    def __rmul__(self, other: Any) -> Any:
        return self.read_value().__rmul__(other)

    def __truediv__(self, other: Any) -> Any:
        return self.read_value().__truediv__(other)

    def __rtruediv__(self, other: Any) -> Any:
        return self.read_value().__rtruediv__(other)

    def __floordiv__(self, other: Any) -> Any:
        return self.read_value().__floordiv__(other)

    def __rfloordiv__(self, other: Any) -> Any:
        return self.read_value().__rfloordiv__(other)

    def __mod__(self, other: Any) -> Any:
        return self.read_value().__mod__(other)

    def __rmod__(self, other: Any) -> Any:
        return self.read_value().__rmod__(other)

    def __pow__(self, other: Any) -> Any:
        return self.read_value().__pow__(other)

    def __rpow__(self, other: Any) -> Any:
        return self.read_value().__rpow__(other)

    def __matmul__(self, other: Any) -> Any:
        return self.read_value().__matmul__(other)

    def __rmatmul__(self, other: Any) -> Any:
        return self.read_value().__rmatmul__(other)

    def __and__(self, other: Any) -> Any:
        return self.read_value().__and__(other)

    def __rand__(self, other: Any) -> Any:
        return self.read_value().__rand__(other)

    def __or__(self, other: Any) -> Any:
        return self.read_value().__or__(other)

    def __ror__(self, other: Any) -> Any:
        return self.read_value().__ror__(other)

    def __xor__(self, other: Any) -> Any:
        return self.read_value().__xor__(other)

    def __rxor__(self, other: Any) -> Any:
        return self.read_value().__rxor__(other)

    def __neg__(self) -> Any:
        return self.read_value().__neg__()

    def __abs__(self) -> Any:
        return self.read_value().__abs__()

    def __invert__(self) -> Any:
        return self.read_value().__invert__()

    def __lt__(self, other: Any) -> Any:
        return self.read_value().__lt__(other)

    def __le__(self, other: Any) -> Any:
        return self.read_value().__le__(other)

    def __gt__(self, other: Any) -> Any:
        return self.read_value().__gt__(other)

    def __ge__(self, other: Any) -> Any:
        return self.read_value().__ge__(other)

    def __eq__(self, other: Any) -> Any:
        return self.read_value().__eq__(_not_none(other))

    def __ne__(self, other: Any) -> Any:
        return self.read_value().__ne__(_not_none(other))


def _not_none(other: Any) -> Any:
    """`variable == None` converts None to a tensor in TensorFlow, which fails (a tensor just says False)."""
    if other is None:
        raise ValueError("Attempt to convert a value (None) with an unsupported type (<class 'NoneType'>) to a Tensor.")
    return other
