"""Run the real `calibrant` command line for a test, in this process or in a child process.

In this process (the default), `calibrant.cli.main()` runs with the arguments, environment,
working directory and output streams the child would have, and everything process-wide that a
run can change is put back afterwards: environment, working directory, argv, standard streams,
signal handlers and the wakeup fd, `tempfile`'s cached folder, logging configuration, warning
filters and the hooks that print unraisable and thread exceptions. What the command prints
reaches `Result.out`/`Result.err` exactly as the child's pipes would give it (text mode: `\\r`
and `\\r\\n` read as `\\n`), including log records and warnings, which a child prints on stderr.

A child process (`process=True`) is for what only a process shows: being killed, signals,
exit codes and memory observed from outside, import-time behaviour, worker processes.

Running in process saves the 3-4 s of CPU each child spends importing litellm, pydantic and
sqlalchemy, and lets a session reuse the embedded model once loaded (about half of the suite's
time when every command was a child process).
"""

from __future__ import annotations

import io
import logging
import os
import signal
import subprocess
import sys
import tempfile
import threading
import warnings
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

__all__ = ["Result", "run_in_process", "run_in_child", "cli_environment"]

COLUMNS = "200"  # rich and click read the width from it: wide enough that no line wraps

# signals a command may handle (asyncio's add_signal_handler, safety's SIGTERM drain)
_SIGNALS = tuple(
    getattr(signal, name)
    for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGPIPE")
    if hasattr(signal, name)
)


@dataclass
class Result:
    code: int
    out: str
    err: str


def cli_environment(defaults: Mapping[str, str], env: Mapping[str, str] | None) -> dict[str, str]:
    """The environment a command runs with: `defaults` unless the test process sets them, the
    test process's environment, a terminal width, then the test's own variables."""
    return {**defaults, **os.environ, "COLUMNS": COLUMNS, **(env or {})}


