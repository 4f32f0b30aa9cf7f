"""Devices and distribution strategies against TensorFlow: logical CPUs, the default strategy,
OneDeviceStrategy and MirroredStrategy (replicas, reductions, PerReplica printing, distributed datasets,
mirrored variables), tf.random.Generator under strategies, and checkpoints of generators and mirrored variables.

Logical devices can be configured only before a runtime starts, once per process; the checks that need
several CPUs therefore run a program in a fresh process per engine (as TensorFlow's random-number guide
configures them in its first cell) and compare what the two print.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from harness import same_program

pytestmark = pytest.mark.tf


def test_configuring_logical_devices_after_start_is_tensorflows_runtime_error() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(repr(tf.config.list_logical_devices("CPU")[:1]))
        cpu = tf.config.list_physical_devices("CPU")[0]
        seen.append(repr(tf.config.LogicalDeviceConfiguration()))
        tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 7)

    same_program(case, "Virtual devices cannot be modified after being initialized", hint=True)


def test_default_strategy_runs_the_function_once_and_reduces_nothing() -> None:
    def case(tf: Any, seen: list) -> None:
        strategy = tf.distribute.get_strategy()
        seen.append(
            (strategy.num_replicas_in_sync, tf.distribute.has_strategy(), tf.distribute.in_cross_replica_context())
        )
        seen.append(strategy.run(lambda x: x * 2, args=(tf.constant([1.0, 2.0]),)))
        seen.append(strategy.reduce("SUM", tf.constant(3.0), axis=None))
        seen.append(tf.distribute.get_replica_context().replica_id_in_sync_group)
        with strategy.scope():
            seen.append(type(tf.Variable(1.0)).__name__)

    same_program(case)


def test_one_device_strategy_runs_one_replica_on_its_device() -> None:
    def case(tf: Any, seen: list) -> None:
        strategy = tf.distribute.OneDeviceStrategy("/cpu:0")
        seen.append((strategy.num_replicas_in_sync, strategy.extended.worker_devices))
        with strategy.scope():
            v = tf.Variable([1.0, 2.0])
            seen.append(
                (
                    type(v).__name__,
                    tf.distribute.get_strategy() is strategy,
                    tf.distribute.in_cross_replica_context(),
                    tf.distribute.get_replica_context(),
                )
            )
        seen.append(strategy.run(lambda: v * 3))
        seen.append(strategy.reduce(tf.distribute.ReduceOp.MEAN, tf.constant([1.0, 3.0]), axis=0))
        seen.append(strategy.experimental_local_results(tf.constant(1)))
        seen.append([x for x in strategy.experimental_distribute_dataset(tf.data.Dataset.range(4).batch(2))])

    same_program(case)


def test_mirrored_strategy_on_one_cpu_prints_per_replica_values_as_tensorflow() -> None:
    def case(tf: Any, seen: list) -> None:
        strategy = tf.distribute.MirroredStrategy(devices=["cpu:0"])
        seen.append((strategy.num_replicas_in_sync, strategy.extended.worker_devices))
        with strategy.scope():
            v = tf.Variable(2.0)
        seen.append((repr(v), str(v), type(v).__name__, isinstance(v, tf.Variable)))

        @tf.function
        def step() -> Any:
            return strategy.run(lambda: v * 2)

        seen.append(step())
        print(strategy.reduce("MEAN", tf.constant([1.0, 2.0]), axis=None))

    same_program(case)


def test_mirrored_strategy_on_one_cpu_sums_a_plain_tensor_as_it_is() -> None:
    def case(tf: Any, seen: list) -> None:
        seen.append(tf.distribute.MirroredStrategy(devices=["cpu:0"]).reduce("SUM", tf.constant([1.0]), axis=None))

    same_program(case)


def test_a_generator_checkpoint_restores_its_stream(tmp_path: Path) -> None:
    def case(tf: Any, seen: list) -> None:
        g = tf.random.Generator.from_seed(5)
        checkpoint = tf.train.Checkpoint(generator=g)
        seen.append(g.normal([2]))
        path = checkpoint.write(str(tmp_path / f"{tf.__name__}-generator"))
        seen.append(g.normal([2]))
        checkpoint.restore(path)
        seen.append(g.normal([2]))
        seen.append([name for name, _ in tf.train.list_variables(path) if "generator" in name])

    same_program(case)


# ---------------------------------------------------------------------------------------------------------------
# Several logical CPUs: fresh processes
# ---------------------------------------------------------------------------------------------------------------

SETUP = """
import os
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "3"
import {engine} as tf
if tf.__name__ == "minitf":  # the programs print seeded normal samples as text: TensorFlow's bits, exact mode
    tf.experimental.numerics("tensorflow")
cpu = tf.config.list_physical_devices("CPU")[0]
tf.config.experimental.set_virtual_device_configuration(
    cpu, [tf.config.experimental.VirtualDeviceConfiguration()] * 3)
