"""`probe`, written once: the judge's robustness on the gold set (an injection battery and bias
probes); the report is stored as a run of kind "probe" with the judge version."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .common import Hooks, OpResult

if TYPE_CHECKING:
    from ..contracts.reports import ProbeReport  # noqa: F401 (the result's model)
    from ..judge.config import JudgeOptions
    from ..probes import ProbeSettings
    from ..store import Store

__all__ = ["ProbeOptions", "ProbeResult", "probe"]


@dataclass(frozen=True)
class ProbeOptions:
    """The probes of `settings` against the judge `judge` names (or the planted judge
    `planted`), on the gold set at `gold`, split `split` (None: every item)."""

    gold: Path
    judge: JudgeOptions
    settings: ProbeSettings
    split: str | None = "calibration"
    planted: str | None = None


@dataclass(frozen=True)
class ProbeResult(OpResult["ProbeReport"]):
    """The probe run and its report."""

    KIND = "probe"


def probe(store: Store, options: ProbeOptions, hooks: Hooks | None = None) -> ProbeResult:
    """Probe the judge; answers are cached in the store, the run and its report kept there."""
    from ..probes import run_probes
    from .calibrate import gold_in_rubric_domain

    hooks = hooks or Hooks()
    with hooks.progress("probe judgments", None) as progress:
        report = run_probes(
            options.gold,
            split=options.split,
            options=options.judge,
            settings=options.settings,
            store=store,
            planted=options.planted,
            on_start=progress.set_total,
            on_done=lambda cached: progress.advance(cached=cached),
            check=gold_in_rubric_domain,
        )
    return ProbeResult(run_id=str(report.run_id), report=report)
