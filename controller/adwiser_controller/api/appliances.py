"""Appliance status (desired/active/pending, heartbeat, last frame) and telemetry history."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query
from pydantic import BaseModel, Field

from ..auth import Principal
from ..problems import ProblemException, responses
from ..store import ApplyEvent
from ..stream_ids import After
from ..telemetry import ApplianceStatus, appliance_status, history
from .body import StrictJsonRoute
from .deps import Services, services, viewer

router = APIRouter(prefix="/api/v1", tags=["appliances"], route_class=StrictJsonRoute)
READ = responses(401, 403, 404, 422)


async def known(svc: Services, aid: str) -> None:
    if aid not in await svc.store.appliances():
        raise ProblemException(404, f"no appliance {aid!r} (store a version for it first)", "appliance")


@router.get("/appliances", response_model=list[ApplianceStatus], responses=READ,
            summary="Every appliance with its versions and liveness")
async def list_appliances(svc: Services = Depends(services), _: Principal = Depends(viewer)) -> list[ApplianceStatus]:
    return [await appliance_status(svc.redis, aid, await svc.store.head(aid)) for aid in await svc.store.appliances()]


@router.get("/appliances/{appliance}", response_model=ApplianceStatus, responses=READ, summary="One appliance")
async def get_appliance(appliance: str, svc: Services = Depends(services),
                        _: Principal = Depends(viewer)) -> ApplianceStatus:
    await known(svc, appliance)
    return await appliance_status(svc.redis, appliance, await svc.store.head(appliance))


@router.get("/appliances/{appliance}/applied", response_model=list[ApplyEvent], responses=READ,
            summary="Apply history of an appliance, newest first")
async def applied(appliance: str, limit: int = Query(default=50, ge=1, le=1000), svc: Services = Depends(services),
                  _: Principal = Depends(viewer)) -> list[ApplyEvent]:
    await known(svc, appliance)
    return await svc.store.apply_history(appliance, limit)


class TelemetryPage(BaseModel):
    appliance_id: str
    entries: list[dict[str, Any]] = Field(description="Stream entries, oldest first; numbers typed, slices parsed.")
    last_id: str | None = Field(description="Id to pass as `after` to continue: the last entry's, or with `pair`, "
                                            "the last entry scanned (so a page may be short or empty and still "
                                            "move on).")
    entries_added: int | None = Field(description="How many entries the stream had ever been given up to and "
                                                  "including `last_id` (Redis's `entries-added`), when the page "
                                                  "read to the stream's end; else null. Pass it with `last_id` to "
                                                  "the live feed (`frames_added`, `pairs_added`): it then counts "
                                                  "exactly what was trimmed after `last_id`.")


COUNT = Query(default=100, ge=1, le=2000, description="Most entries to return.")


@router.get("/telemetry/{appliance}/frames", response_model=TelemetryPage, responses=READ,
            summary="Per-frame telemetry history")
async def frames(appliance: str, count: int = COUNT, after: After = "", svc: Services = Depends(services),
                 _: Principal = Depends(viewer)) -> TelemetryPage:
    await known(svc, appliance)
    entries, last_id, added = await history(svc.redis, appliance, "frame", count, after or None)
    return TelemetryPage(appliance_id=appliance, entries=entries, last_id=last_id, entries_added=added)


@router.get("/telemetry/{appliance}/pairs", response_model=TelemetryPage, responses=READ,
            summary="Per-pair telemetry history")
async def pairs(appliance: str, count: int = COUNT, after: After = "",
                pair: str = Query(default="", max_length=129, description="Only this pair ('ap/sta'); default all."),
                svc: Services = Depends(services), _: Principal = Depends(viewer)) -> TelemetryPage:
    await known(svc, appliance)
    entries, last_id, added = await history(svc.redis, appliance, "pair", count, after or None, pair or None)
    return TelemetryPage(appliance_id=appliance, entries=entries, last_id=last_id, entries_added=added)
