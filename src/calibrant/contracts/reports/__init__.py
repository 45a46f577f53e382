"""The reports calibrant produces, as pydantic models: calibration, score, comparison (`compare`,
judge B against judge A), trials (`compare-trials`, agent run B against run A), probe, check,
stability, judge, domains (`domains list`: the installed domain packs), audit (an audit sample
after release), agreement-over-time and monitor (drift after release), and the trial report
(`trials`, `sandbox`: an agent run's trials over cases). Each report has one
schema version (the ``*_SCHEMA_VERSION`` constants, which its producer writes) and a JSON Schema
under docs/schemas/ (`schemas()`).

Every part of a report is a model and strict (unknown fields are rejected), the statistics a
report quotes from the agreement library too (`stats`: an estimate with its interval and, when
either is undefined, its reason; a gate decision; the judge-against-experts comparison; a
label's rates). The judge configuration alone keeps the fields it was written with (each a plain
value), so that a report of a judge configured by another calibrant version still loads.

Reports stored by earlier calibrant versions (run summaries in the store, report.json files)
keep loading: `load_report(kind, data)` upgrades what can be upgraded and validates; a figure an
older version did not record stays unset (a reader says it is missing, never guesses it), and
`schema_version` keeps the version the report was written with."""

from .agreement_parts import (
    AGREEMENT_SCHEMA_VERSION,
    Abstention,
    AgreeCriterion,
    AgreeReport,
    Familywise,
    PairwiseCriterion,
    RaterApplicability,
    RaterPair,
)
from .audit import (
    AGREEMENT_OVER_TIME_SCHEMA_VERSION,
    AUDIT_SCHEMA_VERSION,
    AgreementOverTimeReport,
    AuditReport,
)
from .base import Figure, Report, ReportVersionError, RubricRef
from .calibration import CALIBRATION_SCHEMA_VERSION, CalibrationCriterion, CalibrationReport
from .check import CHECK_SCHEMA_VERSION, JUDGE_SCHEMA_VERSION, CheckReport, JudgeReport
from .compare import (
    COMPARISON_SCHEMA_VERSION,
    TRIALS_SCHEMA_VERSION,
    ComparisonCriterion,
    ComparisonReport,
    TrialFigure,
    TrialsReport,
)
from .domains import DOMAINS_SCHEMA_VERSION, DomainEntry, DomainsReport
from .load import (
    REPORT_MODELS,
    RUN_REPORTS,
    AnyReport,
    ReportKind,
    load_report,
    report_for_run,
    schema_files,
    schemas,
)
from .monitor import MONITOR_SCHEMA_VERSION, MonitorReport
from .probe import PROBE_SCHEMA_VERSION, STABILITY_SCHEMA_VERSION, ProbeReport, StabilityReport
from .proposal import ItemCount, ProposalRow, Proposals
from .score import SCORE_SCHEMA_VERSION, ScoreCriterion, ScoreReport
from .score_parts import (
    BatchSummary,
    IngestCounts,
    JudgeStreamSummary,
    SafetySummary,
    ScoredTranscript,
)
from .stats import (
    Applicability,
    CriterionGate,
    Estimate,
    GateComparison,
    PairEstimate,
    PerLabel,
    RaterEstimate,
)
from .trial_parts import (
    TRIAL_RUN_SCHEMA_VERSION,
    PairedFigures,
    PassAtK,
    TrialCase,
    TrialProvenance,
    TrialRunReport,
)

__all__ = [
    "CALIBRATION_SCHEMA_VERSION",
    "SCORE_SCHEMA_VERSION",
    "COMPARISON_SCHEMA_VERSION",
    "TRIALS_SCHEMA_VERSION",
    "PROBE_SCHEMA_VERSION",
    "CHECK_SCHEMA_VERSION",
    "STABILITY_SCHEMA_VERSION",
    "JUDGE_SCHEMA_VERSION",
    "DOMAINS_SCHEMA_VERSION",
    "AUDIT_SCHEMA_VERSION",
    "AGREEMENT_OVER_TIME_SCHEMA_VERSION",
    "AGREEMENT_SCHEMA_VERSION",
    "MONITOR_SCHEMA_VERSION",
    "MonitorReport",
    "AuditReport",
    "AgreementOverTimeReport",
    "AnyReport",
    "REPORT_MODELS",
    "RUN_REPORTS",
    "ReportKind",
    "Report",
    "ReportVersionError",
    "CalibrationReport",
    "CalibrationCriterion",
    "ScoreReport",
    "ScoreCriterion",
    "ComparisonReport",
    "ComparisonCriterion",
    "TrialsReport",
    "TrialFigure",
    "ProbeReport",
    "CheckReport",
    "StabilityReport",
    "JudgeReport",
    "DomainsReport",
    "DomainEntry",
    "Figure",
    "Estimate",
    "RaterEstimate",
    "PairEstimate",
    "GateComparison",
    "CriterionGate",
    "PerLabel",
    "Applicability",
    "RubricRef",
    "load_report",
    "report_for_run",
    "schemas",
    "schema_files",
    "ScoredTranscript",
    "SafetySummary",
    "JudgeStreamSummary",
    "BatchSummary",
    "IngestCounts",
    "TRIAL_RUN_SCHEMA_VERSION",
    "PairedFigures",
    "PassAtK",
    "TrialCase",
    "TrialProvenance",
    "TrialRunReport",
    "Proposals",
    "ProposalRow",
    "ItemCount",
    "Familywise",
    "RaterPair",
    "PairwiseCriterion",
    "RaterApplicability",
    "AgreeCriterion",
    "AgreeReport",
    "Abstention",
]
