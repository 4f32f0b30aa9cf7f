"""Composite values take ops over from one table (minitf/core/dispatch.py); a call on tensors never meets them.

`tf.add(x, y)` on two tensors runs add -> binary_call -> bind -> run_eager -> the kernel: four frames of minitf,
one fewer than when every public op was wrapped by the ragged layer, and none of them in minitf/composite/.
"""

from __future__ import annotations

import sys
from types import FrameType
from typing import Any

import numpy as np
import pytest

import minitf as tf
from minitf.core import dispatch
from minitf.core.op import REGISTRY
from minitf.ops.math.binary_math import add

FRAMES_FROM_TF_ADD_TO_THE_KERNEL = 4  # add, binary_call, bind, run_eager


def _frames_to_kernel(monkeypatch: pytest.MonkeyPatch, call: Any) -> list[FrameType]:
    """The frames between the caller of `call` and the AddV2 kernel, innermost first."""
    seen: list[list[FrameType]] = []
    kernel = REGISTRY["AddV2"].kernel

    def spy(*values: Any, **attrs: Any) -> Any:
        frames, frame = [], sys._getframe(1)
        while frame is not None and frame.f_code is not _frames_to_kernel.__code__:
            frames.append(frame)
            frame = frame.f_back
        seen.append(frames[:-1])  # (the lambda that makes the call)
        return kernel(*values, **attrs)

    monkeypatch.setattr(REGISTRY["AddV2"], "kernel", spy)
    call()
    return seen[0]


def test_a_dense_add_reaches_its_kernel_in_four_frames_none_of_them_a_composite_types(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    x, y = tf.constant([1.0, 2.0]), tf.constant([3.0, 4.0])
    frames = _frames_to_kernel(monkeypatch, lambda: tf.add(x, y))
    names = [f"{frame.f_globals['__name__']}.{frame.f_code.co_name}" for frame in reversed(frames)]
    assert names == [
        "minitf.ops.math.binary_math.add",
        "minitf.ops.math.elementwise.binary_call",
        "minitf.core.op.bind",
        "minitf.core.op.run_eager",
    ]
    assert len(frames) <= FRAMES_FROM_TF_ADD_TO_THE_KERNEL
    assert tf.add is tf.math.add is add  # the public name is the op's own function, not a wrapper


def test_a_ragged_add_goes_through_the_table_to_the_same_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    rt = tf.ragged.constant([[1.0, 2.0], [3.0]])
    frames = _frames_to_kernel(monkeypatch, lambda: tf.add(rt, 1.0))
    assert any(frame.f_globals["__name__"] == "minitf.composite.ragged.dispatch" for frame in frames)
    assert tf.add(rt, 1.0).to_list() == [[2.0, 3.0], [4.0]]


def test_every_composite_entry_names_a_public_function_and_a_class() -> None:
    assert dispatch.ELEMENTWISE[tf.RaggedTensor] is not None
    apis = {(api.__name__, cls.__name__) for api, cls in dispatch.APIS}
    assert {("reduce_sum", "RaggedTensor"), ("concat", "RaggedTensor"), ("zeros", "DynamicRaggedShape")} <= apis
    rt = tf.ragged.constant([[1, 2], [3]])
    assert tf.reduce_sum(rt, axis=1).numpy().tolist() == [3, 3]
    assert tf.concat([rt, rt], axis=0).to_list() == [[1, 2], [3], [1, 2], [3]]
    np.testing.assert_array_equal(tf.zeros(tf.shape(rt)).flat_values.numpy(), [0.0, 0.0, 0.0])


def test_a_second_handler_for_one_api_and_type_is_refused() -> None:
    with pytest.raises(ValueError, match="reduce_sum already dispatches RaggedTensor values"):
        dispatch.dispatch_for_api(tf.reduce_sum, tf.RaggedTensor)(lambda *args: None)
