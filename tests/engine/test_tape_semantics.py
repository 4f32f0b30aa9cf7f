"""`tf.GradientTape` semantics, each statement checked against real TensorFlow.

Watching rules, the shapes `gradient` accepts and returns, one-shot and persistent tapes, higher-order
derivatives, Jacobians, the paths that cut a gradient, the derivatives TensorFlow defines at awkward
points, and the errors a student can provoke.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest
from harness import ENGINES, alike, same_error

# RuntimeWarnings of the NumPy the tests compute with themselves (log(0), 0 * inf...) are not what they check.
pytestmark = [pytest.mark.tf, pytest.mark.filterwarnings("ignore::RuntimeWarning")]


# ---------------------------------------------------------------------------------------------------
# Watching
# ---------------------------------------------------------------------------------------------------


def test_trainable_variable_is_watched_automatically() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(3.0)
        with tf.GradientTape() as tape:
            y = x * x
        return tape.gradient(y, x)

    assert float(alike(case)) == 6.0


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda tf: tf.constant(3.0), id="constant"),
        pytest.param(lambda tf: tf.Variable(3.0, trainable=False), id="non-trainable-variable"),
    ],
)
def test_constant_and_non_trainable_variable_give_none_unless_watched(make: Any) -> None:
    def case(tf: Any, watch: bool) -> Any:
        x = make(tf)
        with tf.GradientTape() as tape:
            if watch:
                tape.watch(x)
            y = x * x
        return tape.gradient(y, x)

    assert alike(case, False) is None
    assert float(alike(case, True)) == 6.0


def test_watch_accessed_variables_false_watches_only_what_is_watched() -> None:
    def case(tf: Any) -> Any:
        a, b = tf.Variable(2.0), tf.Variable(5.0)
        x = tf.constant(7.0)
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch([a, x])
            y = a * b * x
        return tape.gradient(y, [a, b, x])

    alike(case)


def test_watched_variables_lists_trainable_variables_in_creation_order() -> None:
    def case(tf: Any) -> Any:
        first, second = tf.Variable(1.0), tf.Variable(2.0)
        frozen = tf.Variable(3.0, trainable=False)
        unused = tf.Variable(4.0)
        with tf.GradientTape() as tape:
            y = second * first * frozen
        everything = [first, second, frozen, unused]
        before = [everything.index(v) for v in tape.watched_variables()]
        tape.gradient(y, first)
        after = [everything.index(v) for v in tape.watched_variables()]
        return before, after

    assert alike(case) == ([0, 1], [0, 1])


def test_watched_variables_includes_explicitly_watched_non_trainable() -> None:
    def case(tf: Any) -> Any:
        a, b = tf.Variable(1.0, trainable=False), tf.Variable(2.0)
        with tf.GradientTape(watch_accessed_variables=False) as tape:
            tape.watch(a)
            y = a * b
        return [v is a for v in tape.watched_variables()], tape.gradient(y, [a, b])

    alike(case)


def test_watch_accepts_nested_structures() -> None:
    def case(tf: Any) -> Any:
        x, y, z = tf.constant(1.0), tf.constant(2.0), tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch({"pair": (x, y), "single": [z]})
            out = x * y * z
        return tape.gradient(out, [x, y, z])

    alike(case)


def test_operations_before_watch_are_not_recorded() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            before = x * x
            tape.watch(x)
            after = x * 3.0
            total = before + after
        return tape.gradient(total, x)

    assert float(alike(case)) == 3.0


def test_operations_after_the_block_are_not_recorded() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            y = x * x
        outside = y * x
        return tape.gradient(outside, x)

    assert alike(case) is None


def test_two_tapes_at_once_each_see_what_they_watch() -> None:
    def case(tf: Any) -> Any:
        x, y = tf.constant(2.0), tf.constant(5.0)
        with tf.GradientTape() as tape_x, tf.GradientTape() as tape_y:
            tape_x.watch(x)
            tape_y.watch(y)
            z = x * y
        return tape_x.gradient(z, [x, y]), tape_y.gradient(z, [x, y])

    alike(case)


def test_watch_before_entering_raises_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        tape = tf.GradientTape()
        tape.watch(tf.constant(1.0))

    same_error(case, hint=False)


# ---------------------------------------------------------------------------------------------------
# Variables
# ---------------------------------------------------------------------------------------------------


def test_variable_reads_of_every_kind_carry_the_gradient() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
        w = tf.Variable([0.5, -1.0], dtype=tf.float64)
        with tf.GradientTape() as tape:
            y = (
                tf.reduce_sum(v[0] * v[:, 1])
                + tf.reduce_sum(v @ v)
                + tf.reduce_sum(tf.identity(v))
                + tf.reduce_sum(tf.convert_to_tensor(v) ** 2)
                + tf.reduce_sum(v.read_value())
                - v[1, 1]
            )
            z = tf.reduce_sum(tf.exp(w)) + tf.reduce_sum(2.0 * w)
        return tape.gradient({"y": y, "z": z}, {"v": v, "w": w})

    alike(case)


def test_assign_inside_the_tape_cuts_the_path_to_the_assigned_value() -> None:
    def case(tf: Any) -> Any:
        x, v = tf.constant(2.0), tf.Variable(1.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            v.assign(x * 3.0)
            y = v * v
        return tape.gradient(y, [x, v])

    alike(case)


def test_gradient_with_respect_to_an_intermediate_tensor() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            hidden = tf.sin(x)
            y = tf.reduce_sum(hidden * hidden)
        return tape.gradient(y, [hidden, x, x])

    alike(case)


@pytest.mark.parametrize("dtype", ["float16", "float64"])
def test_gradient_dtype_follows_the_source(dtype: str) -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([0.5, 1.0, 2.0], dtype=getattr(tf, dtype))
        w = tf.Variable(tf.constant([[1.0], [2.0], [-1.0]], dtype=getattr(tf, dtype)))
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_mean(tf.tanh(tf.matmul(tf.reshape(x, [1, 3]), w)) + tf.sqrt(x) * tf.exp(-x))
        return tape.gradient(y, [x, w])

    alike(case, rtol=2e-3 if dtype == "float16" else 1e-12, atol=2e-3 if dtype == "float16" else 1e-12, text=False)


# ---------------------------------------------------------------------------------------------------
# gradient(): sources, targets, output_gradients, unconnected gradients
# ---------------------------------------------------------------------------------------------------


def _three(tf: Any) -> tuple[Any, Any, Any, Any]:
    """A tape over y = a*b + c*c with a, b, c watched."""
    a, b, c = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0]), tf.Variable([[0.5], [1.5]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([a, b])
        y = a * b + c * c
    return tape, y, (a, b, c), None


@pytest.mark.parametrize("shape", ["single", "list", "tuple", "dict", "nested"])
def test_gradient_returns_the_structure_of_the_sources(shape: str) -> None:
    def case(tf: Any) -> Any:
        tape, y, (a, b, c), _ = _three(tf)
        sources = {
            "single": a,
            "list": [a, b, c],
            "tuple": (c, a),
            "dict": {"b": b, "a": a},
            "nested": {"first": [a, (b,)], "second": {"c": c}},
        }[shape]
        return tape.gradient(y, sources)

    alike(case)


def test_non_scalar_target_gives_gradient_of_its_sum() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(2.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * tf.constant([3.0, 4.0])
        return tape.gradient(y, x)

    assert float(alike(case)) == 7.0


@pytest.mark.parametrize("structure", ["list", "dict"])
def test_several_targets_are_summed(structure: str) -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y1 = x * x
            y2 = tf.reduce_sum(tf.sin(x))
        targets = [y1, y2] if structure == "list" else {"square": y1, "sine": y2}
        return tape.gradient(targets, x)

    alike(case)


def test_a_target_listed_twice_counts_twice() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = x * x
        return tape.gradient([y, y, x], x)

    alike(case)


def test_control_flow_is_differentiable() -> None:
    """Python loops and branches are recorded op by op; tf.cond and tf.while_loop have gradients too."""

    def case(tf: Any) -> Any:
        x = tf.constant(2.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            unrolled = tf.constant(1.0)
            for _ in range(3):
                unrolled = unrolled * x
            branch = tf.cond(x > 1.0, lambda: x * x, lambda: -x)
            _, looped = tf.while_loop(
                lambda i, acc: i < 3, lambda i, acc: (i + 1, acc * x), [tf.constant(0), tf.constant(1.0)]
            )
        return tape.gradient(unrolled, x), tape.gradient(branch, x), tape.gradient(looped, x)

    assert [float(g) for g in alike(case)] == [12.0, 4.0, 12.0]


def test_output_gradients_weight_the_target() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            y = tf.square(x)
        return tape.gradient(y, x, output_gradients=tf.constant([1.0, -2.0, 0.5]))

    alike(case)


def test_output_gradients_for_several_targets() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y1, y2 = x * 3.0, tf.exp(x)
        return tape.gradient([y1, y2], x, output_gradients=[tf.constant([1.0, 10.0]), tf.constant([2.0, 0.0])])

    alike(case)


@pytest.mark.parametrize("how", ["none", "zero", "ZERO", "NONE"])
def test_unconnected_gradients(how: str) -> None:
    def case(tf: Any) -> Any:
        x, unused = tf.Variable([1.0, 2.0]), tf.Variable([[1.0, 2.0, 3.0]])
        cut = tf.constant(5.0, dtype=tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(cut)
            y = x * 2.0
        option = how if how.islower() else getattr(tf.UnconnectedGradients, how)
        return tape.gradient(y, [x, unused, cut], unconnected_gradients=option)

    alike(case)


def test_target_that_is_a_constant_gives_none() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = tf.constant(3.0) * 2.0
        return tape.gradient(y, x)

    assert alike(case) is None


def test_target_that_is_the_source_gives_one_even_unwatched() -> None:
    def case(tf: Any) -> Any:
        x, v = tf.constant([1.0, 2.0]), tf.Variable(3.0)
        with tf.GradientTape(persistent=True) as tape:
            y = v * 2.0
        return tape.gradient(x, x), tape.gradient(v, v), tape.gradient([y, v], v)

    alike(case)


def test_integer_sources_give_none_and_log_tensorflows_warning(caplog: pytest.LogCaptureFixture) -> None:
    def case(tf: Any) -> Any:
        n = tf.constant([1, 2])
        counter = tf.Variable(3)
        with tf.GradientTape() as tape:
            tape.watch(n)
            y = n * n + counter
        return tape.gradient(y, [n, counter])

    for name, lib in ENGINES.items():
        caplog.clear()
        with caplog.at_level(logging.WARNING):
            assert case(lib) == [None, None]
        messages = [r.getMessage() for r in caplog.records]
        assert "The dtype of the watched tensor must be floating (e.g. tf.float32), got tf.int32" in messages, (
            f"{name} logged {messages}"
        )


def test_integer_source_with_zero_unconnected_gradients_gives_integer_zeros() -> None:
    def case(tf: Any) -> Any:
        n, x = tf.constant([1, 2]), tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch(n)
            tape.watch(x)
            y = tf.cast(n, tf.float32) * x
        return tape.gradient(y, [n, x], unconnected_gradients="zero")

    alike(case)


# ---------------------------------------------------------------------------------------------------
# One-shot and persistent tapes, stop_recording, reset, stop_gradient
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "first, second",
    [("gradient", "gradient"), ("jacobian", "gradient"), ("gradient", "jacobian"), ("jacobian", "jacobian")],
)
def test_non_persistent_tape_answers_once(first: str, second: str) -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = x * x
        getattr(tape, first)(y, x)
        return getattr(tape, second)(y, x)

    mine, _ = same_error(case)
    assert "persistent=True" in str(mine)


def test_gradient_on_a_never_entered_tape_raises_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        return tf.GradientTape().gradient(tf.constant(1.0), tf.constant(1.0))

    same_error(case)


def test_persistent_tape_answers_many_times() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            y = x * x
            z = tf.sin(y)
        return tape.gradient(y, x), tape.gradient(z, x), tape.jacobian(z, x), tape.gradient(z, y)

    alike(case)


def test_gradient_inside_the_block_stops_a_one_shot_tape() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
            g = tape.gradient(y, x)
            later = y * x  # no longer recorded; the tape is done
        return g, later

    alike(case)


def test_a_used_tape_can_be_entered_again_for_a_new_recording() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        first = tape.gradient(y, x)
        with tape:
            tape.watch(x)
            z = x * x * x
        return first, tape.gradient(z, x)

    alike(case)


def test_persistent_tape_records_its_own_gradient_inside_the_block() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(1.0)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x**3
            dy = tape.gradient(y, x)
        return dy, tape.gradient(dy, x)

    alike(case)


def test_stop_recording_hides_operations() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(2.0)
        with tf.GradientTape() as tape:
            with tape.stop_recording():
                hidden = x * x
            y = hidden * x
        return tape.gradient(y, x)

    assert float(alike(case)) == 4.0


def test_stop_recording_outside_the_block_raises_like_tensorflow() -> None:
    def never_entered(tf: Any) -> Any:
        with tf.GradientTape().stop_recording():
            pass

    def after_exit(tf: Any) -> Any:
        with tf.GradientTape(persistent=True) as tape:
            pass
        with tape.stop_recording():
            pass

    same_error(never_entered, hint=False)
    same_error(after_exit)


def test_reset_forgets_what_was_recorded_and_watched() -> None:
    def case(tf: Any) -> Any:
        x, v = tf.constant(2.0), tf.Variable(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * v
            tape.reset()
            z = x * 5.0 + v * v + y
        return tape.gradient(z, [x, v]), len(tape.watched_variables())

    alike(case)


def test_reset_outside_the_block_raises_like_tensorflow() -> None:
    def case(tf: Any) -> Any:
        with tf.GradientTape() as tape:
            pass
        tape.reset()

    same_error(case)


def test_stop_gradient_blocks_the_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = x * tf.stop_gradient(x * 3.0)
        return tape.gradient(y, x)

    alike(case)

    def blocked(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = tf.stop_gradient(x * x)
        return tape.gradient(y, x)

    assert alike(blocked) is None


# ---------------------------------------------------------------------------------------------------
# Higher order
# ---------------------------------------------------------------------------------------------------


def test_nested_tapes_give_second_and_third_derivatives_of_cube() -> None:
    def case(tf: Any, at: float) -> Any:
        x = tf.constant(at)
        with tf.GradientTape() as t3:
            t3.watch(x)
            with tf.GradientTape() as t2:
                t2.watch(x)
                with tf.GradientTape() as t1:
                    t1.watch(x)
                    y = x**3
                dy = t1.gradient(y, x)
            d2y = t2.gradient(dy, x)
        d3y = t3.gradient(d2y, x)
        return dy, d2y, d3y

    assert [float(v) for v in alike(case, 1.0)] == [3.0, 6.0, 6.0]
    alike(case, -1.5)


def test_hessian_vector_product_with_nested_tapes() -> None:
    rng = np.random.default_rng(0)
    w = rng.normal(size=(3, 3))
    x0, v0 = rng.normal(size=3), rng.normal(size=3)

    def case(tf: Any) -> Any:
        x, v = tf.constant(x0), tf.constant(v0)
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                f = (
                    tf.reduce_sum(tf.tanh(tf.linalg.matvec(w, x)) * x)
                    if hasattr(tf.linalg, "matvec")
                    else tf.reduce_sum(tf.tanh(tf.reshape(tf.matmul(w, tf.reshape(x, [3, 1])), [3])) * x)
                )
            grad = inner.gradient(f, x)
        return grad, outer.gradient(grad, x, output_gradients=v)

    tf_grad, tf_hvp = alike(case, rtol=1e-10, atol=1e-12)
    hessian = _numeric_hessian(lambda z: float(np.sum(np.tanh(w @ z) * z)), x0)
    np.testing.assert_allclose(tf_hvp.numpy(), hessian @ v0, rtol=1e-5, atol=1e-6)


def _numeric_hessian(f: Any, x: np.ndarray, eps: float = 1e-4) -> np.ndarray:
    n = x.size
    h = np.zeros((n, n))
    for i in range(n):
        for j in range(n):
            e_i, e_j = np.eye(n)[i] * eps, np.eye(n)[j] * eps
            h[i, j] = (f(x + e_i + e_j) - f(x + e_i - e_j) - f(x - e_i + e_j) + f(x - e_i - e_j)) / (4 * eps * eps)
    return h


def test_hessian_as_jacobian_of_a_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([0.5, -1.0, 2.0])
        with tf.GradientTape() as outer:
            with tf.GradientTape() as inner:
                y = tf.reduce_sum(x**3) + tf.reduce_prod(x)
            g = inner.gradient(y, x)
        return outer.jacobian(g, x)

    alike(case, rtol=1e-5)


# ---------------------------------------------------------------------------------------------------
# jacobian and batch_jacobian
# ---------------------------------------------------------------------------------------------------


def test_jacobian_of_elementwise_square_is_diagonal() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x)

    assert np.array_equal(alike(case).numpy(), np.diag([2.0, 4.0, 6.0]))


@pytest.mark.parametrize("target_shape, source_shape", [((), ()), ((2, 3), (3,)), ((3,), (2, 2)), ((2,), ())])
def test_jacobian_has_target_shape_plus_source_shape(target_shape: tuple, source_shape: tuple) -> None:
    rng = np.random.default_rng(1)
    x0 = rng.normal(size=source_shape).astype(np.float32)
    out_size = int(np.prod(target_shape))
    w = rng.normal(size=(out_size, x0.size)).astype(np.float32)

    def case(tf: Any) -> Any:
        x = tf.Variable(x0)
        with tf.GradientTape() as tape:
            flat = tf.reshape(tf.sin(x), [-1, 1])
            y = tf.reshape(tf.matmul(tf.constant(w), flat), target_shape)
        return tape.jacobian(y, x)

    assert list(alike(case, rtol=1e-5).shape) == list(target_shape) + list(source_shape)


def test_jacobian_with_several_sources_and_unconnected_ones() -> None:
    def case(tf: Any, how: str) -> Any:
        x, unused = tf.Variable([[1.0, 2.0]]), tf.Variable([3.0, 4.0, 5.0])
        with tf.GradientTape() as tape:
            y = tf.tanh(x) * 2.0
        return tape.jacobian(y, {"x": x, "unused": unused}, unconnected_gradients=how)

    alike(case, "none", rtol=1e-5)
    alike(case, "zero", rtol=1e-5)


@pytest.mark.parametrize("rank", [2, 3])
def test_batch_jacobian_has_batch_target_source_shape(rank: int) -> None:
    rng = np.random.default_rng(2)
    x0 = rng.normal(size=(4, 3)).astype(np.float32)
    w = rng.normal(size=(3, 2)).astype(np.float32)

    def case(tf: Any) -> Any:
        x = tf.constant(x0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.tanh(tf.matmul(x, w))
            if rank == 3:
                y = tf.stack([y, y * y], axis=-1)
        return tape.batch_jacobian(y, x)

    result = alike(case, rtol=1e-5)
    assert list(result.shape) == ([4, 2, 3] if rank == 2 else [4, 2, 2, 3])


def test_batch_jacobian_assumes_independent_examples_like_tensorflow() -> None:
    """Coupled examples: TensorFlow adds the cross-example terms into each example's block."""

    def case(tf: Any) -> Any:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * tf.reduce_sum(x, axis=0)
        return tape.batch_jacobian(y, x)

    alike(case)


