"""Denied logins, which anyone can send without an account, never push configuration and account changes
out of the audit log: they are capped on their own, and GET /audit still shows both, newest first."""

from __future__ import annotations

import asyncio

import pytest
import redis
import redis.asyncio as aioredis

from adwiser_controller import audit as audit_module
from adwiser_controller.audit import Audit

AUDIT_DB = 7      # not the controller's database: this test shrinks the caps
SMALL_CAP = 10    # entries; trimming is approximate (whole stream nodes of 100), so the flood is far larger
FLOOD = 600


@pytest.fixture
def audit_db(redis_server, monkeypatch):
    monkeypatch.setattr(audit_module, "AUDIT_MAXLEN", SMALL_CAP)
    if hasattr(audit_module, "DENIED_LOGINS_MAXLEN"):
        monkeypatch.setattr(audit_module, "DENIED_LOGINS_MAXLEN", SMALL_CAP)
    r = redis.Redis(port=redis_server.port, db=AUDIT_DB)
    r.flushdb()
    yield redis_server.port
    r.flushdb()
    r.close()


def test_a_flood_of_denied_logins_keeps_the_configuration_changes(audit_db):
    async def run() -> None:
        audit = Audit(aioredis.Redis(port=audit_db, db=AUDIT_DB, decode_responses=True))
        await audit.record("root", "admin", "10.0.0.1", "version.apply", "version:1")
        for i in range(FLOOD):
            await audit.record(f"guess{i}", "", "203.0.113.9", "auth.login", f"user:guess{i}", "denied")
        await audit.record("root", "admin", "10.0.0.1", "user.create", "user:bob")
        everything = []
        before = None
        while page := await audit.list(100, before):
            everything += page
            before = page[-1].id
        actions = [(e.action, e.outcome) for e in everything]
        assert ("version.apply", "ok") in actions
        assert actions[0] == ("user.create", "ok")
        assert actions[1] == ("auth.login", "denied")   # the newest denied login, between the two changes
        ids = [e.id for e in everything]
        assert len(set(ids)) == len(ids)               # an id pages back (`before`) and keys the web UI's rows
        assert ids == sorted(ids, key=lambda i: tuple(map(int, i.split("-"))), reverse=True)
        await audit.r.aclose()

    asyncio.run(run())
