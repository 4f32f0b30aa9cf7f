"""The grading kernel's sandbox, host side: the unprivileged user, limits, and the kernelspec that wraps ipykernel.

As root (CI, a grading server) every kernel runs through grader/sandbox/launch.py: own user, no network, a
private view of the filesystem, resource limits.  Without root none of that is possible; grading still
works with time and memory limits, and the tool says so loudly.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from grader.paths import REPO, GraderError, Term

SANDBOX_USER = "grader-sandbox"
KERNEL_NAME = "grader-sandbox"
LAUNCHER = Path(__file__).with_name("launch.py")
KERNEL_ENV = {
    "TF_CPP_MIN_LOG_LEVEL": "3",  # TensorFlow's C++ logs go to stderr, and stderr zeroes a test cell
    "PYTHONWARNINGS": "ignore",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "MALLOC_ARENA_MAX": "2",  # glibc reserves 64 MB of address space per thread arena otherwise
    "PYTHONDONTWRITEBYTECODE": "1",
    "MPLBACKEND": "Agg",
}


@dataclass(frozen=True)
class Limits:
    """Per-kernel limits; the defaults suit the course's NumPy-sized exercises."""

    cell_timeout: int = 30
    memory_mb: int = 4096
    cpu_seconds: int = 600
    processes: int = 64
    file_mb: int = 64
    tmp_mb: int = 64
    #: what a kernel may write into its working folder (a tmpfs over a copy of the submission; gone when it ends)
    scratch_mb: int = 64


@dataclass(frozen=True)
class Sandbox:
    kernel_name: str
    isolated: bool
    uid: int | None
    gid: int | None
    ipc_dir: Path | None
    note: str
    config: Path | None = None  # the launcher's settings (sandbox.json); workers copy it with their own user


def ensure_sandbox_user(name: str = SANDBOX_USER) -> tuple[int, int]:
    """The unprivileged account kernels run as; created on first use (needs root)."""
    for attempt in range(20):
        try:
            entry = pwd.getpwnam(name)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            pass
        useradd = shutil.which("useradd") or "/usr/sbin/useradd"
        created = subprocess.run(
            [
                useradd,
                "--system",
                "--no-create-home",
                "--home-dir",
                "/nonexistent",
                "--shell",
                "/usr/sbin/nologin",
                "--user-group",
                name,
            ],
            capture_output=True,
            text=True,
        )
        if created.returncode not in (0, 9):  # 9: it exists (made by a worker starting at the same time)
            time.sleep(0.2 * (attempt + 1))  # another worker holds the lock on /etc/passwd
    raise GraderError(f"cannot create the sandbox user {name!r}: {created.stderr.strip()}")


def sandbox_uids() -> set[int]:
    """Every sandbox user: grader-sandbox, and grader-sandbox-N of the Nth concurrent worker."""
    return {
        entry.pw_uid
        for entry in pwd.getpwall()
        if entry.pw_name == SANDBOX_USER or entry.pw_name.startswith(f"{SANDBOX_USER}-")
    }


