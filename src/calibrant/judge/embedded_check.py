"""Whether this environment's llama.cpp build runs on this CPU: asked once, in a child process.

A llama-cpp-python wheel built for its build machine's own CPU (`-march=native`: AVX-512, AMX)
dies with SIGILL or SIGSEGV at the first evaluation on a CPU without those instructions, and
pip's wheel cache hands such a wheel to the next install on another machine. In calibrant's own
process that is a dead process and no word. So before the embedded model first loads, a child
process loads it and evaluates one message; if the child dies by a signal, the run stops with
one line saying how to rebuild (`EmbeddedBuildCrashed`). A build that ran is remembered by a
marker file named for the build (its compiled libraries' sizes and times), the CPU (its model
and flags) and the model file, so the check costs one child process (about a second) per build
and machine. Any other failure of the child (no model, a Python error) is left to the load
itself, which reports it as it always has."""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import os
import platform
import signal
import subprocess
import sys
import threading
from pathlib import Path

from ..errors import JudgeError

__all__ = ["EmbeddedBuildCrashed", "ensure_build_runs", "rebuild_command", "marker_folder"]

# What the child runs: load the model as calibrant does and evaluate one short message.
_CHILD = """
import sys
import llama_cpp
llama = llama_cpp.Llama(model_path=sys.argv[1], n_ctx=512, n_threads=int(sys.argv[2]),
                        n_threads_batch=int(sys.argv[2]), flash_attn=True, verbose=False)
llama.eval(llama.tokenize(b"<|im_start|>user\\nHello, how are you?<|im_end|>\\n",
                          add_bos=False, special=True))
print("ok")
"""
_TIMEOUT_S = 300.0
_checked: set[str] = set()  # builds found to run, in this process
_lock = threading.Lock()


class EmbeddedBuildCrashed(JudgeError):
    """The embedded model's llama.cpp build crashes on this CPU: the whole run stops (every
    call would crash the process), with how to rebuild it."""


def rebuild_command() -> str:
    """The command that rebuilds llama-cpp-python portably in this environment."""
    try:
        version = importlib.metadata.version("llama-cpp-python")
    except importlib.metadata.PackageNotFoundError:
        version = "VERSION"
    return (
        f"CMAKE_ARGS=-DGGML_NATIVE=OFF {sys.executable} -m pip install --force-reinstall "
        f"--no-deps --no-cache-dir --no-binary llama-cpp-python llama-cpp-python=={version}"
    )


def marker_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "calibrant" / "llama-build-ok"


def _cpu() -> str:
    """The CPU as the build sees it: its model name and instruction flags."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return platform.processor() or platform.machine()
    wanted = ("model name", "flags", "Features", "CPU part")
    lines = []
    for line in text.splitlines():
        key = line.split(":", 1)[0].strip()
        if key in wanted and line not in lines:
            lines.append(line)
        if not line.strip() and lines:  # the first processor is enough
            break
    return "\n".join(lines) or platform.machine()


def _build_identity(gguf: Path) -> str | None:
    """What names this build on this CPU with this model; None without llama-cpp-python."""
    spec = importlib.util.find_spec("llama_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    package = Path(list(spec.submodule_search_locations)[0])
    parts = [platform.machine(), _cpu()]
    for lib in sorted((package / "lib").glob("*")):
        stat = lib.stat()
        parts.append(f"{lib.name}:{stat.st_size}:{stat.st_mtime_ns}")
    stat = gguf.stat()
    parts.append(f"{gguf.name}:{stat.st_size}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:32]


def child_command(gguf: Path, threads: int) -> list[str]:
    """The child that loads the model (a function, so a test can hand a crashing one)."""
    return [sys.executable, "-c", _CHILD, str(gguf), str(threads)]


def ensure_build_runs(gguf: Path, threads: int) -> None:
    """Return if this build runs here (known, or a child just ran it); raise
    `EmbeddedBuildCrashed` if the child died by a signal."""
    identity = _build_identity(gguf)
    if identity is None:
        return  # not installed: the load says so, as it always has
    with _lock:
        if identity in _checked:
            return
        marker = marker_folder() / identity
        if marker.exists():
            _checked.add(identity)
            return
        try:
            child = subprocess.run(
                child_command(gguf, threads),
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=_TIMEOUT_S,
            )
        except subprocess.TimeoutExpired:
            return  # slow, not crashed: the load goes ahead, the check runs again next time
        if child.returncode < 0:
            try:
                name = signal.Signals(-child.returncode).name
            except ValueError:
                name = f"signal {-child.returncode}"
            raise EmbeddedBuildCrashed(
                f"the embedded judge's llama.cpp build crashes on this CPU ({name} when it "
                f"loaded the model in a test process; likely built for another CPU's "
                f"instructions): rebuild it with: {rebuild_command()}"
            )
        if child.returncode == 0 and child.stdout.strip().endswith(b"ok"):
            _checked.add(identity)
            try:
                marker.parent.mkdir(parents=True, exist_ok=True)
                marker.write_text("this llama.cpp build ran here\n")
            except OSError:  # no cache folder: check again in the next process
                pass
