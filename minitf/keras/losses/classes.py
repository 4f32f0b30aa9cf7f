"""The loss classes: each is a `LossFunctionWrapper` around one function of functions.py or crossentropy.py,
with Keras's constructor arguments, default name and `get_config`."""

from __future__ import annotations

from typing import Any

import minitf.keras.losses.crossentropy as ce
import minitf.keras.losses.functions as f
from minitf.keras.losses.loss import Loss, LossFunctionWrapper

SUM_OVER_BATCH = "sum_over_batch_size"


class _Plain(LossFunctionWrapper):
    """A loss with no options of its own; its config is the name and the reduction."""

    function: Any = None
    default_name = ""

    def __init__(self, reduction: Any = SUM_OVER_BATCH, name: str | None = None, dtype: Any = None) -> None:
        super().__init__(type(self).function, reduction=reduction, name=name or self.default_name, dtype=dtype)

    def get_config(self) -> dict[str, Any]:
        return Loss.get_config(self)


def _plain(class_name: str, function: Any, default_name: str) -> type[_Plain]:
    return type(class_name, (_Plain,), {"function": staticmethod(function), "default_name": default_name})


MeanSquaredError = _plain("MeanSquaredError", f.mean_squared_error, "mean_squared_error")
MeanAbsoluteError = _plain("MeanAbsoluteError", f.mean_absolute_error, "mean_absolute_error")
MeanAbsolutePercentageError = _plain(
    "MeanAbsolutePercentageError", f.mean_absolute_percentage_error, "mean_absolute_percentage_error"
)
MeanSquaredLogarithmicError = _plain(
    "MeanSquaredLogarithmicError", f.mean_squared_logarithmic_error, "mean_squared_logarithmic_error"
)
LogCosh = _plain("LogCosh", f.log_cosh, "log_cosh")
Hinge = _plain("Hinge", f.hinge, "hinge")
SquaredHinge = _plain("SquaredHinge", f.squared_hinge, "squared_hinge")
CategoricalHinge = _plain("CategoricalHinge", f.categorical_hinge, "categorical_hinge")
KLDivergence = _plain("KLDivergence", f.kl_divergence, "kl_divergence")
Poisson = _plain("Poisson", f.poisson, "poisson")


class Huber(_Plain):
    def __init__(
        self, delta: float = 1.0, reduction: Any = SUM_OVER_BATCH, name: str = "huber_loss", dtype: Any = None
    ) -> None:
        LossFunctionWrapper.__init__(self, f.huber, reduction=reduction, name=name, dtype=dtype, delta=delta)


class CosineSimilarity(_Plain):
    def __init__(
        self, axis: int = -1, reduction: Any = SUM_OVER_BATCH, name: str = "cosine_similarity", dtype: Any = None
    ) -> None:
        LossFunctionWrapper.__init__(self, f.cosine_similarity, reduction=reduction, name=name, dtype=dtype, axis=axis)


class _WithOptions(LossFunctionWrapper):
    """A loss whose options are also attributes and entries of its config."""

    def __init__(self, function: Any, reduction: Any, name: str, dtype: Any, **options: Any) -> None:
        super().__init__(function, reduction=reduction, name=name, dtype=dtype, **options)
        self._options = options
        for key, value in options.items():
            setattr(self, key, value)

    def get_config(self) -> dict[str, Any]:
        return {**Loss.get_config(self), **self._options}


class _Crossentropy(_WithOptions):
    """Binary or categorical cross-entropy: the same options, another function."""

    function: Any = None
    default_name = ""

    def __init__(
        self,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = SUM_OVER_BATCH,
        name: str | None = None,
        dtype: Any = None,
    ) -> None:
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        super().__init__(type(self).function, reduction, name or self.default_name, dtype, **options)


class BinaryCrossentropy(_Crossentropy):
    function = staticmethod(ce.binary_crossentropy)
    default_name = "binary_crossentropy"


class CategoricalCrossentropy(_Crossentropy):
    function = staticmethod(ce.categorical_crossentropy)
    default_name = "categorical_crossentropy"


class SparseCategoricalCrossentropy(_WithOptions):
    def __init__(
        self,
        from_logits: bool = False,
        ignore_class: int | None = None,
        reduction: Any = SUM_OVER_BATCH,
        axis: int = -1,
        name: str = "sparse_categorical_crossentropy",
        dtype: Any = None,
    ) -> None:
        super().__init__(
            ce.sparse_categorical_crossentropy,
            reduction,
            name,
            dtype,
            from_logits=from_logits,
            ignore_class=ignore_class,
        )
        self.axis = axis


class BinaryFocalCrossentropy(_WithOptions):
    def __init__(
        self,
        apply_class_balancing: bool = False,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = SUM_OVER_BATCH,
        name: str = "binary_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        balancing = {"apply_class_balancing": apply_class_balancing, "alpha": alpha, "gamma": gamma}
        super().__init__(ce.binary_focal_crossentropy, reduction, name, dtype, **options, **balancing)


class CategoricalFocalCrossentropy(_WithOptions):
    def __init__(
        self,
        alpha: float = 0.25,
        gamma: float = 2.0,
        from_logits: bool = False,
        label_smoothing: float = 0.0,
        axis: int = -1,
        reduction: Any = SUM_OVER_BATCH,
        name: str = "categorical_focal_crossentropy",
        dtype: Any = None,
    ) -> None:
        options = {"from_logits": from_logits, "label_smoothing": label_smoothing, "axis": axis}
        super().__init__(ce.categorical_focal_crossentropy, reduction, name, dtype, **options, alpha=alpha, gamma=gamma)


class Dice(_WithOptions):
    def __init__(
        self, reduction: Any = SUM_OVER_BATCH, name: str = "dice", axis: Any = None, dtype: Any = None
    ) -> None:
        super().__init__(f.dice, reduction, name, dtype, axis=axis)


class Tversky(_WithOptions):
    def __init__(
        self,
        alpha: float = 0.5,
        beta: float = 0.5,
        reduction: Any = SUM_OVER_BATCH,
        name: str = "tversky",
        axis: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__(f.tversky, reduction, name, dtype, alpha=alpha, beta=beta, axis=axis)


class CategoricalGeneralizedCrossEntropy(_WithOptions):
    def __init__(
        self,
        q: float = 0.5,
        reduction: Any = SUM_OVER_BATCH,
        name: str = "categorical_generalized_cross_entropy",
        dtype: Any = None,
    ) -> None:
        if not 0 < q <= 1:
            raise ValueError("q must be in the interval (0, 1]")
        super().__init__(f.categorical_generalized_cross_entropy, reduction, name, dtype, q=q)
