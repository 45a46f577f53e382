"""Every transcript the repository has, and what the checker says about each: the corpus the
invariants' equivalence is measured on when they are rewritten.

The transcripts: the gold set's and the examples' (files), the traces of examples/traces
imported with their snapshots, the self-test corpus (mutated real trials), and a fresh trial of
every case by every scripted behaviour in every wording style (seed 0). Trials are real runs of
the controlled service (a SQLite file each), deterministic for a seed.

`python -m tests.support.corpus` writes the checker's outcomes, evidence ids and messages for
every (transcript, invariant) to tests/data/invariant_outcomes.json: run it once with the code
before a rewrite, commit the file, and tests/safety/test_invariant_equivalence.py asserts the
rewritten code reproduces it."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from calibrant.contracts import Transcript
from calibrant.files import expand_paths, load_case
from calibrant.importers.model import ImportOptions
from calibrant.importers.run import import_traces
from calibrant.safety import check_transcript
from calibrant.selftest import build_corpus
from calibrant_refunds.agents import BEHAVIOURS, STYLES
from calibrant_refunds.runner import run_trial
from tests.support.gold import GOLD_BEFORE_V4

__all__ = ["OUTCOMES", "transcripts", "outcomes"]

ROOT = Path(__file__).resolve().parents[2]
OUTCOMES = ROOT / "tests" / "data" / "invariant_outcomes.json"


# The rewrite's corpus ends at gold v3's last item: gold v4's items (gold-301 on) were built
# after the expected outcomes were written, by the rewritten checker;
# tests/safety/test_gold_verdicts.py holds their verdicts to gold/safety/verdicts.json.


def _files() -> Iterator[tuple[str, Transcript]]:
    for folder in ("gold/transcripts", "examples/transcripts"):
        for path in sorted((ROOT / folder).glob("*.json")):
            if folder.startswith("gold/") and path.stem > GOLD_BEFORE_V4:
                continue
            text = path.read_text(encoding="utf-8")
            yield f"{folder}/{path.name}", Transcript.model_validate_json(text)


def _imported(scratch: Path) -> Iterator[tuple[str, Transcript]]:
    traces = ROOT / "examples" / "traces"
    for fmt, name in (("chat", "chat.jsonl"), ("otel", "otel.json")):
        out = scratch / f"imported-{fmt}"
        import_traces(
            ImportOptions(
                format=fmt,
                paths=[traces / name],
                out=out,
                case=ROOT / "cases" / "eligible_damaged_order.yaml",
                snapshots=traces / "snapshots",
            )
        )
        for path in sorted(out.glob("*.json")):
            text = path.read_text(encoding="utf-8")
            yield f"import {fmt}:{path.name}", Transcript.model_validate_json(text)


def _trials(scratch: Path, every: int) -> Iterator[tuple[str, Transcript]]:
    paths = expand_paths([ROOT / "cases"], suffixes=(".yaml",))
    n = 0
    for case in sorted((load_case(p) for p in paths), key=lambda c: c.case):
        for behaviour in BEHAVIOURS:
            for style in ("", *STYLES):
                n += 1
                if (n - 1) % every:
                    continue
                agent = f"scripted:{behaviour}" + (f"/{style}" if style else "")
                t = run_trial(case, agent, trial=1, seed=0, workdir=scratch)
                yield f"trial {case.case} {agent}", t


def transcripts(trials_every: int = 1) -> Iterator[tuple[str, Transcript]]:
    """(a stable name, the transcript) for every transcript of the corpus; with `trials_every`
    k > 1, only every k-th fresh trial is run (in a fixed order, so the same ones each time)."""
    scratch = Path(tempfile.mkdtemp(prefix="calibrant-corpus-"))
    try:
        yield from _files()
        yield from _imported(scratch)
        for entry in build_corpus(ROOT / "cases"):
            yield f"selftest {entry.name}", entry.transcript
        yield from _trials(scratch, trials_every)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


WITH_MESSAGE = frozenset({"no_cross_tenant_leak", "no_duplicate_payment", "no_stale_overwrite"})
"""The invariants whose messages are kept too (the ones rewritten over the pack's roles)."""


def outcomes(trials_every: int = 1) -> dict[str, dict[str, list[object]]]:
    """name -> invariant -> [outcome, evidence ids] (and the message, for WITH_MESSAGE) for the
    whole corpus (every k-th fresh trial only, with `trials_every` k > 1)."""
    out: dict[str, dict[str, list[object]]] = {}
    for name, t in transcripts(trials_every):
        if name in out:
            raise ValueError(f"two transcripts of the corpus are named {name!r}")
        verdict = check_transcript(t)
        out[name] = {
            r.invariant: [r.outcome, r.evidence]
            + ([r.message] if r.invariant in WITH_MESSAGE else [])
            for r in verdict.results
        }
    return out


def main() -> None:
    found = outcomes()
    lines = [json.dumps(name) + ": " + json.dumps(found[name]) for name in found]
    OUTCOMES.write_text("{\n" + ",\n".join(lines) + "\n}\n", encoding="utf-8")
    print(f"{OUTCOMES}: {len(found)} transcripts", file=sys.stderr)


if __name__ == "__main__":
    main()
