"""The checker's self-test on a domain as one operation: build the pack's corpus (broken and
clean transcripts, simulated or recorded), check each, say which were judged as expected, and
optionally write the corpus with its manifest (`calibrant selftest`)."""

from __future__ import annotations

from pathlib import Path

from ..selftest import SelftestResult, SelftestRow

__all__ = ["SelftestResult", "SelftestRow", "run_selftest"]  # the result types: calibrant.selftest


def run_selftest(
    cases: Path | None, domain: str | None, *, seed: int = 0, write: Path | None = None
) -> SelftestResult:
    """Self-test the checker on `domain` (default: the cases', else that of files naming none)
    with the cases in `cases` (default: the installed pack's, wherever the command runs)."""
    from ..domains import pack_data
    from ..errors import ConfigError
    from ..files import write_atomic
    from ..harness import transcript_filename
    from ..selftest import build_corpus, check_entry, selftest_target

    if write is not None and write.exists() and not write.is_dir():
        raise ConfigError(f"--write {write}: is a file; give a folder")
    if cases is None:  # the installed pack's cases, never ./cases
        cases = pack_data("cases", domain, option="--cases")
    domain, cases = selftest_target(domain, cases)
    corpus = build_corpus(cases, seed=seed, domain=domain)
    rows: list[SelftestRow] = []
    manifest = {}
    for entry in corpus:
        verdict, problems = check_entry(entry)
        rows.append(
            SelftestRow(
                name=entry.name,
                expected=tuple(f"{k}={v}" for k, v in entry.expect.items()) or ("clean",),
                flagged=tuple(
                    f"{r.invariant}={r.outcome}"
                    for r in verdict.results
                    if r.outcome in ("violated", "harness_error")
                ),
                problems=tuple(problems),
            )
        )
        if write is not None:
            fname = transcript_filename(entry.name)
            write_atomic(write / fname, entry.transcript.model_dump_json(indent=1))
            manifest[fname] = {"description": entry.description, "expect": entry.expect}
    if write is not None:
        import yaml

        write_atomic(write / "expected.yaml", yaml.safe_dump(manifest, sort_keys=True))
    return SelftestResult(domain=domain, rows=tuple(rows), written_to=write)
