"""`tf.train.Checkpoint`: save the variables reachable from some objects, and put the values back later.

Variables are keyed by the attribute path from the checkpoint to them (`model/w`, as TensorFlow keys them
`model/w/.ATTRIBUTES/VARIABLE_VALUE`), so a checkpoint restores into *new* objects of the same structure.
The files keep TensorFlow's names (`ckpt-1.index`, `ckpt-1.data-00000-of-00001`, a `checkpoint` file naming
the latest), but the contents are minitf's: the index is JSON, the data an .npz archive (no pickle).
"""

from __future__ import annotations

import io
import json
import os
import re
from typing import Any

import numpy as np

from minitf.core import dtypes, logs
from minitf.core.errors import NotFoundError
from minitf.function.function import Function
from minitf.function.module import Module
from minitf.ops.random.generator import Generator
from minitf.ops.variables import Variable

_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"
_DATA = ".data-00000-of-00001"
_INDEX = ".index"


def _trackable(value: Any) -> bool:
    return isinstance(value, Variable | Module | Checkpoint | Generator)


def _collect(obj: Any, prefix: str, found: dict[str, Variable], seen: set[int]) -> None:
    """Every variable under `obj`, keyed by its attribute path."""
    if isinstance(obj, Variable):
        found.setdefault(prefix + _SUFFIX, obj)
        return
    if isinstance(obj, Generator):  # its state is a variable, keyed as TensorFlow keys it
        found.setdefault(f"{prefix}/_state_var{_SUFFIX}", obj.state)
        return
    if isinstance(obj, list | tuple):
        for i, item in enumerate(obj):
            _collect(item, f"{prefix}/{i}" if prefix else str(i), found, seen)
        return
    if isinstance(obj, dict):
        for k, item in obj.items():
            _collect(item, f"{prefix}/{k}" if prefix else str(k), found, seen)
        return
    if not isinstance(obj, Module | Checkpoint) or id(obj) in seen:
        return
    seen.add(id(obj))
    children = obj._children() if isinstance(obj, Checkpoint) else vars(obj).items()
    for name, child in children:
        if name in ("_name", "_scope_name") or isinstance(child, Function):
            continue
        _collect(child, f"{prefix}/{name}" if prefix else name, found, seen)


class CheckpointLoadStatus:
    """What `restore` returns: checks that the checkpoint and the objects matched."""

    def __init__(self, checkpoint: Checkpoint, missing_in_objects: list[str], missing_in_file: list[str]) -> None:
        self._checkpoint = checkpoint
        self._unused = missing_in_objects  # values in the file no object took
        self._unrestored = missing_in_file  # variables the file had no value for

    def assert_consumed(self) -> CheckpointLoadStatus:
        if self._unused:
            raise AssertionError(
                f"Unresolved object in checkpoint (root).{self._unused[0].replace(_SUFFIX, '')}"
                f"\nHint: the checkpoint holds values no variable took; status.expect_partial() "
                f"accepts that."
            )
        return self.assert_existing_objects_matched()

    def assert_existing_objects_matched(self) -> CheckpointLoadStatus:
        if self._unrestored:
            raise AssertionError(
                f"Some objects had attributes which were not restored: "
                f"{', '.join(k.replace(_SUFFIX, '') for k in self._unrestored)}"
            )
        return self

    def assert_nontrivial_match(self) -> CheckpointLoadStatus:
        return self

    def expect_partial(self) -> CheckpointLoadStatus:
        self._unused = []
        return self

    def run_restore_ops(self, session: Any = None) -> None:
        return None

    def __repr__(self) -> str:
        return f"<tensorflow.python.checkpoint.checkpoint.{type(self).__name__} object at 0x{id(self):x}>"


class InitializationOnlyStatus(CheckpointLoadStatus):
    """`restore(None)`: nothing to restore (variables keep their initial values)."""


