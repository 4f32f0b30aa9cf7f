"""A layer's dtype policy, as Keras 3 shows it: `layer.dtype_policy` (`<DTypePolicy "float32">`) and the dtypes it
gives, as strings like Keras's: `compute_dtype` (what `call` computes in), `variable_dtype` (what weights are
kept in) and `input_dtype` (what inputs are cast to). A mixed policy computes in half precision and keeps float32
weights."""

from __future__ import annotations

_MIXED = {"mixed_float16": "float16", "mixed_bfloat16": "bfloat16"}


class DTypePolicy:
    """`keras.DTypePolicy`: a named pair of the compute dtype and the variable dtype."""

    def __init__(self, name: str = "float32") -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    @property
    def compute_dtype(self) -> str:
        return _MIXED.get(self._name, self._name)

    @property
    def variable_dtype(self) -> str:
        return "float32" if self._name in _MIXED else self._name

    def __repr__(self) -> str:
        return f'<DTypePolicy "{self._name}">'


class DTypeAttributes:
    """What a Layer shows of its dtype policy (its `dtype` attribute names the policy)."""

    dtype: str

    @property
    def dtype_policy(self) -> DTypePolicy:
        return DTypePolicy(self.dtype)

    @property
    def compute_dtype(self) -> str:
        return self.dtype_policy.compute_dtype

    @property
    def variable_dtype(self) -> str:
        return self.dtype_policy.variable_dtype

    @property
    def input_dtype(self) -> str:
        return self.dtype_policy.compute_dtype
