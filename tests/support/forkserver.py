"""A warm `calibrant` for tests that run the command many times as a shell would.

Every `calibrant` command pays Python's start-up and its imports again; a judging command pays
~4 s of CPU to import litellm alone. Tests that run dozens of commands through a shell (the docs'
shell blocks) put `shim_dir()` first on PATH: its `calibrant` is a tiny stdlib-only client that
hands its arguments, working directory, environment and its stdin/stdout/stderr file descriptors
to this server, which has imported calibrant and litellm once and forks a child per command. The
child is a real process: it runs `calibrant.cli.main()` on the caller's descriptors, in the
caller's folder and environment, and its exit status (code, or the signal that ended it) is the
client's. SIGTERM, SIGINT and SIGHUP sent to the client are passed on to the child, so
`calibrant serve &` ... `kill %1` behaves as with the installed command.

What differs from the installed command, on purpose: modules are imported once, before the
caller's environment is set, so a test of what a command imports, of start-up time or of memory
must start `python -m calibrant` itself (they do).

The server is single-threaded (forking a process with threads is unsafe): one loop accepts
clients and reaps children, reporting each child's wait status to its client.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import signal
import socket
import stat
import struct
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV_VAR = "CALIBRANT_TEST_FORKSERVER"

CLIENT = """\
import json, os, signal, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(os.environ[%(var)r])
body = json.dumps({"argv": sys.argv[1:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode()
socket.send_fds(s, [struct.pack("!I", len(body))], [0, 1, 2])
s.sendall(body)
f = s.makefile("rb")
pid = struct.unpack("!i", f.read(4))[0]
for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, lambda n, _f: os.kill(pid, n))
got = f.read(4)
status = struct.unpack("!i", got)[0] if len(got) == 4 else 255 << 8
if os.WIFSIGNALED(status):
    sig = os.WTERMSIG(status)
    signal.signal(sig, signal.SIG_DFL)
    os.kill(os.getpid(), sig)
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            raise ConnectionError("client went away")
        data += chunk
    return data


def _child(conn: socket.socket, fds: list[int], request: dict[str, object]) -> None:
    """In the forked child: become the caller's `calibrant` and exit with its code."""
    code = 1
    try:
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        os.chdir(str(request["cwd"]))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update({str(k): str(v) for k, v in env.items()})
        argv = request["argv"]
        assert isinstance(argv, list)
        sys.argv = ["calibrant", *map(str, argv)]
        from calibrant.cli import main

        try:
            main()
            code = 0
        except SystemExit as e:
            if e.code is None:
                code = 0
            elif isinstance(e.code, int):
                code = e.code
            else:
                print(e.code, file=sys.stderr)
                code = 1
        except KeyboardInterrupt:
            code = 130
        except BaseException:
            traceback.print_exc()
            code = 1
        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001 - a closed pipe must not change the code
                pass
        os._exit(code & 0xFF)


def serve(path: str) -> None:
    """Import what `calibrant` commands import, then fork one child per client."""
    import calibrant.cli  # noqa: F401 - the commands, their options, rich, typer
    import calibrant.service.app  # noqa: F401 - fastapi, uvicorn, sqlmodel

    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"  # as calibrant sets it before the import
    import threading

    import litellm  # noqa: F401 - ~4 s of CPU; calibrant configures it in the child, as it would

    assert threading.active_count() == 1, "the fork server must not run threads before it forks"
    from calibrant.domains import registry

    # packs are discovered in each child, when its command runs (a pack installed after the
    # server started is seen, as by a new process): nothing imported above may have looked
    assert registry._entry_points.cache_info().currsize == 0, (
        "importing calibrant discovered the domain packs: the fork server's children would not "
        "see a pack installed after it started"
    )
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    sel = selectors.DefaultSelector()
    sel.register(listener, selectors.EVENT_READ)
    children: dict[int, socket.socket] = {}
    print("ready", flush=True)
    while True:
        for _key, _ in sel.select(timeout=0.02):
            conn, _ = listener.accept()
            try:
                head, fds, _flags, _addr = socket.recv_fds(conn, 4, 3)
                head += _recv_exact(conn, 4 - len(head))
                body = _recv_exact(conn, struct.unpack("!I", head)[0])
                request = json.loads(body)
            except (ConnectionError, ValueError, OSError):
                conn.close()
                continue
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                listener.close()
                for other in children.values():
                    other.close()
                _child(conn, fds, request)
            for fd in fds:
                os.close(fd)
            children[pid] = conn
            try:
                conn.sendall(struct.pack("!i", pid))
            except OSError:
                pass
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            conn = children.pop(pid, None)
            if conn is not None:
                try:
                    conn.sendall(struct.pack("!i", status))
                except OSError:
                    pass
                conn.close()


class ForkServer:
    """The server as a child of the test process; `env()` and `bin` lead the shim to it."""

    def __init__(self, env: dict[str, str] | None = None, python: str | None = None) -> None:
        """`env` adds to the server's environment (its PYTHONPATH after calibrant's sources);
        `python` (default: the one running the tests) runs the server, e.g. a page's own
        virtualenv (tests/support/page_venv.py)."""
        self.dir = Path(tempfile.mkdtemp(prefix="calibrant-fork-"))
        self.socket = str(self.dir / "s")
        bin_dir = self.dir / "bin"
        bin_dir.mkdir()
        shim = bin_dir / "calibrant"
        shim.write_text(f"#!{sys.executable} -SE\n" + CLIENT % {"var": ENV_VAR})
        shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        self.bin = str(bin_dir)
        base = {**os.environ, **(env or {})}
        extra = (env or {}).get("PYTHONPATH")  # e.g. a pack installed with pip --target
        base["PYTHONPATH"] = os.pathsep.join(
            [str(ROOT), str(ROOT / "src"), str(ROOT / "domains" / "refunds" / "src")]
            + ([extra] if extra else [])
        )
        path = self.socket
        self.process = subprocess.Popen(
            [
                python or sys.executable,
                "-c",
                f"from tests.support.forkserver import serve; serve({path!r})",
            ],
            cwd=ROOT,
            env=base,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            start_new_session=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if line.strip() != b"ready":
            self.close()
            raise RuntimeError(f"the fork server did not start: {line!r}")

    def env(self) -> dict[str, str]:
        """The variable naming the server's socket to the client (put `self.bin` first on
        PATH too)."""
        return {ENV_VAR: self.socket}

    def close(self) -> None:
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        deadline = time.monotonic() + 1
        while time.monotonic() < deadline and os.path.exists(self.socket):
            try:
                os.unlink(self.socket)
            except FileNotFoundError:
                break