@pytest.mark.parametrize("how", ["none", "zero"])
def test_batch_jacobian_of_an_unconnected_source(how: str) -> None:
    """Unlike gradient and jacobian, TensorFlow's batch_jacobian answers zeros even with NONE."""

    def case(tf: Any) -> Any:
        x, unused = tf.ones([2, 3]), tf.ones([2, 4, 1])
        with tf.GradientTape() as tape:
            tape.watch([x, unused])
            y = x * 2.0
        return tape.batch_jacobian(y, unused, unconnected_gradients=how)

    alike(case)


def test_batch_jacobian_without_pfor_needs_a_persistent_tape() -> None:
    def case(tf: Any, persistent: bool) -> Any:
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        with tf.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = tf.sin(x)
        return tape.batch_jacobian(y, x, experimental_use_pfor=False)

    same_error(case, False)
    alike(case, True)


@pytest.mark.parametrize("target_shape", [(), (2,)])
def test_batch_jacobian_needs_a_batch_of_vectors(target_shape: tuple) -> None:
    def case(tf: Any) -> Any:
        x = tf.ones([2, 3])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(x, axis=1) if target_shape else tf.reduce_sum(x)
        return tape.batch_jacobian(y, x)

    same_error(case)


def test_jacobian_without_pfor_needs_a_persistent_tape() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x, experimental_use_pfor=False)

    same_error(case)

    def persistent(tf: Any) -> Any:
        x = tf.constant([1.0, 2.0])
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = x * x
        return tape.jacobian(y, x, experimental_use_pfor=False)

    alike(persistent)


