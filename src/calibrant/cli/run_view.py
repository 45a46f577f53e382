"""Stored runs as people read them: `runs show` (provenance, then the report; a provider batch in
brief, since its record lists every request it carries) and the latest probe run of a judge
version as one cell of `judges list`. `runs show --json` keeps the whole record."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..reports.probe import rate

if TYPE_CHECKING:
    from ..store.run_info import RunDetail
    from ..store.versions import LatestProbe

__all__ = ["probe_cell", "run_lines"]


def _when(iso: str | None) -> str:
    return "—" if iso is None else iso[:19].replace("T", " ") + " UTC"


def _head(d: RunDetail) -> list[str]:
    out = [
        f"run {d.id} ({d.kind}, {d.status})",
        f"started {_when(d.started_at)} by {d.who}; finished {_when(d.finished_at)}; "
        f"calibrant {d.calibrant_version}",
    ]
    if d.judge is not None:
        out.append(
            f"judge {d.judge.model} ({d.judge_hash}); rubric {d.rubric_hash}; "
            f"prompt {d.prompt_template_version}"
        )
    # as recorded: the fields the run stored (a calibrant of another version: others)
    sampling = {} if d.sampling is None else d.sampling.model_dump(exclude_unset=True)
    if sampling:
        out.append("sampling: " + ", ".join(f"{k} {v}" for k, v in sorted(sampling.items())))
    if d.error:
        out.append(f"error: {d.error}")
    if d.status == "interrupted":
        owner = (None if d.process is None else d.process.owner) or "?"
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


def _batch(d: RunDetail) -> list[str]:
    """A provider batch run: what it carries, where it is, and what its results became."""
    # a batch run's arguments and summary: JSON of its own shape (no report model)
    args: dict[str, Any] = d.arguments
    report: dict[str, Any] = d.report if isinstance(d.report, dict) else {}
    batch_id = report.get("batch_id") or args.get("batch_id")
    where = f"{args.get('provider')} at {args.get('api_base') or 'the provider default'}"
    running = d.status == "running"
    if batch_id:
        state = (
            "in flight (`batch submit` looks up its status at the provider); no result stored yet"
            if running
            else report.get("status") or d.status
        )
        resumed = " (resumed after a restart)" if report.get("resumed") else ""
        out = [f"provider batch {batch_id}: {state}{resumed}"]
    elif args.get("input_file_id"):
        state = "being created" if running else f"never created (run {d.status})"
        out = [f"provider batch: {state}; requests uploaded as {args['input_file_id']}"]
    else:
        state = "being uploaded" if running else f"never uploaded (run {d.status})"
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
    if report.get("error") and report.get("error") != d.error:
        out.append(f"the provider's errors: {report['error']}")
    if running:
        out.append(
            "to collect it: the same command again (`batch submit` or `score --submit` with the "
            "same judge and paths)"
        )
    return out


def _value(v: Any) -> str:
    """A value in one short phrase: scalars as they are, a list or mapping by its size."""
    if isinstance(v, dict):
        return f"{len(v)} entr{'y' if len(v) == 1 else 'ies'} (see --json)"
    if isinstance(v, list):
        if v and all(isinstance(x, str | int | float) for x in v) and len(v) <= 8:
            return ", ".join(str(x) for x in v)
        return f"{len(v)} item(s) (see --json)"
    if isinstance(v, float):
        return f"{v:.4g}"
    return "—" if v is None else str(v)


def _fields(d: dict[str, Any], indent: str = "  ") -> list[str]:
    """A mapping's fields one per line; nested mappings of plain values one level deep."""
    out = []
    for k, v in sorted(d.items()):
        flat = isinstance(v, dict) and v and not any(isinstance(x, dict | list) for x in v.values())
        if flat and len(v) <= 12:
            out.append(
                f"{indent}{k}: " + ", ".join(f"{a} {_value(b)}" for a, b in sorted(v.items()))
            )
        elif isinstance(v, dict) and v and len(v) <= 40 and indent == "  ":
            out += [f"{indent}{k}:", *_fields(v, indent + "  ")]
        else:
            out.append(f"{indent}{k}: {_value(v)}")
    return out


def _calibration(r: dict[str, Any]) -> list[str]:
    """A calibration report in brief: its gate and warnings first, then what it measured."""
    from ..contracts.reports import CalibrationReport, load_report
    from ..reports.calibration_text import headline_lines

    lines = headline_lines(cast(CalibrationReport, load_report("calibration", r)))
    gold = r.get("gold") or {}
    lines.append(
        f"{r.get('n_items')} gold items (split {r.get('split')}), raters "
        f"{', '.join(gold.get('raters') or []) or '—'}"
    )
    for c in r.get("criteria") or []:
        reasons = "; ".join(c["gate"].get("reasons") or [])
        lines.append(
            f"  {c['criterion']}: {c['gate']['status']}" + (f" — {reasons}" if reasons else "")
        )
    return lines


def _other(d: RunDetail) -> list[str]:
    args = {k: v for k, v in d.arguments.items() if v not in (None, False, [], {})}
    out = ["options:", *(_fields(args) or ["  none"])]
    if d.report is None:
        return out + [f"no report: the run is {d.status}"]
    # shown field by field, whatever its kind: its JSON data
    report = d.report if isinstance(d.report, dict) else d.report.json_data()
    if d.kind == "calibrate" and "criteria" in report:
        return out + ["report:", *(f"  {line}" for line in _calibration(report))]
    return out + ["report:", *_fields(report)]


def run_lines(d: RunDetail) -> list[str]:
    """`runs show` without --json: the run's provenance, then its report (a batch in brief)."""
    body = _batch(d) if d.kind == "batch" else _other(d)
    what = "every request, " if d.kind == "batch" else ""
    hint = f"the whole record ({what}options, report) as JSON: calibrant runs show {d.id} --json"
    return _head(d) + body + [hint]


def probe_cell(p: LatestProbe | None) -> str:
    """A judge version's latest probe run (store.versions.latest_probe) in one table cell."""
    if p is None:
        return "none"
    gate = f"injection {p.injection_gate}" if p.injection_gate else "no injection battery"
    top = p.highest_attack_success
    attack = f"; top attack {top.family}/{top.channel} {rate(top.rate.json_data())}" if top else ""
    flags = f"{len(p.flags)} flag(s)" if p.flags else "no flag"
    return f"{(p.finished_at or '—')[:16]} {p.split}: {gate}{attack}; {flags}"
