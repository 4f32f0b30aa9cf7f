"""SavedModel and Checkpoint against TensorFlow.

A module is saved by each engine; minitf's copy is loaded in a fresh Python process (where the module's
class does not exist) and TensorFlow's in this process (starting TensorFlow again would cost many
seconds); both run the same script and must print the same. Checkpoints are compared in-process:
returned paths, files written, restored values and errors.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

from harness import EAGER_ONLY, ENGINES, assert_equal, minitf, real_tf, same

ROOT = Path(__file__).resolve().parents[3]


def make_module(tf: Any) -> Any:
    class Dense(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.w = tf.Variable([[1.0, 2.0], [3.0, 4.0]], name="w")
            self.b = tf.Variable([0.5, -0.5], name="b")
            self.steps = tf.Variable(0, trainable=False, name="steps")
            self.blocks = [tf.Variable(1.5, name="scale")]

        @tf.function(input_signature=[tf.TensorSpec([None, 2], tf.float32)])
        def __call__(self, x: Any) -> Any:
            self.steps.assign_add(1)
            y = tf.matmul(x, self.w) + self.b
            if tf.reduce_sum(y) > 0:
                y = y * self.blocks[0]
            return y

        @tf.function
        def scale(self, x: Any, factor: Any = 2.0) -> Any:
            return x * factor, {"shape": tf.shape(x)}

        @tf.function
        def never_called(self, x: Any) -> Any:
            return x

    module = Dense()
    module.scale(tf.constant([1.0]))
    module.scale(tf.constant([1, 2]), factor=3)
    module.w.assign_add([[0.5, 0.5], [0.5, 0.5]])
    return module


LOAD_SCRIPT = textwrap.dedent("""
    def show(f):
        try:
            print(repr(f()))
        except Exception as e:
            print("error", type(e).__name__)

    loaded = tf.saved_model.load(export_dir)
    print(type(loaded).__name__)
    print(loaded.w)
    print(loaded.steps, loaded.blocks[0].trainable, loaded.steps.trainable)
    print(loaded(tf.constant([[1.0, 1.0]])))
    print(loaded([[-10.0, 2.0], [0.0, 1.0]]))
    print(loaded.steps)
    print(sorted(loaded.signatures), loaded.signatures["serving_default"](x=tf.constant([[1.0, 1.0]])))
    show(lambda: loaded.scale(tf.constant([3.0])))
    show(lambda: loaded.scale(tf.constant([3, 4]), factor=3))
    show(lambda: loaded.scale(tf.constant([[3.0]])))
    show(lambda: loaded.never_called(tf.constant(1)))
    show(lambda: loaded(tf.constant([[1, 1]])))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(loaded(tf.constant([[1.0, 2.0]])))
    print(tape.gradient(y, loaded.w))
    loaded.w.assign(tf.zeros([2, 2]))
    print(loaded(tf.constant([[1.0, 1.0]])))