def test_batch_jacobian_needs_matching_batch_sizes() -> None:
    def case(tf: Any) -> Any:
        x = tf.ones([2, 3])
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.ones([3, 3]) * 2.0
        return tape.batch_jacobian(y, x)

    same_error(case, hint=False)


# ---------------------------------------------------------------------------------------------------
# Paths that cut the gradient
# ---------------------------------------------------------------------------------------------------


def test_assign_add_cuts_the_gradient() -> None:
    def case(tf: Any) -> Any:
        x0, x1 = tf.Variable(3.0), tf.Variable(0.0)
        with tf.GradientTape() as tape:
            x1.assign_add(x0)
            y = x1**2
        return tape.gradient(y, [x0, x1])

    alike(case)


def test_replacing_a_variable_by_a_tensor_cuts_the_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(2.0)
        grads = []
        for _ in range(2):
            with tf.GradientTape() as tape:
                y = x + 1
            grads.append(tape.gradient(y, x))
            x = x + 1  # now a Tensor: the next tape does not watch it
        return grads

    alike(case)


def test_numpy_round_trip_cuts_the_gradient() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable([1.0, 2.0])
        with tf.GradientTape() as tape:
            y = tf.constant(np.square(x.numpy()))
            z = tf.reduce_sum(y) + tf.reduce_sum(tf.constant((x * 2.0).numpy()))
        return tape.gradient(z, x)

    assert alike(case) is None


