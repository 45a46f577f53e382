"""tau-bench and tau2-bench trajectory files, as the benchmarks publish them -> parsed traces.

tau-bench (`historical_trajectories/*.json`, and what its `run.py` writes): a JSON list of
records `{task_id, trial, reward, info, traj}`, `traj` the Chat Completions messages. tau2-bench
(its results files): an object whose `simulations` list holds `{task_id, trial, messages,
reward_info: {reward}}`, its messages with `tool_calls: [{id, name, arguments}]` and tool
messages that name the call they answer in `id`. A `.jsonl` file holds one record per line.

Each record is one trace, read as a chat conversation (`chat.py`: reused ids, named tool
messages and text beside a tool call are handled there): its id `task<task_id>-trial<trial>`,
its case id `task<task_id>` (the attribute `calibrant.case`; `--case-map` can name another),
its trial number the benchmark's trial plus one (tau-bench counts from 0, calibrant from 1),
and the benchmark's reward kept in the transcript's provenance (`benchmark_reward`)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from .chat import conversation
from .locate import Loc, Locator, read_documents
from .model import ATTR_CASE, ParsedTrace

__all__ = ["parse_tau", "case_id_of", "trace_id_of"]

_NOT_ID = re.compile(r"[^A-Za-z0-9_.\-]+")

TAU2_TOOL_IDS = (
    "tau2-bench messages: each tool call's {id, name, arguments} read as a Chat Completions "
    "call, and each tool message's id as the call it answers (tool_call_id)"
)
USER_TOOLS = (
    "tool calls the benchmark's simulated user made (requestor user) and their answers were "
    "left out: they are the customer's own device, not the agent's tools"
)
NO_TRIAL = "the record names no trial: it was taken as trial 0 (calibrant's trial 1)"


def case_id_of(task_id: object) -> str:
    """The case id a benchmark task gets: `task<task_id>` (characters an id cannot hold as _)."""
    return "task" + _NOT_ID.sub("_", str(task_id))


def trace_id_of(task_id: object, trial: int) -> str:
    """The trace id of one trial of a task: `task<task_id>-trial<trial>` (the benchmark's
    trial, from 0)."""
    return f"{case_id_of(task_id)}-trial{trial}"


@dataclass(frozen=True)
class _Within(Locator):
    """Errors about one record of a trajectory file: its place in the file, and its messages
    under the key the benchmark uses (traj or messages)."""

    prefix: Loc = ()
    key: str = "messages"

    def error(self, loc: Loc, message: str, do: str | None = None) -> InputError:
        if loc and loc[0] == "messages":
            loc = (self.key, *loc[1:])
        full = (*self.prefix, *loc)
        return super().error(full, message) if do is None else super().error(full, message, do)

    @property
    def where(self) -> str:
        at = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in self.prefix)
        return f"{super().where} {at}".rstrip() if at else super().where


def parse_tau(path: Path) -> list[ParsedTrace]:
    """Every trajectory in `path`, in order."""
    out: list[ParsedTrace] = []
    for loc, doc in read_documents(path):
        records, base = _records(loc, doc)
        for i, record in enumerate(records):
            out.append(_trace(loc, (*base, i) if base is not None else (), record))
    return out


def _records(loc: Locator, doc: Any) -> tuple[list[Any], Loc | None]:
    """The records of one document: tau-bench's list, tau2-bench's `simulations`, or (a
    .jsonl line) one record."""
    if isinstance(doc, list):
        return doc, ()
    if isinstance(doc, dict) and "simulations" in doc:
        sims = doc["simulations"]
        if not isinstance(sims, list):
            raise loc.error(
                ("simulations",), "must be a list of simulations", "give the file as tau2 wrote it"
            )
        return sims, ("simulations",)
    if isinstance(doc, dict) and loc.line is not None:
        return [doc], None
    raise loc.error(
        (),
        "a trajectory file is a list of {task_id, trial, reward, traj} records (tau-bench) or "
        "an object with simulations (tau2-bench)",
        "give the benchmark's file as it was written (a .jsonl file: one record per line)",
    )


def _trace(loc: Locator, at: Loc, record: Any) -> ParsedTrace:
    if not isinstance(record, dict):
        raise loc.error(at, "a trajectory is an object with task_id and traj (or messages)")
    key = "traj" if "traj" in record else "messages"
    here = _Within(loc.path, loc.line, prefix=at, key=key)
    task_id = record.get("task_id")
    if not isinstance(task_id, int | str) or isinstance(task_id, bool) or task_id == "":
        raise here.error(
            ("task_id",),
            "required: the benchmark's task id (a number or a string)",
            "give each trajectory the task_id the benchmark wrote",
        )
    trial = record.get("trial")
    if trial is not None and (not isinstance(trial, int) or isinstance(trial, bool) or trial < 0):
        raise here.error(
            ("trial",),
            f"must be a whole number >= 0 (got {json.dumps(trial)})",
            "give the benchmark's trial number (from 0), or leave it out",
        )
    reward = _reward(here, record)
    messages = record.get(key)
    if not isinstance(messages, list):
        raise here.error(
            (key,),
            "required: the conversation's messages (traj in tau-bench, messages in tau2-bench)",
            "give the trajectory as the benchmark wrote it",
        )
    tau2 = _is_tau2(messages)
    skipped = 0
    if tau2:
        messages, skipped = _chat_messages(messages)
    number = 0 if trial is None else trial
    doc = {
        "id": trace_id_of(task_id, number),
        "messages": messages,
        "metadata": {ATTR_CASE: case_id_of(task_id)},
    }
    trace = conversation(here, doc, jsonl=False)
    trace.trial = number + 1
    trace.reward = reward
    if trial is None:
        trace.assume(NO_TRIAL)
    if tau2:
        trace.assume(TAU2_TOOL_IDS)
    if skipped:
        trace.assume(USER_TOOLS, skipped)
    return trace


def _reward(here: Locator, record: dict[str, Any]) -> float | None:
    """tau-bench's `reward`, or tau2-bench's `reward_info.reward`; absent: None."""
    at: Loc = ("reward",)
    value = record.get("reward")
    info = record.get("reward_info")
    if value is None and isinstance(info, dict):
        at, value = ("reward_info", "reward"), info.get("reward")
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise here.error(
            at, f"must be a number (got {json.dumps(value)})", "give the benchmark's reward"
        )
    return float(value)


def _is_tau2(messages: list[Any]) -> bool:
    """tau2-bench's message form: tool calls with a top-level `name`, tool messages with `id`
    and no `tool_call_id`."""
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "tool" and "tool_call_id" not in m and "id" in m:
            return True
        for c in m.get("tool_calls") or []:
            if isinstance(c, dict) and "function" not in c and "name" in c:
                return True
    return False


def _chat_messages(messages: list[Any]) -> tuple[list[Any], int]:
    """tau2-bench messages as Chat Completions messages. The simulated user's tool calls and
    their answers (tau2's telecom domain) are dropped, and counted."""
    out: list[Any] = []
    skipped = 0
    user_calls: set[str] = set()
    for m in messages:
        if not isinstance(m, dict):
            out.append(m)
            continue
        m = dict(m)
        calls = m.get("tool_calls")
        if isinstance(calls, list):
            if m.get("role") == "user":
                user_calls |= {str(c["id"]) for c in calls if isinstance(c, dict) and c.get("id")}
                skipped += len(calls)
                m.pop("tool_calls")
            else:
                m["tool_calls"] = [_call(c) for c in calls]
        if m.get("role") == "tool":
            if m.get("requestor") == "user" or str(m.get("id")) in user_calls:
                continue
            if "tool_call_id" not in m:
                m["tool_call_id"] = m.pop("id", None)
        out.append(m)
    return out, skipped


def _call(c: Any) -> Any:
    if not isinstance(c, dict) or "function" in c:
        return c
    return {
        "id": c.get("id"),
        "type": "function",
        "function": {"name": c.get("name"), "arguments": c.get("arguments")},
    }
