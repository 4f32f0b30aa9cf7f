"""End to end: a graph pass graded in the trusted kernel, as part 2's optional 08 · Inside minitf grades
`remove_neutral_ops`.

The test traces a graph in the trusted kernel and hands it to the student's pass; the graph crosses the
channel as data, the pass rewrites it in the student's kernel, and the rewritten graph comes back into the
test's graph object, which the test then runs and counts. A correct pass scores, a pass that removes the
variable update or breaks the graph does not, and a blank answer scores nothing.
"""

from __future__ import annotations

import pytest
from grader_fixtures.submissions import autograde_scores, nbgrader_meta, one_notebook_class
from nbformat.v4 import new_code_cell

pytestmark = pytest.mark.slow

ASSIGNMENT = "passes"
SETUP = "import numpy as np\nimport minitf as tf"
PASS = """def remove_times_one(graph):
    changes = []
    for op in graph.get_operations():
        if op.type == "Mul" and op.inputs[1].op.type == "Const" \\
                and np.all(np.asarray(op.inputs[1].op.attrs["value"]) == 1) \\
                and op.inputs[0].shape == op.outputs[0].shape:
            graph.bypass(op, op.inputs[0])
            changes.append(op.name)
    return changes"""
DROPS_STATE = PASS.replace(
    "    return changes",
    "    graph.remove_ops([op for op in graph.get_operations() "
    "if op.type == 'AssignAddVariableOp'])\n    return changes",
)
BREAKS_GRAPH = PASS.replace("graph.bypass(op, op.inputs[0])", "graph.remove_ops([op])")
TEST = """from minitf.function.compiling.execute import run_graph

total = tf.Variable([1.0, 2.0])


def add_to_total(x):
    total.assign_add(x * 1.0)
    return total.read_value() * 1.0


traced = tf.function(add_to_total).get_concrete_function(tf.TensorSpec([2], tf.float32)).graph
graph = traced.copy()
changes = remove_times_one(graph)
assert changes == ["mul", "mul_1"], f"the pass should remove mul and mul_1, not {changes}"
assert len(graph.get_operations()) == len(traced.get_operations()) - 2, "two nodes fewer"
assert [op.type for op in graph.get_operations() if op.stateful] == ["AssignAddVariableOp", "ReadVariableOp"], (
    "the variable update and read must stay"
)
result = run_graph(graph, [np.array([0.5, 0.25], np.float32), total])
assert np.allclose(result[0], [1.5, 2.25]) and np.allclose(total.numpy(), [1.5, 2.25]), (
    f"the rewritten graph should add x to the variable and return it, not {result[0]} with {total.numpy()}"
)
"""


CELLS = [
    new_code_cell(SETUP, metadata=nbgrader_meta("setup", locked=True)),
    new_code_cell(
        f"### BEGIN SOLUTION\n{PASS}\n### END SOLUTION", metadata=nbgrader_meta("pass-answer", solution=True)
    ),
    new_code_cell(TEST, metadata=nbgrader_meta("pass-tests", grade=True, locked=True, points=1)),
]


def test_a_pass_is_graded_on_a_graph_that_crossed_to_the_student_and_back(tmp_path):
    term = one_notebook_class(
        tmp_path,
        ASSIGNMENT,
        CELLS,
        {
            "honest": {"pass-answer": PASS},
            "blank": {},
            "drops_state": {"pass-answer": DROPS_STATE},
            "breaks_graph": {"pass-answer": BREAKS_GRAPH},
        },
    )
    scores = autograde_scores(term, "--timeout", "30")
    assert scores == {"honest": "1/1", "blank": "0/1", "drops_state": "0/1", "breaks_graph": "0/1"}