# ---------------------------------------------------------------------------------------------------
# Edge derivatives as TensorFlow defines them
# ---------------------------------------------------------------------------------------------------


def _grad_of(tf: Any, fn: Any, values: Any, dtype: str = "float32") -> Any:
    x = tf.constant(values, dtype=getattr(tf, dtype))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(tf, x)
    return tape.gradient(y, x)


EDGES = {
    "reduce_max ties split": (lambda tf, x: tf.reduce_max(x), [1.0, 3.0, 3.0]),
    "reduce_min ties split": (lambda tf, x: tf.reduce_min(x), [2.0, 1.0, 1.0, 1.0]),
    "reduce_max ties per row": (lambda tf, x: tf.reduce_max(x, axis=1), [[1.0, 1.0], [2.0, 0.0]]),
    "maximum tie to first": (lambda tf, x: tf.maximum(x, 0.0), [0.0, -1.0, 1.0]),
    "maximum tie not to second": (lambda tf, x: tf.maximum(tf.zeros_like(x), x), [0.0, -1.0, 1.0]),
    "minimum tie to first": (lambda tf, x: tf.minimum(x, 0.0), [0.0, -1.0, 1.0]),
    "minimum tie not to second": (lambda tf, x: tf.minimum(tf.zeros_like(x), x), [0.0, -1.0, 1.0]),
    "maximum of x with itself": (lambda tf, x: tf.maximum(x, x), [0.0, 2.0]),
    "abs at 0": (lambda tf, x: tf.abs(x), [0.0, -2.0, 2.0]),
    "relu at 0": (lambda tf, x: tf.nn.relu(x), [0.0, -2.0, 2.0]),
    "leaky_relu at 0": (lambda tf, x: tf.nn.leaky_relu(x), [0.0, -2.0, 2.0]),
    "sqrt at 0": (lambda tf, x: tf.sqrt(x), [0.0, 4.0]),
    "log at 0": (lambda tf, x: tf.math.log(x), [0.0, 2.0]),
    "pow 0 at 0": (lambda tf, x: x**0.0, [0.0, 2.0]),
    "norm at 0": (lambda tf, x: tf.norm(x), [0.0]),
    "where log trap": (lambda tf, x: tf.where(x > 0, tf.math.log(x), 0.0), [0.0, 1.0, -1.0]),
    "where reciprocal trap": (lambda tf, x: tf.where(x > 0, 1 / x, 0.0), [0.0, 2.0]),
    "where sqrt is safe": (lambda tf, x: tf.where(x > 0, tf.sqrt(x), 0.0), [-1.0, 0.0, 4.0]),
    "clip_by_value at bounds": (lambda tf, x: tf.clip_by_value(x, 0.0, 1.0), [-1.0, 0.0, 0.5, 1.0, 2.0]),
    "sign is flat": (lambda tf, x: tf.sign(x), [0.0, -3.0, 3.0]),
    "cast to float64 and back": (lambda tf, x: tf.cast(tf.cast(x, tf.float64) * 2.0, tf.float32), [1.0, 2.0]),
    "round": (lambda tf, x: tf.round(x), [0.5, 1.4]),
    "floor": (lambda tf, x: tf.floor(x), [0.5, 1.4]),
    "argmax": (lambda tf, x: tf.argmax(x), [0.5, 1.4]),
    "cast to int": (lambda tf, x: tf.cast(tf.cast(x, tf.int32), tf.float32) * x, [0.5, 1.4]),
    "cast to int alone": (lambda tf, x: tf.cast(x, tf.int32), [0.5, 1.4]),
    "comparison": (lambda tf, x: tf.cast(x > 1.0, tf.float32), [0.5, 1.4]),
    "reduce_prod with one zero": (lambda tf, x: tf.reduce_prod(x), [0.0, 2.0, 3.0]),
    "reduce_prod with two zeros": (lambda tf, x: tf.reduce_prod(x), [0.0, 2.0, 0.0]),
    "reduce_prod with a zero per row": (lambda tf, x: tf.reduce_prod(x, axis=1), [[0.0, 2.0], [3.0, 4.0]]),
    "cumprod through a zero": (lambda tf, x: tf.math.cumprod(x), [1.0, 0.0, 3.0]),
    "softplus at 0": (lambda tf, x: tf.nn.softplus(x), [0.0, 50.0, -50.0]),
    "elu at 0": (lambda tf, x: tf.nn.elu(x), [0.0, -1.0]),
    "pow exponent at negative base": (lambda tf, x: tf.constant(-2.0) ** x, [2.0, 3.0]),
    "reciprocal at 0": (lambda tf, x: 1.0 / x, [0.0]),
    "sigmoid saturated": (lambda tf, x: tf.sigmoid(x), [100.0, -100.0]),
    "reduce_logsumexp with -inf": (lambda tf, x: tf.reduce_logsumexp(x), [-np.inf, 0.0]),
}


