"""The embedded model's evaluated system prompt, kept across processes.

Evaluating the static part of the judge prompt (instructions and rubric, ~1,500 tokens) costs
about 6 s on two cores in every new process. After the first evaluation, llama.cpp's KV cache
for that leading message is saved to a file keyed by the model file, the llama.cpp build, the
context settings and the exact tokens; the next process loads it (tens of milliseconds)
instead. Loading gives the same cache the evaluation would (the message is always evaluated as
one whole batch), so a temperature-0 answer does not depend on it.

Files live in ``$CALIBRANT_EMBEDDED_CACHE`` (``off`` disables them) or
``~/.cache/calibrant/embedded``; the least recently used beyond ``KEEP`` are deleted.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..settings import get_settings

__all__ = ["PromptStates", "MIN_TOKENS", "KEEP"]

MIN_TOKENS = 256
"""Shorter leading messages are cheaper to evaluate than to load."""
KEEP = 8
"""Files kept in the cache folder."""
_MAGIC = b"calibrant-kv-1\n"


def _folder() -> Path | None:
    value = get_settings().embedded_cache or ""
    if value.lower() in ("off", "0", "no", "false"):
        return None
    if value:
        return Path(value)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "calibrant" / "embedded"


class PromptStates:
    """Save and load the KV cache of a leading message for one loaded model."""

    def __init__(self, identity: str) -> None:
        self.folder = _folder()
        self.identity = identity  # model file, llama.cpp build, context settings

    def _file(self, tokens: Sequence[int]) -> Path | None:
        if self.folder is None or len(tokens) < MIN_TOKENS:
            return None
        digest = hashlib.sha256(self.identity.encode("utf-8"))
        digest.update(struct.pack(f"<{len(tokens)}i", *tokens))
        return self.folder / f"{digest.hexdigest()[:32]}.kv"

    def load(self, llama: Any, tokens: Sequence[int]) -> bool:
        """Restore the cache of `tokens` (a whole leading message) if a file has it."""
        path = self._file(tokens)
        if path is None or not path.is_file():
            return False
        import llama_cpp

        try:
            data = path.read_bytes()
        except OSError:
            return False
        if not data.startswith(_MAGIC):
            return False
        blob = data[len(_MAGIC) :]
        llama.n_tokens = 0
        llama._ctx.kv_cache_clear()
        buf = (ctypes.c_uint8 * len(blob)).from_buffer_copy(blob)
        if llama_cpp.llama_state_seq_set_data(llama._ctx.ctx, buf, len(blob), 0) != len(blob):
            llama._ctx.kv_cache_clear()
            return False
        llama.input_ids[: len(tokens)] = tokens
        llama.n_tokens = len(tokens)
        try:
            os.utime(path)  # recently used: kept longest
        except OSError:
            pass
        return True

    def save(self, llama: Any, tokens: Sequence[int]) -> None:
        """Write the cache of `tokens`, just evaluated as the leading message, unless present.
        A failure to write costs only the next process's time: it is not an error."""
        path = self._file(tokens)
        if path is None or path.exists() or llama.n_tokens != len(tokens):
            return
        import llama_cpp

        ctx = llama._ctx.ctx
        size = int(llama_cpp.llama_state_seq_get_size(ctx, 0))
        buf = (ctypes.c_uint8 * size)()
        written = int(llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0))
        if not 0 < written <= size:
            return
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as f:
                f.write(_MAGIC)
                f.write(memoryview(buf)[:written])
            os.replace(tmp, path)
            self._prune()
        except OSError:
            tmp.unlink(missing_ok=True)

    def _prune(self) -> None:
        if self.folder is None:
            return
        files = sorted(self.folder.glob("*.kv"), key=lambda p: p.stat().st_mtime, reverse=True)
        for old in files[KEEP:]:
            old.unlink(missing_ok=True)
