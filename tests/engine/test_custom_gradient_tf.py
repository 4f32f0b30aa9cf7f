"""`tf.custom_gradient` on minitf against real TensorFlow: eagerly, on tapes, inside and around
`tf.function`, higher order, with variables, and its errors."""

from __future__ import annotations

from typing import Any

import pytest
from harness import ENGINES, alike, same_error

pytestmark = pytest.mark.tf


def _log1pexp(tf: Any) -> Any:
    """The example of TensorFlow's docstring: a numerically stable gradient of log(1 + e^x)."""

    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(upstream):
            return upstream * (1 - 1 / (1 + e))

        return tf.math.log(1 + e), grad

    return log1pexp


def test_custom_gradient_replaces_the_gradient_that_would_overflow() -> None:
    def case(tf: Any) -> Any:
        log1pexp = _log1pexp(tf)
        x = tf.constant(100.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = log1pexp(x)
        return y, tape.gradient(y, x), log1pexp.__name__

    alike(case)


def test_custom_gradient_without_a_tape_just_computes_the_result() -> None:
    def case(tf: Any) -> Any:
        return _log1pexp(tf)(tf.constant([0.0, 1.0]))

    alike(case, rtol=1e-6)


def test_second_derivative_differentiates_what_grad_fn_computes() -> None:
    def case(tf: Any) -> Any:
        log1pexp = _log1pexp(tf)
        x = tf.constant(1.0)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = log1pexp(x)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    alike(case, rtol=1e-6, text=False)


def test_custom_gradient_with_a_tape_inside_a_traced_function() -> None:
    def case(tf: Any) -> Any:
        log1pexp = _log1pexp(tf)

        @tf.function
        def f(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = log1pexp(x)
            return y, tape.gradient(y, x)

        types = [op.type for op in f.get_concrete_function(tf.constant(2.0)).graph.get_operations()]
        return f(tf.constant(2.0)), "IdentityN" in types

    alike(case, rtol=1e-6, text=False)


def test_tape_outside_a_traced_function_uses_its_custom_gradient_to_second_order() -> None:
    def case(tf: Any) -> Any:
        log1pexp = _log1pexp(tf)

        @tf.function
        def f(x):
            return log1pexp(x) * 2.0

        x = tf.constant([3.0, -1.0])
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = f(x)
            g = inner.gradient(y, x)
        return g, outer.gradient(g, x)

    alike(case, rtol=1e-5, text=False)


def test_several_arguments_and_results_get_one_gradient_each() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def pair(x, y):
            def grad(da, db):
                return da * 2.0 + db, da * 10.0 + db * y

            return (x * y, x + y), grad

        x, y = tf.constant(3.0), tf.constant(4.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch([x, y])
            a, b = pair(x, y)
        return tape.gradient(a, [x, y]), tape.gradient([a, b], [x, y]), tape.gradient(b, y)

    alike(case)


def test_grad_fn_may_return_none_for_an_argument() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def f(x, y):
            def grad(dy):
                return dy * 5.0, None

            return x * y, grad

        x, y = tf.constant(3.0), tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = f(x, y)
        return tape.gradient(z, [x, y])

    alike(case)


def test_keyword_arguments_work_eagerly_and_get_no_gradient() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def scaled(x, scale=1.0):
            def grad(dy):
                return dy * scale

            return x * scale, grad

        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = scaled(x, scale=3.0)
        return y, tape.gradient(y, x)

    alike(case)


def _scale_by_variable(tf: Any, v: Any) -> Any:
    @tf.custom_gradient
    def scale(x):
        def grad(dy, variables=None):
            return dy * v, [dy * x * 10.0 for _ in variables]

        return x * v, grad

    return scale


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf.function"])
def test_variables_read_by_the_function_get_the_gradients_grad_fn_returns(traced: bool) -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(2.0)
        scale = _scale_by_variable(tf, v)

        def step(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = scale(x)
            return y, tape.gradient(y, [x, v])

        return (tf.function(step) if traced else step)(tf.constant(3.0))

    alike(case, text=False)


def test_variables_get_custom_gradients_through_a_traced_function_called_eagerly() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(2.0)
        scale = tf.function(_scale_by_variable(tf, v))
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = scale(x)
        return tape.gradient(y, [x, v])

    alike(case, text=False)


def test_a_variable_passed_as_argument_is_an_input_not_a_variable_of_grad_fn() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def cube(x):
            def grad(dy):
                return dy * 100.0

            return x * x * x, grad

        v = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            y = cube(v)
        return tape.gradient(y, v)

    alike(case)


def test_grad_fn_without_variables_keyword_when_variables_are_used_raises_type_error() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(2.0)

        @tf.custom_gradient
        def f(x):
            def grad(dy):
                return dy

            return x * v, grad

        return f(tf.constant(1.0))

    same_error(case)


def test_grad_fn_returning_too_few_gradients_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def f(x, y):
            def grad(dy):
                return dy

            return x * y, grad

        x = tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            z = f(x, 2.0)
        return tape.gradient(z, x)

    same_error(case)


def test_forgetting_to_return_grad_fn_raises_type_error() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def f(x):
            return x * 2.0

        return f(tf.constant(1.0))

    same_error(case)


def test_keyword_arguments_inside_a_traced_function_raise_value_error() -> None:
    def case(tf: Any) -> Any:
        @tf.custom_gradient
        def f(x, scale=1.0):
            def grad(dy):
                return dy * scale

            return x * scale, grad

        @tf.function
        def g(x):
            return f(x, scale=3.0)

        return g(tf.constant(1.0))

    errors = [_error_of(case, tf) for tf in ENGINES.values()]
    assert [type(e).__name__ for e in errors] == ["ValueError", "ValueError"]
    for e in errors:
        assert "supports keywords arguments only when eager execution is enabled" in str(e)
    assert "Hint:" in str(errors[0])


def _error_of(case: Any, tf: Any) -> Exception:
    try:
        case(tf)
    except Exception as exc:  # the error is what is compared
        return exc
    raise AssertionError(f"{tf.__name__} did not raise")


def test_tape_controls_work_inside_a_traced_function() -> None:
    """stop_recording, stop_gradient, unconnected_gradients, jacobian (with and without pfor) and
    batch_jacobian inside a tf.function, as eagerly."""

    def case(tf: Any) -> Any:
        @tf.function
        def f(x):
            with tf.GradientTape(persistent=True) as tape:
                tape.watch(x)
                y = x * x
                with tape.stop_recording():
                    z = x * 3.0
                w = tf.stop_gradient(y) * x
            return (
                tape.jacobian(y, x),
                tape.gradient(z, x),
                tape.gradient(z, x, unconnected_gradients="zero"),
                tape.gradient(w, x),
                tape.jacobian(y, x, experimental_use_pfor=False),
            )

        @tf.function
        def g(x):
            with tf.GradientTape() as tape:
                tape.watch(x)
                y = x * x
            return tape.batch_jacobian(y, x)

        return f(tf.constant([1.0, 2.0])), g(tf.constant([[1.0, 2.0], [3.0, 4.0]]))

    alike(case)


def test_grad_fn_returning_too_few_variable_gradients_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable(3.0)

        @tf.custom_gradient
        def f(x):
            def grad(dy, variables):
                return dy, []

            return x * v, grad

        x = tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)

    same_error(case)
