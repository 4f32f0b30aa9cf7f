"""Tracing rules TensorFlow's guide on tf.function teaches, on both engines: a custom TraceType must spell out
every rule it keys traces by, and a tensor leaked out of one traced function cannot be used in another."""

from __future__ import annotations

from typing import Any

from harness import same_program


def test_trace_type_missing_placeholder_value_cannot_be_instantiated() -> None:
    def case(tf: Any, seen: list) -> None:
        class ShapeOnly(tf.types.experimental.TraceType):
            def __init__(self, size: int) -> None:
                self.size = size

            def is_subtype_of(self, other: Any) -> bool:
                return self == other

            def most_specific_common_supertype(self, others: Any) -> Any:
                return self if all(self == o for o in others) else None

            def __eq__(self, other: object) -> bool:
                return isinstance(other, ShapeOnly) and other.size == self.size

            def __hash__(self) -> int:
                return hash(self.size)

        ShapeOnly(3)

    error = same_program(case, "abstract method placeholder_value", message="equal").error
    assert isinstance(error, TypeError)


def test_trace_type_with_every_rule_keys_the_cache() -> None:
    def case(tf: Any, seen: list) -> None:
        class ByKind(tf.types.experimental.TraceType):
            def __init__(self, kind: type) -> None:
                self.kind = kind

            def is_subtype_of(self, other: Any) -> bool:
                return type(other) is ByKind and other.kind is self.kind

            def most_specific_common_supertype(self, others: Any) -> Any:
                return self if all(self == o for o in others) else None

            def placeholder_value(self, placeholder_context: Any) -> Any:
                return self.kind()

            def __eq__(self, other: object) -> bool:
                return type(other) is ByKind and other.kind is self.kind

            def __hash__(self) -> int:
                return hash(self.kind)

        class Weighted:
            def __tf_tracing_type__(self, context: Any) -> Any:
                return ByKind(type(self))

        class Heavy(Weighted):
            weight = tf.constant([2.0, 4.0])

        @tf.function
        def scale(item: Any, x: Any) -> Any:
            print("tracing")
            return item.weight * x

        seen.append(scale(Heavy(), tf.constant(1.5)))
        seen.append(scale(Heavy(), tf.constant(0.5)))

    assert same_program(case).printed == "tracing\n"


def test_leaked_tensor_used_in_another_function_is_a_bare_type_error() -> None:
    def case(tf: Any, seen: list) -> None:
        kept: list = []

        @tf.function
        def keep(a: Any) -> Any:
            kept.append(a * 3)
            return a - 1

        seen.append(keep(tf.constant(4)))

        @tf.function
        def reuse(b: Any) -> Any:
            return b + kept[0]

        reuse(tf.constant(1))

    error = same_program(case, "is out of scope and cannot be used here").error
    assert error is not None and not str(error).startswith("in user code")
    assert str(error).endswith("which is out of scope.")


def test_module_repr_names_nested_and_unqualified_classes_as_python_does() -> None:
    def case(tf: Any, seen: list) -> None:
        class Outer(tf.Module):
            class Inner(tf.Module):
                pass

        class Loose(tf.Module):
            pass

        Loose.__module__ = "builtins"  # a class defined where __name__ is builtins, as in an exec'd namespace
        for module in (Outer(), Outer.Inner(), Loose()):
            text = repr(module)
            seen.append(text[: text.index(" at 0x")])

    seen = same_program(case).seen
    assert seen[1].endswith(".<locals>.case.<locals>.Outer.Inner object") and seen[2] == "<Loose object"


def test_list_variables_names_every_saved_value_with_its_shape(tmp_path: Any) -> None:
    def case(tf: Any, seen: list) -> None:
        folder = tmp_path / type(tf.constant(0)).__module__.split(".")[0]
        owner = tf.Module()
        owner.table = tf.Variable(tf.zeros([3, 2]))
        owner.word = tf.Variable("hello")
        saved = tf.train.Checkpoint(owner=owner, step=tf.Variable(7)).save(str(folder / "ckpt"))
        seen.append(tf.train.list_variables(saved))
        seen.append(tf.train.list_variables(str(folder)))
        tf.train.list_variables(str(folder / "nothing-here"))

    same_program(case, "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for")


_made_once: Any = None


def test_global_assigned_in_a_python_if_inside_tf_function_is_the_global() -> None:
    def case(tf: Any, seen: list) -> None:
        global _made_once
        _made_once = None

        @tf.function
        def lazily() -> Any:
            global _made_once
            if _made_once is None:
                _made_once = tf.Variable(2.5)
            for _ in range(2):
                _made_once.assign_add(1.0)
            return _made_once.read_value()

        seen.append(lazily())
        seen.append(lazily())
        seen.append(_made_once is not None)

    same_program(case)


def test_nonlocal_assigned_in_a_python_loop_inside_tf_function_is_the_enclosing_name() -> None:
    def case(tf: Any, seen: list) -> None:
        count = 0

        @tf.function
        def counted(x: Any) -> Any:
            nonlocal count
            for _ in range(3):
                if x is not None:
                    count += 1
            return x * 2

        seen.append(counted(tf.constant(1.5)))
        seen.append(count)

    same_program(case)