@pytest.mark.parametrize("name", list(EDGES))
def test_edge_derivative_matches_tensorflow(name: str) -> None:
    fn, values = EDGES[name]
    alike(_grad_of, fn, values)


def _second_derivative_of(tf: Any, fn: Any, values: Any) -> Any:
    x = tf.constant(values)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = fn(tf, x)
        first = inner.gradient(y, x)
    return first, outer.gradient(first, x)


SECOND_ORDER_EDGES = [
    "relu at 0",
    "leaky_relu at 0",
    "elu at 0",
    "softplus at 0",
    "abs at 0",
    "sqrt at 0",
    "reciprocal at 0",
    "reduce_prod with one zero",
    "reduce_max ties split",
    "maximum tie to first",
    "clip_by_value at bounds",
    "where sqrt is safe",
]


@pytest.mark.parametrize("name", SECOND_ORDER_EDGES)
def test_edge_second_derivative_matches_tensorflow(name: str) -> None:
    fn, values = EDGES[name]
    alike(_second_derivative_of, fn, values)


def test_clip_by_value_gradient_reaches_tensor_bounds() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant([-1.0, 0.0, 0.5, 1.0, 2.0])
        lo, hi = tf.constant(0.0), tf.constant(1.0)
        with tf.GradientTape() as tape:
            tape.watch([x, lo, hi])
            y = tf.clip_by_value(x, lo, hi)
        return tape.gradient(y, [x, lo, hi])

    alike(case)


