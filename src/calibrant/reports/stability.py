"""Rendering a judge's stability (`calibrant stability`): the judge and the samples, the
warnings, and per criterion its agreement with itself, the items its samples split on and the
flag."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from .fit import fit

if TYPE_CHECKING:
    from ..contracts.reports import StabilityReport
    from ..contracts.reports.stats import Estimate

__all__ = ["render_stability"]


def _self_agreement(s: Estimate) -> str:
    if s.estimate is None:
        return f"undefined ({s.estimate_undefined_reason})"
    ci = s.ci
    value = f"{s.estimate:.2f}" + (
        f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else f" (no interval: {s.ci_undefined_reason})"
    )
    return value + f" (n={s.n})"


def render_stability(console: Console, report: StabilityReport) -> None:
    """The stability report on the console: a line on the judge, the warnings, the table."""
    j = report.judge
    console.print(
        f"[bold]Stability of {j.model}[/bold] ({j.hash[:19]}, temperature "
        f"{j.temperature}): {report.samples} samples of {report.items} gold items; "
        f"{report.statistic}"
    )
    for w in report.warnings:
        console.print(f"[yellow]warning:[/yellow] {w}", highlight=False)
    table = Table(title="Agreement of the judge with itself (95% interval)", title_justify="left")
    for col in ("criterion", "self-agreement", "items whose samples differ", "flag"):
        table.add_column(col)
    for c in report.criteria:
        d = c.items_with_differing_samples
        differ = "—" if d.value is None else f"{d.value:.0%} (n={d.n})"
        colour = {"UNSTABLE": "red", "stable": "green"}.get(c.flag, "yellow")
        table.add_row(
            c.criterion, _self_agreement(c.self_agreement), differ, f"[{colour}]{c.flag}[/{colour}]"
        )
    console.print(fit(console, table))
    console.print(
        f"UNSTABLE: the interval reaches below {report.min_self_agreement}; the judge's single "
        "answers on that criterion are partly chance."
    )
