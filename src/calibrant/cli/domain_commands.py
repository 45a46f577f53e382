"""`calibrant domains list|show`: the installed domain packs (faces over calibrant.ops.domains)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer
from rich.console import Console

from .app import domains_app

JsonOpt = Annotated[bool, typer.Option("--json", help="Print the report as JSON.")]


@domains_app.command("list")
def domains_list(as_json: JsonOpt = False) -> None:
    """Every installed domain pack: name, title, version, and how many records, cases, rubrics
    and gold items it ships. A pack that cannot be loaded is named on stderr (exit 2)."""
    from ..ops.domains import list_domains
    from ..reports.domains import domains_table

    report = list_domains()
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
    else:
        console = Console()
        console.print(domains_table(console, report))
    for b in report.broken:
        dist = f" (from {b.distribution})" if b.distribution else ""
        print(
            f"calibrant: error: domain pack entry point '{b.entry_point}'{dist}: {b.reason}",
            file=sys.stderr,
        )
    if report.broken:
        raise typer.Exit(2)


@domains_app.command("show")
def domains_show(
    name: Annotated[str, typer.Argument(help="The domain's name (calibrant domains list).")],
    as_json: JsonOpt = False,
) -> None:
    """One domain pack: its records and the roles of their fields (tenant, protected, money,
    version, operation id, business key), its agents, fault points and data folders."""
    from ..ops.domains import show_domain
    from ..reports.domains import domain_detail

    report = show_domain(name)
    if as_json:
        typer.echo(report.model_dump_json(indent=2))
        return
    console = Console()
    for entry in report.domains:
        console.print(domain_detail(console, entry))


__all__ = ["domains_list", "domains_show"]