class Checkpoint:
    """`tf.train.Checkpoint(model=..., optimizer=..., step=...)`: the objects whose variables to save."""

    def __init__(self, root: Any = None, **kwargs: Any) -> None:
        if root is not None and not _trackable(root):
            raise ValueError(
                f"`Checkpoint` was expecting root to be a trackable object (an object derived from "
                f"`Trackable`), got {root!r}. If you believe this object should be trackable (i.e. "
                f"it is part of the TensorFlow Python API and manages state), please open an issue."
            )
        for name, value in kwargs.items():
            if not _trackable(value) and not isinstance(value, list | tuple | dict):
                raise ValueError(
                    f"`Checkpoint` was expecting {name} to be a trackable object (an object derived "
                    f"from `Trackable`), got {value!r}. If you believe this object should be "
                    f"trackable (i.e. it is part of the TensorFlow Python API and manages state), "
                    f"please open an issue.\nHint: wrap numbers in tf.Variable to checkpoint them."
                )
        self._root = root
        self._kwargs = dict(kwargs)
        self._save_counter: Variable | None = None
        for name, value in kwargs.items():
            object.__setattr__(self, name, value)

    def _children(self) -> list[tuple[str, Any]]:
        children = list(self._kwargs.items())
        if self._root is not None:
            children = list(vars(self._root).items()) + children
        if self._save_counter is not None:
            children.append(("save_counter", self._save_counter))
        return children

    @property
    def save_counter(self) -> Variable:
        """How many times `save` has run (an int64 Variable, saved with the checkpoint)."""
        if self._save_counter is None:
            self._save_counter = Variable(np.int64(0), trainable=False, name="save_counter")
        return self._save_counter

    def _variables(self) -> dict[str, Variable]:
        found: dict[str, Variable] = {}
        _collect(self, "", found, set())
        return found

    # --- writing ---
    def write(self, file_prefix: str, options: Any = None) -> str:
        """Write the values to exactly `file_prefix` (.index and .data files); returns the prefix."""
        file_prefix = os.fspath(file_prefix)
        folder = os.path.dirname(file_prefix)
        if folder:
            os.makedirs(folder, exist_ok=True)
        found = self._variables()
        keys = sorted(found)
        index: dict[str, Any] = {
            "format": "minitf-checkpoint",
            "version": 1,
            "variables": {
                k: {"slot": f"t{i}", "dtype": found[k].dtype.name, "shape": list(found[k].shape)}
                for i, k in enumerate(keys)
            },
        }
        values: dict[str, Any] = {}  # Any: NumPy's savez stub reads `**values` as its allow_pickle flag too
        for i, k in enumerate(keys):
            value = np.asarray(found[k].numpy())
            if value.dtype == object:
                index["variables"][k]["strings"] = [bytes(s).decode("latin-1") for s in value.reshape(-1)]
            else:
                values[f"t{i}"] = value
        buffer = io.BytesIO()
        np.savez(buffer, **values)
        with open(file_prefix + _DATA, "wb") as f:
            f.write(buffer.getvalue())
        with open(file_prefix + _INDEX, "w", encoding="utf-8") as f:
            json.dump(index, f)
        return file_prefix

    def save(self, file_prefix: str, options: Any = None) -> str:
        """Write `file_prefix-N` (N counts the saves) and record it as the latest in the `checkpoint` file."""
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{os.fspath(file_prefix)}-{int(counter.numpy())}")
        folder = os.path.dirname(path) or "."
        _update_state(folder, os.path.basename(path))
        return path

    # --- reading ---
    def read(self, save_path: str, options: Any = None) -> CheckpointLoadStatus:
        return self.restore(save_path, options)

    def restore(self, save_path: str | None, options: Any = None) -> CheckpointLoadStatus:
        """Assign the saved values to the variables at the same paths."""
        if save_path is None:
            return InitializationOnlyStatus(self, [], [])
        save_path = os.fspath(save_path)
        index = _read_index(
            save_path, "pass the path `save` returned (e.g. 'ckpt-1'), or tf.train.latest_checkpoint(folder)."
        )
        with np.load(save_path + _DATA, allow_pickle=False) as stored:
            arrays = {k: stored[k] for k in stored.files}
        if any(k.startswith("save_counter/") for k in index["variables"]):
            self.save_counter  # noqa: B018  (restored along with the rest, as in TensorFlow)
        found = self._variables()
        for key, entry in index["variables"].items():
            variable = found.get(key)
            if variable is None:
                continue
            value = arrays.get(entry["slot"])
            if value is None:
                value = np.array([s.encode("latin-1") for s in entry["strings"]], dtype=object).reshape(entry["shape"])
            if list(np.shape(value)) != list(variable.shape):
                raise ValueError(
                    f"Received incompatible tensor with shape {_shape_text(np.shape(value))} when "
                    f"attempting to restore variable with shape {_shape_text(variable.shape)} and "
                    f"name {variable.name}.\nHint: the checkpoint was written by objects with "
                    f"differently shaped variables."
                )
            variable.assign(
                np.asarray(value, dtype=variable.dtype._np if variable.dtype is not dtypes.string else object)
            )
        unused = sorted(k for k in index["variables"] if k not in found)
        unrestored = sorted(k for k in found if k not in index["variables"])
        for key in unused:
            logs.warning(
                "Value in checkpoint could not be found in the restored object: (root).%s", key.replace(_SUFFIX, "")
            )
        return CheckpointLoadStatus(self, unused, unrestored)


def _shape_text(shape: Any) -> str:
    dims = tuple(shape)
    return "(" + ", ".join(str(d) for d in dims) + ("," if len(dims) == 1 else "") + ")"


