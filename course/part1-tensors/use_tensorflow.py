"""Run a lesson on real TensorFlow instead of minitf.

In a new cell right below a lesson's setup cell, write

    from use_tensorflow import tf

and run the notebook from the top. Every cell below then uses TensorFlow. Where TensorFlow is not installed (on Binder
it never is: it needs more memory than Binder gives), this says so and hands back minitf, so the lesson carries on.
The setup cell itself stays as it is. Grading and the Validate button run a lesson as its setup cell says: under
nbgrader this line keeps minitf, so a switch left in a notebook never changes how the notebook is graded.
"""

import os


def _engine():
    """The module that `tf` should name in this notebook, with one line that says why."""
    if os.environ.get("NBGRADER_EXECUTION"):  # set by nbgrader while grading ("autograde") and validating ("validate")
        import minitf

        print("Grading and Validate run this lesson on minitf, as its setup cell says: this line changes nothing here.")
        return minitf
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # TensorFlow's start-up messages would fill the cell
    try:
        import tensorflow
    except ModuleNotFoundError:
        import minitf

        print(
            "TensorFlow is not installed here, so this notebook keeps running on minitf, which behaves the same for "
            "everything in the course. To use real TensorFlow, run the course on your own machine: `./run lab` "
            "installs it, or `pip install tensorflow-cpu` into the course's environment."
        )
        return minitf
    print(
        f"This notebook now runs on TensorFlow {tensorflow.__version__}. Cells marked 'minitf only' look inside "
        "minitf: skip them, or expect TensorFlow's own code there."
    )
    return tensorflow


tf = _engine()
