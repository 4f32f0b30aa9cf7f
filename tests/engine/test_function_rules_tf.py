"""The remaining tf.function rules on minitf against real TensorFlow: calling concrete functions (their
structured and flat signatures), `function_type` and the structured signatures, functions that call
themselves, Python callables as arguments, and `tf.types.experimental` annotations."""

from __future__ import annotations

from typing import Any

import pytest
from harness import real_tf, run_program, same_program

pytestmark = pytest.mark.tf


def _traced_with_python_value(tf: Any) -> Any:
    @tf.function
    def scale(x, n, y=None):
        return x * n

    return scale.get_concrete_function(tf.TensorSpec([None]), 3)


def test_concrete_function_accepts_traced_python_values_or_tensor_arguments_alone() -> None:
    def case(tf: Any, seen: list) -> None:
        cf = _traced_with_python_value(tf)
        x = tf.constant([1.0, 2.0])
        seen.append(cf(x))
        seen.append(cf(x, 3, None))
        seen.append(cf(x, n=3, y=None))
        seen.append(cf(x=x))
        seen.append(cf(x, 3.0, None))  # literals are compared with ==
        seen.append(cf(x, tf.constant(3.0), None))

    same_program(case)


@pytest.mark.parametrize("call", ["other_literal", "missing_tensor", "unknown_keyword", "list_for_tensor", "too_many"])
def test_concrete_function_rejects_other_arguments_with_tensorflows_type_error(call: str) -> None:
    def case(tf: Any, seen: list) -> None:
        cf = _traced_with_python_value(tf)
        x = tf.constant([1.0])
        {
            "other_literal": lambda: cf(x, 4, None),
            "missing_tensor": lambda: cf(),
            "unknown_keyword": lambda: cf(x, z=1),
            "list_for_tensor": lambda: cf([1.0]),
            "too_many": lambda: cf(x, 3, None, 5),
        }[call]()

    # minitf's message holds TensorFlow's whole message plus a Hint
    same_program(case, message="within", hint=True)


def test_concrete_function_with_a_tensor_of_another_dtype_raises_invalid_argument() -> None:
    def case(tf: Any, seen: list) -> None:
        _traced_with_python_value(tf)(tf.constant([1], tf.int32))

    same_program(
        case,
        error_fragment="as input #0(zero-based) was expected to be a float tensor but is a int32 tensor",
        hint=True,
    )


def test_function_type_and_structured_signatures_of_a_trace() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def h(d, lst, k=2):
            return {"sum": d["a"] + lst[0] * k, "k": k}

        cf = h.get_concrete_function({"a": tf.TensorSpec([])}, [tf.TensorSpec([None]), 1])
        seen.append(str(cf.function_type))
        seen.append(repr(cf.structured_input_signature))
        seen.append(repr(cf.structured_outputs))
        seen.append(str(h.function_type))
        print(cf.pretty_printed_signature())
        print(h.pretty_printed_concrete_signatures())
        seen.append(cf({"a": tf.constant(1.0)}, [tf.constant([2.0]), 1], 2))
        seen.append(repr(cf).split(" at 0x")[0])

    same_program(case)


def test_function_type_with_an_input_signature_shows_specs_and_defaults() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec([None])])
        def f(x, n=2):
            return x * n

        seen.append(str(f.function_type))

    same_program(case)


def test_a_traced_function_that_calls_itself_traces_once_per_python_value() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def factorial(n):
            print("tracing", n)
            if n <= 1:
                return tf.constant(1)
            return n * factorial(n - 1)

        seen.append(factorial(5))
        seen.append(factorial(5))
        seen.append(factorial.experimental_get_tracing_count())

        @tf.function
        def doubled(x, k):
            if k == 0:
                return x
            return doubled(x * 2.0, k - 1)

        seen.append(doubled(tf.constant(1.0), 3))
        seen.append(doubled.experimental_get_tracing_count())

    same_program(case)


