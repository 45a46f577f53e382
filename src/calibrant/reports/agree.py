"""Rendering rater-only agreement."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

__all__ = ["render_agreement"]


def _f(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.2f}"


def render_agreement(console: Console, report: dict[str, Any]) -> None:
    console.print(
        f"[bold]Agreement among raters[/bold] — bootstrap {report['n_resamples']} "
        f"resamples ({report['bootstrap']}), seed {report['seed']}"
    )
    for crit, c in report["criteria"].items():
        t = Table(
            title=f"{crit} ({c['level']}; {c['n_items']} items; Fleiss κ "
            f"{_f(c['fleiss_kappa'])}, Krippendorff α {_f(c['krippendorff_alpha'])})",
            title_justify="left",
        )
        for col in ("raters", "n", "Cohen κ [95% CI]", "linear-weighted κ"):
            t.add_column(col)
        for p in c["pairs"]:
            ci = p.get("ci95")
            t.add_row(
                " vs ".join(map(str, p["raters"])),
                str(p["n"]),
                _f(p["cohen_kappa"])
                + (f" [{ci[0]:.2f}, {ci[1]:.2f}]" if ci else " [CI undefined]"),
                "n/a (nominal)" if c["level"] == "nominal" else _f(p["weighted_kappa"]),
            )
        console.print(t)
        for p in c["pairs"]:
            for key, why in p.get("why_undefined", {}).items():
                console.print(
                    f"  {key} of {' vs '.join(map(str, p['raters']))} undefined: {why}",
                    markup=False,
                    highlight=False,
                )
        for key, why in c.get("why_undefined", {}).items():
            console.print(f"  {key} undefined: {why}", markup=False, highlight=False)
        na = c.get("not_applicable")
        if na:
            counts = ", ".join(f"{k} {v}" for k, v in na["n_items_by_rater"].items()) or "none"
            console.print(f"  not_applicable (outside the ordered levels): {counts}", markup=False)
        if c["abstentions"]:
            console.print(
                "  cant_tell (left out): "
                + ", ".join(f"{k} {v}" for k, v in c["abstentions"].items())
            )