""")


def load_with_minitf_in_a_fresh_process(export_dir: str) -> str:
    program = f"import sys\nimport minitf as tf\nexport_dir = sys.argv[1]\n{LOAD_SCRIPT}"
    result = subprocess.run(
        [sys.executable, "-c", program, export_dir],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def load_with_tensorflow_here(export_dir: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(LOAD_SCRIPT, {"tf": real_tf, "export_dir": export_dir})  # the test's own script
    return out.getvalue()


def test_saved_module_reloads_in_a_fresh_process_like_tensorflows(tmp_path: Path) -> None:
    for name, lib in ENGINES.items():
        assert lib.saved_model.save(make_module(lib), str(tmp_path / name)) is None
    minitf_printed = load_with_minitf_in_a_fresh_process(str(tmp_path / "minitf"))
    assert minitf_printed == load_with_tensorflow_here(str(tmp_path / "tensorflow"))


def test_minitf_saved_model_holds_json_and_npz_only(tmp_path: Path) -> None:
    minitf.saved.saved_model.save(make_module(minitf), str(tmp_path / "m"))
    files = sorted(str(p.relative_to(tmp_path / "m")) for p in (tmp_path / "m").rglob("*") if p.is_file())
    assert files == ["constants.npz", "saved_model.json", os.path.join("variables", "variables.npz")]


# TensorFlow refuses to save a SavedModel or a checkpoint inside a traced tf.function, and these cases create
# variables and read back files: they run eagerly only.
SAVING = EAGER_ONLY


def test_saving_a_non_module_and_loading_a_missing_directory_fail_like_tensorflow(tmp_path: Path) -> None:
    same(lambda tf: tf.saved_model.save(3, str(tmp_path / "x")), modes=SAVING)
    same(lambda tf: tf.saved_model.load(str(tmp_path / "missing")), modes=SAVING)


def test_saving_a_function_that_uses_an_untracked_variable_fails_like_tensorflow(tmp_path: Path) -> None:
    def case(tf: Any) -> Any:
        hidden = tf.Variable(2.0)
        module = tf.Module()
        module.f = tf.function(lambda x: x * hidden, input_signature=[tf.TensorSpec([], tf.float32)])
        return tf.saved_model.save(module, str(tmp_path / tf.__name__))

    same(case)


def checkpoint_round_trip(tf: Any, folder: Path) -> Any:
    model = tf.Module()
    model.w = tf.Variable([1.0, 2.0])
    model.layers = [tf.Variable(3)]
    step = tf.Variable(7, dtype=tf.int64)
    checkpoint = tf.train.Checkpoint(model=model, step=step)
    first = checkpoint.save(str(folder / "ckpt"))
    model.w.assign([5.0, 6.0])
    second = checkpoint.save(str(folder / "ckpt"))
    model.w.assign([0.0, 0.0])
    model.layers[0].assign(0)
    step.assign(0)
    latest = tf.train.latest_checkpoint(str(folder))
    checkpoint.restore(first).assert_consumed()
    after_first = (model.w.numpy(), model.layers[0].numpy(), step.numpy(), checkpoint.save_counter.numpy())
    fresh_model = tf.Module()
    fresh_model.w = tf.Variable([0.0, 0.0])
    fresh_model.layers = [tf.Variable(0)]
    fresh = tf.train.Checkpoint(model=fresh_model, step=tf.Variable(0, dtype=tf.int64))
    fresh.restore(latest)
    written = tf.train.Checkpoint(v=tf.Variable(1.5)).write(str(folder / "exact"))
    return (
        [os.path.relpath(p, folder) for p in (first, second, latest, written)],
        sorted(os.listdir(folder)),
        after_first,
        fresh_model.w.numpy(),
        fresh.step,
        fresh.save_counter,
    )


def test_checkpoint_save_and_restore_like_tensorflow(tmp_path: Path) -> None:
    results = {}
    for name, lib in ENGINES.items():
        (tmp_path / name).mkdir()
        results[name] = checkpoint_round_trip(lib, tmp_path / name)
    assert_equal(results["minitf"], results["tensorflow"], "checkpoint round trip")


def test_checkpoint_errors_like_tensorflow(tmp_path: Path) -> None:
    same(lambda tf: tf.train.Checkpoint(3), modes=SAVING)
    same(lambda tf: tf.train.Checkpoint(v=3), modes=SAVING)
    same(lambda tf: tf.train.latest_checkpoint(str(tmp_path / "nothing")), modes=SAVING)

    def wrong_shape(tf: Any) -> Any:
        path = tf.train.Checkpoint(v=tf.Variable(1.0)).save(str(tmp_path / tf.__name__ / "c"))
        return tf.train.Checkpoint(v=tf.Variable([1.0, 2.0])).restore(path)

    same(wrong_shape, modes=SAVING)

    def unused_value(tf: Any) -> Any:
        path = tf.train.Checkpoint(v=tf.Variable(1.0), extra=tf.Variable(2)).save(str(tmp_path / tf.__name__ / "d"))
        status = tf.train.Checkpoint(v=tf.Variable(0.0)).restore(path)
        return status.assert_consumed()

    same(unused_value, modes=SAVING)


def test_saved_function_returning_a_ragged_tensor_reloads_like_tensorflows(tmp_path: Path) -> None:
    def case(tf: Any) -> Any:
        module = tf.Module()
        module.words = tf.function(
            lambda lines: tf.strings.split(lines), input_signature=[tf.TensorSpec([None], tf.string)]
        )
        tf.saved_model.save(module, str(tmp_path / tf.__name__))
        words = tf.saved_model.load(str(tmp_path / tf.__name__)).words(tf.constant(["a b", "", "c d e"]))
        return repr(words), words.to_list(), words.shape

    same(case, modes=SAVING)


def signature_module(tf: Any) -> Any:
    class Scaler(tf.Module):
        def __init__(self) -> None:
            super().__init__()
            self.v = tf.Variable(2.0)

        @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
        def f(self, x: Any) -> Any:
            return x * self.v, x + 1

        @tf.function
        def g(self, x: Any) -> Any:
            return {"double": x * 2}

        @tf.function(input_signature=[tf.TensorSpec([], tf.float32)])
        def mutate(self, new_v: Any) -> Any:
            self.v.assign(new_v)

    return Scaler()


def test_signatures_save_and_load_like_tensorflow(tmp_path: Path) -> None:
    def case(tf: Any) -> Any:
        folder = tmp_path / tf.__name__
        module = signature_module(tf)
        tf.saved_model.save(module, str(folder / "auto"))
        auto = tf.saved_model.load(str(folder / "auto")).signatures
        tf.saved_model.save(
            module,
            str(folder / "explicit"),
            signatures={"scale": module.f, "double": module.g.get_concrete_function(tf.TensorSpec([], tf.int32))},
        )
        loaded = tf.saved_model.load(str(folder / "explicit"))
        scale = loaded.signatures["scale"]

        def ordered(outputs: dict) -> dict:  # TensorFlow's loaded signatures return their outputs in varying order
            return dict(sorted(outputs.items()))

        return (
            sorted(auto),
            sorted(loaded.signatures),
            ordered(scale(x=tf.constant([1.0, 2.0]))),
            ordered(scale(tf.constant([3.0]))),
            ordered(loaded.signatures["double"](x=tf.constant(4))),
            {name: repr(spec) for name, spec in sorted(scale.structured_outputs.items())},
        )

    same(case, modes=SAVING)


def test_signature_errors_like_tensorflow(tmp_path: Path) -> None:
    def saved(tf: Any) -> Any:
        folder = tmp_path / tf.__name__
        module = signature_module(tf)
        tf.saved_model.save(module, str(folder), signatures=module.f)
        return tf.saved_model.load(str(folder)).signatures["serving_default"]

    same(lambda tf: saved(tf)(y=tf.constant([1.0])), modes=SAVING)
    same(lambda tf: saved(tf)(x=tf.constant([1])), modes=SAVING)

    def save_with(tf: Any, method: str) -> Any:
        module = signature_module(tf)
        return tf.saved_model.save(module, str(tmp_path / tf.__name__ / method), signatures=getattr(module, method))

    same(lambda tf: save_with(tf, "g"), modes=SAVING)  # no input_signature
    same(lambda tf: save_with(tf, "mutate"), modes=SAVING)  # returns None


def manager_round_trip(tf: Any, folder: Path) -> Any:
    v = tf.Variable(1.0)
    checkpoint = tf.train.Checkpoint(step=tf.Variable(1), v=v)
    manager = tf.train.CheckpointManager(checkpoint, str(folder / "ckpts"), max_to_keep=2)
    status = checkpoint.restore(manager.latest_checkpoint)
    before = (manager.latest_checkpoint, manager.checkpoints, type(status).__name__)
    saved = []
    for _ in range(4):
        checkpoint.step.assign_add(1)
        v.assign_add(1.0)
        saved.append(os.path.relpath(manager.save(), folder))
    saved.append(os.path.relpath(manager.save(checkpoint_number=100), folder))
    files = sorted(os.listdir(folder / "ckpts"))
    fresh = tf.train.Checkpoint(step=tf.Variable(0), v=tf.Variable(0.0))
    again = tf.train.CheckpointManager(fresh, str(folder / "ckpts"), max_to_keep=2)
    restored = os.path.relpath(again.restore_or_initialize(), folder)
    return (
        before,
        saved,
        files,
        [os.path.relpath(c, folder) for c in again.checkpoints],
        restored,
        fresh.step,
        fresh.v,
        fresh.save_counter,
    )


def test_checkpoint_manager_keeps_the_newest_like_tensorflow(tmp_path: Path) -> None:
    results = {}
    for name, lib in ENGINES.items():
        (tmp_path / name).mkdir()
        results[name] = manager_round_trip(lib, tmp_path / name)
    assert_equal(results["minitf"], results["tensorflow"], "checkpoint manager")
