"""Transcripts to score, read one at a time: JSON files, folders of them, JSON Lines files (one
transcript per line) and quoted glob patterns. Nothing is held beyond the transcript at hand, so
a batch of any size costs the memory of its largest transcript plus the list of file names."""

from __future__ import annotations

import glob
from collections.abc import Iterator, Sequence
from pathlib import Path

from ..contracts import Transcript
from ..errors import InputError
from ..files import load_transcript, transcript_from_line
from ..paths import FileList, expand_paths

__all__ = ["find_inputs", "iter_transcripts"]

GLOB_CHARS = frozenset("*?[")


def find_inputs(paths: Sequence[str | Path]) -> FileList:
    """The files to read (*.json and *.jsonl under folders), with glob patterns expanded when
    the shell did not (a quoted pattern); a pattern matching nothing is an input error."""
    expanded: list[str | Path] = []
    for raw in paths:
        text = str(raw)
        if not Path(text).exists() and GLOB_CHARS & set(text):
            matches = sorted(glob.glob(text, recursive=True))
            if not matches:
                raise InputError(text, "the pattern matches no file")
            expanded.extend(matches)
        else:
            expanded.append(raw)
    return expand_paths(expanded, suffixes=(".json", ".jsonl"))


def iter_transcripts(files: FileList) -> Iterator[tuple[str, Transcript]]:
    """(source, transcript) for every transcript, in order; source is the file, or file:line
    for JSON Lines. Invalid input raises an InputError naming file, line and field."""
    for path in files:
        if path.suffix == ".jsonl":
            with path.open("rb") as fh:
                for n, raw in enumerate(fh, start=1):
                    try:
                        line = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        raise InputError(path, "not UTF-8 text", line=n) from None
                    if line.strip():
                        yield f"{path}:{n}", transcript_from_line(path, n, line)
        else:
            yield str(path), load_transcript(path)
