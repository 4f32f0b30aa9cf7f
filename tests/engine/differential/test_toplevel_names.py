"""Small top-level names from TensorFlow's guides: tf.get_logger, tf.version, tf.VariableAggregation,
tf.VariableSynchronization, tf.get_current_name_scope, tf.is_symbolic_tensor, tf.no_gradient, tf.timestamp and
tf.Operation, eagerly and inside a tf.function, on both engines."""

from __future__ import annotations

from typing import Any

from harness import minitf, same_program


def test_logger_and_version() -> None:
    def case(tf: Any, seen: list) -> None:
        logger = tf.get_logger()
        seen.extend([logger.name, type(logger).__name__, tf.version.VERSION, type(tf.version.GRAPH_DEF_VERSION)])
        seen.extend([tf.__version__, tuple(int(part) for part in tf.__version__.split(".")[:2]) >= (2, 8)])

    same_program(case)


def test_minitfs_own_version_is_kept_apart_from_the_api_version() -> None:
    assert minitf.__minitf_version__ == "0.1.0" and minitf.__version__ == minitf.version.VERSION


def test_variable_aggregation_and_synchronization_enums() -> None:
    def case(tf: Any, seen: list) -> None:
        for enum in (tf.VariableAggregation, tf.VariableSynchronization):
            seen.append([(str(member), member.name, member.value) for member in enum])
        seen.extend(
            [
                tf.VariableAggregation.__name__,
                tf.VariableAggregation.MEAN == 2,
                tf.VariableAggregation["SUM"] is tf.VariableAggregation.SUM,
            ]
        )
        tf.Variable(1.0, aggregation=tf.VariableAggregation.MEAN, synchronization=tf.VariableSynchronization.AUTO)

    same_program(case)


def test_current_name_scope_eagerly_and_traced() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.get_current_name_scope())
        with tf.name_scope("a"):
            with tf.name_scope("b") as scope:
                seen.extend([scope, tf.get_current_name_scope()])
            seen.append(tf.get_current_name_scope())

        @tf.function
        def f(x: Any) -> Any:
            with tf.name_scope("outer") as scope:
                seen.extend([scope, tf.get_current_name_scope(), tf.is_symbolic_tensor(x)])
                with tf.name_scope("inner") as inner:
                    seen.extend([inner, (x + 1.0).name])
            seen.append(tf.get_current_name_scope())
            return x

        f(tf.constant(1.0))
        seen.extend(
            [tf.is_symbolic_tensor(tf.constant(1.0)), tf.is_symbolic_tensor(tf.Variable(1.0)), tf.is_symbolic_tensor(3)]
        )

    same_program(case)


def test_no_gradient_takes_an_op_type() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.no_gradient("SomeOpOfMine"))
        tf.no_gradient(3)

    same_program(case, "op_type must be a string")


def test_timestamp_is_a_float64_clock_read_at_every_call() -> None:
    def case(tf: Any, seen: list) -> None:
        start = tf.timestamp()
        f = tf.function(lambda: tf.timestamp())
        first, second = f(), f()
        seen.extend(
            [
                start.dtype,
                start.shape,
                first.dtype,
                bool(second >= first),
                bool(first >= start),
                abs(float(start) - __import__("time").time()) < 60,
            ]
        )

    same_program(case)


def test_operation_is_the_class_of_graph_operations() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x: Any) -> Any:
            seen.extend(
                [
                    isinstance((x * 2.0).op, tf.Operation),
                    isinstance(tf.no_op(), tf.Operation),
                    isinstance(x, tf.Operation),
                ]
            )
            return x

        f(tf.constant(1.0))
        seen.append(tf.Operation.__name__)

    same_program(case)
