"""Judging transcript files with a cheap cache key first: the SHA-256 of each file's bytes.

A file read before (same bytes, same reader code) gives its content hash and safety summary from
the store, so a rerun whose answers are all cached parses and checks nothing; only files never
seen, or whose judgments are missing, are parsed (and validated) and checked."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .. import __version__
from ..contracts import JudgeConfig, Judgment, Rubric, Transcript, content_hash
from ..contracts.reports.score_parts import SafetySummary
from ..files import domain_of_bytes, load_transcript
from ..safety import check_transcript, safety_summary
from ..store import Store
from .reliability import RetryPolicy
from .runner import judge_transcripts

__all__ = ["Source", "JudgedFiles", "read_sources", "judge_files", "reader_fingerprint"]


@dataclass
class Source:
    """One transcript file: where, its cheap and content keys, its safety summary."""

    path: Path
    file_sha256: str
    transcript_hash: str
    transcript_id: str
    safety: SafetySummary
    transcript: Transcript | None = None  # parsed only when needed
    domain: str = ""  # the domain the file names ("": the default domain)


@dataclass
class JudgedFiles:
    rows: list[tuple[str, SafetySummary, list[Judgment]]]
    from_cache: int
    model_calls: int


@cache
def reader_fingerprint() -> str:
    """What reads and checks a transcript: calibrant's version and the source of its contracts
    and safety checker. Any change there reads every file again."""
    root = Path(__file__).resolve().parents[1]
    h = hashlib.sha256(__version__.encode())
    for folder in ("contracts", "safety"):
        for p in sorted((root / folder).rglob("*.py")):
            h.update(p.relative_to(root).as_posix().encode())
            h.update(p.read_bytes())
    return f"sha256:{h.hexdigest()}"


def read_sources(files: Sequence[Path], store: Store) -> list[Source]:
    """Every file's keys and safety summary; files not seen before are parsed, validated (bad
    input stops here, before any model call) and checked, and remembered."""
    reader = reader_fingerprint()
    digests: list[str] = []
    domains: list[str] = []
    for f in files:
        raw = f.read_bytes()
        digests.append(hashlib.sha256(raw).hexdigest())
        domains.append(domain_of_bytes(raw))
    known = store.sources(reader, digests)
    out: list[Source] = []
    new: list[tuple[str, str, str, str]] = []
    for f, d, domain in zip(files, digests, domains, strict=True):
        hit = known.get(d)
        if hit is not None:
            th, tid, safety = hit
            summary = SafetySummary.model_validate_json(safety)
            out.append(Source(f, d, th, tid, summary, domain=domain))
            continue
        t = load_transcript(f)
        summary = safety_summary(check_transcript(t, source=str(f)))
        th = content_hash(t)
        out.append(Source(f, d, th, t.transcript_id, summary, t, t.domain))
        new.append((d, th, t.transcript_id, json.dumps(summary.json_data(), sort_keys=True)))
        known[d] = (th, t.transcript_id, new[-1][3])
    store.put_sources(reader, new)
    return out


def judge_files(
    sources: Sequence[Source],
    *,
    rubric: Rubric,
    config: JudgeConfig,
    store: Store,
    concurrency: int,
    samples: int,
    policy: RetryPolicy,
    on_done: Callable[[Judgment, bool], None] | None = None,
) -> JudgedFiles:
    """Judge every source `samples` times: cached answers first (no parsing), then the rest."""
    cached = store.final_many(config.hash, [s.transcript_hash for s in sources])
    need = [s for s in sources if any((s.transcript_hash, i) not in cached for i in range(samples))]
    hits = (len(sources) - len(need)) * samples
    pending = {id(s) for s in need}
    if on_done:
        for s in sources:
            if id(s) not in pending:
                for i in range(samples):
                    on_done(cached[(s.transcript_hash, i)], True)
    for s in need:
        if s.transcript is None:
            s.transcript = load_transcript(s.path)
    run = judge_transcripts(
        [s.transcript for s in need if s.transcript is not None],
        rubric=rubric,
        config=config,
        store=store,
        concurrency=concurrency,
        samples=samples,
        policy=policy,
        on_done=on_done,
        hashes=[s.transcript_hash for s in need],
    )
    judged = {
        s.transcript_hash: run.judgments[k * samples : (k + 1) * samples]
        for k, s in enumerate(need)
    }
    rows = [
        (
            str(s.path),
            s.safety,
            judged.get(s.transcript_hash)
            or [cached[(s.transcript_hash, i)] for i in range(samples)],
        )
        for s in sources
    ]
    return JudgedFiles(rows, from_cache=hits + run.from_cache, model_calls=run.model_calls)
