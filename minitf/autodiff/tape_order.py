"""The records a `GradientTape` keeps, and the order its backward walk visits them.

A tape keeps two kinds of record: an op call (the `GradContext` its gradient rule gets) and a variable read
(`VariableRead`). Walking them in reverse recording order gives the right gradients; `backward_order` picks the
order TensorFlow's tape uses instead, because that order shows in the last bits of float sums and in the rows of
IndexedSlices. Read minitf/autodiff/tape.py first: this file only decides the order of its walk.
"""

from __future__ import annotations

from collections import deque
from typing import Any, final

from minitf.core.op import GradContext
from minitf.core.tensor import Tensor


@final  # never subclassed, so `type(call) is not VariableRead` tells a checker the call is a GradContext
class VariableRead:
    """A recorded variable read: gradient flowing into `out` flows on to `variable`."""

    __slots__ = ("variable", "out")

    def __init__(self, variable: Any, out: Tensor) -> None:
        self.variable = variable
        self.out = out


def backward_order(
    calls: list[GradContext | VariableRead], tracked: dict[int, Any], targets: list[Any], read_twice: bool = True
) -> list[GradContext | VariableRead]:
    """The recorded calls the targets depend on, in the order TensorFlow's tape runs them backwards.

    A call is ready once every recorded use of its outputs has been processed; ready calls wait in a
    first-in first-out queue (the first ones in recording order). Any such order gives the same
    gradients; this one also adds the gradients of a value in TensorFlow's order, which shows in the
    rows of IndexedSlices and in the last bits of float sums.

    `read_twice` False (the tape saw it while recording) says that no recorded call reads a recorded value or
    watched source another one reads (or reads it twice), so no gradient is a sum whose order could show: the
    reverse of the recording order is TensorFlow's order as far as anyone can tell. Calls the targets do not
    depend on get no gradient and are skipped.
    """
    if not read_twice:
        return calls[::-1]
    producer: dict[int, int] = {}  # id of a recorded value -> the index of the call that made it
    for index, call in enumerate(calls):
        if type(call) is VariableRead:
            producer[id(call.out)] = index
        else:
            for o in call.outputs:
                producer[id(o)] = index
    uses: dict[int, int] = {}  # recorded values and watched sources the reached calls read, and how often
    reads: dict[int, list[int]] = {}  # each reached call -> the recorded values it reads
    stack = [producer[id(t)] for t in targets if id(t) in producer]
    while stack:
        index = stack.pop()
        if index in reads:
            continue
        reads[index] = made = []
        call = calls[index]
        for value in (call.variable,) if type(call) is VariableRead else call.inputs:
            key = id(value)
            maker = producer.get(key)
            if maker is not None:
                made.append(key)
                stack.append(maker)
            elif key not in tracked:
                continue  # neither a recorded value nor a watched source
            uses[key] = uses.get(key, 0) + 1
    if max(uses.values(), default=0) <= 1:  # only calls the targets do not depend on read a value twice (or none)
        return [calls[index] for index in sorted(reads, reverse=True)]
    missing: dict[int, int] = {}
    for key in uses:  # a call waits for each of its outputs that recorded calls use
        maker = producer.get(key)
        if maker is not None:
            missing[maker] = missing.get(maker, 0) + 1
    ready = deque(index for index in sorted(reads) if index not in missing)
    order = []
    while ready:
        index = ready.popleft()
        order.append(calls[index])
        for key in reads[index]:
            uses[key] -= 1
            if uses[key] == 0:
                maker = producer[key]
                missing[maker] -= 1
                if missing[maker] == 0:
                    ready.append(maker)
    return order
