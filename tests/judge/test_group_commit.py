"""Group commit (`calibrant.judge.groupcommit`): answers that arrive together are committed
together, and a concurrency slot is reused only once its answer is committed. A real SQLite
store whose answer commits the test holds back, against a real endpoint (on a thread of the test
process) that counts requests per item."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from calibrant.contracts import Judgment
from calibrant.files import load_transcript
from calibrant.judge.config import JudgeOptions, resolve_judge
from calibrant.judge.groupcommit import StoreWriter
from calibrant.judge.runner import JudgeRun, judge_transcripts
from calibrant.store import Store, make_engine
from tests.conftest import ROOT
from tests.store.test_claims_and_migration import CFG, judgment
from tests.support.clock import virtual_time
from tests.support.counting_endpoint import CountingEndpoint, make_items

SRC = ROOT / "examples" / "transcripts" / "good-eligible.json"


class HeldStore(Store):
    """A real store whose answer commits wait until the test lets them go."""

    def __init__(self, url: str) -> None:
        super().__init__(make_engine(url))
        self.go = threading.Event()
        self.groups: list[int] = []  # answers per transaction, in order

    def finish_and_claim(
        self,
        judge_hash: str,
        judgments: Sequence[Judgment],
        keys: Sequence[tuple[str, int]],
        owner: str,
        lease_s: float,
    ) -> dict[tuple[str, int], Judgment | bool]:
        if judgments:
            assert self.go.wait(120)
            self.groups.append(len(judgments))
        return super().finish_and_claim(judge_hash, judgments, keys, owner, lease_s)


def _requests(endpoint: CountingEndpoint) -> int:
    return sum(endpoint.counts()["requests"].values())


def test_a_slot_is_reused_only_once_its_answer_is_committed(tmp_path: Path) -> None:
    names = make_items(SRC, tmp_path / "items", 12)
    transcripts = [load_transcript(tmp_path / "items" / f"{n}.json") for n in names]
    store = HeldStore(f"sqlite:///{tmp_path / 'store.db'}")
    got: dict[str, Any] = {}
    with CountingEndpoint(latency_s=0.05, in_thread=True) as endpoint:
        config, rubric, policy, _ = resolve_judge(
            JudgeOptions(model="openai/count", api_base=endpoint.url)
        )

        def run() -> None:
            got["run"] = judge_transcripts(
                transcripts,
                rubric=rubric,
                config=config,
                store=store,
                concurrency=3,
                policy=policy,
            )

        worker = threading.Thread(target=run)
        worker.start()
        deadline = time.monotonic() + 120
        while sum(endpoint.counts()["answered"].values()) < 3:
            assert worker.is_alive() and time.monotonic() < deadline
            time.sleep(0.05)
        time.sleep(1.0)  # answers are in, their commit is held: every slot stays taken
        assert _requests(endpoint) == 3
        assert store.count() == 0
        store.go.set()
        worker.join(120)
        counts = endpoint.counts()["requests"]
    run: JudgeRun = got["run"]
    assert run.outcomes() == {"verdict": 12} and run.model_calls == 12
    assert set(counts) == set(names) and set(counts.values()) == {1}
    assert store.count() == 12 and store.claims() == []
    # the three answers that waited for the held commit went in at most two transactions
    assert sum(store.groups[:2]) >= 3, store.groups
    assert sum(store.groups) == 12


def test_an_answer_waits_for_the_calls_started_with_it_and_no_longer(tmp_path: Path) -> None:
    """Three calls of one wave land 40 ms apart: one transaction. A call of the next wave that
    lands long after its wave-mate (beyond a tenth of its latency here) is not waited for. On
    virtual time (tests/support/clock.py): the spacing and the linger deadline are exact, and
    nothing waits for them."""
    store = HeldStore(f"sqlite:///{tmp_path / 'store.db'}")
    store.go.set()
    owner = "elsewhere:1:me"

    async def scenario() -> StoreWriter:
        writer = StoreWriter(store, CFG.hash, owner, 60, linger_s=0.2, linger_share=0.1, group=10)
        keys = [(f"sha256:{k}", 0) for k in "abcde"]
        assert await asyncio.gather(*(writer.claim(*key) for key in keys)) == [True] * 5

        async def call(name: str, wave: int, after_s: float) -> None:
            await asyncio.sleep(after_s)
            writer.landed(wave)
            j = judgment(f"sha256:{name}").model_copy(update={"latency_ms": 1000.0})
            await writer.finish(j, wave)

        first = [writer.launch() for _ in range(3)]
        landing = [call(n, w, 0.04 * i) for i, (n, w) in enumerate(zip("abc", first, strict=True))]
        await asyncio.gather(*landing)
        second = [writer.launch() for _ in range(2)]
        assert second == [1, 1]  # started after the first wave's commit: the next wave
        await asyncio.gather(call("d", 1, 0.0), call("e", 1, 0.5))
        await writer.close()
        return writer

    writer = virtual_time(scenario())
    assert store.groups == [3, 1, 1]  # the first wave together; the straggler not waited for
    assert writer.wave == 3 and store.count() == 5 and store.claims() == []
