"""Run one corpus program on one engine: `python run_program.py minitf|tensorflow program.py`.

The programs are written for TensorFlow (`import tensorflow as tf`); on minitf the module `tensorflow` is minitf
itself, so the very same source runs on both engines."""

import os
import runpy
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

if __name__ == "__main__":
    engine, program = sys.argv[1], sys.argv[2]
    if engine == "minitf":
        import minitf

        sys.modules["tensorflow"] = minitf
    runpy.run_path(program, run_name="__main__")
