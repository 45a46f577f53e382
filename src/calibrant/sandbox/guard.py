"""Who may drive the sandbox over HTTP: every request to /mcp, /tools/* and /trial/* passes the
MCP SDK's own Host and Origin checks (the same settings object for all three, so a web page in
the user's browser, or a DNS-rebound name, is refused alike), a POST must be JSON, and it must
carry the sandbox's token (`Authorization: Bearer <token>`), printed when the sandbox starts.

The token is not a user account: it only proves the caller read the sandbox's start line (or
chose the token with CALIBRANT_SANDBOX_TOKEN). `/openapi.json` stays open to GET: it holds no
trial data."""

from __future__ import annotations

import hmac
import json
import secrets
from typing import TYPE_CHECKING, Any

from ..settings import get_settings

if TYPE_CHECKING:
    from mcp.server.transport_security import TransportSecuritySettings

__all__ = ["TOKEN_ENV", "new_token", "security_settings", "TokenGate"]

TOKEN_ENV = "CALIBRANT_SANDBOX_TOKEN"
_LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def new_token() -> str:
    """The sandbox's token: CALIBRANT_SANDBOX_TOKEN when set, else a fresh random one."""
    return get_settings().sandbox_token or "sbx_" + secrets.token_urlsafe(24)


def security_settings(host: str) -> TransportSecuritySettings:
    """Host and Origin checks for a server bound to `host`: the loopback names always, and the
    bound address itself when it is another one (never any host: 0.0.0.0 is not a name)."""
    from mcp.server.transport_security import TransportSecuritySettings

    names = list(_LOOPBACK)
    bound = f"[{host}]" if ":" in host else host
    if bound not in names and host not in ("0.0.0.0", "::"):
        names.append(bound)
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{n}:*" for n in names],
        allowed_origins=[f"http://{n}:*" for n in names],
    )


class TokenGate:
    """ASGI middleware: a request to anything but `GET /openapi.json` without the sandbox's
    bearer token gets 401 (the body says how to send it)."""

    def __init__(self, app: Any, token: str) -> None:
        self.app = app
        self._token = token.encode()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or (
            scope.get("path") == "/openapi.json" and scope.get("method") in ("GET", "HEAD")
        ):
            await self.app(scope, receive, send)
            return
        header = dict(scope.get("headers") or []).get(b"authorization", b"")
        scheme, _, value = header.partition(b" ")
        if scheme.lower() == b"bearer" and hmac.compare_digest(value.strip(), self._token):
            await self.app(scope, receive, send)
            return
        body = json.dumps(
            {
                "error": "unauthorized",
                "message": "send the token `calibrant sandbox` printed at start: "
                "'Authorization: Bearer <token>'",
            }
        ).encode()
        await send(
            {
                "type": "http.response.start",
                "status": 401,
                "headers": [
                    (b"content-type", b"application/json"),
                    (b"content-length", str(len(body)).encode()),
                    (b"www-authenticate", b"Bearer"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
