"""Commands that read the store: saved judge versions with their latest calibration, and the
runs recorded with their provenance and reports."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from ..errors import CalibrantError
from .app import judges_app, runs_app


@judges_app.command("list")
def judges_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Every saved judge: its version (the content hash of its resolved configuration), model,
    rubric, and its latest calibration in the store."""
    from ..judge.config import JudgeOptions, judges_dir, resolve_judge
    from ..store import make_engine
    from ..store.runs import Runs

    runs = Runs(make_engine())
    rows: list[dict[str, Any]] = []
    for path in sorted(judges_dir().glob("*.yaml")):
        try:
            config, rubric, _, _ = resolve_judge(JudgeOptions(judge=path.stem))
        except CalibrantError as exc:  # one broken file does not hide the others
            rows.append({"name": path.stem, "error": str(exc)})
            continue
        found = runs.latest("calibrate", judge_hash=config.hash, rubric_hash=rubric.content_hash)
        latest = None
        if found is not None:
            info, report = found
            latest = {
                "run_id": info.id,
                "finished_at": info.finished_at.isoformat() if info.finished_at else None,
                "split": report.get("split"),
                "n_items": report.get("n_items"),
                "gate": (report.get("gate") or {}).get("judge"),
            }
        rows.append(
            {
                "name": path.stem,
                "hash": config.hash,
                "model": config.model,
                "rubric": {"id": rubric.rubric_id, "version": rubric.version},
                "latest_calibration": latest,
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    table = Table(title=f"Saved judges in {judges_dir()}/", title_justify="left")
    for col in ("name", "version", "model", "rubric", "latest calibration"):
        table.add_column(col)
    for r in rows:
        if "error" in r:
            table.add_row(r["name"], "—", "—", "—", f"[red]{r['error']}[/red]")
            continue
        cal = r["latest_calibration"]
        table.add_row(
            r["name"],
            r["hash"][:19],
            r["model"],
            f"{r['rubric']['id']} {r['rubric']['version']}",
            "none"
            if cal is None
            else f"{cal['finished_at'][:16]} {cal['split']} n={cal['n_items']} gate {cal['gate']}",
        )
    Console().print(table)


@runs_app.command("list")
def runs_list(
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="calibrate, score, batch, compare, compare-trials, stability or probe.",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """The runs recorded in the store, newest first: kind, status, who, when, judge version."""
    from ..store import make_engine
    from ..store.runs import Runs

    runs = Runs(make_engine()).recent(kind=kind, limit=limit)
    if as_json:
        typer.echo(
            json.dumps(
                [
                    {
                        "id": r.id,
                        "kind": r.kind,
                        "status": r.status,
                        "who": r.who,
                        "started_at": r.started_at.isoformat(),
                        "finished_at": r.finished_at.isoformat() if r.finished_at else None,
                        "judge_hash": r.judge_hash,
                        "rubric_hash": r.rubric_hash,
                        "calibrant_version": r.calibrant_version,
                    }
                    for r in runs
                ],
                indent=2,
                sort_keys=True,
            )
        )
        return
    table = Table(title="Runs (newest first)", title_justify="left")
    for col in ("id", "kind", "status", "who", "started (UTC)", "judge version"):
        table.add_column(col)
    for r in runs:
        table.add_row(
            r.id[:12],
            r.kind,
            r.status,
            r.who,
            f"{r.started_at:%Y-%m-%d %H:%M}",
            (r.judge_hash or "—")[:19],
        )
    Console().print(table)


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument(help="A run id, or its first characters.")],
) -> None:
    """Print a run's provenance and its report, as JSON."""
    from ..store import make_engine
    from ..store.runs import Runs

    detail = Runs(make_engine()).get(run_id)
    if detail is None:
        raise CalibrantError(f"no run '{run_id}' in the store (see `calibrant runs list`)")
    typer.echo(json.dumps(detail, indent=2, sort_keys=True))
