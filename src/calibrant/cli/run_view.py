"""Stored runs as people read them: `runs show` (provenance, then the report; a provider batch in
brief, since its record lists every request it carries) and the latest probe run of a judge
version as one cell of `judges list`. `runs show --json` keeps the whole record."""

from __future__ import annotations

import json
from typing import Any

from ..reports.probe import rate

__all__ = ["probe_cell", "run_lines"]


def _when(iso: str | None) -> str:
    return "—" if iso is None else iso[:19].replace("T", " ") + " UTC"


def _head(d: dict[str, Any]) -> list[str]:
    out = [
        f"run {d['id']} ({d['kind']}, {d['status']})",
        f"started {_when(d['started_at'])} by {d['who']}; finished {_when(d['finished_at'])}; "
        f"calibrant {d['calibrant_version']}",
    ]
    if d.get("judge"):
        out.append(
            f"judge {d['judge'].get('model')} ({d['judge_hash']}); rubric {d['rubric_hash']}; "
            f"prompt {d['prompt_template_version']}"
        )
    if d.get("sampling"):
        out.append("sampling: " + ", ".join(f"{k} {v}" for k, v in sorted(d["sampling"].items())))
    if d.get("error"):
        out.append(f"error: {d['error']}")
    if d["status"] == "interrupted":
        owner = (d.get("process") or {}).get("owner") or "?"
        out.append(
            f"interrupted: its process ({owner.rsplit(':', 1)[0]}) ended before the run finished; "
            "run the command again (answers already in the store are not asked again)"
        )
    return out


def _requests(items: list[list[Any]]) -> str:
    transcripts = {th for th, _ in items}
    samples = sorted({int(s) for _, s in items})
    if len(items) == len(transcripts) * len(samples):
        per = f"{len(transcripts)} transcript(s) x {len(samples)} sample(s)"
    else:  # some samples of some transcripts were answered before this batch
        per = f"{len(transcripts)} transcript(s), samples {samples[0]}-{samples[-1]}"
    return f"{len(items)} request(s): {per}"


def _batch(d: dict[str, Any]) -> list[str]:
    """A provider batch run: what it carries, where it is, and what its results became."""
    args, report = d["arguments"], d["report"] or {}
    batch_id = report.get("batch_id") or args.get("batch_id")
    where = f"{args.get('provider')} at {args.get('api_base') or 'the provider default'}"
    running = d["status"] == "running"
    if batch_id:
        state = (
            "in flight (`batch submit` looks up its status at the provider); no result stored yet"
            if running
            else report.get("status") or d["status"]
        )
        resumed = " (resumed after a restart)" if report.get("resumed") else ""
        out = [f"provider batch {batch_id}: {state}{resumed}"]
    elif args.get("input_file_id"):
        state = "being created" if running else f"never created (run {d['status']})"
        out = [f"provider batch: {state}; requests uploaded as {args['input_file_id']}"]
    else:
        state = "being uploaded" if running else f"never uploaded (run {d['status']})"
        out = [f"provider batch: none; its requests {state}"]
    out.append(f"  {where}; paths: {' '.join(args.get('paths') or []) or '—'}")
    out.append(_requests(args.get("items") or []))
    got = report.get("ingested")
    if got:
        out.append(
            f"results stored: {got['stored']} answer(s), {got['already_stored']} already stored, "
            f"{got['failed']} failure(s) a rerun submits again"
        )
        outcomes = ", ".join(f"{k} {n}" for k, n in sorted(got["outcomes"].items()))
        out.append(f"outcomes: {outcomes or 'none'}")
    if report.get("error") and report.get("error") != d.get("error"):
        out.append(f"the provider's errors: {report['error']}")
    if running:
        out.append(
            "to collect it: the same command again (`batch submit` or `score --submit` with the "
            "same judge and paths)"
        )
    return out


def _other(d: dict[str, Any]) -> list[str]:
    out = ["options: " + json.dumps(d["arguments"], sort_keys=True, ensure_ascii=False)]
    if d["report"] is None:
        return out + [f"no report: the run is {d['status']}"]
    return out + ["report:", json.dumps(d["report"], indent=2, sort_keys=True, ensure_ascii=False)]


def run_lines(d: dict[str, Any]) -> list[str]:
    """`runs show` without --json: the run's provenance, then its report (a batch in brief)."""
    body = _batch(d) if d["kind"] == "batch" else _other(d)
    what = "every request, " if d["kind"] == "batch" else ""
    hint = f"the whole record ({what}options, report) as JSON: calibrant runs show {d['id']} --json"
    return _head(d) + body + [hint]


def probe_cell(p: dict[str, Any] | None) -> str:
    """A judge version's latest probe run (store.versions.latest_probe) in one table cell."""
    if p is None:
        return "none"
    gate = f"injection {p['injection_gate']}" if p["injection_gate"] else "no injection battery"
    top = p["highest_attack_success"]
    attack = f"; top attack {top['family']}/{top['channel']} {rate(top['rate'])}" if top else ""
    flags = f"{len(p['flags'])} flag(s)" if p["flags"] else "no flag"
    return f"{(p['finished_at'] or '—')[:16]} {p['split']}: {gate}{attack}; {flags}"
