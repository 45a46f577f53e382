"""Values PostgreSQL cannot store (a NUL character in a query or a body) are the request's
fault: 422 with a sentence, never a 500."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.pg import fresh_schema
from tests.support.service import Service, running_service


@pytest.fixture(scope="module")
def service(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Service]:
    work = tmp_path_factory.mktemp("svc")
    with fresh_schema() as url, running_service(url, work) as s:
        yield s


def test_a_nul_character_is_refused_with_422_not_500(service: Service) -> None:
    admin = service.user("root-admin", "admin")
    with service.client(admin) as c:
        for path in ("/api/labels?item=%00", "/api/disagreements?item=a%00b"):
            got = c.get(path)
            assert got.status_code == 422, (path, got.status_code, got.text)
            assert "cannot hold" in got.json()["detail"]
        fine = c.get("/api/labels?item=gold-001")  # the same route with a normal value
        assert fine.status_code == 200