def live_processes(uids: set[int]) -> list[dict[str, str]]:
    """The /proc status fields (Pid, Name, State, PPid, ...) of every live process running as one of ``uids``;
    zombies are dead already (their parent has only to note it)."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = {
                k: v.strip() for k, v in (line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            }
        except OSError:
            continue
        if int(fields["Uid"].split()[0]) in uids and not fields["State"].startswith(("Z", "X")):
            found.append(fields)
    return found


def processes_of(uid: int) -> list[int]:
    """The pids of the live processes running as ``uid``."""
    return [int(fields["Pid"]) for fields in live_processes({uid})]


def end_processes_of(uid: int, gid: int, timeout: float = 10.0) -> int:
    """End every process still running as a worker's own sandbox user, and wait until none is left; returns
    how many there were.

    Kernels end with their supervisors, and everything a kernel started ends with the kernel (PID 1 of its
    namespace); this is the last word after a worker's kernels are closed, for whatever a race or a bug let
    through. Only while the worker holds its slot: no one else runs as that user then. A shell started as the
    user sends SIGKILL to every process it may signal (``kill -KILL -1``), which is exactly the user's
    processes."""
    ended = len(processes_of(uid))
    deadline = time.monotonic() + timeout
    while processes_of(uid) and time.monotonic() < deadline:
        subprocess.run(
            ["/bin/sh", "-c", "kill -KILL -1 2>/dev/null; exit 0"],
            user=uid,
            group=gid,
            extra_groups=[],
            env={},
            cwd="/",
            check=False,
            timeout=timeout,
        )  # (the shell's own kill: no file it cannot read)
        time.sleep(0.01)
    return ended


SLOTS = Path("/run" if os.path.isdir("/run") else tempfile.gettempdir()) / "grader-sandbox-slots"


def claim_slot(only: int | None = None) -> tuple[int, IO[str]]:
    """Claim a free sandbox slot N (or slot ``only``): a lock that dies with the process, held as long as the
    handle stays open.

    While a process holds slot N, no one else runs as slot N's user (``grader-sandbox``, ``grader-sandbox-N``),
    so it may end every process of that user (`end_processes_of`) without ending someone else's work."""
    import fcntl

    SLOTS.mkdir(mode=0o700, exist_ok=True)
    for slot in range(4096) if only is None else [only]:
        handle = (SLOTS / f"{slot}.lock").open("w")
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return slot, handle
        except BlockingIOError:
            handle.close()
    raise GraderError(f"no free sandbox slot in {SLOTS}" if only is None else f"sandbox slot {only} is taken")


def sweep_slot(slot: int) -> int:
    """After a worker that held ``slot`` has ended (closed, killed or crashed): end what still runs as the slot's
    user, if the slot is free, so nothing of the run outlives it; returns how many processes there were.  A slot
    that another run has claimed since is that run's to sweep."""
    try:
        _, handle = claim_slot(slot)
    except GraderError:
        return 0
    try:
        return end_processes_of(*slot_user(slot))
    finally:
        handle.close()


def is_sandbox_user(uid: str) -> bool:
    """Whether ``uid`` (as a probe printed it) is one of the slots' sandbox users."""
    try:
        name = pwd.getpwuid(int(uid)).pw_name
    except (ValueError, KeyError):
        return False
    return name == SANDBOX_USER or name.startswith(f"{SANDBOX_USER}-")


def slot_user(slot: int) -> tuple[int, int]:
    """The uid and gid of slot N's sandbox user, created if needed."""
    return ensure_sandbox_user(SANDBOX_USER if slot == 0 else f"{SANDBOX_USER}-{slot}")


def for_worker(sandbox: Sandbox, folder: Path):
    """The sandbox for one of several processes that grade at once: its own user and kernelspec.

    RLIMIT_NPROC counts the processes and threads of a user, so kernels of concurrent workers sharing one
    user would share one budget: eight kernels' threads can exhaust it, and a fork bomb in one submission
    would stop the kernels of the submissions graded next to it.  Each worker claims a free slot N
    (`claim_slot`) and runs its kernels as slot N's user.  Returns the sandbox, the lock's handle, which the
    worker keeps open, and N.
    """
    from dataclasses import replace

    if not sandbox.isolated or sandbox.config is None:
        return sandbox, None, None
    slot, handle = claim_slot()
    uid, gid = slot_user(slot)
    config = json.loads(sandbox.config.read_text())
    config.update(uid=uid, gid=gid)
    name = f"{KERNEL_NAME}-{slot}"
    config_file = write_kernelspec(folder, config, name)
    return replace(sandbox, kernel_name=name, uid=uid, gid=gid, config=config_file), handle, slot


def _needed_paths() -> list[Path]:
    """What the kernel process must be able to read: the interpreter, the environment, minitf and the lessons'
    data (course_data, installed in editable mode from the repository like minitf)."""
    paths = {
        Path(sys.prefix),
        Path(sys.prefix).resolve(),
        Path(sys.base_prefix).resolve(),
        Path(sys.executable).resolve().parent.parent,
        REPO / "minitf",
        REPO / "course_data",
    }
    return sorted(p for p in paths if p.exists())


