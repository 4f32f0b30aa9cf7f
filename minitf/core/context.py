"""What is going on right now: a graph being traced, tapes recording, placement logging.

`bind` (minitf/core/op.py) reads `state` on every call; the tracer sets `state.graph`, GradientTapes push
themselves on `state.tapes`. `state.active` says "not plain eager", so the eager hot path checks one flag.
"""

from __future__ import annotations

from typing import Any


class State:
    """What is going on right now: a graph being traced, tapes recording. `active` says "not plain eager"."""

    def __init__(self) -> None:
        self.graph: Any = None
        self.tapes: list[Any] = []
        self.log_placement = False  # tf.debugging.set_log_device_placement (minitf/core/devices.py)
        self.active = False
        # tf.distribute (minitf/distribute/): the strategy whose scope is entered (None: the default strategy),
        # and the replica running now inside `strategy.run` (None: cross-replica context).
        self.strategy: Any = None
        self.replica_id: int | None = None
        # the eager tf.name_scope blocks entered (minitf/function/module.py); a traced graph keeps its own
        self.eager_name_scopes: list[str] = []

    def name_scopes(self) -> list[str]:
        """The tf.name_scope blocks around the code running now (eagerly or in the graph being traced)."""
        return self.graph.name_scopes if self.graph is not None else self.eager_name_scopes

    def refresh(self) -> None:
        self.active = self.graph is not None or bool(self.tapes) or self.log_placement


state = State()
