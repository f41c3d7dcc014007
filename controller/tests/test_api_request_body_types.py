"""A request body's value of the wrong JSON type is refused (422 naming the field), not converted.

The bodies' types are the API's published contract (/openapi.json, which the web UI and the schemathesis tests
go by), as the configuration schema is the document's: "yes" for a boolean or "7" for an integer is refused,
as in the document (test_api_config_value_types.py). A role is a JSON string, so it stays accepted as one.
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from adwiser_controller.api.auth_routes import NewToken, NewUser, UserUpdate

_names = itertools.count()


def _refused(res: Any, field: str) -> None:
    assert res.status_code == 422, res.text
    assert res.json()["field"] == field, res.json()


def _new_user(api, role: str = "viewer") -> str:
    name = f"types{next(_names)}"
    res = api("admin").post("/api/v1/auth/users", json={"username": name, "password": "0123456789", "role": role})
    assert res.status_code == 201, res.text
    return name


def _user(api, name: str) -> dict[str, Any]:
    return next(u for u in api("admin").get("/api/v1/auth/users").json() if u["username"] == name)


@pytest.mark.parametrize("value", ["yes", "true", 1])
def test_a_user_update_with_a_non_boolean_disabled_is_refused_and_the_user_stays_enabled(api, value):
    name = _new_user(api)
    _refused(api("admin").patch(f"/api/v1/auth/users/{name}", json={"disabled": value}), "disabled")
    assert _user(api, name)["disabled"] is False


def test_roles_sent_as_json_strings_are_taken(api):
    name = _new_user(api, "viewer")
    res = api("admin").patch(f"/api/v1/auth/users/{name}", json={"role": "operator", "disabled": True})
    assert res.status_code == 200, res.text
    assert _user(api, name)["role"] == "operator" and _user(api, name)["disabled"] is True


def test_the_request_bodies_take_a_role_as_the_json_string_naming_it():
    # Over HTTP too (test above); FastAPI's own validation of an enum is not what this pins.
    assert NewUser.model_validate({"username": "abc", "password": "0123456789", "role": "viewer"}).role == "viewer"
    assert UserUpdate.model_validate({"role": "admin"}).role == "admin"
    assert NewToken.model_validate({"name": "ci", "role": "operator"}).role == "operator"


def test_a_token_with_a_string_lifetime_is_refused_naming_it(api):
    _refused(api("viewer").post("/api/v1/auth/tokens", json={"name": "typed", "expires_in_s": "3600"}),
             "expires_in_s")


def test_a_config_edit_with_a_string_base_version_is_refused_naming_it(api, appliance):
    aid, v1 = appliance
    sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()["slice_map"]
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid},
                              json={"slice_map": sm, "base_version": str(v1)})
    _refused(res, "base_version")
    assert api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"] == 1


def test_an_integral_number_for_base_version_is_taken_as_json_schema_does(api, appliance):
    aid, v1 = appliance
    sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()["slice_map"]
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid},
                              json={"slice_map": sm, "base_version": float(v1)})
    assert res.status_code == 201, res.text
    assert res.json()["parent"] == v1
