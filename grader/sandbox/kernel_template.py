"""A worker's kernel template: a fork server that has already imported ipykernel, NumPy and minitf.

Starting a kernel costs about a second of CPU here, nearly all of it imports; grading starts two kernels per
notebook.  The template pays for the imports once per worker, then forks every kernel from that state: the
child enters the sandbox exactly as grader/sandbox/launch.py does (new namespaces, new root, limits, the sandbox user,
a clean environment) and runs ipykernel in-process instead of exec'ing a fresh interpreter.

Why a forked kernel is as clean as a fresh one:
- the template never runs student code: it is started from a clean environment, reads only its settings and
  imports a fixed list of modules; every kernel is a new child of it, never reused, so nothing a student
  leaves in a kernel's memory, files, environment or processes exists in the template or in any later kernel;
- no thread exists when it forks (checked after the imports; the template refuses to serve otherwise), and the
  BLAS and OpenMP pools are pinned to one thread before NumPy loads, so no lock is inherited half-held;
- the child closes every inherited file descriptor (the template's socket among them) and gets fresh random
  seeds (Python's and NumPy's global generators), as a fresh interpreter would.

Standalone on purpose, like launch.py (started with the kernel's environment, run as root): it imports only the
standard library, launch.py, and the modules it preloads.  Protocol: grader/sandbox/launch.py connects to the socket,
sends one JSON line (connection file, its text, working folder, extra arguments) and gets ``+`` once the kernel's
supervisor exists, then its exit code when the kernel ends; it sends ``i`` to interrupt and ``k`` to kill.
"""

import contextlib
import json
import os
import select
import signal
import socket
import sys
import threading

import launch  # type: ignore[import-not-found]  # (a script beside this one, not a module of a package)

#: what every grading kernel imports before a cell runs (ipykernel's machinery, the course's engine).  Not the
#: notebooks' other imports: ipywidgets and tqdm.auto adapt to the kernel running them.
PRELOADED = (
    "ipykernel.kernelapp",
    "ipykernel.ipkernel",
    "IPython.core.interactiveshell",
    "numpy",
    "numpy.testing",
    "numpy.linalg",
    "minitf",
)
#: and, when the worker has given the template a sandboxed kernel's font list (matplotlib builds it from the files
#: it sees: the template sees the host's, a kernel only the allow-list), the plotting the course's setup cells import
PRELOADED_PLOTTING = ("matplotlib", "matplotlib.pyplot")
READY = "template ready"
MAX_REQUEST_BYTES = 1 << 20
TEMPLATE_MARK = "GRADER_KERNEL_TEMPLATE"
PEAKS = "kernel-peaks"  # one line per ended kernel: its largest resident size in KiB
_folder = "."  # the template's private folder (beside its socket)


def _read_request(link: socket.socket) -> dict:
    data = b""
    while not data.endswith(b"\n"):
        chunk = link.recv(65536)
        if not chunk or len(data) > MAX_REQUEST_BYTES:
            raise OSError("incomplete request")
        data += chunk
    return json.loads(data)


def _close_inherited_descriptors() -> None:
    """Only stdin, stdout and stderr survive into the kernel: not the template's socket, not the supervisor's."""
    for name in os.listdir("/proc/self/fd"):
        if int(name) > 2:
            with contextlib.suppress(OSError):  # the descriptor of the listing itself is gone by now
                os.close(int(name))


def _reseed() -> None:
    """Fresh global random states, as a freshly started interpreter would have (the template's are shared)."""
    import random

    import numpy

    random.seed()
    numpy.random.seed()


def _run_kernel(config: dict, request: dict) -> None:
    """In the forked child, inside the sandbox: become the kernel (never returns)."""
    code = 70
    try:
        connection_file, env = launch.enter_sandbox(
            config, request["connection_file"], request["connection"], config["isolate"]
        )
        _close_inherited_descriptors()
        os.environ.clear()
        os.environ.update(env)
        sys.path[0] = os.getcwd()  # as `python -m ipykernel_launcher` started here would have it
        sys.argv = [sys.executable, "-m", "ipykernel_launcher", "-f", connection_file, *request["extra"]]
        sys.modules.pop("launch", None)
        _reseed()
        launch.silence_output()
        from ipykernel.kernelapp import IPKernelApp

        IPKernelApp.launch_instance(argv=sys.argv[3:])
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 0
    except BaseException as error:
        print(f"grader sandbox: cannot start the kernel: {error}", file=sys.stderr, flush=True)
    os._exit(code)


