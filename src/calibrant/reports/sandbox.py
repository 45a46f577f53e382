"""What `calibrant sandbox` says when its server is up: how many trials, of which agent, where
(and the token the agent sends), or that it serves MCP on stdio."""

from __future__ import annotations

from typing import Any

__all__ = ["sandbox_banner"]


def sandbox_banner(total: int, label: str, sock: Any, token: str, token_env: str) -> str:
    """One line: the trials served to the agent `label` at the socket `sock` (None: stdio)."""
    if sock is None:
        return f"calibrant sandbox: {total} trial(s) of {label} over MCP on stdio"
    h, p = sock.getsockname()[:2]
    url = f"http://{h if ':' not in h else f'[{h}]'}:{p}"
    return (
        f"calibrant sandbox: {total} trial(s) of {label} at {url}/mcp (MCP) and {url} "
        f"(HTTP, {url}/openapi.json); token {token} (send 'Authorization: Bearer <token>', "
        f"or set {token_env} for the agent)"
    )
