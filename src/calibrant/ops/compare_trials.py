"""`compare-trials`, written once: two agent runs (`calibrant trials --out` folders) compared
trial by trial — every figure's paired difference with a 95% interval over cases, better/worse
decided over all figures at once (Holm), and the cases that regressed; stored as a run."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import CalibrantError
from .common import OpResult, record_finished

if TYPE_CHECKING:
    from ..contracts.reports import TrialsReport  # noqa: F401 (the result's model)
    from ..store import Store

__all__ = ["CompareTrialsOptions", "CompareTrialsResult", "compare_trials", "load_run"]


@dataclass(frozen=True)
class CompareTrialsOptions:
    """Run B (the candidate) against run A; `min_cases`: no better/worse on fewer cases."""

    run_a: Path
    run_b: Path
    seed: int = 0
    min_cases: int | None = None


@dataclass(frozen=True)
class CompareTrialsResult(OpResult["TrialsReport"]):
    """The compare-trials run and its report."""

    KIND = "trials"


def load_run(folder: Path, option: str) -> list[Any]:
    """Every transcript of a trials --out folder, with its safety verdict, as TrialFacts."""
    from ..compare.trials import facts
    from ..files import load_transcript
    from ..harness.runfolder import MARKER
    from ..paths import expand_paths
    from ..safety import check_transcript

    if not folder.is_dir():
        raise CalibrantError(f"{option} {folder}: not a folder (give a `calibrant trials --out`)")
    if (folder / MARKER).exists():
        raise CalibrantError(
            f"{option} {folder}: this trials run did not finish ({MARKER} is there); resume it "
            "with the same `calibrant trials` command before comparing"
        )
    files = expand_paths([folder], suffixes=(".json",))
    out = []
    for f in files:
        if Path(f).name.startswith((".", "_")):
            continue  # markers and scratch, not transcripts
        t = load_transcript(f)
        out.append(facts(t, check_transcript(t, source=str(f))))
    if not out:
        raise CalibrantError(f"{option} {folder}: no transcript (*.json) in it")
    return out


def compare_trials(store: Store, options: CompareTrialsOptions) -> CompareTrialsResult:
    """Compare the two runs (no model call) and store the comparison as a run."""
    from ..compare.trials import PairingError
    from ..compare.trials import compare_trials as compare_facts

    run_a, run_b = options.run_a, options.run_b
    facts_a = load_run(run_a, "RUN_A")
    facts_b = load_run(run_b, "RUN_B")
    try:
        extra = {} if options.min_cases is None else {"min_cases": options.min_cases}
        report = compare_facts(facts_a, facts_b, seed=options.seed, **extra)
    except PairingError as exc:
        raise CalibrantError(f"compare-trials {run_a} {run_b}: {exc}") from None
    report.runs = {"a": str(run_a), "b": str(run_b)}
    report.run_id = record_finished(
        store,
        "compare-trials",
        report.json_data(),
        arguments={"a": str(run_a), "b": str(run_b), "min_cases": report.min_cases},
        seed=options.seed,
    )
    return CompareTrialsResult(run_id=report.run_id, report=report)