def run_in_child(
    args: tuple[str, ...], *, cwd: Path, env: dict[str, str], timeout: float = 600
) -> Result:
    """`python -m calibrant ARGS` in its own process."""
    proc = subprocess.run(
        [sys.executable, "-m", "calibrant", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    return Result(proc.returncode, proc.stdout, proc.stderr)


class _Sink(io.BytesIO):
    """Bytes written by a command; stays readable when a wrapper around it is closed."""

    def close(self) -> None:  # click and others may wrap and close the binary buffer
        pass


class _Stream:
    """sys.stdout / sys.stderr while commands run in this process.

    One object per stream for the whole test session, writing to the current command's
    buffer: a logging handler or a console created during one command (holding the stream
    it saw) writes into the next command's output, as it would in that command's own process.
    Between commands it writes to the process's real stream."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.target: TextIO | None = None

    def _current(self) -> TextIO:
        if self.target is not None:
            return self.target
        real = getattr(sys, f"__{self._name}__")
        assert real is not None
        return real  # type: ignore[no-any-return]

    def write(self, text: str) -> int:
        return self._current().write(text)

    def writelines(self, lines: Any) -> None:
        self._current().writelines(lines)

    def flush(self) -> None:
        self._current().flush()

    def isatty(self) -> bool:
        return False  # a pipe, as for a child process

    def __getattr__(self, name: str) -> Any:  # encoding, errors, buffer, fileno...
        return getattr(self._current(), name)


_STDOUT = _Stream("stdout")
_STDERR = _Stream("stderr")


def _text_buffer(errors: str) -> tuple[io.TextIOWrapper, _Sink]:
    sink = _Sink()
    return io.TextIOWrapper(sink, encoding="utf-8", errors=errors, write_through=True), sink


def _as_text(sink: _Sink) -> str:
    """What `subprocess.run(..., text=True)` reads from a pipe: universal newlines."""
    text = sink.getvalue().decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


@contextmanager
def _logging_as_in_a_new_process() -> Iterator[None]:
    """No handler on the root logger (records at WARNING and above reach stderr through
    logging's last-resort handler, as in a child); every logger's settings restored after."""
    manager = logging.Logger.manager
    saved = {
        name: (lg.level, list(lg.handlers), lg.propagate, lg.disabled)
        for name, lg in manager.loggerDict.items()
        if isinstance(lg, logging.Logger)
    }
    root = logging.getLogger()
    root_saved = (root.level, list(root.handlers))
    disable = manager.disable
    root.handlers = []
    root.setLevel(logging.WARNING)
    try:
        yield
    finally:
        for handler in root.handlers:  # e.g. logging.basicConfig() by a worker command
            if handler not in root_saved[1]:
                handler.close()
        root.setLevel(root_saved[0])
        root.handlers = root_saved[1]
        manager.disable = disable
        for name, (level, handlers, propagate, disabled) in saved.items():
            lg = logging.getLogger(name)
            lg.setLevel(level)
            lg.handlers = handlers
            lg.propagate = propagate
            lg.disabled = disabled


@contextmanager
def _warnings_as_in_a_new_process() -> Iterator[None]:
    """Python's default warning filters, warnings printed on stderr (pytest's own filters and
    recorder restored after)."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.filterwarnings("default", category=DeprecationWarning, module="__main__")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.filterwarnings("ignore", category=category, append=True)
        warnings.filterwarnings("ignore", category=ResourceWarning, append=True)
        warnings.showwarning = warnings._showwarning_orig  # type: ignore[attr-defined]
        yield


def _forget_settings() -> None:
    """Drop what calibrant cached from the environment, so the next command reads it again."""
    settings = sys.modules.get("calibrant.settings")
    cached = getattr(settings, "get_settings", None)
    if cached is not None and hasattr(cached, "cache_clear"):
        cached.cache_clear()


@contextmanager
def _process_state(args: tuple[str, ...], cwd: Path, env: dict[str, str]) -> Iterator[None]:
    """Set argv, environment, working directory, temp folder and hooks for one command;
    restore all of it (and the signal handlers the command installed) afterwards."""
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_argv = sys.argv
    saved_streams = (sys.stdin, sys.stdout, sys.stderr)
    saved_signals = {sig: signal.getsignal(sig) for sig in _SIGNALS}
    saved_tempdir = tempfile.tempdir
    saved_hooks = (sys.unraisablehook, threading.excepthook)
    main_thread = threading.current_thread() is threading.main_thread()
    wakeup = signal.set_wakeup_fd(-1) if main_thread else -1
    os.environ.clear()
    os.environ.update(env)
    tempfile.tempdir = None  # read $TMPDIR again, as a new process does
    sys.argv = ["calibrant", *args]
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""), encoding="utf-8")  # an empty pipe
    sys.stdout, sys.stderr = _STDOUT, _STDERR  # type: ignore[assignment]
    sys.unraisablehook, threading.excepthook = sys.__unraisablehook__, threading.__excepthook__
    os.chdir(cwd)
    _forget_settings()
    try:
        with _logging_as_in_a_new_process(), _warnings_as_in_a_new_process():
            yield
    finally:
        os.chdir(saved_cwd)
        sys.unraisablehook, threading.excepthook = saved_hooks
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        sys.argv = saved_argv
        tempfile.tempdir = saved_tempdir
        os.environ.clear()
        os.environ.update(saved_env)
        _forget_settings()
        if main_thread:
            for sig, handler in saved_signals.items():
                if handler is not None and signal.getsignal(sig) is not handler:
                    signal.signal(sig, handler)
            signal.set_wakeup_fd(wakeup)


def _exit_code(exc: SystemExit) -> int:
    """The exit status a process would have for this SystemExit."""
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code & 0xFF
    print(exc.code, file=sys.stderr)
    return 1


def run_in_process(args: tuple[str, ...], *, cwd: Path, env: dict[str, str]) -> Result:
    """`calibrant ARGS` run by `calibrant.cli.main()` in this process (see the module)."""
    from calibrant.cli import main

    out, out_sink = _text_buffer("strict")
    err, err_sink = _text_buffer("backslashreplace")
    _STDOUT.target, _STDERR.target = out, err
    try:
        with _process_state(args, cwd, env):
            try:
                main()
                code = 0
            except SystemExit as exc:
                code = _exit_code(exc)
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
    finally:
        _STDOUT.target = _STDERR.target = None
    return Result(code, _as_text(out_sink), _as_text(err_sink))
