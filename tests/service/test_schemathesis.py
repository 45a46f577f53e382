"""The whole OpenAPI schema of the service (the application in this process, reached through
its ASGI interface; SQLite and PostgreSQL) fuzzed by schemathesis with an admin token: no route
answers 500, whatever it is sent. Every route in /openapi.json is covered, including those added
later. Slow tier: about 4,000 calls per store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.specs.openapi.checks import response_schema_conformance

from tests.conftest import ROOT
from tests.support.pg import BACKENDS, fresh_schema
from tests.support.service import AppService, Service, app_service

pytestmark = pytest.mark.slow

EXAMPLES = 40  # per operation and mode
RUBRIC = ROOT / "rubrics" / "refund_communication.yaml"


@pytest.fixture(scope="module", params=BACKENDS)
def fuzzed(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Service, str]]:
    work: Path = tmp_path_factory.mktemp("fuzz")

    def seeded(s: Service) -> tuple[Service, str]:
        token = s.user("root", "admin")
        with s.client(token) as admin:  # something to find: a rubric and a judge version
            admin.post("/api/rubrics", content=RUBRIC.read_text())
            body = f"model: openai/x\napi_base: http://127.0.0.1:9/v1\nrubric: {RUBRIC}\n"
            admin.post("/api/judges", params={"name": "x"}, content=body)
        return s, token

    if request.param == "sqlite":
        with app_service(f"sqlite:///{work / 'store.db'}") as s:
            yield seeded(s)
        return
    with fresh_schema() as url, app_service(url) as s:
        yield seeded(s)


def _fuzz(operation: Any, mode: GenerationMode, headers: dict[str, str]) -> list[str]:
    """Up to EXAMPLES calls of one operation in one mode; the 5xx answers and the successful
    answers that do not match the operation's response schema, described."""
    failures: list[str] = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
        database=None,
    )
    def fuzz(case: schemathesis.Case) -> None:
        try:
            response = case.call(headers=headers)
        except Exception as exc:  # in process, an unhandled error is raised, not answered 500
            failures.append(
                f"{case.method} {case.formatted_path} ({mode.value}): raised "
                f"{type(exc).__name__}: {str(exc)[:200]} (a served process answers 500)"
            )
            return
        if response.status_code >= 500:
            failures.append(
                f"{case.method} {case.formatted_path} ({mode.value}): "
                f"{response.status_code} {response.text[:200]}"
            )
        elif response.status_code < 300:  # typed answers: each must match its schema
            try:
                case.validate_response(response, checks=[response_schema_conformance])
            except (Failure, FailureGroup) as exc:
                failures.append(
                    f"{case.method} {case.formatted_path} ({mode.value}): the answer does not "
                    f"match its schema: {str(exc)[:1500]}"
                )

    try:
        fuzz()
    except Unsatisfiable:  # no invalid input exists (an operation without inputs)
        assert mode is GenerationMode.NEGATIVE, operation.label
    return failures


def test_no_route_answers_500(fuzzed: tuple[Service, str]) -> None:
    """Every operation of the schema, valid and invalid inputs (schemathesis's positive and
    negative modes), with an admin token: no 5xx, and every successful answer matches the
    response schema the operation publishes. (The schema is walked here rather than through
    `schemathesis.pytest`, whose lazy loader does not run on pytest 9.)"""
    service, token = fuzzed
    assert isinstance(service, AppService)
    schema = schemathesis.openapi.from_asgi("/openapi.json", service.app)
    headers = {"Authorization": f"Bearer {token}"}
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 11  # the service's own routes at least
    failures = [
        failure
        for operation in operations
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
        for failure in _fuzz(operation, mode, headers)
    ]
    assert not failures, "\n".join(failures[:20])
