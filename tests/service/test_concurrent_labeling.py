"""20 annotators labeling at once lose no label: 20 threads, each with its own token, post
their labels of the same 10 items at the same moment (and revise some), against the real service
on SQLite and on PostgreSQL; afterwards every label is there, with the value last sent."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.support.labeling import BACKENDS, aliases_of, gold_jsonl, labeling_service
from tests.support.service import Service

ANNOTATORS = 20
ITEMS = [f"gold-{n:03d}" for n in range(70, 80)]
BINARY = [
    "separates_done_from_pending",
    "explains_next_step",
    "no_claim_before_confirmed",
]


@pytest.fixture(params=BACKENDS)
def service(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Service]:
    with labeling_service(request.param, tmp_path_factory.mktemp("conc")) as s:
        yield s


def answers(rater: int, item: int, revision: int = 0) -> list[dict[str, object]]:
    """A different, checkable set of labels for each rater, item and revision."""
    out: list[dict[str, object]] = [
        {"criterion": c, "label": "pass" if (rater + item + k + revision) % 2 else "fail"}
        for k, c in enumerate(BINARY)
    ]
    out.append({"criterion": "reports_access_problem", "label": "cant_tell"})
    out.append({"criterion": "overall_clarity", "label": 1 + (rater + item + revision) % 4})
    return out


def test_twenty_annotators_labeling_at_once_lose_no_label(service: Service) -> None:
    admin = service.client(service.user("conc-admin", "admin"))
    assert admin.post("/api/transcripts", content=gold_jsonl(*range(70, 80))).is_success
    tokens = [service.user(f"conc-{r:02d}", "annotator") for r in range(ANNOTATORS)]
    alias = aliases_of(service, *ITEMS)  # what the experts name the items by
    start = threading.Barrier(ANNOTATORS)
    failures: list[str] = []

    def annotate(rater: int) -> None:
        with service.client(tokens[rater]) as c:
            start.wait()
            for i, item in enumerate(ITEMS):
                body = {"item": alias[item], "labels": answers(rater, i)}
                got = c.post("/api/labels", json=body)
                if got.status_code != 200:
                    failures.append(f"{rater} {item}: {got.status_code} {got.text[:200]}")
            # revise the first item's labels once everyone has been writing for a while
            body = {"item": alias[ITEMS[0]], "labels": answers(rater, 0, 1)}
            got = c.post("/api/labels", json=body)
            if got.status_code != 200:
                failures.append(f"{rater} revision: {got.status_code}")

    threads = [threading.Thread(target=annotate, args=(r,)) for r in range(ANNOTATORS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    assert failures == []
    stored = admin.get("/api/labels").json()
    assert len(stored) == ANNOTATORS * len(ITEMS) * 5
    got = {(x["rater"], x["item"], x["criterion"]): x["label"] for x in stored}
    want = {
        (f"conc-{r:02d}", item, a["criterion"]): a["label"]
        for r in range(ANNOTATORS)
        for i, item in enumerate(ITEMS)
        for a in answers(r, i, 1 if i == 0 else 0)
    }
    assert got == want
    for r in (0, 19):  # and each annotator finished its queue
        with service.client(tokens[r]) as c:
            assert c.get("/api/queues").json() == [
                {"queue": "calibration", "items": 10, "done": 10, "next_item": None}
            ]
