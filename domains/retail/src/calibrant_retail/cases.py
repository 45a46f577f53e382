"""The retail pack's cases are calibrant `CaseContract`s of domain `retail`: their fixture is a
`DomainFixture` of the tenant `shop` whose `params` this module's `Fixture` reads (the pack's
`case_fixture`); their acceptable end states are `DomainOutcome`s (records by kind, records
created per kind), with no params of the pack's own. calibrant's loader validates both against
the pack, so a bad case file is one line naming the file, the line and the field."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from calibrant.contracts.common import Contract, Id
from calibrant.pack import CaseContract, DomainFixture, load_case

from .records import OrderStatus

__all__ = ["CASES", "Fixture", "fixture_of", "load_cases"]

CASES = Path(__file__).parent / "data" / "cases"


class Fixture(Contract):
    """The shop a case starts from (`fixture.params` of a retail case): the pack's subset of
    the benchmark's database, each order in `order_status` set to that status first (order
    ids without `#`), and whether the service itself refuses an action the order's status does
    not allow (`status_guard`; false: a backend that leaves the status rules to the agent)."""

    status_guard: bool = True
    order_status: dict[Id, OrderStatus] = {}


def fixture_of(case: CaseContract) -> tuple[str, Fixture]:
    """The acting tenant and the pack's fixture settings of a retail case."""
    fx = case.fixture
    if not isinstance(fx, DomainFixture):
        raise ValueError(f"case '{case.case}' is domain '{case.domain}', not a retail case")
    return fx.tenant, Fixture.model_validate(fx.params)


def load_cases(files: Iterable[Path] | None = None) -> list[CaseContract]:
    """The pack's cases (or `files`), read by calibrant's case loader."""
    paths = sorted(CASES.glob("*.yaml")) if files is None else list(files)
    return [load_case(p) for p in paths]
