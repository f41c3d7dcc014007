"""Schemathesis property tests against the live controller's /openapi.json: for every operation,
generated requests (valid and invalid) never get a 500, and only documented status codes and
response shapes come back. Bounded: a few examples per operation."""

from __future__ import annotations

from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from schemathesis import DataGenerationMethod, GenerationConfig
from schemathesis.specs.openapi.checks import ignored_auth

schemathesis.experimental.OPEN_API_3_1.enable()  # FastAPI emits OpenAPI 3.1


def _with_inclusive_bounds(node: Any) -> None:
    """Adds `minimum: m` beside every numeric `exclusiveMinimum: m` (and the same for maximum): the same set of
    values (x >= m and x > m is x > m). Schemathesis 3.39's negative mutations treat exclusiveMinimum as OpenAPI
    3.0's boolean, which needs a `minimum` beside it, and raise KeyError('minimum') when they negate a 3.1 bound of
    a `gt=` field (the policies' a_pkts_per_ms, v_cap_factor, rate_change_reset) without one."""
    if isinstance(node, dict):
        for bound, inclusive in (("exclusiveMinimum", "minimum"), ("exclusiveMaximum", "maximum")):
            if isinstance(node.get(bound), (int, float)) and not isinstance(node.get(bound), bool):
                node.setdefault(inclusive, node[bound])
        for value in node.values():
            _with_inclusive_bounds(value)
    elif isinstance(node, list):
        for value in node:
            _with_inclusive_bounds(value)


@schemathesis.hook
def before_load_schema(context: Any, raw_schema: dict[str, Any]) -> None:
    _with_inclusive_bounds(raw_schema)


@pytest.fixture
def live_schema(controller):
    # Credentials are set per case below; generated cookie/bearer values would only test the HTTP parser.
    config = GenerationConfig(with_security_parameters=False, allow_x00=False)
    return schemathesis.from_uri(controller.url + "/openapi.json", base_url=controller.url,
                                 generation_config=config,
                                 data_generation_methods=[DataGenerationMethod.positive, DataGenerationMethod.negative])


schema = schemathesis.from_pytest_fixture("live_schema")


@schema.parametrize()
@settings(max_examples=5, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
def test_api_never_errors_and_answers_as_documented(case, tokens):
    # Password changes and deletions under /auth run as a viewer, so the admin the other
    # examples use cannot lock itself out; test_auth.py covers those routes' success paths.
    own_account = case.path == "/api/v1/auth/me/password" or (
        case.method == "DELETE" and case.path.startswith("/api/v1/auth/"))
    role = "viewer" if own_account else "admin"
    case.headers = {**(case.headers or {}), "Authorization": f"Bearer {tokens[role]}"}
    response = case.call(timeout=15)
    # ignored_auth replays the case with the declared schemes broken, but the bearer token set
    # above stays valid, so it would always "succeed"; missing/invalid credentials are in test_auth.py.
    case.validate_response(response, excluded_checks=(ignored_auth,))
