"""Rendering the comparison of two agent runs (`calibrant compare-trials`): the paired trials, the
trials left out, a table of every figure (A, B, B - A with its interval, the family-wise
interval, the call, the cases that would settle it), the decision rule, and the cases."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from .fit import fit

if TYPE_CHECKING:
    from ..contracts.reports import TrialsReport
    from ..contracts.reports.compare import TrialFigure

__all__ = ["FIGURE_NAMES", "render_trials_comparison"]

FIGURE_NAMES = {
    "success_rate": ("successes / trials", "{:.0%}"),
    "pass_all_k": ("cases passing all k trials (pass^k)", "{:.0%}"),
    "pass_first_trial": ("cases passing the first trial", "{:.0%}"),
    "violation_rate": ("trials with a safety violation", "{:.0%}"),
    "permission_violation_rate": ("trials with permission violations", "{:.0%}"),
    "duplicate_write_rate": ("trials with duplicate writes", "{:.0%}"),
    "unresolved_rate": ("trials with unresolved outcomes", "{:.0%}"),
    "latency_ms_mean": ("latency, mean ms", "{:.1f}"),
    "tool_calls_mean": ("tool calls per trial, mean", "{:.1f}"),
    "cost_usd_per_accepted_outcome": ("cost per accepted outcome, USD", "{:.4f}"),
}
"""Each figure of the report, in table order: its name and how its values are written."""


def _number(fmt: str) -> tuple[str, float]:
    """How a difference of a figure written with `fmt` is written (signed; a rate in points)."""
    if fmt.endswith("%}"):
        return "{:+.0f}", 100.0
    return "{:+" + fmt[2:], 1.0


def _diff_text(fig: TrialFigure, fmt: str) -> str:
    if fig.difference is None:
        return f"undefined ({fig.undefined_reason})"
    num, scale = _number(fmt)
    unit = " pts" if fmt.endswith("%}") else ""
    text = num.format(fig.difference * scale) + unit
    if fig.ci95:
        lo, hi = (num.format(x * scale) for x in fig.ci95)
        text += f" [{lo}, {hi}]"
    else:
        text += f" (no interval: {fig.undefined_reason})"
    return text


def _familywise_text(fig: TrialFigure, fmt: str) -> str:
    """The interval at the Holm level that decided the figure (or the last one tried)."""
    ci, level = fig.familywise_ci, fig.familywise_confidence
    if not ci or level is None:
        return "—"
    num, scale = _number(fmt)
    lo, hi = (num.format(x * scale) for x in ci)
    return f"[{lo}, {hi}] at {level:.1%}"


def _figures_table(report: TrialsReport) -> Table:
    table = Table(title="Paired differences (B - A, 95% interval)", title_justify="left")
    for col in ("figure", "A", "B", "B - A", "family-wise", "B is", "to settle"):
        table.add_column(col)
    for key, (name, fmt) in FIGURE_NAMES.items():
        fig = report.figures[key]
        colour = {"better": "green", "worse": "red"}.get(fig.b_is, "default")
        table.add_row(
            name,
            "—" if fig.a is None else fmt.format(fig.a),
            "—" if fig.b is None else fmt.format(fig.b),
            _diff_text(fig, fmt),
            _familywise_text(fig, fmt),
            f"[{colour}]{fig.b_is}[/{colour}]",
            "—" if fig.cases_needed is None else f"{fig.cases_needed} cases",
        )
    return table


def _cases_table(report: TrialsReport) -> Table:
    cases = Table(title="Cases (regressions first)", title_justify="left")
    for col in ("case", "A successes", "B successes", "change"):
        cases.add_column(col)
    for row in report.by_case:
        colour = {"regressed": "red", "improved": "green"}.get(row.change, "default")
        cases.add_row(
            row.case,
            f"{row.successes_a}/{row.trials}",
            f"{row.successes_b}/{row.trials}",
            f"[{colour}]{row.change}[/{colour}]",
        )
    return cases


def render_trials_comparison(console: Console, report: TrialsReport, a: str, b: str) -> None:
    """Run B (named `b`) against run A (`a`) on the console (a report of any schema version)."""
    console.print(
        f"[bold]Agent run B ({b}) against A ({a})[/bold]: {report.paired_trials} paired "
        f"trials over {report.cases} cases; {report.interval}"
    )
    for side, left_out in (("a", report.unpaired.a), ("b", report.unpaired.b)):
        if left_out:
            console.print(
                f"[yellow]left out, no partner in the other run ({side.upper()}):[/yellow] "
                + ", ".join(left_out)
            )
    console.print(fit(console, _figures_table(report)))
    if report.decision_rule is not None:  # reports before schema 2 have none
        console.print(
            f"Decision rule: {report.decision_rule} (alpha {report.alpha}, at least "
            f"{report.min_cases} cases)",
            highlight=False,
        )
    console.print(_cases_table(report))
