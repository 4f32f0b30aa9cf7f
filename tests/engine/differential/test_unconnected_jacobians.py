"""tape.jacobian and batch_jacobian where the target does not depend on a source (or only through ops without a
gradient: stop_gradient, integer casts, argmax, a shape) inside tf.function, with known sizes (a Python loop of
backward passes) and unknown ones (a while loop, minitf/autodiff/jacobians.py): None with unconnected_gradients='none'
(zeros from batch_jacobian, as TensorFlow gives), zeros with 'zero'."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from harness import EAGER_ONLY, same

V = np.arange(6, dtype=np.float32).reshape(2, 3) / 3

TARGETS = {
    "stop_gradient": lambda tf, x, w: tf.stop_gradient(w) * x,
    "integer cast": lambda tf, x, w: tf.cast(tf.cast(w, tf.int32), tf.float32) + x,
    "shape only": lambda tf, x, w: tf.cast(tf.shape(w)[0], tf.float32) * x,
    "constant": lambda tf, x, w: tf.ones_like(x),
    "argmax": lambda tf, x, w: tf.cast(tf.argmax(w, axis=1), tf.float32)[:, None] + x,
    "other source": lambda tf, x, w: x * 3.0,
}


def jacobian_case(target: str, how: str, batch: bool, traced: bool, known: bool) -> Any:
    def case(tf: Any) -> Any:
        def f(x: Any, w: Any) -> Any:
            with tf.GradientTape(persistent=True) as tape:
                tape.watch([x, w])
                y = TARGETS[target](tf, x, w)
            if batch:
                return tape.batch_jacobian(y, w, unconnected_gradients=how)
            return tape.jacobian(y, [x, w], unconnected_gradients=how)

        if traced:
            spec = tf.TensorSpec([2, 3] if known else [None, None], tf.float32)
            f = tf.function(f, input_signature=[spec, spec])
        return f(tf.constant(V), tf.constant(V * 2.0))

    return case


@pytest.mark.sample(7)
@pytest.mark.parametrize("target", list(TARGETS))
@pytest.mark.parametrize("how", ["none", "zero"])
@pytest.mark.parametrize("batch", [False, True], ids=["jacobian", "batch_jacobian"])
@pytest.mark.parametrize("where", ["traced known sizes", "traced unknown sizes"])
def test_unconnected_jacobians_match_tensorflow(target: str, how: str, batch: bool, where: str) -> None:
    case = jacobian_case(target, how, batch, traced=True, known=where == "traced known sizes")
    same(case, modes=EAGER_ONLY)  # the case builds its own tf.function
