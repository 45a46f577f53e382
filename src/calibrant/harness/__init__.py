"""The domain-neutral harness: repeated trials of one agent over many cases (`run_trials`), the
run folder an interrupted run resumes from, checkpoints, case checks, and what every pack's
trial runner shares (`runner`). Each domain's agents, service and trial come from its pack
(`calibrant.domains.PackRuntime`).

Exports load on first use (see calibrant.lazy): an agent in another process needs the
checkpoints, not the case loader, the store and the trial runner beside them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from calibrant.lazy import lazy_exports

if TYPE_CHECKING:
    from .cases import case_problems, load_runnable_cases
    from .runfolder import MARKER, check_out_folder
    from .runner import HARNESS_VERSION, transcript_filename
    from .trials import TrialRun, run_trials

_HOME = {
    "case_problems": "cases",
    "load_runnable_cases": "cases",
    "MARKER": "runfolder",
    "check_out_folder": "runfolder",
    "HARNESS_VERSION": "runner",
    "transcript_filename": "runner",
    "TrialRun": "trials",
    "run_trials": "trials",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _HOME)

__all__ = [
    "HARNESS_VERSION",
    "MARKER",
    "TrialRun",
    "case_problems",
    "check_out_folder",
    "load_runnable_cases",
    "run_trials",
    "transcript_filename",
]
