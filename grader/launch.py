"""Start one grading kernel inside the sandbox; jupyter_client runs this as root through the kernelspec.

Standalone on purpose (standard library only): it runs before any sandboxing, so it must not import
the course's code.  Steps, all with the machine's own mechanisms:

1. new mount, network and PID namespaces (no network at all; the kernel talks over unix sockets);
2. private empty tmpfs over /tmp, /dev/shm, /run, /home, /root, the repository, the term, the sources,
   with only what the kernel needs bound back (the Python installation, minitf, course_data,
   the student's folder);
3. resource limits (address space, CPU seconds, processes, file size, no core dumps);
4. drop to the unprivileged sandbox user with no_new_privs, a clean environment, and exec ipykernel.

A supervisor stays outside the PID namespace so jupyter_client sees one process; when it dies, the
kernel gets SIGKILL, and when the kernel (PID 1 of its namespace) dies, every process it left is killed.
"""

import ctypes
import json
import os
import resource
import signal
import sys

CLONE_NEWNS, CLONE_NEWNET, CLONE_NEWPID = 0x00020000, 0x40000000, 0x20000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 0x1000, 0x4000, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS = 1, 38
STAGE = "/proc"  # covered by a fresh procfs for the new PID namespace at the end
KEPT_ENVIRONMENT = ("PATH", "LANG", "LC_ALL", "NBGRADER_EXECUTION", "PYTHONHASHSEED")

_libc = ctypes.CDLL(None, use_errno=True)
_stage_counter = 0


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def _mount(source, target: str, fstype, flags: int, data=None) -> None:
    encode = lambda text: text.encode() if text is not None else None  # noqa: E731
    _check(_libc.mount(encode(source), encode(target), encode(fstype), flags, encode(data)), f"mount {target}")


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _topmost(paths: list) -> list:
    result = []
    for path in sorted(set(paths), key=len):
        if not any(_under(path, kept) for kept in result):
            result.append(path)
    return result


def _overlay(root: str, needed: list) -> None:
    """Cover ``root`` with an empty read-only-for-others tmpfs, binding the needed paths back in place."""
    global _stage_counter
    keep = _topmost([p for p in needed if _under(p, root) and os.path.exists(p)])
    if root in keep or not os.path.isdir(root):
        return
    staged = []
    for path in keep:
        _stage_counter += 1
        spot = os.path.join(STAGE, str(_stage_counter))
        if os.path.isdir(path):
            os.makedirs(spot, exist_ok=True)
        else:
            open(spot, "a").close()
        _mount(path, spot, None, MS_BIND | MS_REC)
        staged.append((path, spot))
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755,size=1m")
    for path, spot in staged:
        if os.path.isdir(spot):
            os.makedirs(path, exist_ok=True)
        else:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            open(path, "a").close()
        _mount(spot, path, None, MS_BIND | MS_REC)
        _libc.umount2(spot.encode(), MNT_DETACH)


def _isolate_filesystem(config: dict, needed: list) -> None:
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", STAGE, "tmpfs", MS_NOSUID | MS_NODEV, "mode=700,size=1m")
    roots = list(config["hide"]) + [p for p in config["untraversable"] if p]
    for root in sorted(set(roots), key=lambda p: p.count("/")):
        _overlay(root, needed)
    for scratch in ("/tmp", "/var/tmp", "/dev/shm"):
        if os.path.isdir(scratch):
            keep = [p for p in needed if _under(p, scratch)]
            if keep:
                _overlay(scratch, needed)  # the grader's own files stay hidden; kept paths come back
            else:
                _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"mode=1777,size={config['tmp_mb']}m")
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)


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
    env.update(HOME=home, IPYTHONDIR=f"{home}/.ipython", MPLCONFIGDIR=f"{home}/.matplotlib",
               JUPYTER_RUNTIME_DIR=f"{home}/.runtime", XDG_CACHE_HOME=f"{home}/.cache", TMPDIR=home)
    return env


def _exec_kernel(config: dict, connection_file: str, connection_text: str, extra: list, isolate: bool) -> None:
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
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
        os.chdir(cwd)  # through the new mounts: the bind-mounted student folder
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    argv = [sys.executable, "-m", "ipykernel_launcher", "-f", connection_file, *extra]
    if config.get("command"):
        argv = [sys.executable, "-c", config["command"]]
    if not config.get("command"):
        quiet = os.open(os.devnull, os.O_WRONLY)  # ipykernel's banner and echoed output are not the grader's
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
    os.execve(sys.executable, argv, env)


def _supervise(child: int) -> None:
    signal.signal(signal.SIGINT, lambda *_: None)  # jupyter_client signals the whole group; the kernel gets it
    signal.signal(signal.SIGTERM, lambda *_: os.kill(child, signal.SIGKILL))
    _, status = os.waitpid(child, 0)
    code = os.waitstatus_to_exitcode(status)
    os._exit(code if code >= 0 else 128 - code)


def main(argv: list) -> None:
    config_path, connection_file, *extra = argv
    with open(config_path) as handle:
        config = json.load(handle)
    with open(connection_file) as handle:
        connection_text = handle.read()
    if not config["isolate"]:
        _exec_kernel(config, connection_file, connection_text, extra, isolate=False)
    ipc_dir = os.path.dirname(json.loads(connection_text).get("ip", "")) if config["ipc"] else ""
    needed = [p for p in (*config["needed"], os.getcwd(), ipc_dir) if p]
    # if the grader is killed, this supervisor goes too, and with it the kernel (its own PDEATHSIG)
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "pdeathsig")
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWPID), "unshare")
    child = os.fork()
    if child:
        _supervise(child)
    try:
        _isolate_filesystem(config, needed)
        _exec_kernel(config, connection_file, connection_text, extra, isolate=True)
    except BaseException as error:  # never fall through to running unsandboxed
        print(f"grader sandbox: cannot start the kernel: {error}", file=sys.stderr, flush=True)
        os._exit(70)


if __name__ == "__main__":
    main(sys.argv[1:])
