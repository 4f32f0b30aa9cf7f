"""minitf's tf.function machinery itself: the graph listing, the interpreter, capture rules and state hygiene.

What a student can compare with TensorFlow is in test_function_tf.py; this file pins down minitf's own
promises (readable listings, eager mode untouched after tracing, the lean eager path).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.core.context import state
from minitf.function.tracing.func_graph import FuncGraph
from minitf.function.tracing.graph import SymbolicTensor


def test_listing_shows_each_operation_with_inputs_and_result_types() -> None:
    @tf.function
    def f(x):
        return tf.matmul(x, x, transpose_b=True) + 1.0

    listing = f.get_concrete_function(tf.TensorSpec([None, 2], tf.float32)).graph.listing()
    assert listing.splitlines() == [
        "graph f(x: float32[?, 2]) {",
        "  MatMul = MatMul(x:0, x:0) -> float32[?, ?]",
        "  add/y = Const(1.0) -> float32[]",
        "  add = AddV2(MatMul:0, add/y:0) -> float32[?, ?]",
        "  Identity = Identity(add:0) -> float32[?, ?]",
        "  return Identity:0",
        "}",
    ]


def test_listing_nests_branch_graphs_under_their_if() -> None:
    @tf.function
    def f(x):
        if x > 0:
            x = x * 2.0
        return x

    listing = f.get_concrete_function(tf.constant(1.0)).graph.listing()
    assert "cond = StatelessIf(Greater:0, x:0) -> float32[]" in listing
    assert "    then_branch:" in listing and "    else_branch:" in listing
    assert "        mul = Mul(x:0, mul/y:0) -> float32[]" in listing


def test_graph_def_nodes_have_name_op_and_inputs() -> None:
    @tf.function
    def f(a, b):
        return a * b + a

    graph = f.get_concrete_function(tf.constant(1), tf.constant(2)).graph
    nodes = [(n.name, n.op, n.input) for n in graph.as_graph_def().node]
    assert nodes == [
        ("a", "Placeholder", []),
        ("b", "Placeholder", []),
        ("mul", "Mul", ["a", "b"]),
        ("add", "AddV2", ["mul", "a"]),
        ("Identity", "Identity", ["add"]),
    ]
    assert 'op: "Mul"' in str(graph.as_graph_def())


def test_symbolic_tensors_print_like_tensorflow_and_refuse_values() -> None:
    seen = {}

    @tf.function
    def f(x):
        seen["str"], seen["repr"] = str(x), repr(x)
        with pytest.raises(AttributeError, match="'SymbolicTensor' object has no attribute 'numpy'"):
            x.numpy()
        with pytest.raises(tf.errors.OperatorNotAllowedInGraphError):
            bool(x)
        with pytest.raises(TypeError, match="len is not well defined for a symbolic Tensor"):
            len(x)
        seen["type"] = type(x)
        return x

    f(tf.constant([1, 2]))
    assert seen["str"] == 'Tensor("x:0", shape=(2,), dtype=int32)'
    assert seen["repr"] == "<tf.Tensor 'x:0' shape=(2,) dtype=int32>"
    assert seen["type"] is SymbolicTensor and issubclass(SymbolicTensor, tf.Tensor)


def test_tracing_leaves_eager_mode_as_it_was_even_after_an_error() -> None:
    @tf.function
    def broken(x):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        broken(tf.constant(1))
    assert state.graph is None and not state.active and state.tapes == []
    assert tf.executing_eagerly()


def test_interpreter_runs_only_what_outputs_and_side_effects_need() -> None:
    v = tf.Variable(0)

    @tf.function
    def f(x):
        unused = x * 100  # noqa: F841  (pruned: nobody needs it)
        v.assign_add(1)
        return x + 1

    graph = f.get_concrete_function(tf.constant(1)).graph
    planned = [op.type for op in graph.execution_plan()]
    assert "Mul" not in planned and "AssignAddVariableOp" in planned
    f(tf.constant(1))
    assert v.numpy() == 1


def test_shapes_are_inferred_with_unknown_dimensions() -> None:
    @tf.function(input_signature=[tf.TensorSpec([None, 3], tf.float32)])
    def f(x):
        return tf.reshape(x, [-1]), tf.reduce_sum(x, axis=0), tf.transpose(x), tf.concat([x, x], 0)

    outs = f.get_concrete_function().structured_outputs
    assert [o.shape.as_list() for o in outs] == [[None], [3], [3, None], [None, 3]]


def test_captured_eager_tensors_are_placeholders_fed_at_call_time() -> None:
    scale = tf.constant(3.0)

    @tf.function
    def f(x):
        return x * scale

    cf = f.get_concrete_function(tf.constant(1.0))
    assert cf.captured_inputs[0] is scale
    assert [op.type for op in cf.graph.get_operations()] == ["Placeholder", "Placeholder", "Mul", "Identity"]
    assert float(f(tf.constant(2.0))) == 6.0


def test_eager_cond_and_while_loop_run_python_directly() -> None:
    assert int(tf.cond(tf.constant(False), lambda: tf.constant(1), lambda: tf.constant(2))) == 2
    i, total = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t + i), (0, 0))
    assert (int(i), int(total)) == (3, 3)


def test_tensor_array_eagerly_and_in_a_graph_loop() -> None:
    ta = tf.TensorArray(tf.int32, size=0, dynamic_size=True)
    for k in range(3):
        ta = ta.write(k, k * 10)
    assert ta.stack().numpy().tolist() == [0, 10, 20]
    assert int(ta.read(1)) == 10

    @tf.function
    def rows(x):
        ta = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
        for i in tf.range(tf.shape(x)[0]):
            ta = ta.write(i, x[i] * 2.0)
        return ta.stack()

    assert rows(tf.ones([2, 3])).numpy().tolist() == [[2.0] * 3] * 2


def test_while_loop_gradient_is_written_in_ops_so_it_can_be_traced() -> None:
    @tf.function
    def grad_of_power(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            _, y = tf.while_loop(lambda i, y: i < 4, lambda i, y: (i + 1, y * x), (0, tf.constant(1.0)))
        return tape.gradient(y, x)

    assert float(grad_of_power(tf.constant(2.0))) == pytest.approx(32.0)
    graph = grad_of_power.get_concrete_function(tf.constant(2.0)).graph
    assert [op.type for op in graph.get_operations()].count("StatelessWhile") == 3  # forward, re-run, backward


def test_module_finds_variables_in_attributes_lists_and_submodules() -> None:
    class Inner(tf.Module):
        def __init__(self):
            super().__init__()
            self.k = tf.Variable(1.0)

    class Outer(tf.Module):
        def __init__(self):
            super().__init__(name="outer")
            self.parts = [Inner(), {"b": tf.Variable(2.0, trainable=False)}]

    outer = Outer()
    assert outer.name == "outer" and outer.parts[0].name == "inner"
    assert [float(v) for v in outer.variables] == [1.0, 2.0]
    assert [float(v) for v in outer.trainable_variables] == [1.0]
    with pytest.raises(ValueError, match="is not a valid module name"):
        tf.Module(name="not valid!")


def test_init_scope_runs_eagerly_inside_a_trace() -> None:
    made = []

    @tf.function
    def f(x):
        with tf.init_scope():
            made.append(tf.constant(5))
        return x

    f(tf.constant(1))
    assert int(made[0]) == 5 and not isinstance(made[0], SymbolicTensor)


def test_jit_compile_computes_what_the_plain_function_computes() -> None:
    @tf.function(jit_compile=True)
    def f(x):
        return tf.exp(x) * x

    assert float(f(tf.constant(0.0))) == 0.0
    np.testing.assert_allclose(float(f(tf.constant(3.0))), 3 * np.exp(3.0), rtol=1e-6)


def test_python_function_and_to_code_show_the_original_and_the_rewrite() -> None:
    def body(x):
        while x < 10:
            x = x * 2
        return x

    f = tf.function(body)
    assert f.python_function is body
    code = tf.autograph.to_code(f)
    assert "ag__.while_stmt(" in code and "def ag__loop_body_" in code


def test_calling_eagerly_does_not_disturb_the_eager_fast_path() -> None:
    @tf.function
    def f(x):
        return x + 1

    f(tf.constant(1))
    assert state.graph is None and state.active is False
    y = tf.constant(np.float32(2.0)) * 2
    assert float(y) == 4.0


def test_a_none_argument_keeps_repeated_calls_on_one_trace_with_the_tensors_as_inputs() -> None:
    """fit's step is called with sample_weight=None: the call is as fast as one with tensors only, computes
    with the right tensors wherever the None stands, and a tensor in its place is another trace."""
    traces = []

    @tf.function
    def f(x, weight, y):
        traces.append(weight)
        return x * 2.0 + y if weight is None else x * weight + y

    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    for _ in range(3):
        assert f(x, None, y).numpy().tolist() == [5.0, 8.0]
    assert traces == [None]
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        total = tf.reduce_sum(f(x, None, y * 10.0))
    assert [g.numpy().tolist() for g in tape.gradient(total, [x, y])] == [[2.0, 2.0], [10.0, 10.0]]
    assert f(x, tf.constant(3.0), y).numpy().tolist() == [6.0, 10.0]
    assert len(traces) == 2


def test_func_graph_capture_of_a_foreign_symbolic_tensor_is_refused() -> None:
    first, second = FuncGraph("first"), FuncGraph("second")
    t = first.placeholder([], tf.float32, name="t")
    with pytest.raises(TypeError, match="is out of scope"):
        second.capture(t)


def _models(tf_: object) -> dict:
    t = tf_
    return {
        "dense_softmax": lambda x, w: t.reduce_mean(t.nn.softmax(t.matmul(x, w))[:, 0]),
        "sigmoid_tanh": lambda x, w: t.reduce_sum(t.sigmoid(x) * t.tanh(t.matmul(x, w)[:, :1])),
        "concat_gather": lambda x, w: t.reduce_sum(t.gather(t.concat([x, x * 2.0], 0), [0, 3]) ** 2),
        "reshape_transpose": lambda x, w: t.reduce_sum(t.transpose(t.reshape(x, [-1, 2])) * 3.0),
        "where_maximum": lambda x, w: t.reduce_sum(t.where(x > 0.5, t.maximum(x, 0.7), x * x)),
        "cross_entropy": lambda x, w: t.reduce_mean(
            t.nn.softmax_cross_entropy_with_logits(t.one_hot([1, 0, 2], 3), t.matmul(x, w))
        ),
        "norm_and_mean_axis": lambda x, w: t.norm(x) + t.reduce_sum(t.reduce_mean(x, axis=1)),
        "slices": lambda x, w: t.reduce_sum(x[1:, ::-1] * x[:-1, :]),
    }


@pytest.mark.parametrize("name", sorted(_models(tf)))
def test_gradients_in_a_traced_function_equal_eager_gradients(name: str) -> None:
    model = _models(tf)[name]
    x = tf.constant(np.linspace(0.1, 1.2, 12, dtype=np.float32).reshape(3, 4))
    w = tf.constant(np.linspace(-1.0, 1.0, 12, dtype=np.float32).reshape(4, 3))

    def grads(x, w):
        with tf.GradientTape() as tape:
            tape.watch([x, w])
            y = model(x, w)
        return [y, *tape.gradient(y, [x, w])]

    eager = grads(x, w)
    for traced in (
        tf.function(grads)(x, w),
        tf.function(grads, input_signature=[tf.TensorSpec([None, 4]), tf.TensorSpec([4, None])])(x, w),
    ):
        for e, t in zip(eager, traced):
            if e is None:
                assert t is None
            else:
                np.testing.assert_allclose(t.numpy(), e.numpy(), rtol=1e-5, atol=1e-6)


def test_autograph_for_loop_hands_iterables_with_their_own_graph_loop_to_them() -> None:
    """The hook tf.data datasets use: `for x in dataset` inside a tf.function calls `_minitf_for_stmt`."""
    from minitf.function.autograph import operators as autograph

    class Numbers:
        def __init__(self, n: int) -> None:
            self.n = n
            self.loops = 0

        def __iter__(self) -> Any:
            return iter(range(self.n))

        def _minitf_for_stmt(self, extra_test: Any, body: Any, get_state: Any, set_state: Any, names: Any) -> None:
            self.loops += 1
            autograph.for_stmt(tf.range(self.n), extra_test, body, get_state, set_state, names)

    numbers = Numbers(4)

    @tf.function
    def total() -> Any:
        s = tf.constant(0)
        for x in numbers:
            s += x
        return s

    assert int(total()) == 6 and numbers.loops == 1
    assert "StatelessWhile" in [op.type for op in total.get_concrete_function().graph.get_operations()]
    s = 0
    for x in numbers:  # eagerly it is a plain Python iterable
        s += x
    assert s == 6