def test_python_callables_as_arguments_key_the_trace_by_identity() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def apply(fn, x):
            print("tracing with", fn.__name__)
            return fn(x)

        def double(x):
            return x * 2

        def square(x):
            return x * x

        seen.append(apply(double, tf.constant(3)))
        seen.append(apply(square, tf.constant(3)))
        seen.append(apply(double, tf.constant(4)))
        seen.append(apply.experimental_get_tracing_count())
        text = apply.pretty_printed_concrete_signatures()
        seen.append([line.split(" at 0x")[0] for line in text.splitlines() if "fn (" in line])
        seen.append(["(double)>])" in text, "(square)>])" in text])

    same_program(case)


def test_tf_types_experimental_names_work_in_annotations_and_isinstance() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(x: tf.types.experimental.TensorLike, fn: tf.types.experimental.Callable = None) -> tf.Tensor:
            return x * 2

        seen.append(f(tf.constant(1.0)))
        seen.append(f(3))
        seen.append(isinstance(f, tf.types.experimental.PolymorphicFunction))
        seen.append(isinstance(f, tf.types.experimental.GenericFunction))
        seen.append(isinstance(f.get_concrete_function(tf.constant(1.0)), tf.types.experimental.ConcreteFunction))
        seen.append(
            isinstance(f.get_concrete_function(tf.constant(1.0)).function_type, tf.types.experimental.FunctionType)
        )
        seen.append(isinstance(tf.TensorSpec([]), tf.types.experimental.TraceType))
        seen.append(sorted(n for n in dir(tf.types.experimental) if not n.startswith("_") and n != "distributed"))

    same_program(case)


def test_tensor_array_filled_in_a_tf_range_loop_keeps_static_shapes() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def rows(x):
            ta = tf.TensorArray(tf.float32, size=4)
            for i in tf.range(4):
                ta = ta.write(i, x * tf.cast(i, tf.float32))
            out = ta.stack()
            seen.append([out.shape.as_list(), ta.read(1).shape.as_list(), ta.size().op.type])
            return out

        @tf.function
        def dynamic(n):
            ta = tf.TensorArray(tf.float32, size=n)
            for i in tf.range(n):
                ta = ta.write(i, tf.cast(i, tf.float32))
            out = ta.stack()
            seen.append(out.shape.as_list())
            return out

        seen.append(rows(tf.constant([1.0, 2.0])))
        seen.append(dynamic(tf.constant(3)))

    same_program(case)


@pytest.mark.parametrize("traced", [False, True], ids=["eager", "tf.function"])
def test_tensor_array_of_static_size_has_zero_rows_where_nothing_was_written(traced: bool) -> None:
    def case(tf: Any, seen: list) -> None:
        def partly():
            ta = tf.TensorArray(tf.int32, size=3)
            for i in tf.range(2):
                ta = ta.write(i, i + 10)
            return ta.stack(), ta.size()

        seen.append((tf.function(partly) if traced else partly)())

    same_program(case)


def test_input_signature_binds_the_calls_of_a_function_with_star_args() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
        def scale(*args):
            print("tracing with", len(args), "arguments")
            return args[0] * args[1]

        seen.append(scale([1.0, 2.0], 3.0))
        seen.append(scale(tf.constant([1.0, 2.0, 3.0]), 2.0))
        seen.append(scale.experimental_get_tracing_count())
        seen.append(str(scale.function_type))
        cf = scale.get_concrete_function()
        seen.append(str(cf.function_type))
        seen.append(repr(cf.structured_input_signature))
        seen.append(cf(tf.constant([1.0]), tf.constant(4.0)))
        print(scale.pretty_printed_concrete_signatures())

        @tf.function(input_signature=[tf.TensorSpec([]), tf.TensorSpec([]), tf.TensorSpec([])])
        def total(x, *rest):
            return x + tf.add_n(list(rest))

        seen.append(total(1.0, 2.0, 3.0))
        seen.append(str(total.function_type))

        @tf.function
        def plain(*args):
            return args[0] + args[1]

        seen.append(str(plain.function_type))
        print(plain.get_concrete_function(tf.TensorSpec([]), tf.TensorSpec([])))

    same_program(case)


