"""Claims and answers in batches (`Store.claim_many`, `Store.finish_many`,
`Store.finish_and_claim`: what group commit uses), on a real SQLite file and a real PostgreSQL
server: each key of a batch gets what `claim` alone would give it."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from calibrant.contracts import Judgment
from calibrant.store import Store, make_engine
from tests.store.test_claims_and_migration import CFG, judgment, url  # noqa: F401


def test_a_batch_of_claims_gives_each_item_its_own_answer(url: str) -> None:  # noqa: F811
    store = Store(make_engine(url))
    me = f"{socket.gethostname()}:{os.getpid()}:me"
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    store.put(judgment("sha256:answered"))
    assert store.claim("sha256:mine-answered", CFG.hash, 0, me, 60) is True
    store.put(judgment("sha256:mine-answered"))
    assert store.claim("sha256:held", CFG.hash, 0, "elsewhere:1:b", 60) is True
    assert store.claim("sha256:expired", CFG.hash, 0, "elsewhere:1:b", 0.001) is True
    ended = f"{socket.gethostname()}:{dead.pid}:x"
    assert store.claim("sha256:orphan", CFG.hash, 0, ended, 3600) is True
    keys = [
        ("sha256:free", 0),
        ("sha256:free", 1),  # another sample of the same transcript: its own item
        ("sha256:answered", 0),
        ("sha256:mine-answered", 0),
        ("sha256:held", 0),
        ("sha256:expired", 0),
        ("sha256:orphan", 0),
        ("sha256:free", 0),  # given twice: the same result twice
    ]
    got = store.claim_many(CFG.hash, keys, me, 60)
    assert got[("sha256:free", 0)] is True and got[("sha256:free", 1)] is True
    for answered in ("sha256:answered", "sha256:mine-answered"):
        j = got[(answered, 0)]
        assert isinstance(j, Judgment) and j.transcript_hash == answered
    assert got[("sha256:held", 0)] is False
    assert got[("sha256:expired", 0)] is True
    assert got[("sha256:orphan", 0)] is True
    held = {(c[0], c[2]): c[3] for c in store.claims()}
    assert held == {
        ("sha256:free", 0): me,
        ("sha256:free", 1): me,
        ("sha256:held", 0): "elsewhere:1:b",
        ("sha256:expired", 0): me,
        ("sha256:orphan", 0): me,
    }  # an answered item's claim is dropped, never kept
    assert store.claim_many(CFG.hash, [], me, 60) == {}


def test_a_batch_of_answers_is_stored_and_drops_only_its_owners_claims(
    url: str,  # noqa: F811
) -> None:
    store = Store(make_engine(url))
    me, other = "elsewhere:1:me", "elsewhere:2:other"
    store.claim_many(CFG.hash, [("sha256:a", 0), ("sha256:b", 0)], me, 60)
    store.claim_many(CFG.hash, [("sha256:c", 0)], other, 60)
    first = judgment("sha256:a")
    store.put(first)  # an answer already stored stays the answer
    store.finish_many(
        [
            judgment("sha256:b"),
            judgment("sha256:a").model_copy(update={"latency_ms": 99.0}),
            judgment("sha256:c"),  # stored, but `other` still holds its claim
        ],
        me,
    )
    assert store.get("sha256:a", CFG.hash, 0) == first
    assert {store.get(h, CFG.hash, 0) is not None for h in ("sha256:b", "sha256:c")} == {True}
    assert store.count() == 3
    assert [(c[0], c[3]) for c in store.claims()] == [("sha256:c", other)]
    store.finish_many([], me)
    assert store.count() == 3


def test_answers_and_the_next_claims_go_in_one_transaction_on_sqlite(
    url: str,  # noqa: F811
) -> None:
    from sqlalchemy import event

    store = Store(make_engine(url))
    me = "elsewhere:1:me"
    store.claim_many(CFG.hash, [("sha256:a", 0), ("sha256:b", 0)], me, 60)
    commits: list[int] = []
    event.listen(store.engine, "commit", lambda _conn: commits.append(1))
    got = store.finish_and_claim(
        CFG.hash,
        [judgment("sha256:a"), judgment("sha256:b")],
        [("sha256:c", 0), ("sha256:a", 0)],  # a: answered in this very group
        me,
        60,
    )
    assert got[("sha256:c", 0)] is True
    answered = got[("sha256:a", 0)]
    assert isinstance(answered, Judgment) and answered.transcript_hash == "sha256:a"
    assert store.count() == 2
    assert [(c[0], c[3]) for c in store.claims()] == [("sha256:c", me)]
    # one lock serializes SQLite's writers: one transaction; PostgreSQL locks rows, and one
    # transaction dropping a claim then taking another could deadlock with another process
    assert len(commits) == (1 if store.engine.dialect.name == "sqlite" else 2)
