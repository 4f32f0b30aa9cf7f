"""`keras.regularizers`: a penalty on a weight, added to the loss `fit` minimises (`layer.losses`)."""

from __future__ import annotations

from typing import Any

from minitf.ops.math.reductions import reduce_sum
from minitf.ops.math.unary_math import square


class Regularizer:
    def __call__(self, weight: Any) -> Any:
        raise NotImplementedError

    def get_config(self) -> dict[str, Any]:
        return {}

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> Regularizer:
        return cls(**config)


class L2(Regularizer):
    """`l2 * sum(weight ** 2)`: keeps weights small."""

    def __init__(self, l2: float = 0.01) -> None:
        self.l2 = float(l2)

    def __call__(self, weight: Any) -> Any:
        return self.l2 * reduce_sum(square(weight))

    def get_config(self) -> dict[str, Any]:
        return {"l2": self.l2}


l2 = L2
ALL = [L2]


def get(identifier: Any) -> Regularizer | None:
    if identifier is None:
        return None
    if isinstance(identifier, str):
        if identifier.lower() != "l2":
            raise ValueError(f"Could not interpret regularizer identifier: {identifier}")
        return L2()
    return identifier
