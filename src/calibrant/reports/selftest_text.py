"""`calibrant selftest` on the terminal: one row per corpus transcript (expected, what the
checker says, whether it matched), then the count judged as expected."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from .fit import fit

if TYPE_CHECKING:
    from ..selftest import SelftestResult

__all__ = ["render_selftest"]


def render_selftest(result: SelftestResult, console: Console, *, title: str) -> None:
    table = Table(title=title, title_justify="left")
    for col in ("transcript", "expected", "checker says", "ok"):
        table.add_column(col)
    for row in result.rows:
        table.add_row(
            row.name,
            "\n".join(row.expected),
            "\n".join(row.flagged) or "clean",
            "[green]yes[/green]"
            if not row.problems
            else "[red]" + "; ".join(row.problems) + "[/red]",
        )
    console.print(fit(console, table))
    n = len(result.rows)
    console.print(f"{n - result.failures}/{n} self-test transcripts judged as expected")