def write_kernelspec(state: Path, config: dict, name: str = KERNEL_NAME) -> Path:
    kernel_dir = state / "jupyter" / "kernels" / name
    kernel_dir.mkdir(parents=True, exist_ok=True)
    config_file = state / "sandbox.json"
    config_file.write_text(json.dumps(config, indent=1, sort_keys=True))
    os.chmod(config_file, 0o600)
    spec = {
        "argv": [sys.executable, str(LAUNCHER), str(config_file), "{connection_file}"],
        "display_name": "Grading sandbox",
        "language": "python",
        "interrupt_mode": "signal",
        "env": {},
    }
    (kernel_dir / "kernel.json").write_text(json.dumps(spec, indent=1))
    jupyter_path = os.environ.get("JUPYTER_PATH", "")
    own = str(state / "jupyter")
    if own not in jupyter_path.split(os.pathsep):
        os.environ["JUPYTER_PATH"] = os.pathsep.join(p for p in (own, jupyter_path) if p)
    return config_file


ISOLATION_PROBE = "import os, socket; print(os.getuid(), [n for _, n in socket.if_nameindex()])"
IMPORT_PROBE = """import importlib, json
failed = []
for name in {modules!r}:
    try:
        importlib.import_module(name)
    except BaseException as error:
        failed.append(f"{{name}} ({{type(error).__name__}}: {{error}})")
print(json.dumps(failed))
"""


def self_test(config_file: Path, workdir: Path, command: str = ISOLATION_PROBE, *, own_slot: bool = False) -> str:
    """Start the launcher with a tiny command instead of ipykernel; return what the sandboxed process saw.

    The probe runs as the user of a slot it claims for the moment (`claim_slot`): a worker of another grading
    run that holds slot 0 ends every process of slot 0's user after each submission, a probe among them.
    ``own_slot``: the caller holds the slot that ``config_file`` names (a worker's own kernelspec)."""
    config = json.loads(config_file.read_text())
    config["command"] = command
    handle = None
    if config.get("isolate") and not own_slot:
        slot, handle = claim_slot()
        config["uid"], config["gid"] = slot_user(slot)
    try:
        probe = config_file.with_name(f"sandbox-selftest-{os.getpid()}.json")
        probe.write_text(json.dumps(config))
        connection = workdir / "connection.json"
        connection.write_text(json.dumps({"ip": "", "transport": "ipc"}))
        os.chown(workdir, config["uid"], config["gid"])
        try:
            result = subprocess.run(
                [sys.executable, str(LAUNCHER), str(probe), str(connection)],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=300,
            )
        finally:
            probe.unlink(missing_ok=True)
    finally:
        if handle is not None:
            handle.close()
    if result.returncode != 0:
        how = f"killed by signal {-result.returncode}" if result.returncode < 0 else f"exit code {result.returncode}"
        raise GraderError(
            f"the grading sandbox does not start on this machine ({how}):\n{result.stderr.strip() or '(no output)'}"
        )
    return result.stdout.strip()


def remove_stale_folders(parent: Path, kind: str = "ipc") -> None:
    """Folders ``grader-<kind>-<pid>-...`` (sockets, kernel templates) of grader processes that were killed."""
    for folder in parent.glob(f"grader-{kind}-*-*"):
        pid = folder.name.split("-")[2]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(folder, ignore_errors=True)


def check_imports(term: Term, modules: list[str]) -> None:
    """Import what the course notebooks import, in a kernel's environment; stop with a clear error if that fails.

    A kernel sees only the Python installation, minitf and course_data: a package installed in editable mode from a
    folder the sandbox hides imports fine for the grader but not for the kernels, and every answer would
    fail as if the students had got it wrong.
    """
    if not modules:
        return
    probe_dir = Path(tempfile.mkdtemp(prefix="grader-probe-"))
    try:
        seen = self_test(term.state / "sandbox.json", probe_dir, IMPORT_PROBE.format(modules=sorted(set(modules))))
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
    try:
        failed = json.loads(seen.splitlines()[-1])
    except (ValueError, IndexError):
        failed = [f"the probe printed {seen[-300:]!r}"]
    if failed:
        raise GraderError(
            "the grading kernel cannot import what the course notebooks import, so every answer would fail:\n  "
            + "\n  ".join(failed)
            + "\nKernels see only the Python installation the grader runs from, minitf/ and course_data/ (nothing "
            "else of the repository, no PYTHONPATH). Install the packages there (a package installed in editable "
            "mode from another folder is hidden from the kernels), then run autograde again. Nothing was graded."
        )


