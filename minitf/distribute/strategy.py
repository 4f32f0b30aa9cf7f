"""`tf.distribute` strategies: the default strategy, `OneDeviceStrategy` and `MirroredStrategy`.

`strategy.run(fn)` calls `fn` once per replica, each time inside `tf.device(<that replica's device>)` with
`tf.distribute.get_replica_context()` naming the replica, and hands back what they returned as PerReplica
values; `strategy.reduce` adds them up (or averages them). TensorFlow runs the replicas in threads at once;
minitf runs them one after the other, which computes the same values (the replicas share nothing but mirrored
variables, each of which keeps one copy per replica). The logical CPUs are `tf.config`'s
(`set_logical_device_configuration`), so a laptop shows what a machine with several GPUs does.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from minitf.autodiff.tape_arguments import warn_first_n
from minitf.core import devices, nest
from minitf.core.context import state
from minitf.core.conversion import convert_to_tensor
from minitf.core.tensor import Tensor
from minitf.core.tensor_shape import TensorShape
from minitf.distribute.values import DistributedValues, MirroredVariable, PerReplica, PerReplicaSpec, ReduceOp
from minitf.function.cache_keys import TensorSpec
from minitf.ops.array.join_split import stack
from minitf.ops.math.reductions import reduce_mean, reduce_sum
from minitf.ops.variables import ResourceVariable


class StrategyExtended:
    """`strategy.extended`: the devices the replicas run on."""

    def __init__(self, worker_devices: tuple[str, ...]) -> None:
        self.worker_devices = worker_devices
        self.parameter_devices = worker_devices

    def update(
        self, var: Any, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, group: bool = True
    ) -> Any:
        return fn(var, *args, **(kwargs or {}))


class ReplicaContext:
    """What `tf.distribute.get_replica_context()` returns while a replica runs."""

    def __init__(self, strategy: Strategy, replica_id: int) -> None:
        self.strategy = strategy
        self._replica_id = replica_id

    @property
    def replica_id_in_sync_group(self) -> Any:
        if isinstance(self.strategy, MirroredStrategy):
            return convert_to_tensor(self._replica_id)  # TensorFlow gives a tensor here, a Python int by default
        return self._replica_id

    @property
    def num_replicas_in_sync(self) -> int:
        return self.strategy.num_replicas_in_sync

    def all_reduce(self, reduce_op: Any, value: Any, options: Any = None) -> Any:
        raise NotImplementedError(
            "minitf runs the replicas one after the other, so one replica cannot wait for the "
            "others' values.\nHint: return the value from strategy.run and combine it with "
            "strategy.reduce."
        )


def _full_name(name: str) -> str:
    spec = devices.DeviceSpec.from_string(name)
    return f"/job:localhost/replica:0/task:0/device:{spec.device_type}:{spec.device_index or 0}"


class Strategy:
    """The default strategy (`tf.distribute.get_strategy()` outside any scope): one replica, the current device."""

    _variable_class: type = ResourceVariable

    def __init__(self, worker_devices: tuple[str, ...] = (devices.CPU_DEVICE,)) -> None:
        if not isinstance(self, _DefaultDistributionStrategy):
            devices.mark_initialized()  # the logical devices are fixed from now on
        self._extended = StrategyExtended(worker_devices)

    @property
    def extended(self) -> StrategyExtended:
        return self._extended

    @property
    def num_replicas_in_sync(self) -> int:
        return len(self._extended.worker_devices)

    @contextlib.contextmanager
    def scope(self) -> Iterator[Strategy]:
        """Variables made inside belong to this strategy (MirroredStrategy: one copy per replica)."""
        saved = state.strategy
        state.strategy = self if not isinstance(self, _DefaultDistributionStrategy) else saved
        try:
            yield self
        finally:
            state.strategy = saved

    def run(self, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, options: Any = None) -> Any:
        """`fn(*args, **kwargs)` once per replica; PerReplica arguments give each replica its own part."""
        outputs = [self._run_replica(k, fn, args, kwargs or {}) for k in range(self.num_replicas_in_sync)]
        return outputs[0] if len(outputs) == 1 else _regroup(outputs)

    def _run_replica(self, k: int, fn: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
        saved = state.strategy, state.replica_id
        state.strategy = None if isinstance(self, _DefaultDistributionStrategy) else self
        state.replica_id = k
        try:
            own_args, own_kwargs = nest.map_structure(lambda v: _part(v, k), (args, kwargs))
            with devices.device(self._extended.worker_devices[k]):
                return fn(*own_args, **own_kwargs)
        finally:
            state.strategy, state.replica_id = saved

    def reduce(self, reduce_op: Any, value: Any, axis: Any) -> Any:
        """The replicas' values combined into one: summed or averaged over replicas (and over `axis` too)."""
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp[str(reduce_op).upper()]
        parts = self.experimental_local_results(value)
        if axis is not None:
            if op is ReduceOp.MEAN:  # the mean over all elements of every replica's `axis`
                total = reduce_sum(stack([reduce_sum(p, axis=axis) for p in parts]), axis=0)
                count = sum(int(p.shape[axis]) for p in parts)
                return total / convert_to_tensor(count, dtype=total.dtype)
            parts = tuple(reduce_sum(p, axis=axis) for p in parts)
        if len(parts) == 1:
            return convert_to_tensor(parts[0])
        combine = reduce_sum if op is ReduceOp.SUM else reduce_mean
        return combine(stack(list(parts)), axis=0)

    def experimental_local_results(self, value: Any) -> tuple:
        if isinstance(value, DistributedValues | MirroredVariable):
            return tuple(value.values)
        return (value,)

    def experimental_distribute_dataset(self, dataset: Any, options: Any = None) -> Any:
        return dataset if self.num_replicas_in_sync == 1 else DistributedDataset(dataset, self.num_replicas_in_sync)

    def distribute_datasets_from_function(self, dataset_fn: Callable[..., Any], options: Any = None) -> Any:
        """The dataset `dataset_fn` makes (one input pipeline), its elements dealt to the replicas in turn."""
        dataset = dataset_fn(InputContext(self.num_replicas_in_sync))
        return dataset if self.num_replicas_in_sync == 1 else DealtDataset(dataset, self.num_replicas_in_sync)


