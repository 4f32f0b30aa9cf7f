"""What a layer shows of its dtype policy, as Keras 3 shows it: `dtype_policy` (printed `<DTypePolicy "float32">`,
with its `name`, `compute_dtype` and `variable_dtype`) and the layer's `compute_dtype`, `variable_dtype` and
`input_dtype`, as strings; for every float dtype a layer can be given (by name or as a tf.DType) and the mixed
policies, on layers of several kinds."""

from __future__ import annotations

from typing import Any

import pytest
import tensorflow as real_tf

import minitf

LAYERS = {
    "Dense": lambda keras, dtype: keras.layers.Dense(2, dtype=dtype),
    "Embedding": lambda keras, dtype: keras.layers.Embedding(3, 2, dtype=dtype),
    "BatchNormalization": lambda keras, dtype: keras.layers.BatchNormalization(dtype=dtype),
    "Conv1D": lambda keras, dtype: keras.layers.Conv1D(2, 3, dtype=dtype),
}
POLICIES = ["float32", "float64", "float16", "bfloat16", "mixed_float16", "mixed_bfloat16", None]


def _shown(tf: Any, layer_name: str, dtype: Any) -> list[Any]:
    layer = LAYERS[layer_name](tf.keras, dtype)
    policy = layer.dtype_policy
    shown = [repr(policy), str(policy), policy.name, policy.compute_dtype, policy.variable_dtype]
    shown += [repr(layer.compute_dtype), layer.variable_dtype, layer.input_dtype]
    if not str(dtype).startswith("mixed"):  # minitf names a mixed policy in layer.dtype; Keras its variable dtype
        shown.append(repr(layer.dtype))
    return shown


@pytest.mark.parametrize("layer_name", list(LAYERS))
@pytest.mark.parametrize("dtype", POLICIES, ids=str)
def test_a_layers_dtype_policy_and_dtypes_print_as_in_keras(layer_name: str, dtype: Any) -> None:
    assert _shown(minitf, layer_name, dtype) == _shown(real_tf, layer_name, dtype)


@pytest.mark.parametrize("name", ["float64", "float16"])
def test_a_dtype_given_as_a_tf_dtype_names_the_policy(name: str) -> None:
    mine = _shown(minitf, "Dense", getattr(minitf, name))
    assert mine == _shown(real_tf, "Dense", getattr(real_tf, name))
