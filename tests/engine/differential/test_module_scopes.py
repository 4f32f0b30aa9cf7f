"""A `tf.Module` keeps the name scope it was made in, as TensorFlow does: `module.name_scope.name` is the whole
scope with a trailing slash ("outer/k/"), and entering a scope given whole ("a/b/") replaces the enclosing
scopes instead of nesting in them (the intro-to-modules guide prints these names)."""

from __future__ import annotations

from typing import Any

from harness import same_program


def test_a_modules_name_scope_is_the_scope_it_was_made_in() -> None:
    def program(tf: Any, seen: list) -> None:
        module = tf.Module(name="simple")
        seen.append(module.name_scope.name)
        with tf.name_scope("outer"):
            seen.append(tf.Module(name="k").name_scope.name)

        class MyModule(tf.Module):
            pass

        seen.append((MyModule().name, MyModule().name_scope.name))

    same_program(program)


def test_a_whole_scope_replaces_the_enclosing_ones_and_nested_scopes_add_up() -> None:
    def program(tf: Any, seen: list) -> None:
        with tf.name_scope("a") as a, tf.name_scope("b") as b:
            with tf.name_scope("x/y/") as whole:
                seen.append((a, b, whole, tf.Variable(1.0, name="v").name))
            seen.append(tf.Variable(1.0, name="w").name)
        with tf.Module(name="m").name_scope as inside:
            seen.append((inside, tf.Variable(1.0).name))

    same_program(program)
