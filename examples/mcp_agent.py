"""A support agent of your own, in its own process, tested against `calibrant sandbox` over MCP.

It stands for an agent built on any framework: a model behind an OpenAI-compatible endpoint
(vLLM, llama.cpp server, Ollama, ...) calls the tools the sandbox lists over MCP. Its durable
checkpoint is its own: the conversation of each trial, in a JSON file per `session` under
--state, saved after every step. Killed and started again, it resumes from it; a tool call whose
answer it never recorded is told to the model as an unknown outcome, to reconcile by operation id.

    calibrant sandbox cases/timeout_after_payment_commit.yaml --out runs/mine -k 5 &
    # it prints its token at start: pass it with --token, or export CALIBRANT_SANDBOX_TOKEN
    # before starting both (the sandbox then uses that one)
    python examples/mcp_agent.py --mcp http://127.0.0.1:8765/mcp --token TOKEN \\
        --base-url http://127.0.0.1:8080/v1 --model my-model --state runs/mine-state

Needs only the MCP SDK (`pip install 'calibrant[sandbox]'`); the model is called with urllib.
Exit status: 0 when every trial is played, 3 when the sandbox says this process died at a
fault point (restart it, as your supervisor would)."""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import sys
import urllib.request
from pathlib import Path
from typing import Any

VERSION = "example-mcp-agent/1"
MAX_STEPS = 10
CRASHED = 3

INSTRUCTIONS = """\
You are a support agent of an online shop; use the tools. Act only on the authenticated
customer's own orders. Read the refund policy before refunding. Refund once, with operation_id
"op-{ticket_id}-refund"; after a timeout or an unknown outcome call query_refund with that id and
never pay again under a new id. If a write is refused or the payment outcome cannot be known,
escalate the ticket to {escalation_person} (reconciliation "uncertain" when unknown). Confirm a
refund to the customer only once it is committed, then resolve the ticket. Reply briefly:
what is done, what is pending, what happens next.
Customer: {customer_name} ({customer_id}, {customer_email}). Ticket {ticket_id}, order {order_id}.
"""
UNKNOWN = json.dumps(
    {
        "error": "unknown_outcome",
        "message": "this process restarted before the answer was recorded; find out what "
        "happened (e.g. query_refund by operation_id) before doing anything again",
    }
)


class Crashed(Exception):
    """The sandbox says this process died here (a fault of the trial)."""


def chat(base_url: str, model: str, messages: list[Any], tools: list[Any]) -> dict[str, Any]:
    """One chat completion with tools at an OpenAI-compatible endpoint."""
    body = {"model": model, "messages": messages, "tools": tools, "temperature": 0}
    req = urllib.request.Request(
        base_url.rstrip("/") + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {os.environ.get('OPENAI_API_KEY', 'none')}",
        },
    )
    with urllib.request.urlopen(req, timeout=300) as r:
        return dict(json.loads(r.read()))


