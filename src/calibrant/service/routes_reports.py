"""The workbench's report pages (server-rendered, no script; the workbench's header and
stylesheet, so reports and labeling look like one product): the runs in the store, and each
run's report — a calibration (kappa with CI per criterion, heatmaps, disagreements), a judge
comparison, a scoring batch — with safety outcomes in their own panel. Adjudicators and admins
read them, signed in by the workbench's session cookie (or a bearer token); reading a report
counts as having read the judge's verdict on every labeling item it names (`run_reads`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse
from fastapi.templating import Jinja2Templates

from ..contracts.reports import (
    CalibrationReport,
    ComparisonReport,
    Figure,
    ProbeReport,
    ScoreReport,
)
from ..reports.html import REPORT_CSS, calibration_sections
from ..reports.probe import probe_markdown
from ..store.runs import RunKind, Runs
from ..store.users import User
from .run_reads import read_run
from .security import csrf_token
from .workbench import page_user

__all__ = ["router"]

router = APIRouter(prefix="/reports", include_in_schema=False)
_TEMPLATES = Path(__file__).parent / "templates"
HEADINGS = {
    None: "Runs in the store",
    "calibrate": "Calibrations",
    "compare": "Judge comparisons",
    "score": "Scoring batches",
    "probe": "Robustness probes",
}


def _fig(figure: Figure | dict[str, Any] | None) -> str:
    """A rate with its 95% interval and n; an undefined one says why (never a number)."""
    if figure is None:
        return "—"
    d = figure.model_dump() if isinstance(figure, Figure) else figure
    if d.get("value") is None:
        return f"undefined ({d.get('undefined_reason')})"
    ci = d.get("ci95")
    text = f"{d['value']:.0%}" + (f" [{ci[0]:.0%}, {ci[1]:.0%}]" if ci else "")
    note = f" ({d['undefined_reason']})" if d.get("undefined_reason") else ""
    return f"{text} (n={d['n']}){note}"


def _kappa(v: float | None) -> str:
    return "undefined" if v is None else f"{v:.2f}"


def _session(request: Request) -> dict[str, str]:
    """The templates' context from the session: its form token, for the header's logout form
    ("" with a bearer)."""
    return {"csrf": csrf_token(request)}


def _templates() -> Jinja2Templates:
    templates = Jinja2Templates(directory=str(_TEMPLATES), context_processors=[_session])
    templates.env.globals.update(css=REPORT_CSS, fig=_fig, kappa=_kappa)
    return templates


@router.get("", response_class=HTMLResponse)
def reports_index(
    request: Request,
    kind: RunKind | None = Query(default=None),  # noqa: B008
    user: User = Depends(page_user("adjudicator")),  # noqa: B008
) -> HTMLResponse:
    runs = [r.json_data() for r in Runs(request.app.state.engine).recent(kind=kind, limit=200)]
    return _templates().TemplateResponse(
        request,
        "reports/index.html",
        {"user": user, "runs": runs, "kind": kind, "heading": HEADINGS.get(kind, "Runs")},
    )


@router.get("/{run_id}", response_class=HTMLResponse)
def report_page(
    run_id: str,
    request: Request,
    user: User = Depends(page_user("adjudicator")),  # noqa: B008
) -> HTMLResponse:
    run = read_run(request, run_id, user)
    report = run.report  # its model; JSON data for a run without one (a batch, an error)
    context: dict[str, Any] = {"user": user, "run": run, "report": report}
    page = "reports/run.html"
    if isinstance(report, CalibrationReport):
        page = "reports/calibrate.html"
        context["parts"] = calibration_sections(report)
    elif isinstance(report, ComparisonReport | ScoreReport) and run.kind in ("compare", "score"):
        page = f"reports/{run.kind}.html"
    elif isinstance(report, ProbeReport):
        page = "reports/probe.html"
        context["text"] = probe_markdown(report)
    else:
        stored = run.json_data()["report"]
        context["report_json"] = json.dumps(stored, indent=2, sort_keys=True, ensure_ascii=False)
    return _templates().TemplateResponse(request, page, context)
