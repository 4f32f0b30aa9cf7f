"""Devices and placement on minitf against real TensorFlow: `tf.device`, `tf.config` device lists,
`Tensor.device` strings and `tf.debugging.set_log_device_placement`."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from harness import ENGINES, same_program

pytestmark = pytest.mark.tf


def test_config_lists_one_cpu_and_compares_device_types_exactly() -> None:
    def case(tf: Any, seen: list) -> None:
        for device_type in (None, "CPU", "GPU", "cpu"):
            seen.append(repr(tf.config.list_physical_devices(device_type)))
            seen.append(repr(tf.config.list_logical_devices(device_type)))
        device = tf.config.list_physical_devices()[0]
        seen.append((device.name, device.device_type))
        seen.append(repr(tf.config.experimental.list_physical_devices("CPU")))

    same_program(case)


def test_eager_tensors_and_variables_live_on_the_cpu_whatever_device_is_asked() -> None:
    def case(tf: Any, seen: list) -> None:
        x = tf.constant([1.0, 2.0])
        seen.append(x.device)
        for name in (
            "/CPU:0",
            "cpu:0",
            "/device:CPU:0",
            "/GPU:0",
            "GPU",
            None,
            "/job:localhost/replica:0/task:0/device:CPU:0",
        ):
            with tf.device(name) as bound:
                seen.append(bound)
                seen.append((x + 1).device)
                seen.append(tf.Variable(1.0).device)

    same_program(case)


def test_traced_operations_record_the_merged_device_of_enclosing_blocks() -> None:
    def case(tf: Any, seen: list) -> None:
        @tf.function
        def f(a):
            with tf.device("/GPU:0"):
                b = a * 2
            with tf.device("cpu:0"):
                c = a + 1
                with tf.device(None):
                    d = a - 1
                with tf.device("/job:localhost"):
                    e = a * 3
            seen.extend([a.device, b.device, c.device, d.device, e.device, b.op.device])
            return b

        result = f(tf.constant([1.0]))
        seen.append(result.device)

    same_program(case)


@pytest.mark.parametrize("name", ["foo", "/CPU:0/bar"])
def test_malformed_device_name_raises_value_error(name: str) -> None:
    def case(tf: Any, seen: list) -> None:
        with tf.device(name):
            pass

    same_program(case, error_fragment="is encountered while parsing the device spec")


def test_device_functions_are_refused_with_runtime_error() -> None:
    def case(tf: Any, seen: list) -> None:
        tf.device(lambda op: "/cpu:0")

    same_program(case, error_fragment="tf.device does not support functions.", hint=True)


_PLACEMENT_PROGRAM = """
import sys
import {engine} as tf
tf.debugging.set_log_device_placement(True)
x = tf.constant([1.0, 2.0])
print("multiply"); sys.stdout.flush()
tf.multiply(x, x)
print("again"); sys.stdout.flush()
tf.multiply(x, x)
print("int32"); sys.stdout.flush()
tf.multiply(tf.constant(1), 2)
print("add"); sys.stdout.flush()
x + x
print("end")
"""


def _placement_log(engine: str) -> list[str]:
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", PYTHONPATH=os.pathsep.join(sys.path))
    done = subprocess.run(
        [sys.executable, "-c", _PLACEMENT_PROGRAM.format(engine=engine)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    assert "device:CPU:0" not in done.stderr
    return done.stdout.splitlines()


@pytest.mark.slow  # starts TensorFlow in a fresh process
def test_log_device_placement_writes_each_new_op_and_dtype_once_to_stdout() -> None:
    """Each engine in a fresh process (TensorFlow honours the switch only before its first op)."""
    theirs, mine = _placement_log("tensorflow"), _placement_log("minitf")
    cpu = "/job:localhost/replica:0/task:0/device:CPU:0"
    assert mine == [
        "multiply",
        f"Mul: (Mul): {cpu}",
        "again",
        "int32",
        f"Mul: (Mul): {cpu}",
        "add",
        f"AddV2: (AddV2): {cpu}",
        "end",
    ]
    # TensorFlow prints the same op lines between the same markers, plus its wrapper's _Arg/_Retval lines.
    assert [line for line in theirs if "(_" not in line and "_EagerConst" not in line] == mine


def test_placement_log_goes_to_file_descriptor_one_not_python_stdout(capsys: pytest.CaptureFixture) -> None:
    tf = ENGINES["minitf"]
    read, write = os.pipe()
    saved = os.dup(1)
    os.dup2(write, 1)
    try:
        tf.debugging.set_log_device_placement(True)
        tf.constant(1.0, tf.float16) - 1.0
        tf.constant(2.0, tf.float16) - 1.0
        assert tf.debugging.get_log_device_placement() is True
    finally:
        tf.debugging.set_log_device_placement(False)
        os.dup2(saved, 1)
        os.close(saved)
        os.close(write)
    with os.fdopen(read) as pipe:
        assert pipe.read() == "Sub: (Sub): /job:localhost/replica:0/task:0/device:CPU:0\n"
    assert capsys.readouterr().out == ""


def test_scripts_probing_for_gpus_find_none() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.test.gpu_device_name())
        seen.append(tf.test.is_built_with_cuda())
        seen.append(tf.test.is_built_with_gpu_support())
        tf.config.set_visible_devices([], "GPU")
        seen.append(repr(tf.config.get_visible_devices()))
        seen.append(repr(tf.config.get_visible_devices("GPU")))
        seen.append(tf.config.experimental.get_device_details(tf.config.list_physical_devices()[0]))

    same_program(case)


def test_is_gpu_available_is_false_and_logs_tensorflows_deprecation(caplog: pytest.LogCaptureFixture) -> None:
    tf = ENGINES["minitf"]
    with caplog.at_level("WARNING", logger="minitf"):
        line = sys._getframe().f_lineno + 1
        assert tf.test.is_gpu_available() is False
    assert (
        f"From {__file__}:{line}: is_gpu_available (from tensorflow.python.framework.test_util) is deprecated"
        in caplog.text
    )
    assert "Use `tf.config.list_physical_devices('GPU')` instead." in caplog.text
