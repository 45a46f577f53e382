"""The blocks of a Markdown page a reader runs, as a reader meets them: ```bash / ```sh /
```console fences, and ```python ones (run as `python -` in the same folder and environment, as
a reader pastes them into the shell's Python), in order, each with its line and whether an HTML
comment `<!-- not-run: reason -->` just above it says it is not meant to run (a block that only
shows a file's content). Other fences (```toml, ```yaml, ```json, ```text) show a file or an
output and are not run. tests/test_docs_shell.py runs README.md's and docs/*.md's blocks with
it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Block", "MARKER", "PYTHON_END", "SHELLS", "script_of", "shell_blocks"]

SHELLS = ("bash", "sh", "console", "python")
PYTHON_END = "CALIBRANT_DOCS_PYTHON_BLOCK"
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)
MARKER = re.compile(r"<!--\s*not-run\b(.*?)-->", re.S)


@dataclass
class Block:
    page: str
    number: int  # 1-based, among the page's shell blocks
    line: int  # line of the opening fence
    lang: str
    text: str
    skip: str | None  # the not-run reason ("" when the marker gives none)


def shell_blocks(page: Path, root: Path) -> list[Block]:
    """The page's shell blocks in order; `page` is named relative to `root`."""
    text = page.read_text()
    out: list[Block] = []
    for m in FENCE.finditer(text):
        lang = m.group(1)
        if lang not in SHELLS:
            continue
        before = text[: m.start()].rstrip().splitlines()
        last = before[-1].strip() if before else ""
        marker = MARKER.fullmatch(last)
        skip = None
        if marker:
            reason = marker.group(1).strip()
            skip = reason[1:].strip() if reason.startswith(":") else ""
        out.append(
            Block(
                page=str(page.relative_to(root)),
                number=len(out) + 1,
                line=text.count("\n", 0, m.start()) + 1,
                lang=lang,
                text=m.group(2),
                skip=skip,
            )
        )
    return out


def script_of(block: Block) -> str:
    """The block as a bash script: a console block's `$ ` lines (and their `> ` continuations);
    a python block run by the environment's `python`, its text on standard input."""
    if block.lang == "python":
        return f"python - <<'{PYTHON_END}'\n{block.text}{PYTHON_END}\n"
    if block.lang != "console":
        return block.text
    lines = []
    for ln in block.text.splitlines():
        if ln.startswith("$ "):
            lines.append(ln[2:])
        elif ln.startswith("> ") and lines:
            lines.append(ln[2:])
    return "\n".join(lines) + "\n"
