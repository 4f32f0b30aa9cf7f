"""Start one grading kernel inside the sandbox; jupyter_client runs this as root through the kernelspec.

Standalone on purpose (standard library only): it runs before any sandboxing, so it must not import
the course's code.  Steps, all with the machine's own mechanisms:

1. new mount, network, PID and IPC namespaces (no network at all; the kernel talks over unix sockets; System V
   and POSIX IPC objects die with the kernel);
2. a new root (pivot_root) that holds only an allow-list: the Python installation, the system's shared
   libraries, minitf and course_data, read-only; the socket folder; size-limited tmpfs for /tmp, /dev/shm
   and the working folder (a copy of the student's folder without its notebooks, so nothing written there
   outlives the kernel);
3. resource limits (address space, CPU seconds, processes, file size, no core dumps);
4. drop to the unprivileged sandbox user with no_new_privs, a clean environment, and exec ipykernel.

A supervisor stays outside the PID namespace so jupyter_client sees one process; when it dies, the
kernel gets SIGKILL, and when the kernel (PID 1 of its namespace) dies, every process it left is killed.
No kernel outlives its supervisor, even one ended at the moment it forks (`split_into_sandbox`).
"""

import ctypes
import json
import os
import resource
import select
import signal
import sys

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID, CLONE_NEWIPC = 0x00020000, 0x40000000, 0x20000000, 0x08000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # system call numbers (glibc has no wrapper)
NEW_ROOT = "/proc"  # built on a tmpfs over the old procfs; the kernel gets a fresh procfs for its PID namespace
#: what every kernel sees of the system besides the Python installation: shared libraries and a few files
SYSTEM_PATHS = (
    "/usr/lib",
    "/usr/lib64",
    "/usr/lib32",
    "/lib",
    "/lib64",
    "/lib32",
    "/bin",
    "/usr/bin",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
    "/etc/fonts",
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/sys/devices/system/cpu",
)
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "NBGRADER_EXECUTION", "PYTHONHASHSEED")

_libc = ctypes.CDLL(None, use_errno=True)
_supervisor_watch: list[int] = []  # in a new kernel: the read end of a pipe only its supervisor writes to
_kept_open: list[int] = []  # in a supervisor: the pipes' write ends, open for as long as it lives


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source, target: str, fstype, flags: int, data=None) -> None:
    encode = lambda text: text.encode() if text is not None else None  # noqa: E731
    _check(_libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)), f"mount {target}")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _place(source: str, target: str) -> None:
    """An empty file or folder at ``target`` to mount ``source`` on (or the same symbolic link)."""
    if os.path.islink(source):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.lexists(target):
            os.symlink(os.readlink(source), target)
    elif os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()


def _bind(source: str, read_only: bool = True) -> None:
    """Show one host path in the new root, at the same place; read-only unless it is the kernel's socket folder."""
    target = NEW_ROOT + source
    _place(source, target)
    if os.path.islink(source):
        return
    _mount(source, target, None, MS_BIND | MS_REC)
    if read_only and not source.startswith("/dev/"):  # (nodev would make /dev/null unusable)
        _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _copy_tree(source: str, target: str, uid: int, gid: int) -> None:
    """The submission's files, copied into the kernel's scratch folder (regular files and folders only).

    Not notebooks: those in a grading folder are nbgrader's copies with the test cells restored from the
    gradebook, hidden tests included, and the kernel of the student being graded must not read them."""
    for name in os.listdir(source):
        origin, copy = os.path.join(source, name), os.path.join(target, name)
        if os.path.islink(origin) or name.endswith(".ipynb"):
            continue
        if os.path.isdir(origin):
            os.mkdir(copy, 0o700)
            _copy_tree(origin, copy, uid, gid)
        elif os.path.isfile(origin):
            with open(origin, "rb") as reader, open(copy, "wb") as writer:
                while chunk := reader.read(1 << 20):
                    writer.write(chunk)
        else:
            continue
        os.chown(copy, uid, gid)


def _folder_bytes(folder: str) -> int:
    total = 0
    for parent, _, files in os.walk(folder):
        total += sum(os.lstat(os.path.join(parent, name)).st_size for name in files)
    return total