"""


def printed_by(engine: str, program: str) -> str:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    source = SETUP.format(engine=engine) + textwrap.dedent(program)
    done = subprocess.run([sys.executable, "-c", source], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, f"{engine} failed:\n{done.stderr[-3000:]}"
    return done.stdout


def same_printed(program: str) -> str:
    mine, theirs = printed_by("minitf", program), printed_by("tensorflow", program)
    assert mine == theirs, f"minitf printed:\n{mine}\nTensorFlow printed:\n{theirs}"
    return mine


@pytest.mark.slow  # two fresh processes, each starting its engine
def test_mirrored_strategy_runs_one_replica_per_logical_cpu_and_reduces_across_them() -> None:
    printed = same_printed("""
        print(tf.config.list_logical_devices("CPU"))
        print(tf.config.get_logical_device_configuration(cpu))
        try:
            tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()])
        except RuntimeError as e:
            print("RuntimeError:", str(e).splitlines()[0])
        strategy = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
        print(strategy.num_replicas_in_sync, strategy.extended.worker_devices)
        print(tf.distribute.MirroredStrategy().num_replicas_in_sync)
        ids = strategy.run(lambda: tf.distribute.get_replica_context().replica_id_in_sync_group)
        print(ids)
        values = strategy.run(lambda: tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group,
                                              tf.float32) + 1.0)
        print(values)
        print(repr(values))
        print(strategy.reduce("SUM", values, axis=None))
        print(strategy.reduce(tf.distribute.ReduceOp.MEAN, values, axis=None))
        print(strategy.experimental_local_results(values))
        try:
            strategy.reduce("SUM", tf.constant([1.0]), axis=None)
        except ValueError as e:
            print("ValueError:", str(e).splitlines()[0])
        print(strategy.run(lambda x: x + 1, args=(tf.constant(1),)))
        print(strategy.run(lambda: tf.distribute.get_replica_context().num_replicas_in_sync))
        for batch in strategy.experimental_distribute_dataset(tf.data.Dataset.range(7).batch(5)):
            print(batch)
            print(strategy.reduce("SUM", strategy.run(lambda b: tf.reduce_sum(b), args=(batch,)), axis=None))
        def dataset_fn(context):
            print(context.num_replicas_in_sync, context.input_pipeline_id, context.get_per_replica_batch_size(4))
            return tf.data.Dataset.range(10).batch(context.get_per_replica_batch_size(4))
        for batch in strategy.distribute_datasets_from_function(dataset_fn):
            print(batch)
        print(strategy.reduce("MEAN", strategy.run(lambda: tf.constant([1.0, 2.0]) * tf.cast(
            tf.distribute.get_replica_context().replica_id_in_sync_group + 1, tf.float32)), axis=0))

        @tf.function
        def traced():
            return strategy.run(lambda: tf.constant(2.0) * 3)
        print(traced())
        with strategy.scope():
            v = tf.Variable([1.0, 2.0])
            print(tf.distribute.get_strategy() is strategy, tf.distribute.in_cross_replica_context())
        print(v)
        print(type(v).__name__, isinstance(v, tf.Variable), v.numpy())
        strategy.run(lambda: v.assign_add([1.0, 1.0]))
        print(v)
        v.assign([5.0, 6.0])
        print(strategy.run(lambda: v * 2))

        @tf.function
        def train_step(x):
            def step(x):
                with tf.GradientTape() as tape:
                    loss = tf.reduce_sum(v * x)
                v.assign_sub(0.1 * tape.gradient(loss, v))
                return loss
            return strategy.reduce("SUM", strategy.run(step, args=(x,)), axis=None)
        rows = tf.data.Dataset.from_tensor_slices([[1.0, 1.0], [2.0, 0.5], [3.0, 1.0], [0.0, 1.0]]).batch(4)
        for x in strategy.experimental_distribute_dataset(rows):
            print(train_step(x))
        print(v)
    """)
    assert "PerReplica:{\n  0: tf.Tensor(1.0" in printed


@pytest.mark.slow  # two fresh processes, each starting its engine
def test_generators_under_a_mirrored_strategy_follow_the_random_number_guide(tmp_path: Path) -> None:
    same_printed(f"""
        strategy = tf.distribute.MirroredStrategy(devices=["cpu:0", "cpu:1"])
        outside = tf.random.Generator.from_seed(1)
        with strategy.scope():
            def f():
                print(outside.normal([]))
            strategy.run(f)
        with strategy.scope():
            g = tf.random.Generator.from_seed(1)
            print(type(g.state).__name__, g.state.numpy())
            print(strategy.run(lambda: g.normal([])))
            print(strategy.run(lambda: g.normal([2])))
            print(g.normal([]))
        checkpoint = tf.train.Checkpoint(my_generator=g)
        path = checkpoint.write(r"{tmp_path}/" + tf.__name__ + "-mirrored")
        print(strategy.run(lambda: g.normal([])))
        checkpoint.restore(path)
        print(strategy.run(lambda: g.normal([])))
        print([name for name, shape in tf.train.list_variables(path) if "generator" in name])
        with strategy.scope():
            v = tf.Variable([1.0, 2.0])
        vars_checkpoint = tf.train.Checkpoint(v=v)
        saved = vars_checkpoint.write(r"{tmp_path}/" + tf.__name__ + "-variables")
        v.assign([7.0, 8.0])
        vars_checkpoint.restore(saved)
        print(v)
        print(strategy.run(lambda: v + 0))
        gs = tf.random.Generator.from_seed(3).split(2)
        def to_args(gs):
            with strategy.scope():
                def f():
                    return [gs[tf.distribute.get_replica_context().replica_id_in_sync_group]]
                return strategy.run(f)
        print(strategy.run(lambda g: g.normal([]), args=to_args(gs)))
    """)
