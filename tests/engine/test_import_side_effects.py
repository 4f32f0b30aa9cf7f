"""`import minitf` changes nothing of the program around it: Python's warning filters, the root logger and NumPy's
floating-point error handling are the same before and after. Kernels still keep NumPy's warnings (1/0, log(0),
overflow) to themselves, as TensorFlow prints nothing for them, and leave the program's own NumPy setting alone.

The import runs in a fresh interpreter, so that nothing imported earlier in the test session hides a change.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROGRAM = textwrap.dedent(
    """
    import json, logging, warnings
    import numpy as np

    def snapshot():
        root = logging.getLogger()
        return {
            "filters": [repr(f) for f in warnings.filters],
            "root_level": root.level,
            "root_handlers": [repr(h) for h in root.handlers],
            "numpy": np.geterr(),
        }

    before = snapshot()
    import minitf as tf
    after_import = snapshot()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        x = tf.constant([0.0, 1.0, 1e30])
        values = [tf.math.log(x), 1.0 / x, x * x, tf.exp(x * 100.0)]
        step = tf.function(lambda t: tf.math.log(t) - 1.0 / t)(x)
        eager_warnings = [str(w.message) for w in caught]
        np.log(np.float32(0.0))  # the program's own NumPy still warns as it always did
        program_warnings = [str(w.message) for w in caught][len(eager_warnings):]
    print(json.dumps({
        "before": before,
        "after_import": after_import,
        "after_use": snapshot(),
        "eager_warnings": eager_warnings,
        "program_warnings": program_warnings,
        "log_of_zero": float(values[0].numpy()[0]),
        "traced_log_of_zero": float(step.numpy()[0]),
    }))
    """
)


def _run() -> dict:
    result = subprocess.run(
        [sys.executable, "-c", _PROGRAM], capture_output=True, text=True, cwd=ROOT, check=True, timeout=300
    )
    return json.loads(result.stdout)


def test_importing_minitf_leaves_warning_filters_logging_and_numpy_settings_as_they_were() -> None:
    seen = _run()
    assert seen["after_import"] == seen["before"]
    assert seen["after_use"] == seen["before"]


def test_kernels_keep_numpy_floating_point_warnings_to_themselves() -> None:
    seen = _run()
    assert seen["eager_warnings"] == []
    assert seen["log_of_zero"] == float("-inf") and seen["traced_log_of_zero"] == float("-inf")
    assert seen["program_warnings"] == ["divide by zero encountered in log"]
