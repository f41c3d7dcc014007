"""What clients get while Redis is down: a 503 problem (REST) or a 503 error message and close 1011
(live socket), as API.md documents, on a controller and Redis of the test's own."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest
from lab_document import lab_doc
from own_controller import own_controller
from servers import ControllerServer
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect


@pytest.fixture
def stopped_store(tmp_path) -> Iterator[tuple[ControllerServer, str, int]]:
    """A controller whose Redis has stopped, an admin token made while it ran, and Redis's port."""
    with own_controller(tmp_path) as (store, server, c):
        assert c.post("/api/v1/versions", json={"doc": lab_doc("lab")}).status_code == 201
        token = c.post("/api/v1/auth/tokens", json={"name": "down"}).json()["token"]
        store.stop()
        yield server, token, store.port


def test_a_live_socket_opened_while_the_store_is_down_gets_503_and_1011(stopped_store):
    server, token, _ = stopped_store
    url = server.url.replace("http://", "ws://") + "/api/v1/telemetry/lab/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=10) as ws:
        msg = json.loads(ws.recv(timeout=10))
        assert msg["type"] == "error" and msg["status"] == 503 and msg["field"] == "redis"
        with pytest.raises(ConnectionClosed):
            ws.recv(timeout=10)
    assert ws.close_code == 1011


def test_a_503_says_why_without_naming_the_stores_address(stopped_store):
    server, token, port = stopped_store
    health = httpx.get(server.url + "/api/v1/health", timeout=10)   # answered without a login
    assert health.status_code == 503 and health.json()["field"] == "redis"
    url = server.url.replace("http://", "ws://") + "/api/v1/telemetry/lab/live"
    with connect(url, additional_headers={"Authorization": f"Bearer {token}"}, open_timeout=10) as ws:
        live = json.loads(ws.recv(timeout=10))
    for said in (health.text, live["detail"]):
        assert str(port) not in said and "127.0.0.1" not in said, said
    assert "Connection refused" in health.json()["detail"]   # the reason, for whoever looks at the UI