class _DefaultDistributionStrategy(Strategy):
    """The strategy in force when no scope is entered."""


class OneDeviceStrategy(Strategy):
    """Everything on one device: one replica (a first step before a strategy with several)."""

    def __init__(self, device: str) -> None:
        super().__init__((_full_name(device),))


class MirroredStrategy(Strategy):
    """One replica per device (by default every logical CPU), with mirrored variables."""

    _variable_class = MirroredVariable

    def __init__(self, devices: Any = None, cross_device_ops: Any = None) -> None:
        names = [d.name for d in _listed_cpus()] if devices is None else list(devices)
        super().__init__(tuple(_full_name(n) for n in names))

    def run(self, fn: Callable[..., Any], args: tuple = (), kwargs: dict | None = None, options: Any = None) -> Any:
        if state.graph is None:  # TensorFlow's warning, its first 5 times
            warn_first_n(
                5,
                "Using MirroredStrategy eagerly has significant overhead currently. We will be "
                "working on improving this in the future, but for now please wrap `call_for_each_replica` "
                "or `experimental_run` or `run` inside a tf.function to get the best performance.",
            )
        return super().run(fn, args, kwargs, options)

    def reduce(self, reduce_op: Any, value: Any, axis: Any) -> Any:
        op = reduce_op if isinstance(reduce_op, ReduceOp) else ReduceOp[str(reduce_op).upper()]
        distributed = isinstance(value, DistributedValues | MirroredVariable)
        if op is ReduceOp.SUM and not distributed and self.num_replicas_in_sync > 1:
            raise ValueError(
                f"A non-DistributedValues value {value!s} cannot be reduced with the given reduce op "
                f"{op}.\nHint: reduce what strategy.run returned (a PerReplica value)."
            )
        return super().reduce(op, value, axis)


