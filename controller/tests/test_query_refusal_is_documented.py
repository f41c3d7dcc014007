"""Every route refuses an unknown or repeated query parameter with 422 (query_check.py), those with no query
parameters too, so /openapi.json lists 422 for every operation: a client generated from it expects it."""

from __future__ import annotations

import httpx


def test_every_operation_documents_the_422_a_query_it_cannot_take_gets(controller):
    spec = httpx.get(controller.url + "/openapi.json", timeout=10).json()
    missing = [f"{method.upper()} {path}" for path, ops in spec["paths"].items() for method, op in ops.items()
               if "422" not in op["responses"]]
    assert missing == [], missing
    health = httpx.get(controller.url + "/api/v1/health?verbose=1", timeout=10)   # a route with no parameters
    assert health.status_code == 422 and health.json()["field"] == "query.verbose", health.text
