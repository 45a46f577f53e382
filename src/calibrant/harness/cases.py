"""Cases a trial can actually run: each case must fit its domain's world (its pack's runtime
says how: `PackRuntime.case_problems`) and its faults must name real tools. Checked for every
case before any trial runs; each problem is one line naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..contracts import CaseContract
from ..domains import UnknownDomain, same_domain
from ..domains import runtime as domain_runtime
from ..files import field_error, load_case

__all__ = [
    "case_problems",
    "fault_tool_problems",
    "load_runnable_cases",
]

Loc = tuple[int | str, ...]


UNCONFIRMED = (
    "not filled: a person must confirm the expected outcome before trials run this case "
    "(it was drafted from a transcript; the comments above it say what was observed)"
)


def case_problems(case: CaseContract, *, confirmed: bool = True) -> list[tuple[Loc, str]]:
    """(location, message) of every inconsistency between the case and the dataset; with
    `confirmed`, a case whose expected outcome is not filled yet is one too (trials refuse it)."""
    if confirmed and case.expected is None:
        return [(("expected",), UNCONFIRMED)]
    try:
        runtime = domain_runtime(case.domain)
    except UnknownDomain as exc:
        return [(("domain",), str(exc))]
    return [(tuple(loc), message) for loc, message in runtime.case_problems(case)]


def fault_tool_problems(case: CaseContract, tools: Sequence[str]) -> list[tuple[Loc, str]]:
    """Faults scheduled on a tool the domain's service does not have (they would never fire):
    any pack's `case_problems` can use it with its own tools."""
    return [
        (
            ("faults", i, "on_tool"),
            f"no tool named {fault.on_tool}, so the fault would never fire; "
            f"tools: {', '.join(tools)}",
        )
        for i, fault in enumerate(case.faults)
        if fault.on_tool not in tools
    ]


def load_runnable_cases(files: Iterable[Path]) -> list[CaseContract]:
    """Every case file, parsed and checked against its domain's world (its pack's
    `case_problems`); one case id per file, one domain for all. The
    first problem found raises an InputError naming file, line and field."""
    cases: list[CaseContract] = []
    seen: dict[str, Path] = {}
    for path in files:
        case = load_case(path)
        if cases:
            first = cases[0]
            of = str(seen[first.case])
            same_domain(path, case.domain, expected=first.domain, expected_from=of)
        problems = case_problems(case)
        if problems:
            loc, message = problems[0]
            raise field_error(path, loc, message)
        if case.case in seen:
            raise field_error(
                path,
                ("case",),
                f"case id {case.case} is also the id of {seen[case.case]}; trials of both would "
                "write the same transcript files",
            )
        seen[case.case] = path
        cases.append(case)
    return cases