def _listed_cpus() -> list[Any]:
    return devices.list_logical_devices("CPU")


class InputContext:
    """What `distribute_datasets_from_function` passes to the dataset function."""

    def __init__(self, num_replicas: int) -> None:
        self.num_replicas_in_sync = num_replicas
        self.num_input_pipelines = 1
        self.input_pipeline_id = 0

    def get_per_replica_batch_size(self, global_batch_size: int) -> int:
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(
                f"The `global_batch_size` {global_batch_size} is not divisible by "
                f"`num_replicas_in_sync` {self.num_replicas_in_sync} "
            )
        return global_batch_size // self.num_replicas_in_sync


class DistributedDataset:
    """Each global batch split along its first axis, in order: every replica gets ceil(batch / replicas) rows
    while rows are left (TensorFlow's split, so a short last batch leaves the last replicas fewer or none)."""

    def __init__(self, dataset: Any, replicas: int) -> None:
        self._dataset, self._replicas = dataset, replicas

    @property
    def element_spec(self) -> Any:
        def unbatched(spec: Any) -> Any:
            return TensorSpec(TensorShape([None]).concatenate(spec.shape[1:]), spec.dtype)

        return nest.map_structure(
            lambda s: PerReplicaSpec(*[unbatched(s)] * self._replicas), self._dataset.element_spec
        )

    def __iter__(self) -> Iterator[Any]:
        for batch in self._dataset:
            yield nest.map_structure(self._split, batch)

    def _split(self, batch: Any) -> PerReplica:
        rows = int(batch.shape[0])
        each = -(-rows // self._replicas)
        bounds = [min(rows, each * k) for k in range(self._replicas + 1)]
        return PerReplica(tuple(batch[a:b] for a, b in itertools.pairwise(bounds)))


class DealtDataset:
    """Consecutive elements of one dataset, one per replica; when it runs out within a round, the replicas left
    get empty batches (TensorFlow's way of ending unevenly)."""

    def __init__(self, dataset: Any, replicas: int) -> None:
        self._dataset, self._replicas = dataset, replicas

    def __iter__(self) -> Iterator[Any]:
        elements = iter(self._dataset)
        while True:
            round_ = list(itertools.islice(elements, self._replicas))
            if not round_:
                return
            round_ += [nest.map_structure(lambda t: t[:0], round_[0])] * (self._replicas - len(round_))
            yield nest.map_structure(lambda *parts: PerReplica(parts), *round_)


def _part(value: Any, k: int) -> Any:
    return value.values[k] if isinstance(value, PerReplica) else value


def _regroup(outputs: list[Any]) -> Any:
    """The replicas' results, leaf by leaf: one object where all returned the same, else PerReplica."""
    if all(o is None for o in outputs):
        return None
    flat = [nest.flatten(o) for o in outputs]

    def merge(leaves: tuple) -> Any:
        same = all(leaf is leaves[0] for leaf in leaves) and not isinstance(leaves[0], Tensor)
        return leaves[0] if same else PerReplica(leaves)

    return nest.pack_sequence_as(outputs[0], [merge(leaves) for leaves in zip(*flat)])


_default = _DefaultDistributionStrategy()


def get_strategy() -> Strategy:
    return state.strategy if state.strategy is not None else _default


def has_strategy() -> bool:
    return state.strategy is not None


def in_cross_replica_context() -> bool:
    return state.strategy is not None and state.replica_id is None


def get_replica_context() -> ReplicaContext | None:
    if state.replica_id is not None:
        return ReplicaContext(get_strategy(), state.replica_id)
    return None if state.strategy is not None else ReplicaContext(_default, 0)
