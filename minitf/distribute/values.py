"""What a strategy hands back: a value per replica (`PerReplica`), and variables kept once per replica
(`MirroredVariable`), printed as TensorFlow prints them (`PerReplica:{\n  0: ...,\n  1: ...\n}`)."""

from __future__ import annotations

import enum
from typing import Any

from minitf.core.context import state
from minitf.ops.variables import ResourceVariable, Variable


class ReduceOp(enum.Enum):
    """How `strategy.reduce` combines the replicas' values."""

    SUM = "SUM"
    MEAN = "MEAN"

    @staticmethod
    def from_variable_aggregation(aggregation: Any) -> ReduceOp:
        return ReduceOp[str(getattr(aggregation, "name", aggregation)).upper()]


def _listing(kind: str, values: tuple, show: Any) -> str:
    rows = ",\n".join(f"  {i}: {show(v)}" for i, v in enumerate(values))
    return f"{kind}:{{\n{rows}\n}}"


class DistributedValues:
    """One value per replica; `strategy.experimental_local_results` lists them."""

    def __init__(self, values: tuple) -> None:
        self._values = tuple(values)

    @property
    def values(self) -> tuple:
        return self._values

    def __str__(self) -> str:
        return _listing(type(self).__name__, self._values, str)

    def __repr__(self) -> str:
        return _listing(type(self).__name__, self._values, repr)


class PerReplica(DistributedValues):
    """The values that the replicas of `strategy.run` returned, or the per-replica parts of a distributed batch.
    A composite of its tensors, so a `tf.function` can return it (`_components` / `_with_components`)."""

    def _components(self) -> list[Any]:
        return list(self._values)

    def _with_components(self, components: list[Any]) -> PerReplica:
        return PerReplica(tuple(components))


class PerReplicaSpec:
    """The element spec of a distributed dataset: one spec per replica."""

    def __init__(self, *specs: Any) -> None:
        self._specs = specs

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PerReplicaSpec) and self._specs == other._specs

    def __repr__(self) -> str:
        return f"PerReplicaSpec({', '.join(map(repr, self._specs))})"


class MirroredVariable(ResourceVariable):
    """A variable made in a MirroredStrategy's scope: one copy per replica (`Variable`, `Variable/replica_1`,
    ...), kept equal because every replica applies the same updates. Inside `strategy.run`, replica k reads
    and writes its own copy; outside it (cross-replica context) a read sees copy 0 and a write goes to all."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        strategy = state.strategy
        first = ResourceVariable(*args, **kwargs)
        base = first._name[:-2]
        copies = [
            ResourceVariable(first.read_value(), trainable=first.trainable, name=f"{base}/replica_{k}")
            for k in range(1, strategy.num_replicas_in_sync)
        ]
        self.__dict__.update(_components=(first, *copies), _strategy=strategy)

    def _active(self) -> Variable:
        replica = state.replica_id
        if replica is None or state.strategy is not self._strategy:
            return self._components[0]
        return self._components[replica]

    def __getattr__(self, name: str) -> Any:
        # What a plain variable keeps (value, handle, name, dtype...) is the active copy's.
        if name.startswith("__") or name in ("_components", "_strategy"):
            raise AttributeError(name)
        return getattr(self._active(), name)

    @property
    def values(self) -> tuple:
        return self._components

    @property
    def _tape_target(self) -> Variable:
        """What a GradientTape sees read: the copy of the replica running now (a tape keys a variable by it)."""
        return self._active()

    def _write(self, value: Any, how: str, read_value: bool) -> Any:
        if state.replica_id is None:  # cross-replica context: every copy takes the update
            for component in self._components[1:]:
                component._write(value, how, False)
        return self._active()._write(value, how, read_value)

    def __repr__(self) -> str:
        return _listing("MirroredVariable", self._components, repr)

    __str__ = __repr__
