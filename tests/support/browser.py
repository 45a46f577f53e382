"""A person at the workbench, for tests: a client logged in with a token (the session cookie
kept), and the CSRF token of a page's forms."""

from __future__ import annotations

import re

import httpx

from tests.support.service import Service


def login(service: Service, token: str, **headers: str) -> httpx.Client:
    browser = service.client()
    got = browser.post("/login", data={"token": token}, headers=headers)
    assert got.status_code == 303, got.text
    return browser


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert found, "no CSRF token in the page"
    return found.group(1)
