"""`apply?wait_ms=` whose store goes away while it waits for the dataplane's ack: the apply is made (desired set,
audited), so the answer says so (202, acknowledgement unknown) rather than a 503 that reads as a failed apply."""

from __future__ import annotations

import threading
import time

import redis
from lab_document import lab_doc
from own_controller import own_controller
from servers import RedisServer


def _stop_once_desired(store: RedisServer, aid: str, version: int) -> None:
    """Stops the store as soon as the apply has set `desired` (the controller is then waiting for the ack)."""
    client = redis.Redis(host="127.0.0.1", port=store.port, decode_responses=True)
    deadline = time.monotonic() + 10
    while client.get(f"adwiser:appliance:{aid}:desired") != str(version) and time.monotonic() < deadline:
        time.sleep(0.01)
    client.close()
    time.sleep(0.3)  # past the audit record, into the wait
    store.stop()


def test_an_apply_whose_store_goes_away_during_the_wait_answers_202_applied_ack_unknown(tmp_path):
    with own_controller(tmp_path, timeout_s=20) as (store, server, c):
        n = c.post("/api/v1/versions", json={"doc": lab_doc("lab")}).json()["version"]
        stopper = threading.Thread(target=_stop_once_desired, args=(store, "lab", n))
        stopper.start()
        res = c.post(f"/api/v1/versions/{n}/apply", params={"wait_ms": 8000})
        stopper.join()
        assert res.status_code == 202, res.text
        body = res.json()
        assert body["version"] == n and body["acknowledged"] is False and body["ack_ms"] is None, body
        assert body["status"] is None, body   # not read: the store is down
        store.start()                          # the same AOF: the apply the answer reports is there
        after = redis.Redis(host="127.0.0.1", port=store.port, decode_responses=True)
        assert after.get("adwiser:appliance:lab:desired") == str(n)
        after.close()
