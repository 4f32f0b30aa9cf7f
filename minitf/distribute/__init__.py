"""`tf.distribute`: strategies that run one function on several replicas and combine what they return.
values.py has what a strategy hands back (PerReplica values, MirroredVariable); strategy.py the strategies."""

from minitf.distribute.strategy import (
    InputContext,
    MirroredStrategy,
    OneDeviceStrategy,
    ReplicaContext,
    Strategy,
    StrategyExtended,
    get_replica_context,
    get_strategy,
    has_strategy,
    in_cross_replica_context,
)
from minitf.distribute.values import MirroredVariable, PerReplica, ReduceOp

__all__ = [
    "InputContext",
    "MirroredStrategy",
    "MirroredVariable",
    "OneDeviceStrategy",
    "PerReplica",
    "ReduceOp",
    "ReplicaContext",
    "Strategy",
    "StrategyExtended",
    "get_replica_context",
    "get_strategy",
    "has_strategy",
    "in_cross_replica_context",
]
