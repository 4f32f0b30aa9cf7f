"""Attention layers: `Attention` (dot-product, Luong) and `AdditiveAttention` (Bahdanau) over a query and a
value sequence, and `MultiHeadAttention`, the transformer's: queries, keys and values projected into several
heads, each head's scaled dot-product attention, the heads projected back."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import minitf.keras.regularizers as regularizers
from minitf.keras.layers.layer import Layer
from minitf.keras.layers.options import WeightOptions, add_weight
from minitf.keras.serialization import serialize
from minitf.ops.array import creation, shape_ops
from minitf.ops.linalg.einsum import einsum
from minitf.ops.linalg.linalg_ops import matmul
from minitf.ops.math import comparisons, reductions, unary_math
from minitf.ops.math.cast import cast
from minitf.ops.nn import nn_ops
from minitf.ops.nn.dropout import dropout


def _causal(queries: Any, keys: Any) -> Any:
    """True where a query position may attend to a key position: itself and earlier ones."""
    return creation.constant(np.tril(np.ones((queries, keys), dtype=bool)))


def _masked_softmax(scores: Any, mask: Any) -> Any:
    """Softmax over the keys, with masked-out keys given a very negative score first (as Keras does)."""
    if mask is not None:
        large = 65504.0 if scores.dtype.name == "float16" else 1e9
        scores = scores - large * cast(comparisons.logical_not(mask), scores.dtype)
    return nn_ops.softmax(scores, axis=-1)


class BaseDenseAttention(Layer):
    """`softmax(score(query, key)) @ value`, the key defaulting to the value."""

    def __init__(self, use_scale: bool = False, dropout: float = 0.0, seed: int | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.use_scale, self.dropout, self.seed = use_scale, dropout, seed

    def _scores(self, query: Any, key: Any) -> Any:
        raise NotImplementedError

    def call(
        self,
        inputs: Any,
        mask: Any = None,
        training: bool | None = None,
        return_attention_scores: bool = False,
        use_causal_mask: bool = False,
    ) -> Any:
        if not isinstance(inputs, list) or len(inputs) not in (2, 3):
            raise ValueError(
                f"{type(self).__name__} layer must be called on a list of inputs, namely [query, value] or "
                f"[query, value, key]. Received: inputs={inputs}."
            )
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) == 3 else value
        scores = self._scores(query, key)
        keep = None
        if mask is not None and mask[-1] is not None:
            keep = shape_ops.expand_dims(cast(mask[-1], "bool"), -2)
        if use_causal_mask:
            causal = _causal(scores.shape.as_list()[-2], scores.shape.as_list()[-1])
            keep = causal if keep is None else comparisons.logical_and(keep, causal)
        weights = _masked_softmax(scores, keep)
        if training and self.dropout > 0:
            weights = dropout(weights, rate=self.dropout, seed=self.seed)
        result = matmul(weights, value)
        return [result, weights] if return_attention_scores else result

    def get_config(self) -> dict[str, Any]:
        return {**super().get_config(), "use_scale": self.use_scale, "dropout": self.dropout, "seed": self.seed}


class Attention(BaseDenseAttention):
    """Dot-product attention: scores `query @ key^T` (times a learned `scale` with `use_scale`); or, with
    `score_mode="concat"`, `sum(tanh(scale * (query + key)))` times a learned weight."""

    def __init__(self, use_scale: bool = False, score_mode: str = "dot", dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale, dropout, **kwargs)
        if score_mode not in ("dot", "concat"):
            raise ValueError(
                "Invalid value for argument score_mode. Expected one of {'dot', 'concat'}. "
                f"Received: score_mode={score_mode}"
            )
        self.score_mode = score_mode

    def build(self, input_shape: Any) -> None:
        self.scale = self.add_weight((), "ones", name="scale") if self.use_scale else None
        self.concat_score_weight = (
            self.add_weight((), "ones", name="concat_score_weight") if self.score_mode == "concat" else None
        )

    def _scores(self, query: Any, key: Any) -> Any:
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return scores * self.scale if self.scale is not None else scores
        summed = shape_ops.expand_dims(query, -2) + shape_ops.expand_dims(key, -3)
        if self.scale is not None:
            summed = summed * self.scale
        return self.concat_score_weight * reductions.reduce_sum(unary_math.tanh(summed), axis=-1)

    def get_config(self) -> dict[str, Any]:
        config = super().get_config()
        return {
            **{k: v for k, v in config.items() if k not in ("dropout", "seed")},
            "score_mode": self.score_mode,
            "dropout": self.dropout,
            "seed": self.seed,
        }


class AdditiveAttention(BaseDenseAttention):
    """Additive attention: scores `sum(scale * tanh(query + key))`, `scale` learned per feature."""

    def __init__(self, use_scale: bool = True, dropout: float = 0.0, **kwargs: Any) -> None:
        super().__init__(use_scale, dropout, **kwargs)

    def build(self, input_shape: Any) -> None:
        dim = input_shape[0][-1]
        self.scale = self.add_weight((dim,), "glorot_uniform", name="scale") if self.use_scale else None

    def _scores(self, query: Any, key: Any) -> Any:
        summed = unary_math.tanh(shape_ops.expand_dims(query, -2) + shape_ops.expand_dims(key, -3))
        if self.scale is not None:
            summed = summed * self.scale
        return reductions.reduce_sum(summed, axis=-1)


class _Projection(Layer):
    """One of MultiHeadAttention's dense projections (Keras's EinsumDense sublayers `query`, `key`, ...)."""

    def __init__(
        self,
        equation: str,
        kernel_shape: tuple,
        bias_shape: tuple | None,
        options: WeightOptions,
        bias_options: WeightOptions,
        name: str,
    ) -> None:
        super().__init__(name=name)
        self.equation, self.kernel_shape, self.bias_shape = equation, kernel_shape, bias_shape
        self.options, self.bias_options = options, bias_options

    def build(self, input_shape: Any) -> None:
        self.kernel = add_weight(self, "kernel", self.kernel_shape, self.options)
        self.bias = None if self.bias_shape is None else add_weight(self, "bias", self.bias_shape, self.bias_options)

    def call(self, inputs: Any) -> Any:
        out = einsum(self.equation, inputs, self.kernel)
        return out if self.bias is None else out + self.bias


class MultiHeadAttention(Layer):
    """`num_heads` attention heads of size `key_dim` over (batch, positions, features) sequences; called as
    `layer(query, value)` (self-attention: `layer(x, x)`), with `attention_mask` or `use_causal_mask`."""

    def __init__(
        self,
        num_heads: int,
        key_dim: int,
        value_dim: int | None = None,
        dropout: float = 0.0,
        use_bias: bool = True,
        output_shape: Any = None,
        attention_axes: Any = None,
        kernel_initializer: Any = "glorot_uniform",
        bias_initializer: Any = "zeros",
        kernel_regularizer: Any = None,
        bias_regularizer: Any = None,
        activity_regularizer: Any = None,
        kernel_constraint: Any = None,
        bias_constraint: Any = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> None:
        for unsupported in ("use_gate", "sliding_window", "flash_attention"):
            if kwargs.pop(unsupported, None):
                raise ValueError(f"minitf's MultiHeadAttention leaves out `{unsupported}`.")
        super().__init__(**kwargs)
        if attention_axes not in (None, 1, (1,), [1]) or output_shape is not None:
            raise ValueError(
                "minitf's MultiHeadAttention attends over axis 1 only and keeps the query's last axis "
                "(no attention_axes or output_shape)."
            )
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = int(value_dim) if value_dim else self.key_dim
        self.dropout, self.use_bias, self.seed = dropout, use_bias, seed
        self.kernel_options = WeightOptions(kernel_initializer, kernel_regularizer, kernel_constraint)
        self.bias_options = WeightOptions(bias_initializer, bias_regularizer, bias_constraint)
        self.activity_regularizer = regularizers.get(activity_regularizer)

    def __call__(self, query: Any, value: Any = None, key: Any = None, **kwargs: Any) -> Any:
        """Keras's signature `(query, value, key=None, ...)`, as one list of inputs for the base class."""
        if value is None and isinstance(query, list) and len(query) == 3:  # already packed (a model replaying)
            return super().__call__(query, **kwargs)
        if value is None:
            raise TypeError("MultiHeadAttention.call() missing 1 required positional argument: 'value'")
        return super().__call__([query, value, value if key is None else key], **kwargs)

    def build(self, input_shape: Any) -> None:
        query_shape, value_shape, key_shape = input_shape
        heads = self.num_heads

        def projection(name: str, features: int, size: int) -> _Projection:
            bias = (heads, size) if self.use_bias else None
            return _Projection(
                "abc,cde->abde", (features, heads, size), bias, self.kernel_options, self.bias_options, name
            )

        self._query_dense = projection("query", query_shape[-1], self.key_dim)
        self._key_dense = projection("key", key_shape[-1], self.key_dim)
        self._value_dense = projection("value", value_shape[-1], self.value_dim)
        self._output_dense = _Projection(
            "abcd,cde->abe",
            (heads, self.value_dim, query_shape[-1]),
            (query_shape[-1],) if self.use_bias else None,
            self.kernel_options,
            self.bias_options,
            "attention_output",
        )
        for layer, shape in (
            (self._query_dense, query_shape),
            (self._key_dense, key_shape),
            (self._value_dense, value_shape),
            (self._output_dense, None),
        ):
            layer.build(shape)
            layer.built = True
        self._layers[:] = [self._query_dense, self._key_dense, self._value_dense, self._output_dense]

    def call(
        self,
        inputs: Any,
        attention_mask: Any = None,
        return_attention_scores: bool = False,
        training: bool | None = None,
        use_causal_mask: bool = False,
    ) -> Any:
        query, value, key = inputs
        q = self._query_dense.call(query) * (1.0 / math.sqrt(float(self.key_dim)))
        k, v = self._key_dense.call(key), self._value_dense.call(value)
        scores = einsum("aecd,abcd->acbe", k, q)  # (batch, heads, query positions, key positions)
        keep = None
        if attention_mask is not None:
            keep = shape_ops.expand_dims(cast(attention_mask, "bool"), 1)
        if use_causal_mask:
            causal = _causal(scores.shape.as_list()[-2], scores.shape.as_list()[-1])
            keep = causal if keep is None else comparisons.logical_and(keep, causal)
        weights = _masked_softmax(scores, keep)
        dropped = dropout(weights, rate=self.dropout, seed=self.seed) if training and self.dropout > 0 else weights
        out = self._output_dense.call(einsum("acbe,aecd->abcd", dropped, v))
        return (out, weights) if return_attention_scores else out

    def get_config(self) -> dict[str, Any]:
        kernel, bias = self.kernel_options.config("kernel"), self.bias_options.config("bias")
        return {
            **super().get_config(),
            "num_heads": self.num_heads,
            "key_dim": self.key_dim,
            "value_dim": self.value_dim,
            "dropout": self.dropout,
            "use_bias": self.use_bias,
            "use_gate": False,
            "output_shape": None,
            "attention_axes": (1,),
            "sliding_window": None,
            "kernel_initializer": kernel["kernel_initializer"],
            "bias_initializer": bias["bias_initializer"],
            "kernel_regularizer": kernel["kernel_regularizer"],
            "bias_regularizer": bias["bias_regularizer"],
            "activity_regularizer": serialize(self.activity_regularizer, "keras.regularizers"),
            "kernel_constraint": kernel["kernel_constraint"],
            "bias_constraint": bias["bias_constraint"],
            "seed": self.seed,
        }
