"""The command line limits glibc to one malloc arena (`calibrant.cli.malloc`): worker threads
that allocate at the same time share the main heap instead of each growing its own, which kept
a long `score` run's memory growing with the number of transcripts. Checked in a fresh process
by glibc's own report (`malloc_stats`, one "Arena n:" block per arena)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import ROOT

PROBE = """
import ctypes, ctypes.util, sys, threading
from calibrant.cli.malloc import limit_malloc_arenas
if sys.argv[1] == "limit":
    assert limit_malloc_arenas()
libc = ctypes.CDLL(ctypes.util.find_library("c"))
libc.malloc.restype = ctypes.c_void_p
libc.malloc.argtypes = [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
start = threading.Barrier(8)
def work():
    start.wait()
    for _ in range(2000):  # ctypes calls drop the GIL: these threads allocate at once
        libc.free(libc.malloc(512))
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads: t.start()
for t in threads: t.join()
libc.malloc_stats()
"""


def arenas(mode: str) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", PROBE, mode],
        cwd=ROOT,
        env={"PYTHONPATH": str(ROOT / "src")},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    return sum(1 for line in proc.stderr.splitlines() if line.startswith("Arena "))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc only")
def test_threads_share_one_malloc_arena_once_the_cli_limits_them() -> None:
    assert arenas("limit") == 1
    assert arenas("default") > 1  # the probe does make threads allocate in their own arenas
