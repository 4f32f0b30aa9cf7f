"""Runs inside the grading kernel: remembers trusted objects and puts them back before every graded cell.

Student code runs in the same interpreter as the tests, so it can replace what tests rely on
(``np.testing.assert_allclose = lambda *a, **k: None``, ``np.allclose = ...``, a helper from a read-only
cell).  The grader sends this file's source to the kernel before the first cell, snapshots modules and
the names that read-only cells define, and calls :func:`restore` before each graded cell.  This stops
monkeypatching; it is not a boundary against code that attacks the guard itself (the sandbox is).
"""

import os
import signal
import sys
import types

GUARDED_ROOTS = ("builtins", "math", "operator", "functools", "numpy", "minitf", "tensorflow")
#: IPython swaps these builtins in and out around every cell; they are not the student's doing.
IPYTHON_MANAGED = frozenset({"exit", "quit", "get_ipython", "display", "input", "raw_input", "_", "__", "___"})
_HEAPTYPE = 1 << 9

_sys_modules = sys.modules
_modules: dict = {}  # module name -> (module, {attribute: value})
_classes: dict = {}  # class -> {attribute: value}
_names: dict = {}  # user-namespace name -> value defined by a read-only cell
_shell = get_ipython()  # type: ignore[name-defined]  # noqa: F821  (provided by IPython inside the kernel)
_missing = object()


def _worth_guarding(value) -> bool:
    return callable(value) or isinstance(value, types.ModuleType)


def _same(current, original) -> bool:
    if current is original:
        return True
    if isinstance(current, types.ModuleType) and isinstance(original, types.ModuleType):
        # lazy loaders (TensorFlow's) replace themselves with the module they load
        return getattr(current, "__name__", None) == getattr(original, "__name__", "")
    # bound methods are created anew on every attribute access
    return type(current) is types.MethodType and type(original) is types.MethodType and current == original


def _snapshot_class(cls) -> None:
    if cls in _classes or not (cls.__flags__ & _HEAPTYPE):
        return
    _classes[cls] = {k: v for k, v in vars(cls).items() if k not in ("__dict__", "__weakref__", "__doc__")}


def snapshot_modules() -> None:
    """Remember every attribute worth guarding of the guarded modules loaded so far."""
    for name, module in list(_sys_modules.items()):
        if module is None or name in _modules or name.split(".")[0] not in GUARDED_ROOTS:
            continue
        try:
            attrs = {k: v for k, v in vars(module).items() if _worth_guarding(v) and k not in IPYTHON_MANAGED}
        except TypeError:
            continue
        _modules[name] = (module, attrs)
        for value in attrs.values():
            if isinstance(value, type) and getattr(value, "__module__", "").split(".")[0] in GUARDED_ROOTS:
                _snapshot_class(value)


def protect(names) -> None:
    """Remember the functions, classes and modules a read-only cell bound to these names."""
    namespace = _shell.user_ns
    for name in names:
        value = namespace.get(name, _missing)
        if value is not _missing and _worth_guarding(value):
            _names[name] = value


def stop_strays() -> None:
    """In the sandbox the kernel is PID 1 of its own namespace: end every process student code left running.

    Leftovers (a fork bomb, a daemon) would otherwise hold the process limit and starve the tests.
    Never outside the sandbox: there ``kill(-1)`` would reach the instructor's processes.
    """
    if os.getpid() != 1:
        return
    try:
        os.kill(-1, signal.SIGKILL)  # every process in this namespace except the kernel itself
    except OSError:
        return
    while True:  # reap them (as init we inherit orphans too); zombies still count against the limit
        try:
            os.waitpid(-1, 0)
        except ChildProcessError:
            return
        except InterruptedError:
            continue


def restore() -> list:
    """Put back everything that changed since the snapshot; return what was restored, for feedback."""
    stop_strays()
    restored = []
    for name, (module, attrs) in _modules.items():
        if _sys_modules.get(name) is not module:
            _sys_modules[name] = module
            restored.append(f"sys.modules[{name!r}]")
        namespace = vars(module)
        for attr, value in attrs.items():
            if not _same(namespace.get(attr, _missing), value):
                namespace[attr] = value
                restored.append(f"{name}.{attr}")
    for cls, attrs in _classes.items():
        current = vars(cls)
        for attr, value in attrs.items():
            if current.get(attr, _missing) is not value:
                try:
                    setattr(cls, attr, value)
                    restored.append(f"{cls.__module__}.{cls.__qualname__}.{attr}")
                except (AttributeError, TypeError):
                    pass
        # operators and overrides of inherited methods added later (``Tensor.__eq__ = lambda *a: True``) are
        # the classic cheat; brand-new names may be the library's own lazy additions, so they stay
        added = [
            a
            for a in current
            if a not in attrs
            and callable(current[a])
            and (a.startswith("__") or any(a in vars(base) for base in cls.__mro__[1:]))
        ]
        for attr in added:
            try:
                delattr(cls, attr)
                restored.append(f"{cls.__module__}.{cls.__qualname__}.{attr}")
            except (AttributeError, TypeError):
                pass
    namespace = _shell.user_ns
    for name, value in _names.items():
        if not _same(namespace.get(name, _missing), value):
            namespace[name] = value
            restored.append(name)
    return restored