def test_gather_on_a_variable_gives_the_dense_gradient() -> None:
    def case(tf: Any) -> Any:
        v = tf.Variable([1.0, 2.0, 3.0])
        with tf.GradientTape() as tape:
            y = tf.gather(v, [2, 2, 0]) * tf.constant([1.0, 2.0, 3.0])
        return tf.convert_to_tensor(tape.gradient(y, v))

    alike(case)


# ---------------------------------------------------------------------------------------------------
# Errors a student can provoke
# ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["python float", "numpy array", "string", "none", "list with a float"])
def test_wrong_source_type_raises_tensorflows_error_class_with_a_hint(source: str) -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        wrong = {
            "python float": 3.0,
            "numpy array": np.array(3.0),
            "string": "x",
            "none": None,
            "list with a float": [x, 3.0],
        }[source]
        return tape.gradient(y, wrong)

    same_error(case)


def test_target_that_is_a_python_number_raises_tensorflows_error_class() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
        return tape.gradient(3.0, x)

    same_error(case)


def test_target_none_raises_type_error() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(3.0)
        with tf.GradientTape() as tape:
            tape.watch(x)
        return tape.gradient(None, x)

    same_error(case, hint=False)


def test_watching_a_python_number_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        with tf.GradientTape() as tape:
            tape.watch(3.0)

    same_error(case)


def test_unknown_unconnected_gradients_option_raises_value_error() -> None:
    def case(tf: Any) -> Any:
        x = tf.Variable(1.0)
        with tf.GradientTape() as tape:
            y = x * 2.0
        return tape.gradient(y, x, unconnected_gradients="zeros")

    same_error(case)


def test_output_gradients_of_another_dtype_raise_invalid_argument() -> None:
    def case(tf: Any) -> Any:
        x = tf.constant(2.0, tf.float64)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x, output_gradients=3.0)

    mine, _ = same_error(case)
    assert isinstance(mine, ENGINES["minitf"].errors.InvalidArgumentError)
