"""Every route, read from the application itself, with the least role it needs: a caller below it gets 403
`field: "role"` (a viewer changes no slice map, policy, version, user or other's token; an operator no user),
and a caller without credentials 401. A route added without a line here fails the first test."""

from __future__ import annotations

import pytest
from fastapi.routing import APIRoute, APIWebSocketRoute

from adwiser_controller.api import deps
from adwiser_controller.app import create_app
from adwiser_controller.settings import Settings

PUBLIC, ANY = "public", "any"   # no credentials at all; any logged-in caller (the role is not looked at)
ROUTES = {
    ("GET", "/api/v1/topology"): "viewer", ("PUT", "/api/v1/topology"): "operator",
    ("GET", "/api/v1/slice-maps"): "viewer", ("PUT", "/api/v1/slice-maps"): "operator",
    ("GET", "/api/v1/policies"): "viewer", ("PUT", "/api/v1/policies"): "operator",
    ("GET", "/api/v1/versions"): "viewer", ("POST", "/api/v1/versions"): "operator",
    ("GET", "/api/v1/versions/{version}"): "viewer", ("GET", "/api/v1/versions/{version}/diff"): "viewer",
    ("POST", "/api/v1/versions/{version}/apply"): "operator",
    ("POST", "/api/v1/versions/{version}/rollback"): "operator",
    ("GET", "/api/v1/appliances"): "viewer", ("GET", "/api/v1/appliances/{appliance}"): "viewer",
    ("GET", "/api/v1/appliances/{appliance}/applied"): "viewer",
    ("GET", "/api/v1/appliances/{appliance}/aggregation"): "viewer",
    ("GET", "/api/v1/telemetry/{appliance}/frames"): "viewer", ("GET", "/api/v1/telemetry/{appliance}/pairs"): "viewer",
    ("GET", "/api/v1/telemetry/{appliance}/aggregation"): "viewer",
    ("WS", "/api/v1/telemetry/{appliance}/live"): "viewer",   # authenticates in its handler (test_telemetry)
    ("GET", "/api/v1/audit"): "operator",
    ("POST", "/api/v1/auth/login"): PUBLIC, ("POST", "/api/v1/auth/logout"): ANY,
    ("GET", "/api/v1/auth/me"): "viewer", ("PUT", "/api/v1/auth/me/password"): "viewer",
    ("GET", "/api/v1/auth/users"): "admin", ("POST", "/api/v1/auth/users"): "admin",
    ("PATCH", "/api/v1/auth/users/{username}"): "admin", ("DELETE", "/api/v1/auth/users/{username}"): "admin",
    # a viewer's own tokens; revoking another user's is for admins (404 to others, test_auth)
    ("GET", "/api/v1/auth/tokens"): "viewer", ("POST", "/api/v1/auth/tokens"): "viewer",
    ("DELETE", "/api/v1/auth/tokens/{token_id}"): "viewer",
    ("GET", "/api/v1/health"): PUBLIC, ("GET", "/metrics"): "viewer",
}
ROLE_OF = {deps.viewer: "viewer", deps.operator: "operator", deps.admin: "admin", deps.current_principal: ANY}
RANK = ["viewer", "operator", "admin"]
FILLED = {"{version}": "1", "{appliance}": "nosuch", "{username}": "viewer1", "{token_id}": "0000000000000000"}


def _required(dependant) -> list[str]:   # type: ignore[no-untyped-def]
    found = []
    for sub in dependant.dependencies:
        if sub.call in ROLE_OF:
            found.append(ROLE_OF[sub.call])
        found += _required(sub)
    return found


def _app_routes() -> dict[tuple[str, str], str]:
    out = {}
    for route in create_app(Settings(webui_dist=None)).routes:
        if isinstance(route, APIRoute):
            required = _required(route.dependant)
            ranked = [r for r in required if r in RANK]
            need = max(ranked, key=RANK.index) if ranked else ANY if required else PUBLIC
            out.update({(m, route.path): need for m in route.methods})
        elif isinstance(route, APIWebSocketRoute):
            out[("WS", route.path)] = ROUTES.get(("WS", route.path), "unclassified")
    return out


def test_every_route_is_classified_with_the_role_it_requires():
    assert _app_routes() == ROUTES


def _url(path: str) -> str:
    for name, value in FILLED.items():
        path = path.replace(name, value)
    return path


BELOW = [(m, p, role) for (m, p), need in ROUTES.items() if m != "WS" and need in RANK
         for role in RANK[:RANK.index(need)]]


@pytest.mark.parametrize("method,path,role", BELOW, ids=[f"{m} {p} as {r}" for m, p, r in BELOW])
def test_a_caller_below_the_routes_role_is_refused(api, method, path, role):
    res = api(role).request(method, _url(path), json={} if method != "GET" else None)
    assert res.status_code == 403 and res.json()["field"] == "role", res.text


GUARDED = [(m, p) for (m, p), need in ROUTES.items() if m != "WS" and need != PUBLIC]


@pytest.mark.parametrize("method,path", GUARDED, ids=[f"{m} {p}" for m, p in GUARDED])
def test_a_caller_without_credentials_is_refused(api, method, path):
    res = api(None).request(method, _url(path), json={} if method != "GET" else None)
    assert res.status_code == 401, res.text
