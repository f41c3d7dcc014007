"""The runner looks at each appliance every 50 ms (run_forever's period), for the version its loops run; it
parses that version's document only when the document changes, not at every look: a campus document (360 STAs)
takes 4 ms to validate, 8 % of a core per appliance, whether its loops are enabled or not."""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis
from test_aggregation_runner import enable

from adwiser_controller import keys
from adwiser_controller.aggregation.runner import AggregationRunner
from adwiser_controller.models import AdwiserConfig


def _ticks(url: str, aid: str, version: int, n: int) -> None:
    async def go() -> None:
        r = aioredis.from_url(url, decode_responses=True)
        try:
            await r.set(keys.appliance(aid, "active"), version)
            runner = AggregationRunner(r)
            for k in range(n):
                await runner.tick(aid, 0.05 * k)
        finally:
            await r.aclose()

    asyncio.run(go())


def test_the_runner_parses_a_versions_document_once_not_at_every_look(api, appliance, redis_server, monkeypatch):
    aid, _ = appliance
    v = enable(api, aid)
    parsed = []
    parse = AdwiserConfig.model_validate_json

    def counted(text: str | bytes) -> AdwiserConfig:
        parsed.append(1)
        return parse(text)

    monkeypatch.setattr(AdwiserConfig, "model_validate_json", counted)
    _ticks(redis_server.url, aid, v, 40)
    assert len(parsed) == 1
