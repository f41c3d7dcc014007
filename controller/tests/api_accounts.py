"""The accounts the controller tests log in with, and logging in over the API."""

from __future__ import annotations

import httpx

ADMIN = ("root", "correct horse battery")
PASSWORDS = {"admin": ADMIN[1], "operator": "operator password 1", "viewer": "viewer password 1"}


def login(base_url: str, username: str, password: str) -> tuple[httpx.Client, str]:
    """A client holding a session cookie, and the session's CSRF token."""
    client = httpx.Client(base_url=base_url, timeout=10)
    res = client.post("/api/v1/auth/login", json={"username": username, "password": password})
    assert res.status_code == 200, res.text
    return client, res.json()["csrf_token"]
