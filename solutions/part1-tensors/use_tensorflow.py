"""Run a lesson on real TensorFlow instead of minitf.

In a new cell right below a lesson's setup cell, write

    from use_tensorflow import tf

and run the notebook from the top ("Run All"). Every cell below then uses TensorFlow. A cell whose first line is
`# minitf only: ...` looks inside minitf; on TensorFlow it skips itself and prints one line saying so. Where
TensorFlow is not installed (Binder leaves it out: JupyterLab keeps a kernel per open notebook, and a few with
TensorFlow fill Binder's 2 GB; `python -m benchmarks.binder` measures it), this says so and hands back minitf, so the
lesson carries on. The setup cell itself stays as it is. Grading and the Validate button run a
lesson as its setup cell says: under nbgrader this line keeps minitf, so a switch left in a notebook never changes how
the notebook is graded.
"""

import os

#: The first line of a cell that looks inside minitf (its source, its internals).
MINITF_ONLY_MARK = "# minitf only"
SKIPPED = "Skipped on TensorFlow: this cell looks inside minitf (its first line says 'minitf only')."


def skip_minitf_only_cell(lines: list[str]) -> list[str]:
    """IPython input transformer: a cell marked minitf only becomes one line that prints why it did not run."""
    if lines and lines[0].lstrip().lower().startswith(MINITF_ONLY_MARK):
        return [f"print({SKIPPED!r})\n"]
    return lines


def _skip_minitf_only_cells() -> None:
    """From now on, cells marked minitf only skip themselves (outside IPython, e.g. in a script, nothing to do)."""
    try:
        from IPython import get_ipython  # IPython exists wherever a notebook runs; a plain script may lack it
    except ModuleNotFoundError:
        return
    shell = get_ipython()
    if shell is not None and skip_minitf_only_cell not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.append(skip_minitf_only_cell)


def _import_tensorflow_quietly():
    """`import tensorflow`, without the lines its C++ core writes to stderr while it starts (they print in red)."""
    # Forced, not a default: a TF_CPP_MIN_LOG_LEVEL of 0 inherited from the shell that started Jupyter would let
    # TensorFlow's start-up messages through.
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
    saved = os.dup(2)
    with open(os.devnull, "w") as devnull:
        os.dup2(devnull.fileno(), 2)  # absl writes some lines before it reads the log level: silence the stream itself
        try:
            import tensorflow
        finally:
            os.dup2(saved, 2)
            os.close(saved)
    return tensorflow


def _engine():
    """The module that `tf` should name in this notebook, with one line that says why."""
    if os.environ.get("NBGRADER_EXECUTION"):  # set by nbgrader while grading ("autograde") and validating ("validate")
        import minitf

        print("Grading and Validate run this lesson on minitf, as its setup cell says: this line changes nothing here.")
        return minitf
    try:
        tensorflow = _import_tensorflow_quietly()
    except ModuleNotFoundError:
        import minitf

        print(
            "TensorFlow is not installed here, so this notebook keeps running on minitf, which behaves the same for "
            "everything in the course. To use real TensorFlow, run the course on your own machine: `./run lab` "
            "installs it, or `pip install tensorflow-cpu` into the course's environment."
        )
        return minitf
    _skip_minitf_only_cells()
    print(
        f"This notebook now runs on TensorFlow {tensorflow.__version__}. Cells whose first line says 'minitf only' "
        "look inside minitf: they now skip themselves."
    )
    return tensorflow


tf = _engine()