def _update_state(folder: str, name: str, kept: list[str] | None = None) -> None:
    """The `checkpoint` file TensorFlow keeps next to the checkpoints: the latest, and all that are kept."""
    path = os.path.join(folder, "checkpoint")
    if kept is None:
        kept = [p for p in _recorded(folder) if p != name] + [name]
    with open(path, "w", encoding="utf-8") as f:
        f.write(f'model_checkpoint_path: "{name}"\n')
        for p in kept:
            f.write(f'all_model_checkpoint_paths: "{p}"\n')


def _recorded(folder: str) -> list[str]:
    """The checkpoint names the `checkpoint` file of `folder` lists (oldest first)."""
    path = os.path.join(folder, "checkpoint")
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return re.findall(r'^all_model_checkpoint_paths: "(.*)"$', f.read(), flags=re.M)


class CheckpointManager:
    """Numbered checkpoints in one folder, keeping the newest `max_to_keep` (older ones are deleted)."""

    def __init__(
        self,
        checkpoint: Checkpoint,
        directory: str,
        max_to_keep: int | None,
        keep_checkpoint_every_n_hours: float | None = None,
        checkpoint_name: str = "ckpt",
        step_counter: Any = None,
        checkpoint_interval: Any = None,
        init_fn: Any = None,
        last_checkpoint_step: Any = None,
    ) -> None:
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._init_fn = init_fn
        self._checkpoints = [
            os.path.join(self._directory, name)
            for name in _recorded(self._directory)
            if os.path.exists(os.path.join(self._directory, name) + _INDEX)
        ]

    @property
    def directory(self) -> str:
        return self._directory

    @property
    def checkpoint(self) -> Checkpoint:
        return self._checkpoint

    @property
    def checkpoints(self) -> list[str]:
        return list(self._checkpoints)

    @property
    def latest_checkpoint(self) -> str | None:
        return self._checkpoints[-1] if self._checkpoints else None

    def save(self, checkpoint_number: int | None = None, check_interval: bool = True, options: Any = None) -> str:
        """Write `directory/ckpt-N` (N: the save counter, or `checkpoint_number`) and forget the oldest."""
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        number = int(counter.numpy()) if checkpoint_number is None else int(checkpoint_number)
        path = self._checkpoint.write(f"{self._prefix}-{number}")
        self._checkpoints = [c for c in self._checkpoints if c != path] + [path]
        while self._max_to_keep is not None and len(self._checkpoints) > self._max_to_keep:
            old = self._checkpoints.pop(0)
            for suffix in (_INDEX, _DATA):
                if os.path.exists(old + suffix):
                    os.remove(old + suffix)
        _update_state(self._directory, os.path.basename(path), [os.path.basename(c) for c in self._checkpoints])
        return path

    def restore_or_initialize(self) -> str | None:
        """Restore the latest checkpoint if there is one (returns its path); otherwise run `init_fn`."""
        latest = self.latest_checkpoint
        if latest is not None:
            self._checkpoint.restore(latest)
            return latest
        if self._init_fn is not None:
            self._init_fn()
        return None


def latest_checkpoint(checkpoint_dir: str, latest_filename: str | None = None) -> str | None:
    """The path of the newest checkpoint saved in `checkpoint_dir` (None when there is none)."""
    path = os.path.join(os.fspath(checkpoint_dir), latest_filename or "checkpoint")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as f:
        match = re.search(r'^model_checkpoint_path: "(.*)"$', f.read(), flags=re.M)
    if match is None:
        return None
    latest = os.path.join(os.fspath(checkpoint_dir), match.group(1))
    return latest if os.path.exists(latest + _INDEX) else None


def _read_index(path: str, hint: str) -> dict:
    """A checkpoint's index, or TensorFlow's NotFoundError (with a hint) when no checkpoint has that prefix."""
    if not os.path.exists(path + _INDEX):
        raise NotFoundError(
            None,
            None,
            f"Unsuccessful TensorSliceReader constructor: Failed to find any matching files for {path}\nHint: {hint}",
        )
    with open(path + _INDEX, encoding="utf-8") as f:
        return json.load(f)


def list_variables(ckpt_dir_or_file: str) -> list[tuple[str, list[int]]]:
    """(key, shape) of every value a checkpoint holds, sorted by key, with the entry TensorFlow keeps for its
    object graph; a folder stands for the latest checkpoint saved in it."""
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        path = latest_checkpoint(path) or path
    index = _read_index(path, "pass a checkpoint's prefix (the path `save` returned) or the folder it was saved in.")
    found = [(key, list(entry["shape"])) for key, entry in index["variables"].items()]
    return sorted([("_CHECKPOINTABLE_OBJECT_GRAPH", []), *found])