def _isolate_filesystem(config: dict, ipc_dir: str) -> None:
    """A new root that holds only what the allow-list names, then pivot_root into it.

    Shown read-only: the Python installation, the system's shared libraries, minitf and course_data, a few
    files of /etc and /dev.  Writable: the kernel's socket folder, a size-limited private /tmp and /dev/shm,
    and its working folder, which is a size-limited tmpfs holding a copy of the submission's files: what
    the kernel writes there is gone when it ends, so nothing is left behind in the grading folder.
    """
    cwd = os.getcwd()
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", NEW_ROOT, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=4m")
    for folder in ("/tmp", "/dev/shm"):
        os.makedirs(NEW_ROOT + folder, exist_ok=True)
        _mount("tmpfs", NEW_ROOT + folder, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={config['tmp_mb']}m")
    for path in sorted({*SYSTEM_PATHS, *config["needed"]}, key=lambda p: p.count("/")):
        if os.path.lexists(path):
            _bind(path)
    if ipc_dir:
        _bind(ipc_dir, read_only=False)
    scratch = NEW_ROOT + cwd
    os.makedirs(scratch, exist_ok=True)
    size_mb = config["scratch_mb"] + _folder_bytes(cwd) // (1024 * 1024) + 1
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=700,size={size_mb}m")
    _copy_tree(cwd, scratch, config["uid"], config["gid"])
    os.chown(scratch, config["uid"], config["gid"])
    os.makedirs(NEW_ROOT + "/proc", exist_ok=True)
    old = NEW_ROOT + "/.old-root"
    os.makedirs(old, exist_ok=True)
    _check(_libc.syscall(PIVOT_ROOT[os.uname().machine], NEW_ROOT.encode(), old.encode()), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old-root", MNT_DETACH), "umount the old root")
    os.rmdir("/.old-root")
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    _mount(None, "/", None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(cwd)


def _limit(config: dict) -> None:
    megabyte = 1024 * 1024
    limits = {
        resource.RLIMIT_AS: config["memory_mb"] * megabyte,
        resource.RLIMIT_CPU: config["cpu_seconds"],
        resource.RLIMIT_NPROC: config["processes"],
        resource.RLIMIT_FSIZE: config["file_mb"] * megabyte,
        resource.RLIMIT_CORE: 0,
    }
    for which, value in limits.items():
        if value:
            resource.setrlimit(which, (value, value))


def _environment(config: dict, home: str, isolate: bool) -> dict:
    kept = KEPT_ENVIRONMENT if isolate else (*KEPT_ENVIRONMENT, "JPY_PARENT_PID")  # PID 1 has no usable parent pid
    env = {key: os.environ[key] for key in kept if key in os.environ}
    env.update(config["env"])
    env.update(
        HOME=home,
        IPYTHONDIR=f"{home}/.ipython",
        MPLCONFIGDIR=f"{home}/.matplotlib",
        JUPYTER_RUNTIME_DIR=f"{home}/.runtime",
        XDG_CACHE_HOME=f"{home}/.cache",
        TMPDIR=home,
    )
    return env


def enter_sandbox(config: dict, connection_file: str, connection_text: str, isolate: bool) -> tuple[str, dict]:
    """Everything before the kernel's code runs: its home, limits and unprivileged user; returns the connection
    file to use and the kernel's whole environment."""
    cwd = os.getcwd()
    home = "/tmp/.grader-home" if isolate else os.path.join(config["scratch"], "home")
    os.makedirs(home, exist_ok=True)
    if isolate:
        private = os.path.join(home, "connection.json")
        with open(private, "w") as target:
            target.write(connection_text)  # the original may sit in a folder that is now hidden
        for path in (home, private):
            os.chown(path, config["uid"], config["gid"])
        os.chmod(private, 0o600)
        connection_file = private
    _limit(config)
    env = _environment(config, home, isolate)
    if isolate:
        os.setgroups([])
        os.setgid(config["gid"])
        os.setuid(config["uid"])
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")  # (setuid cleared it)
        exit_if_supervisor_gone()
        os.chdir(cwd)  # through the new mounts: the bind-mounted student folder
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    return connection_file, env


def silence_output() -> None:
    """ipykernel's banner and echoed output are not the grader's."""
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)
    os.dup2(quiet, 2)
    os.close(quiet)


def _exec_kernel(config: dict, connection_file: str, connection_text: str, extra: list, isolate: bool) -> None:
    connection_file, env = enter_sandbox(config, connection_file, connection_text, isolate)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", connection_file, *extra]
    if config.get("command"):
        argv = [sys.executable, "-c", config["command"]]
    else:
        silence_output()
    os.execve(sys.executable, argv, env)


def _supervise(child: int) -> None:
    signal.signal(signal.SIGINT, lambda *_: None)  # jupyter_client signals the whole group; the kernel gets it
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    hold_sigterm(False)  # one that came while the kernel was forked arrives now, and ends it
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def hold_sigterm(held: bool) -> None:
    """Hold SIGTERM back (it stays pending) or let it through."""
    signal.pthread_sigmask(signal.SIG_BLOCK if held else signal.SIG_UNBLOCK, {signal.SIGTERM})


def exit_if_supervisor_gone() -> None:
    """In a kernel, after PR_SET_PDEATHSIG: that signal comes only for a death after the call, so a supervisor
    that died before it is seen here, by the end of its pipe that closed with it."""
    if _supervisor_watch and select.select(_supervisor_watch, [], [], 0)[0]:
        os._exit(70)


def split_into_sandbox(config: dict, connection_text: str) -> int:
    """New namespaces, then fork: the kernel's pid in the supervisor; 0 in the kernel, which is PID 1 of its
    namespace and already stands in its new root.

    No kernel may outlive its supervisor, not even one forked while the grader ends it (a spare kernel started
    as the last notebook finished): a kernel left alone would run on as the sandbox user. So SIGTERM is held
    back from before the fork and the supervisor gets it only once it knows the kernel's pid (it returns held:
    the caller installs its handler, which kills the kernel, then calls ``hold_sigterm(False)``); the kernel asks
    for SIGKILL when the supervisor dies before it does anything else, and checks that the supervisor has not
    died already (a SIGKILL, say, before that request)."""
    ipc_dir = os.path.dirname(json.loads(connection_text).get("ip", "")) if config["ipc"] else ""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID | CLONE_NEWIPC), "unshare")
    watch, kept = os.pipe()
    hold_sigterm(True)
    child = os.fork()
    if child:
        os.close(watch)
        _kept_open.append(kept)
        return child
    os.close(kept)
    _supervisor_watch.append(watch)
    hold_sigterm(False)
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    exit_if_supervisor_gone()
    try:
        _isolate_filesystem(config, ipc_dir)
    except BaseException as error:  # never fall through to running unsandboxed
        print(f"grader sandbox: cannot start the kernel: {error}", file=sys.stderr, flush=True)
        os._exit(70)
    return 0


