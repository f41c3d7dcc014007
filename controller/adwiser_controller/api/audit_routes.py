"""The audit log over REST (operators and admins)."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from ..audit import AuditEntry
from ..auth import Principal
from ..problems import responses
from ..stream_ids import Before
from .body import StrictJsonRoute
from .deps import Services, operator, services

router = APIRouter(prefix="/api/v1", tags=["audit"], route_class=StrictJsonRoute)


@router.get("/audit", response_model=list[AuditEntry], responses=responses(401, 403, 422),
            summary="Audit log, newest first")
async def audit(count: int = Query(default=100, ge=1, le=1000),
                before: Before = "",
                svc: Services = Depends(services), _: Principal = Depends(operator)) -> list[AuditEntry]:
    return await svc.audit.list(count, before or None)
