"""Graphs on the grader's data-only channel: a graph pass exercise hands a minitf FuncGraph to the student's
function, which rewrites it in place; the graph crosses as data both ways (grader/trusted/channel/).

Both kernels are played in this process: a call goes through the same JSON requests and replies as in grading,
so every object the "student" sees was rebuilt from data, and so is everything that comes back.
"""

from __future__ import annotations

import builtins
import json

import numpy as np
import pytest

import minitf as tf
from grader.trusted.channel import codec, student, trusted
from grader.trusted.tests import decode_reply
from minitf.function.compiling.execute import run_graph


@pytest.fixture
def student_function(monkeypatch):
    """Keep a function on the student's side and give the test the proxy the trusted kernel would get."""
    monkeypatch.setattr(builtins, "input", lambda request: decode_reply(repr(student.serve(request))))
    monkeypatch.setattr(student, "_user_namespace", dict)  # (no IPython here: the student's names are not used)

    def remote(function):
        data = json.loads(json.dumps(codec.Encoder(student.keep).encode(function)))
        return codec.Decoder(trusted.decode_special).decode(data)

    return remote


def remove_times_one(graph):
    """A small pass: `x * 1.0` becomes `x`."""
    changes = []
    for op in graph.get_operations():
        constant = op.inputs[1].op if op.type == "Mul" else None
        if (
            constant is not None
            and constant.type == "Const"
            and np.all(constant.attrs["value"] == 1)
            and op.inputs[0].shape == op.outputs[0].shape
        ):
            graph.replace_uses({id(op.outputs[0]): op.inputs[0]})
            graph.remove_ops([op])
            changes.append(op.name)
    return changes


def traced(python_function, *specs):
    return tf.function(python_function).get_concrete_function(*specs).graph.copy()


def test_a_graph_crosses_as_data_and_is_rebuilt_with_the_same_operations():
    counter = tf.Variable([1.0, 2.0], name="counter")

    def update(x):
        counter.assign_add(x * 1.0)
        return counter.read_value() + 2.0

    graph = traced(update, tf.TensorSpec([2], tf.float32))
    data = json.loads(json.dumps(codec.Encoder(trusted.encode_other).encode(graph)))
    rebuilt = codec.Decoder(student.decode_special).decode(data)
    assert rebuilt is not graph and type(rebuilt) is type(graph)
    assert [(op.name, op.type, [t.name for t in op.inputs]) for op in rebuilt.get_operations()] == [
        (op.name, op.type, [t.name for t in op.inputs]) for op in graph.get_operations()
    ]
    copy_of_counter = rebuilt.captures[0][0]
    assert isinstance(copy_of_counter, tf.Variable) and copy_of_counter is not counter
    result = run_graph(rebuilt, [np.array([0.5, 0.5], np.float32), copy_of_counter])
    assert np.allclose(result[0], [3.5, 4.5]) and np.allclose(counter.numpy(), [1.0, 2.0])


def test_a_pass_called_through_the_channel_rewrites_the_callers_graph(student_function):
    counter = tf.Variable([1.0, 2.0], name="counter")

    def update(x):
        counter.assign_add(x * 1.0)
        return counter.read_value() * 1.0

    graph = traced(update, tf.TensorSpec([2], tf.float32))
    stateful = [op.name for op in graph.get_operations() if op.stateful]
    before = len(graph.get_operations())
    changes = student_function(remove_times_one)(graph)
    assert changes == ["mul", "mul_1"]
    assert len(graph.get_operations()) == before - 2
    assert [op.name for op in graph.get_operations() if op.stateful] == stateful
    assert all(op.graph is graph for op in graph.get_operations())
    assert graph.captures[0][0] is counter  # the caller's own variable, not the copy the student's side held
    result = run_graph(graph, [np.array([0.5, 0.25], np.float32), counter])
    assert np.allclose(result[0], [1.5, 2.25]) and np.allclose(counter.numpy(), [1.5, 2.25])


def test_a_graph_the_pass_broke_comes_back_as_an_error_that_says_so(student_function):
    def break_it(graph):
        graph.remove_ops([op for op in graph.get_operations() if op.type == "Mul"])
        return ["removed the Mul without rewiring its reader"]

    graph = traced(lambda x: x * 2.0 + 1.0, tf.TensorSpec([None], tf.float32))
    with pytest.raises(trusted.StudentCodeError, match="broken"):
        student_function(break_it)(graph)


def test_a_pass_that_returns_without_changing_anything_leaves_the_graph_as_it_was(student_function):
    graph = traced(lambda x: x * 2.0, tf.TensorSpec([None], tf.float32))
    names = [op.name for op in graph.get_operations()]
    assert student_function(lambda g: [])(graph) == []
    assert [op.name for op in graph.get_operations()] == names


def _graph_data(op_type):
    graph = traced(lambda x: x * 2.0, tf.TensorSpec([None], tf.float32))
    data = codec.Encoder(student.keep).encode(graph)
    structure = json.loads(data["json"])
    structure["ops"][-1]["type"] = op_type
    return {**data, "json": json.dumps(structure)}


@pytest.mark.parametrize("op_type", ["PyFunc", "EagerPyFunc", "FusedElementwise", "NoSuchOpAnywhere"])
def test_the_trusted_side_refuses_graphs_with_ops_that_need_code_or_do_not_exist(op_type):
    with pytest.raises(codec.ChannelError):
        codec.Decoder(trusted.decode_special).decode(_graph_data(op_type))


def test_a_graph_claiming_another_engine_is_refused():
    data = {**_graph_data("Identity"), "engine": "tensorflow"}
    with pytest.raises(codec.ChannelError):
        codec.Decoder(trusted.decode_special).decode(data)


def test_a_tf_functions_tracing_count_is_counted_from_the_traces_it_sends_not_asked(student_function):
    @tf.function
    def loose(x):
        return 2 * x

    loose.experimental_get_tracing_count = lambda: 1  # what the student's object would answer
    data = json.loads(json.dumps(codec.Encoder(student.keep).encode(loose)))
    proxy = trusted.proxy(data, tf_function=True)
    for length in (2, 3, 3):
        assert np.allclose(proxy(tf.constant(np.ones(length, np.float32))).numpy(), 2.0)
    assert proxy.experimental_get_tracing_count() == 2
    assert not hasattr(trusted.proxy(data, tf_function=False), "experimental_get_tracing_count")


def test_an_object_that_only_claims_to_be_a_tf_function_sends_no_trace_and_its_calls_fail(student_function):
    class Claims:
        def __call__(self, x):
            return x

        def get_concrete_function(self, *args):
            return None

    data = json.loads(json.dumps(codec.Encoder(student.keep).encode(Claims())))
    assert data["traces"] is False
    forged = trusted.proxy({**data, "traces": True}, tf_function=True)  # as if the student's kernel lied
    with pytest.raises(TypeError, match="not a tf.function"):
        forged(tf.constant(1.0))
