"""Run a lesson on real TensorFlow instead of minitf.

In a new cell right below a lesson's setup cell, write

    from use_tensorflow import tf

and run the notebook from the top. Every cell below then uses TensorFlow. Where TensorFlow is not installed (on Binder
it never is: it needs more memory than Binder gives), this says so and hands back minitf, so the lesson carries on.
The setup cell itself stays as it is, and grading always runs the lessons as the setup cell says.
"""

import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")  # TensorFlow's start-up messages would fill the cell

try:
    import tensorflow as tf
except ModuleNotFoundError:
    import minitf as tf

    print(
        "TensorFlow is not installed here, so this notebook keeps running on minitf, which behaves the same for "
        "everything in the course. To use real TensorFlow, run the course on your own machine: `./run lab` "
        "installs it, or `pip install tensorflow-cpu` into the course's environment."
    )
else:
    print(
        f"This notebook now runs on TensorFlow {tf.__version__}. Cells marked 'minitf only' look inside minitf: "
        "skip them, or expect TensorFlow's own code there."
    )
