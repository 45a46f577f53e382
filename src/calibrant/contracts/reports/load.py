"""Reading and checking reports by kind: `load_report` (stored reports, whatever calibrant
version wrote them), the report of a stored run, and the
JSON Schemas published under docs/schemas/."""

from __future__ import annotations

import json
from typing import Any, Literal

from .agreement_parts import AgreeReport
from .audit import AgreementOverTimeReport, AuditReport
from .base import Report, ReportVersionError
from .calibration import CalibrationReport
from .check import CheckReport, JudgeReport
from .compare import ComparisonReport, TrialsReport
from .domains import DomainsReport
from .monitor import MonitorReport
from .probe import ProbeReport, StabilityReport
from .score import ScoreReport
from .trial_parts import TrialRunReport

__all__ = [
    "AnyReport",
    "REPORT_MODELS",
    "RUN_REPORTS",
    "ReportKind",
    "load_report",
    "report_for_run",
    "schemas",
    "schema_files",
]

ReportKind = Literal[
    "calibration",
    "score",
    "comparison",
    "trials",
    "probe",
    "check",
    "stability",
    "judge",
    "domains",
    "audit",
    "agreement-over-time",
    "monitor",
    "trial-run",
    "agreement",
]
AnyReport = (
    CalibrationReport
    | ScoreReport
    | ComparisonReport
    | TrialsReport
    | ProbeReport
    | CheckReport
    | StabilityReport
    | JudgeReport
    | DomainsReport
    | AuditReport
    | AgreementOverTimeReport
    | MonitorReport
    | TrialRunReport
    | AgreeReport
)
REPORT_MODELS: dict[str, type[Report]] = {
    m.KIND: m
    for m in (
        CalibrationReport,
        ScoreReport,
        ComparisonReport,
        TrialsReport,
        ProbeReport,
        CheckReport,
        StabilityReport,
        JudgeReport,
        DomainsReport,
        AuditReport,
        AgreementOverTimeReport,
        MonitorReport,
        TrialRunReport,
        AgreeReport,
    )
}
# The run kinds of the store (store.runs.RUN_KINDS) whose summary is a report of a kind here
# (a provider batch's summary is not a report).
RUN_REPORTS: dict[str, str] = {
    "calibrate": "calibration",
    "score": "score",
    "compare": "comparison",
    "compare-trials": "trials",
    "probe": "probe",
    "stability": "stability",
    "judge": "judge",
    "audit": "audit",
}


def load_report(kind: str, data: dict[str, Any]) -> Report:
    """A report of `kind` (a key of REPORT_MODELS) from its JSON data, whatever calibrant version
    wrote it (see `Report`); a newer version than this calibrant knows raises
    ReportVersionError, a report that does not match its model pydantic's ValidationError."""
    model = REPORT_MODELS[kind]
    why = model.version_error(data.get("schema_version", 1))
    if why:
        raise ReportVersionError(why)
    return model.model_validate(data)


def report_for_run(run_kind: str, data: dict[str, Any] | None) -> Report | None:
    """The stored summary of a run of `run_kind` (store.runs.RUN_KINDS) as its report model;
    None when the run has no summary, its kind has no report model or it recorded an error."""
    kind = RUN_REPORTS.get(run_kind)
    if data is None or kind is None or "error" in data:
        return None
    return load_report(kind, data)


def schemas() -> dict[str, dict[str, Any]]:
    """The JSON Schema of each report (what docs/schemas/<kind>.schema.json holds)."""
    out = {}
    for kind, model in REPORT_MODELS.items():
        schema = model.model_json_schema(mode="serialization")
        schema["$id"] = f"https://calibrant.dev/schemas/{kind}.schema.json"
        schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
        out[kind] = schema
    return out


def schema_files() -> dict[str, str]:
    """docs/schemas/'s files: name -> text (sorted keys, two-space indent, final newline)."""
    return {
        f"{kind}.schema.json": json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False)
        + "\n"
        for kind, schema in schemas().items()
    }