def _supervise(link: socket.socket, kernel: int) -> None:
    """Relay the launcher's interrupts to the kernel, end it when the launcher goes, report its exit code."""
    ended = os.pidfd_open(kernel)
    signal.signal(signal.SIGTERM, lambda *_: os.kill(kernel, signal.SIGKILL))  # the template is closing
    launch.hold_sigterm(False)  # (held since before the kernel was forked: one that came meanwhile arrives now)
    watched: list[socket.socket | int] = [link, ended]
    while True:
        ready, _, _ = select.select(watched, [], [])
        if ended in ready:
            break
        try:
            orders = link.recv(64)
        except OSError:
            orders = b""
        if not orders:  # the launcher was killed: so is the kernel (and, as PID 1, everything it started)
            os.kill(kernel, signal.SIGKILL)
            break
        for order in orders.decode(errors="replace"):
            os.kill(kernel, signal.SIGINT if order == "i" else signal.SIGKILL)
    _, status, usage = os.wait4(kernel, 0)
    code = os.waitstatus_to_exitcode(status)
    with contextlib.suppress(OSError), open(f"{_folder}/{PEAKS}", "a") as peaks:  # for the worker's kernel_mb
        peaks.write(f"{usage.ru_maxrss}\n")
    with contextlib.suppress(OSError):
        link.sendall(f"{code if code >= 0 else 128 - code}\n".encode())


def _serve(link: socket.socket, config: dict) -> None:
    """One kernel, in a fresh child of the template: its supervisor and, forked from it, the kernel itself."""
    code = 70
    try:
        launch._check(launch._libc.prctl(launch.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
        signal.signal(signal.SIGTERM, signal.SIG_DFL)  # the template's own handler is not the kernels'
        request = _read_request(link)
        os.chdir(request["cwd"])
        link.sendall(b"+")
        if config["isolate"]:
            kernel = launch.split_into_sandbox(config, request["connection"])
        else:
            launch.hold_sigterm(True)  # as split_into_sandbox does: until the handler knows the kernel
            kernel = os.fork()
        if kernel == 0:
            launch.hold_sigterm(False)
            _run_kernel(config, request)
        _supervise(link, kernel)
        code = 0
    except BaseException as error:
        print(f"grader kernel template: {error}", file=sys.stderr, flush=True)
    os._exit(code)


_supervisors: set[int] = set()


def _reap() -> None:
    try:
        while (pid := os.waitpid(-1, os.WNOHANG)[0]) > 0:
            _supervisors.discard(pid)
    except ChildProcessError:
        _supervisors.clear()


def _close(*_) -> None:
    """End every kernel still running and wait until it is gone (not merely signalled), then end the template."""
    for pid in _supervisors:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGTERM)
    for pid in _supervisors:
        with contextlib.suppress(OSError):
            os.waitpid(pid, 0)
    os._exit(0)


def serve_forever(config: dict, path: str) -> None:
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    os.chmod(path, 0o600)
    server.listen(16)
    print(READY, flush=True)
    while True:
        _reap()
        if not select.select([server], [], [], 1.0)[0]:
            continue
        link, _ = server.accept()
        peer = link.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12)
        if int.from_bytes(peer[4:8], sys.byteorder) != os.getuid():  # only the grader (its launcher) may ask
            link.close()
            continue
        supervisor = os.fork()
        if supervisor == 0:
            server.close()
            _serve(link, config)
        _supervisors.add(supervisor)
        link.close()


def _warm_tracebacks() -> None:
    """Format one exception the way a kernel's shell does: IPython's first verbose traceback imports stack_data,
    executing and asttokens and fills their caches, which every forked kernel would otherwise do again at its
    first error (an unfinished answer's NotImplementedError, a failed test), tens to hundreds of milliseconds."""
    from IPython.core import ultratb
    from IPython.core.interactiveshell import InteractiveShell

    try:
        raise ValueError("a traceback formatted once in the template")
    except ValueError:
        formatter = ultratb.AutoFormattedTB(mode="Context", theme_name=InteractiveShell.colors.default_value)
        formatter.structured_traceback(*sys.exc_info())


def main(config_path: str, path: str) -> None:
    with open(config_path) as handle:
        config = json.load(handle)
    if os.environ.get(TEMPLATE_MARK) != "1":  # start over in the kernel's environment, before any import
        env = launch._environment(config, os.path.dirname(path), config["isolate"])
        env[TEMPLATE_MARK] = "1"
        os.execve(sys.executable, [sys.executable, __file__, config_path, path], env)
    global _folder
    _folder = os.path.dirname(path)
    launch._check(launch._libc.prctl(launch.PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the run's; the worker ends the template
    signal.signal(signal.SIGTERM, _close)  # reaped, so their CPU time counts for the worker
    import importlib

    for name in PRELOADED + (PRELOADED_PLOTTING if config.get("preload_matplotlib") else ()):
        importlib.import_module(name)
    _warm_tracebacks()
    if threading.active_count() != 1:
        sys.exit(
            f"grader kernel template: {threading.active_count() - 1} thread(s) started while importing; "
            "forking now would not be safe"
        )
    serve_forever(config, path)


if __name__ == "__main__":
    main(*sys.argv[1:])