def _through_template(path: str, connection_file: str, connection_text: str, extra: list) -> None:
    """Have the worker's kernel template (kernel_template.py) fork the kernel; this process stands for it.

    Returns only if the template cannot be reached; the caller then starts a fresh kernel the slow way.
    jupyter_client's signals to this process go to the kernel: SIGINT interrupts it, SIGTERM ends it, and
    when this process dies (SIGKILL), the template's supervisor sees the connection close and ends the kernel.
    """
    import socket

    link = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        link.connect(path)
        request = {
            "connection_file": connection_file,
            "connection": connection_text,
            "cwd": os.getcwd(),
            "extra": extra,
        }
        link.sendall(json.dumps(request).encode() + b"\n")
        if link.recv(1) != b"+":  # the template went away before forking
            return
    except OSError:
        return
    signal.signal(signal.SIGINT, lambda *_: link.send(b"i"))
    signal.signal(signal.SIGTERM, lambda *_: link.send(b"k"))
    answer = b""
    try:
        while chunk := link.recv(64):
            answer += chunk
    except OSError:  # the template and its kernels were ended (the worker is done)
        answer = b"137"
    os._exit(int(answer) if answer.strip().lstrip(b"-").isdigit() else 70)


def main(argv: list) -> None:
    config_path, connection_file, *extra = argv
    with open(config_path) as handle:
        config = json.load(handle)
    with open(connection_file) as handle:
        connection_text = handle.read()
    # if the grader is killed, this supervisor goes too, and with it the kernel (its own PDEATHSIG)
    # a matplotlibrc in the working folder is read when matplotlib is imported: the template imported it already
    if config.get("template") and not config.get("command") and not os.path.exists("matplotlibrc"):
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
        _through_template(config["template"], connection_file, connection_text, extra)
    if not config["isolate"]:
        _exec_kernel(config, connection_file, connection_text, extra, isolate=False)
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    child = split_into_sandbox(config, connection_text)
    if child:
        _supervise(child)
    try:
        _exec_kernel(config, connection_file, connection_text, extra, isolate=True)
    except BaseException as error:  # never fall through to running unsandboxed
        print(f"grader sandbox: cannot start the kernel: {error}", file=sys.stderr, flush=True)
        os._exit(70)


if __name__ == "__main__":
    main(sys.argv[1:])