class Agent:
    def __init__(self, client: Any, args: argparse.Namespace, tools: list[Any]) -> None:
        self.client, self.args, self.tools = client, args, tools
        self.usage = {"model_calls": 0, "input_tokens": 0, "output_tokens": 0}

    async def call(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        res = await self.client.call_tool(name, arguments)
        answer = res.structured_content
        if not isinstance(answer, dict):
            answer = json.loads(res.content[0].text)
        if answer.get("error") == "agent_crashed":
            raise Crashed(answer.get("message"))
        return dict(answer)

    def path(self, session: str) -> Path:
        return Path(self.args.state) / f"{session}.json"

    def save(self, session: str, messages: list[Any]) -> None:
        p = self.path(session)
        tmp = p.with_suffix(".tmp")
        tmp.write_text(json.dumps(messages))
        os.replace(tmp, p)  # atomic: a crash leaves the previous checkpoint

    def load(self, session: str, context: dict[str, Any]) -> list[Any]:
        p = self.path(session)
        if not p.exists():
            return [{"role": "system", "content": INSTRUCTIONS.format(**context)}]
        messages: list[Any] = json.loads(p.read_text())
        last = messages[-1]
        for call in last.get("tool_calls") or []:  # asked, answer never recorded
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": UNKNOWN})
        return messages

    async def answer(self, session: str, messages: list[Any]) -> str:
        """Run the model and its tool calls until it writes a reply."""
        for _ in range(MAX_STEPS):
            resp = chat(self.args.base_url, self.args.model, messages, self.tools)
            usage = resp.get("usage") or {}
            self.usage["model_calls"] += 1
            self.usage["input_tokens"] += int(usage.get("prompt_tokens") or 0)
            self.usage["output_tokens"] += int(usage.get("completion_tokens") or 0)
            msg = resp["choices"][0]["message"]
            msg = {k: v for k, v in msg.items() if k in ("role", "content", "tool_calls")}
            messages.append(msg)
            self.save(session, messages)
            if not msg.get("tool_calls"):
                return str(msg.get("content") or "")
            for call in msg["tool_calls"]:
                fn = call["function"]
                try:
                    args = json.loads(fn.get("arguments") or "{}")
                    result = await self.call(fn["name"], args)
                except json.JSONDecodeError as exc:
                    result = {"error": "invalid_argument", "message": f"not JSON: {exc}"}
                messages.append(
                    {"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result)}
                )
                self.save(session, messages)
        return "I could not finish this now; a colleague will follow up."

    async def play(self) -> int:
        declared = {"agent_model": self.args.model, "agent_version": VERSION}
        declared["instructions_hash"] = hashlib.sha256(INSTRUCTIONS.encode()).hexdigest()
        declared["sampling"] = {"temperature": 0}
        while True:
            start = await self.call("trial_start", declared)
            if start["status"] == "all_finished":
                return 0
            if start["status"] != "running":
                continue
            session, message = start["session"], start["message"]
            messages = self.load(session, start["context"])
            resumed = bool(start.get("resumed"))
            while True:
                users = [m for m in messages if m["role"] == "user"]
                if not (resumed and users and users[-1]["content"] == message):
                    messages.append({"role": "user", "content": message})
                resumed = False
                text = await self.answer(session, messages)
                usage, self.usage = self.usage, dict.fromkeys(self.usage, 0)
                nxt = await self.call("trial_reply", {"text": text, "usage": usage})
                if nxt["status"] != "running":
                    break
                message = nxt["message"]


async def main() -> int:
    import httpx2  # the MCP SDK's HTTP client: it carries the sandbox's token
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    parser = argparse.ArgumentParser(description="An example agent over MCP.")
    parser.add_argument("--mcp", required=True, help="MCP URL of calibrant sandbox.")
    parser.add_argument(
        "--token",
        default=os.environ.get("CALIBRANT_SANDBOX_TOKEN", ""),
        help="The token calibrant sandbox printed at start (default: $CALIBRANT_SANDBOX_TOKEN).",
    )
    parser.add_argument("--base-url", required=True, help="OpenAI-compatible endpoint (/v1).")
    parser.add_argument("--model", required=True)
    parser.add_argument("--state", required=True, help="Folder for this agent's checkpoints.")
    args = parser.parse_args()
    Path(args.state).mkdir(parents=True, exist_ok=True)
    http = httpx2.AsyncClient(
        headers={"Authorization": f"Bearer {args.token}"}, timeout=httpx2.Timeout(30, read=300)
    )
    async with http, Client(streamable_http_client(args.mcp, http_client=http)) as client:
        listed = await client.list_tools()
        tools = [
            {
                "type": "function",
                "function": {
                    "name": t.name,
                    "description": t.description or "",
                    "parameters": t.input_schema,
                },
            }
            for t in listed.tools
            if not t.name.startswith("trial_")  # the conversation channel, not for the model
        ]
        try:
            return await Agent(client, args, tools).play()
        except Crashed:
            return CRASHED


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
