"""The one place calibrant imports and configures litellm.

Importing this module does nothing: litellm (a multi-second import that, left to itself,
downloads a price map) is imported on the first call to :func:`get_litellm`, which also sets the
process-wide litellm options calibrant relies on and registers the embedded local judge model.
"""

from __future__ import annotations

import asyncio
import base64
import os
import threading
from types import ModuleType
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

__all__ = ["get_litellm", "endpoint_kwargs", "drain_litellm"]

_lock = threading.RLock()
_module: ModuleType | None = None  # imported and configured (set before registration)
_ready: ModuleType | None = None  # configured and the embedded provider registered


def get_litellm() -> ModuleType:
    """Return the ``litellm`` module, importing and configuring it on the first call.

    On the first call only: use litellm's bundled model price map instead of fetching one from
    the internet (the environment variable must be set before the import), turn off litellm's own
    retries (calibrant retries with tenacity in one place), silence litellm's "give feedback"
    banner on errors, and register the embedded provider (``calibrant-local/...``) so the offline
    judge model is always callable. Thread-safe; later calls return the cached module.

    litellm 1.110.2 has no SDK-side telemetry switch (its telemetry lives in the proxy and is off
    unless an operator opts in) and no default callbacks, so nothing else needs turning off.
    ``drop_params`` is left at its default: parameters reach the embedded handler unchanged.
    """
    global _module, _ready
    if _ready is not None:
        return _ready
    with _lock:
        if _module is None:
            os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
            import litellm

            litellm.num_retries = 0
            litellm.suppress_debug_info = True
            _module = litellm
            from .embedded import register_embedded_provider

            try:
                # Calls get_litellm() again: the lock is re-entrant and _module is already set,
                # so that inner call returns at once.
                register_embedded_provider()
            except BaseException:
                _module = None
                raise
            _ready = _module
        return _module


def endpoint_kwargs(model: str, api_base: str | None) -> dict[str, Any]:
    """litellm arguments for an explicit endpoint. Local OpenAI-compatible servers (vLLM,
    llama.cpp, Ollama) need no key, but the OpenAI client insists on one: a placeholder is
    passed only when the provider's own variable is unset. Real keys come from the provider's
    usual environment variable and are never passed, logged or stored by calibrant.

    Credentials written into the URL (``https://user:password@host/v1``) become an HTTP Basic
    ``Authorization`` header: the HTTP clients under litellm refuse them inside the URL."""
    if not api_base:
        return {}
    out: dict[str, Any] = {"api_base": api_base}
    parts = urlsplit(api_base)
    if "@" in parts.netloc:
        userinfo, _, hostport = parts.netloc.rpartition("@")
        out["api_base"] = urlunsplit(parts._replace(netloc=hostport))
        user, _, password = userinfo.partition(":")
        pair = f"{unquote(user)}:{unquote(password)}".encode()
        out["extra_headers"] = {"Authorization": "Basic " + base64.b64encode(pair).decode()}
    if model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
        out["api_key"] = "no-key-needed"
    return out


async def drain_litellm(timeout_s: float = 10.0) -> None:
    """Let litellm's background logging work finish on the running loop, then stop it, so the
    loop can close with nothing of litellm's pending ("Task was destroyed but it is pending").
    litellm keeps one logging worker per process, bound to one event loop: call this on the
    loop the model calls ran on, before closing it. Nothing to do if litellm was never used."""
    if _ready is None:
        return
    from litellm.litellm_core_utils.logging_worker import GLOBAL_LOGGING_WORKER

    try:
        await asyncio.wait_for(GLOBAL_LOGGING_WORKER.flush(), timeout_s)
    except Exception:  # logging is best effort; what matters is that nothing stays pending
        pass
    await GLOBAL_LOGGING_WORKER.stop(discard_pending=True, timeout=timeout_s)