@pytest.mark.parametrize("call", ["too_many", "too_few", "by_keyword", "wrong_dtype"])
def test_star_args_calls_that_do_not_fit_the_input_signature_raise_tensorflows_type_error(call: str) -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec([None]), tf.TensorSpec([])])
        def scale(*args):
            return args[0] * args[1]

        {
            "too_many": lambda: scale(1.0, 2.0, 3.0),
            "too_few": lambda: scale([1.0]),
            "by_keyword": lambda: scale(args=1.0),
            "wrong_dtype": lambda: scale(tf.constant([1]), 2.0),
        }[call]()

    same_program(case, error_fragment="Binding inputs to tf.function failed due to", message="equal")


def test_parameters_after_the_input_signature_keep_their_defaults_as_python_values() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function(input_signature=[tf.TensorSpec([])])
        def times(x, n=2, *, k=3):
            return x * n * k

        seen.append(times(1.0))
        seen.append(times(1.0, 2))
        seen.append(times(1.0, n=2, k=3))
        seen.append(str(times.function_type))
        seen.append(times.experimental_get_tracing_count())
        times(1.0, 5)

    same_program(case, error_fragment="`Can not cast 5 to Literal[2]`", message="equal")


@pytest.mark.parametrize(
    "signature",
    [
        "shorter",
        "longer",
        "empty",
        "not_a_list",
        "dict",
        "not_specs",
        "nested_not_spec",
        "keyword_only_without_default",
    ],
)
def test_an_input_signature_that_cannot_describe_the_function_is_rejected_when_made(signature: str) -> None:
    def case(tf: Any, seen: list) -> None:
        spec = tf.TensorSpec([])
        made = {
            "shorter": lambda: tf.function(lambda x, y: x + y, input_signature=[spec]),
            "longer": lambda: tf.function(lambda x: x, input_signature=[spec, spec]),
            "empty": lambda: tf.function(lambda x: x, input_signature=[]),
            "not_a_list": lambda: tf.function(lambda x: x, input_signature=spec),
            "dict": lambda: tf.function(lambda x: x, input_signature={"x": spec}),
            "not_specs": lambda: tf.function(lambda x: x, input_signature=[1.0]),
            "nested_not_spec": lambda: tf.function(lambda x: x, input_signature=[[spec, None]]),
            "keyword_only_without_default": lambda: tf.function(lambda x, *, y: x, input_signature=[spec]),
        }[signature]
        seen.append("making")
        made()
        seen.append("made")

    mine = same_program(case).error
    theirs = run_program(case, real_tf).error
    assert type(mine).__name__ == "TypeError"
    assert str(mine).replace("minitf.function.cache_keys", "tensorflow.python.framework.tensor") == str(theirs)


def test_a_function_traced_inside_another_trace_captures_that_traces_tensors() -> None:
    def case(tf: Any, seen: list) -> None:
        c = tf.constant([1.0, 2.0])

        @tf.function
        def scaled(x):
            return x * c

        @tf.function
        def outer(x):
            y = x + 1.0

            @tf.function
            def uses_outer():
                return y * 2.0

            return uses_outer() + scaled(x)

        seen.append(outer(tf.constant([1.0, 1.0])))
        seen.append(scaled(tf.constant([3.0, 1.0])))
        seen.append(scaled.experimental_get_tracing_count())

    same_program(case)


def test_a_traced_loop_that_reads_a_variable_is_differentiated_under_a_tape() -> None:
    def case(tf: Any, seen: list) -> None:
        v = tf.Variable(2.0)

        @tf.function
        def power(x):
            i = tf.constant(0)
            while i < 3:
                x = x * v
                i += 1
            return x

        x = tf.constant(1.5)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = power(x)
        seen.append(y)
        seen.append(tape.gradient(y, [x, v]))

    same_program(case)
