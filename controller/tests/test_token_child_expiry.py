"""A token made with a token never outlives it: a derived credential that stayed valid after the one
that made it expired would let a short-lived grant (a 60 s token for a job) mint a permanent one."""

from __future__ import annotations

import httpx


def _token(api, body: dict) -> httpx.Response:
    return api("operator").post("/api/v1/auth/tokens", json=body)


def _with(controller, token: str) -> httpx.Client:
    return httpx.Client(base_url=controller.url, headers={"Authorization": f"Bearer {token}"}, timeout=15)


def test_a_token_cannot_make_a_token_that_never_expires_or_expires_later(api, controller):
    parent = _token(api, {"name": "job", "expires_in_s": 120})
    assert parent.status_code == 201, parent.text
    with _with(controller, parent.json()["token"]) as job:
        for body in ({"name": "forever"}, {"name": "later", "expires_in_s": 3600}):
            res = job.post("/api/v1/auth/tokens", json=body)
            assert res.status_code == 422, res.text
            assert res.json()["field"] == "expires_in_s"
            assert "120" in res.json()["detail"] or "119" in res.json()["detail"], res.json()["detail"]
        child = job.post("/api/v1/auth/tokens", json={"name": "shorter", "expires_in_s": 60})
        assert child.status_code == 201, child.text
        assert child.json()["info"]["expires_at"] <= parent.json()["info"]["expires_at"]


def test_a_token_that_never_expires_makes_tokens_that_never_expire(api):
    # the fixture's tokens never expire: a child of one may not either
    res = api("operator").post("/api/v1/auth/tokens", json={"name": "forever"})
    assert res.status_code == 201, res.text
    assert res.json()["info"]["expires_at"] is None
