"""Commands about the store: saved judge versions with their latest calibration, the runs
recorded with their provenance and reports, and upgrading the store's schema."""

from __future__ import annotations

import json
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from ..errors import CalibrantError
from ..reports.fit import fit
from .app import db_app, judge_options, judges_app, runs_app


@judges_app.command("list")
def judges_list(
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """Every saved judge: its version (the content hash of its resolved configuration), model,
    rubric, and its latest calibration and probe run in the store."""
    from ..judge.config import judges_dir, resolve_judge
    from ..store import make_engine
    from ..store.runs import Runs
    from ..store.versions import JudgeEntry, judge_entry
    from .run_view import probe_cell

    runs = Runs(make_engine())
    rows: list[JudgeEntry | tuple[str, str]] = []  # an entry, or a file's name and its error
    for path in sorted(judges_dir().glob("*.yaml")):
        try:
            config, rubric, _, _ = resolve_judge(judge_options(judge_name=path.stem))
        except CalibrantError as exc:  # one broken file does not hide the others
            rows.append((path.stem, str(exc)))
            continue
        rows.append(judge_entry(path.stem, config, rubric, runs))
    if as_json:
        data = [
            {"name": r[0], "error": r[1]} if isinstance(r, tuple) else r.json_data() for r in rows
        ]
        typer.echo(json.dumps(data, indent=2, sort_keys=True))
        return
    table = Table(title=f"Saved judges in {judges_dir()}/", title_justify="left")
    for col in ("name", "version", "model", "rubric", "latest calibration", "latest probe"):
        table.add_column(col)
    for r in rows:
        if isinstance(r, tuple):
            table.add_row(r[0], "—", "—", "—", f"[red]{r[1]}[/red]", "—")
            continue
        cal = r.latest_calibration
        table.add_row(
            r.name,
            r.hash[:19],
            r.model,
            f"{r.rubric.id} {r.rubric.version}",
            "none"
            if cal is None
            else f"{(cal.finished_at or '')[:16]} {cal.split} n={cal.n_items} gate {cal.gate}",
            escape(probe_cell(r.latest_probe)),
        )
    console = Console()
    console.print(fit(console, table))


@runs_app.command("list")
def runs_list(
    kind: Annotated[
        str | None,
        typer.Option(
            "--kind",
            help="calibrate, judge (a service job), score, batch (a provider batch), compare, "
            "compare-trials, stability, probe, check, trials, audit (an audit sample) or "
            "anchors (the drift monitor's anchors re-scored).",
        ),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="How many, newest first.")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print stable JSON.")] = False,
) -> None:
    """The runs recorded in the store, newest first: kind, status, who, when, judge version."""
    from ..store import make_engine
    from ..store.runs import RUN_KINDS, Runs

    if kind is not None and kind not in RUN_KINDS:
        raise CalibrantError(f"--kind: no run kind '{kind}' (one of {', '.join(RUN_KINDS)})")
    runs = Runs(make_engine()).recent(kind=kind, limit=limit)
    if as_json:
        typer.echo(
            json.dumps(
                [r.json_data() for r in runs],
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
    console = Console()
    console.print(fit(console, table))


@runs_app.command("show")
def runs_show(
    run_id: Annotated[str, typer.Argument(help="A run id, or its first characters.")],
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the whole record (a batch's requests too) as JSON."),
    ] = False,
) -> None:
    """A run's provenance and its report; a provider batch (kind batch) in brief: its requests
    counted, its provider batch and status, its results by outcome."""
    from ..store import make_engine
    from ..store.runs import Runs
    from .run_view import run_lines

    detail = Runs(make_engine()).detail(run_id)
    if detail is None:
        raise CalibrantError(f"no run '{run_id}' in the store (see `calibrant runs list`)")
    if as_json:
        typer.echo(json.dumps(detail.json_data(), indent=2, sort_keys=True))
        return
    console = Console(highlight=False)  # long lines wrap between words
    for line in run_lines(detail):
        console.print(line, markup=False)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Upgrade the store (CALIBRANT_DATABASE_URL) to this calibrant's schema. A PostgreSQL store
    is upgraded only by this command, once for everyone who shares it; a local SQLite store
    upgrades itself when opened."""
    from ..store import database_url, upgrade_store
    from ..store.db import redact_url

    url = database_url()
    before, now = upgrade_store(url)
    where = redact_url(url)
    if before == now:
        typer.echo(f"the store at {where} is at schema revision {now}: nothing to do")
    elif before is None:
        typer.echo(f"the store at {where} was created at schema revision {now}")
    else:
        typer.echo(f"the store at {where} was upgraded from schema revision {before} to {now}")