def prepare(term: Term, limits: Limits, modules: list[str] | None = None) -> Sandbox:
    """Create the user and kernelspec for this term; verify isolation and the notebooks' imports first."""
    term.state.mkdir(parents=True, exist_ok=True)
    base = {
        "memory_mb": limits.memory_mb,
        "cpu_seconds": limits.cpu_seconds,
        "processes": limits.processes,
        "file_mb": limits.file_mb,
        "tmp_mb": limits.tmp_mb,
        "scratch_mb": limits.scratch_mb,
        "env": KERNEL_ENV,
        "scratch": str(term.state / "kernel-scratch"),
    }
    if os.geteuid() != 0:
        config = {
            **base,
            "isolate": False,
            "ipc": False,
            "uid": os.getuid(),
            "gid": os.getgid(),
            "needed": [],
            "processes": 0,
        }
        write_kernelspec(term.state, config)
        check_imports(term, modules or [])
        return Sandbox(
            KERNEL_NAME,
            False,
            None,
            None,
            None,
            "WARNING: not running as root, so student code runs as YOUR user, with network access "
            "and your files in reach; only the time and memory limits apply. Grade as root "
            "(e.g. in a container) for the separate user, private filesystem view and no network.",
            term.state / "sandbox.json",
        )
    uid, gid = ensure_sandbox_user()
    ipc_parent = Path("/run" if os.path.isdir("/run") else tempfile.gettempdir())
    remove_stale_folders(ipc_parent)
    ipc_dir = Path(tempfile.mkdtemp(prefix=f"grader-ipc-{os.getpid()}-", dir=ipc_parent))
    os.chown(ipc_dir, uid, gid)
    os.chmod(ipc_dir, 0o700)
    config = {**base, "isolate": True, "ipc": True, "uid": uid, "gid": gid, "needed": [str(p) for p in _needed_paths()]}
    write_kernelspec(term.state, config)
    probe_dir = Path(tempfile.mkdtemp(prefix="grader-probe-"))
    try:
        seen = self_test(term.state / "sandbox.json", probe_dir)
    finally:
        shutil.rmtree(probe_dir, ignore_errors=True)
    seen_uid, _, interfaces = seen.partition(" ")
    if interfaces != "['lo']" or not is_sandbox_user(seen_uid):
        raise GraderError(f"the grading sandbox is not isolated as expected (saw {seen!r})")
    check_imports(term, modules or [])
    return Sandbox(
        KERNEL_NAME,
        True,
        uid,
        gid,
        ipc_dir,
        f"sandbox: kernels run as user {SANDBOX_USER!r} (uid {uid}; concurrent workers as "
        f"{SANDBOX_USER}-N) without network, with a private filesystem view, {limits.memory_mb} MB "
        f"memory, {limits.cell_timeout} s per cell",
        term.state / "sandbox.json",
    )


def release_folder(path: Path, sandbox: Sandbox, *, to_student: bool) -> None:
    """Hand a student's grading folder to the sandbox user before execution, and take it back after.

    Taking it back also removes symlinks and special files the submission created, so nothing later
    (nbgrader's chmod, feedback) follows them outside the folder.
    """
    if not sandbox.isolated or sandbox.uid is None or sandbox.gid is None or not path.is_dir():
        return
    uid, gid = (sandbox.uid, sandbox.gid) if to_student else (0, 0)
    for folder, dirs, files in os.walk(path):
        for name in dirs + files:
            entry = Path(folder) / name
            if not to_student and (entry.is_symlink() or not (entry.is_file() or entry.is_dir())):
                entry.unlink()
                continue
            os.lchown(entry, uid, gid)
    os.lchown(path, uid, gid)
    os.chmod(path, 0o700 if to_student else 0o755)
