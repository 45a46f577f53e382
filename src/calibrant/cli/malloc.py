"""Keep the C heap of a long run flat: glibc gives each thread that allocates its own malloc
arena (up to 8 per core), and memory freed in one arena is not reused by another, so a run
whose worker threads (store commits, reading rounds) take turns with the event loop grows its
resident memory with the number of transcripts even though nothing is kept (measured: +19 MB
from 1,000 to 3,000 transcripts with the default, flat with one arena; see
benchmarks/results/score.md). The command line limits the process to one arena before any
thread starts; the threads hold the GIL most of the time anyway, so they seldom wait for it.
`score` also hands freed heap pages back after each round (`trim_heap`), so what a round freed
inside the heap is not counted as resident while the next round runs."""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from functools import lru_cache

__all__ = ["limit_malloc_arenas", "trim_heap"]

M_ARENA_MAX = -8  # glibc's mallopt parameter number (malloc.h)


@lru_cache(maxsize=1)
def _libc() -> ctypes.CDLL:
    """The C library, found once (`find_library` runs `ldconfig -p`, a process, each time)."""
    return ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")


def limit_malloc_arenas(arenas: int = 1) -> bool:
    """Ask glibc for at most `arenas` malloc arenas; False where that is not glibc (a no-op)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = _libc().mallopt
    except (OSError, AttributeError):  # musl and others: no mallopt, nothing to do
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_ARENA_MAX, arenas) == 1)


def trim_heap() -> None:
    """Return free heap pages to the system (glibc `malloc_trim`); a no-op elsewhere."""
    if not sys.platform.startswith("linux"):
        return
    try:
        _libc().malloc_trim(0)
    except (OSError, AttributeError):
        return
