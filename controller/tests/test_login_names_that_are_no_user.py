"""A login (or an admin's look-up) with a name no user can have is answered as for any name that is no user.

Such a name reached Redis as `adwiser:user:<name>`: `viewer1:tokens` is the key of viewer1's set of API
tokens, which HGET refuses (WRONGTYPE), so the login was a 503 "store unavailable" exactly when viewer1
existed and had a token, and a 401 otherwise: anyone could tell which users exist without an account.
"""

from __future__ import annotations

import httpx


def test_a_login_naming_another_key_of_a_user_is_a_401_not_a_503(controller, tokens):
    for name in ("viewer1:tokens", "nobody:tokens"):
        res = httpx.post(controller.url + "/api/v1/auth/login", json={"username": name, "password": "whatever 123"})
        assert res.status_code == 401 and res.json()["field"] == "password", (name, res.text)


def test_an_admins_change_to_such_a_name_is_a_404_not_a_503(api):
    assert api("viewer").get("/api/v1/auth/tokens").status_code == 200
    res = api("admin").patch("/api/v1/auth/users/viewer1:tokens", json={"disabled": True})
    assert res.status_code == 404 and res.json()["field"] == "username", res.text
    assert api("admin").delete("/api/v1/auth/users/viewer1:tokens").status_code == 404
