"""Configuration routes: topology, slice map and policies edits, versions (list/show/diff/apply/rollback).

Every edit is validated as a whole document (the edited part merged into the
appliance's latest version) and stored as a new immutable version; nothing
is applied until `apply`. `base_version` makes edits optimistic: if another
edit landed since the client read `base_version`, the edit is refused (409).
A part edit without it is stored only on the version it was merged into, and
merged again if another edit landed meanwhile (`_edit`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from fastapi import APIRouter, Depends, Query, Request, Response
from pydantic import BaseModel, Field, ValidationError
from redis.exceptions import RedisError

from .. import diff as config_diff
from .. import keys
from ..auth import Principal
from ..field_errors import flatten
from ..json_int import OptionalJsonInt
from ..models import AdwiserConfig, Policies, SliceMap, Topology
from ..problems import ProblemException, responses
from ..store import HeadMoved, NotFound, Version, VersionInfo
from ..store_errors import unavailable_reason
from ..telemetry import ApplianceStatus, ApplyRejection, answers, appliance_status
from .body import Body, StrictJsonRoute
from .deps import Services, client_of, operator, services, viewer

router = APIRouter(prefix="/api/v1", tags=["configuration"], route_class=StrictJsonRoute)
log = logging.getLogger(__name__)

READ = responses(401, 403, 404, 422)
WRITE = responses(401, 403, 404, 409, 422)

COMMENT = Field(default="", max_length=1000, description="Why this change was made (kept with the version).")
BASE = Field(default=None, ge=0, description="The version the client edited; 409 if the appliance's latest differs.")
ApplianceQuery = Query(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$", description="Appliance id.")
VersionQuery = Query(default=None, ge=1)


class VersionList(BaseModel):
    total: int
    items: list[VersionInfo]


class NewVersion(Body):
    doc: AdwiserConfig
    comment: str = COMMENT
    base_version: OptionalJsonInt = BASE


class TopologyChange(Body):
    topology: Topology
    comment: str = COMMENT
    base_version: OptionalJsonInt = BASE


class SliceMapChange(Body):
    slice_map: SliceMap
    comment: str = COMMENT
    base_version: OptionalJsonInt = BASE


class PoliciesChange(Body):
    policies: Policies
    comment: str = COMMENT
    base_version: OptionalJsonInt = BASE


class PartView(BaseModel):
    """One part of a stored version (its fields come first in the views below)."""

    appliance_id: str
    version: int


class TopologyView(PartView):
    topology: Topology


class SliceMapView(PartView):
    frame_ms: int = Field(description="Sum of the slices' durations, ms.")
    slice_map: SliceMap


class PoliciesView(PartView):
    policies: Policies


class ApplyRequest(Body):
    comment: str = COMMENT


class ApplyResult(BaseModel):
    appliance_id: str
    version: int = Field(description="The version now desired.")
    previous: int | None = Field(description="The version desired before.")
    acknowledged: bool = Field(description="The dataplane reported running it within wait_ms.")
    ack_ms: float | None = Field(description="Time from publishing to the dataplane's acknowledgement, ms.")
    status: ApplianceStatus | None = Field(
        description="The appliance's status after the apply; null (answered 202) when the store could not be read "
                    "once the apply was made: the version is desired, whether the dataplane runs it is unknown.")


APPLY = {202: {"model": ApplyResult, "description": "Applied, but the store went away before the dataplane's "
                                                    "acknowledgement could be read: `status` null"}, **WRITE}


class DiffResult(BaseModel):
    from_version: int
    to_version: int
    changes: list[config_diff.Change]
    unified: str = Field(description="Unified diff of the two documents as YAML.")


def not_found(exc: NotFound) -> ProblemException:
    return ProblemException(404, str(exc), exc.field)


async def _version_or_404(svc: Services, n: int) -> Version:
    try:
        return await svc.store.get(n)
    except NotFound as exc:
        raise not_found(exc) from None


async def _head_or_404(svc: Services, appliance: str, version: int | None) -> Version:
    try:
        if version is not None:
            v = await svc.store.get(version)
            if v.appliance_id != appliance:
                raise NotFound(f"version {version} belongs to appliance {v.appliance_id!r}", "version")
            return v
        return await svc.store.head_version(appliance)
    except NotFound as exc:
        raise not_found(exc) from None


def _validated(doc: dict[str, Any] | AdwiserConfig) -> AdwiserConfig:
    try:
        return doc if isinstance(doc, AdwiserConfig) else AdwiserConfig.model_validate(doc)
    except ValidationError as exc:
        errors = flatten(exc.errors())
        raise ProblemException(422, "; ".join(f"{e.field}: {e.message}" for e in errors[:5]),
                               errors=errors) from None


def _stale(base: int | None, exc: HeadMoved) -> ProblemException:
    return ProblemException(409, f"base_version {base} is stale: the latest version is {exc.head}; "
                                 "reload and edit again", "base_version")


async def _create(svc: Services, request: Request, who: Principal, cfg: AdwiserConfig, comment: str,
                  base: int | None, action: str, extra: dict[str, Any] | None = None) -> VersionInfo:
    """Stores `cfg` as a new version if the appliance's latest is still `base` (HeadMoved if not), and audits it
    (with `extra` in the entry's detail)."""
    info = await svc.store.create_version(cfg, who.username, comment, base)
    await svc.audit.record(who.username, who.role.value, client_of(request), action, f"version:{info.version}",
                           detail={"appliance_id": info.appliance_id, "comment": comment, "parent": info.parent,
                                   **(extra or {})})
    return info


async def _store(svc: Services, request: Request, who: Principal, doc: dict[str, Any] | AdwiserConfig,
                 comment: str, base: int | None, action: str) -> VersionInfo:
    cfg = _validated(doc)
    try:
        return await _create(svc, request, who, cfg, comment, base, action)
    except HeadMoved as exc:
        raise _stale(base, exc) from None


EDIT_MERGE_ATTEMPTS = 8


async def _edit(svc: Services, request: Request, who: Principal, appliance: str, part: str,
                body: TopologyChange | SliceMapChange | PoliciesChange) -> VersionInfo:
    """The appliance's latest document with `part` replaced by the body's, stored as a new version.

    The merged document is stored only if the version it was merged into is still the latest. With
    `base_version` the client asked for exactly that version (409 otherwise). Without it the edit is meant
    for whatever is latest: if another edit landed between the read and the store, the part is merged into
    the new latest version and stored again, so a concurrent edit of another part is kept, not reverted."""
    for _ in range(EDIT_MERGE_ATTEMPTS):
        head_n = await svc.store.head(appliance)
        if head_n is None:
            raise ProblemException(404, f"appliance {appliance!r} has no configuration version", "appliance")
        # A stale base is the answer before anything about the merge: the part was edited on another version,
        # so errors of it merged into the newer one would name fields the user never touched.
        if body.base_version is not None and head_n != body.base_version:
            raise _stale(body.base_version, HeadMoved(head_n))
        head = await _version_or_404(svc, head_n)
        doc = head.doc.model_dump(mode="json")
        doc[part] = getattr(body, part).model_dump(mode="json")
        cfg = _validated(doc)
        base = head.version if body.base_version is None else body.base_version
        try:
            return await _create(svc, request, who, cfg, body.comment, base, f"{part}.update")
        except HeadMoved as exc:
            if body.base_version is not None:
                raise _stale(body.base_version, exc) from None
    raise ProblemException(409, f"appliance {appliance!r} changed {EDIT_MERGE_ATTEMPTS} times while this edit "
                                "was merged into its latest version; try again", "base_version")


@router.get("/topology", response_model=TopologyView, responses=READ, summary="Topology of a version")
async def get_topology(appliance: str = ApplianceQuery, version: int | None = VersionQuery,
                       svc: Services = Depends(services), _: Principal = Depends(viewer)) -> TopologyView:
    v = await _head_or_404(svc, appliance, version)
    return TopologyView(appliance_id=appliance, version=v.version, topology=v.doc.topology)


@router.put("/topology", response_model=VersionInfo, status_code=201, responses=WRITE,
            summary="Replace the topology (new version)")
async def put_topology(body: TopologyChange, request: Request, appliance: str = ApplianceQuery,
                       svc: Services = Depends(services), who: Principal = Depends(operator)) -> VersionInfo:
    return await _edit(svc, request, who, appliance, "topology", body)


@router.get("/slice-maps", response_model=SliceMapView, responses=READ, summary="Slice map of a version")
async def get_slice_map(appliance: str = ApplianceQuery, version: int | None = VersionQuery,
                        svc: Services = Depends(services), _: Principal = Depends(viewer)) -> SliceMapView:
    v = await _head_or_404(svc, appliance, version)
    return SliceMapView(appliance_id=appliance, version=v.version, frame_ms=v.doc.slice_map.frame_ms(),
                        slice_map=v.doc.slice_map)


@router.put("/slice-maps", response_model=VersionInfo, status_code=201, responses=WRITE,
            summary="Replace the slice map (new version)")
async def put_slice_map(body: SliceMapChange, request: Request, appliance: str = ApplianceQuery,
                        svc: Services = Depends(services), who: Principal = Depends(operator)) -> VersionInfo:
    return await _edit(svc, request, who, appliance, "slice_map", body)


@router.get("/policies", response_model=PoliciesView, responses=READ, summary="Policies of a version")
async def get_policies(appliance: str = ApplianceQuery, version: int | None = VersionQuery,
                       svc: Services = Depends(services), _: Principal = Depends(viewer)) -> PoliciesView:
    v = await _head_or_404(svc, appliance, version)
    return PoliciesView(appliance_id=appliance, version=v.version, policies=v.doc.policies)


@router.put("/policies", response_model=VersionInfo, status_code=201, responses=WRITE,
            summary="Replace the policies (new version)")
async def put_policies(body: PoliciesChange, request: Request, appliance: str = ApplianceQuery,
                       svc: Services = Depends(services), who: Principal = Depends(operator)) -> VersionInfo:
    return await _edit(svc, request, who, appliance, "policies", body)


@router.get("/versions", response_model=VersionList, responses=READ, summary="List versions, newest first")
async def list_versions(appliance: str = Query(default="", pattern=r"^([A-Za-z0-9][A-Za-z0-9_.-]{0,63})?$",
                                               description="Only this appliance (default: all)."),
                        offset: int = Query(default=0, ge=0, le=1_000_000),
                        limit: int = Query(default=50, ge=1, le=500),
                        svc: Services = Depends(services), _: Principal = Depends(viewer)) -> VersionList:
    total, items = await svc.store.list(appliance or None, offset, limit)
    return VersionList(total=total, items=items)


@router.post("/versions", response_model=VersionInfo, status_code=201, responses=WRITE,
             summary="Store a whole document as a new version (creates the appliance if new)")
async def create_version(body: NewVersion, request: Request, svc: Services = Depends(services),
                         who: Principal = Depends(operator)) -> VersionInfo:
    return await _store(svc, request, who, body.doc, body.comment, body.base_version, "version.create")


@router.get("/versions/{version}", response_model=Version, responses=READ, summary="One version with its document")
async def show_version(version: int, svc: Services = Depends(services), _: Principal = Depends(viewer)) -> Version:
    return await _version_or_404(svc, version)


@router.get("/versions/{version}/diff", response_model=DiffResult, responses=READ,
            summary="Changes from another version (default: its parent) to this one")
async def diff_version(version: int, against: int | None = Query(default=None, description="Version to compare with."),
                       svc: Services = Depends(services), _: Principal = Depends(viewer)) -> DiffResult:
    to = await _version_or_404(svc, version)
    base_n = against if against is not None else to.parent
    if base_n is None:
        raise ProblemException(404, f"version {version} has no parent; give `against`", "against")
    try:
        base = await svc.store.get(base_n)
    except NotFound:
        raise ProblemException(404, f"version {base_n} does not exist", "against") from None
    # Both sides as the models read them: a version stored before a field with a default existed has the
    # default, so the diff shows what changed, not what an older controller did not write.
    old, new = base.doc.model_dump(mode="json"), to.doc.model_dump(mode="json")
    return DiffResult(from_version=base_n, to_version=version, changes=config_diff.changes(old, new),
                      unified=config_diff.unified(old, new, f"v{base_n}", f"v{version}"))


async def _apply(svc: Services, request: Request, who: Principal, n: int, wait_ms: int, action: str,
                 detail: dict[str, Any]) -> ApplyResult:
    """Applies version n; `status` None (answered 202) when the store went away once the apply was made."""
    v = await _version_or_404(svc, n)
    aid = v.appliance_id
    pubsub = svc.redis.pubsub()
    acked, ack_ms = False, None
    refused_before = None
    audited = False
    try:
        if wait_ms > 0:
            await pubsub.subscribe(keys.appliance(aid, "ack"))
            refused_before = await svc.redis.get(keys.appliance(aid, "rejected"))
        t0 = time.perf_counter()
        _, previous, seq = await svc.store.apply(n, who.username)
        try:
            await svc.audit.record(who.username, who.role.value, client_of(request), action, f"version:{n}",
                                   detail={"appliance_id": aid, "previous": previous, **detail})
            audited = True
            if wait_ms > 0:
                acked = await _wait_ack(svc, pubsub, aid, n, seq, t0 + wait_ms / 1000, refused_before)
                ack_ms = (time.perf_counter() - t0) * 1000 if acked else None
            status = await appliance_status(svc.redis, aid, await svc.store.head(aid))
        except RedisError as exc:
            # Version n is desired and published: a 503 would tell the client the apply failed, and an apply
            # made again on that word is a second apply. What the dataplane did with it is what is not known.
            log.warning("version %d applied%s; its acknowledgement and status not read: %s", n,
                        "" if audited else " but not audited", unavailable_reason(exc))
            return ApplyResult(appliance_id=aid, version=n, previous=previous, acknowledged=False, ack_ms=None,
                               status=None)
    finally:
        await pubsub.aclose()
    return ApplyResult(appliance_id=aid, version=n, previous=previous, acknowledged=acked or status.active == n,
                       ack_ms=ack_ms, status=status)


def _answered(response: Response, result: ApplyResult) -> ApplyResult:
    if result.status is None:
        response.status_code = 202
    return result


# The dataplane announces a refusal only by setting `rejected` (REDIS.md, no publish), so the wait looks at it
# this often; an acknowledgement still ends the wait as soon as it is published.
REFUSAL_POLL_S = 0.05


def _refuses(rejected: str | None, before: str | None, n: int, seq: int) -> bool:
    """`rejected` names version n and answers this apply (counted `seq`): the key keeps the last refusal, which
    may be an earlier one of the same version, word for word the same but for its `apply_seq`. From a dataplane
    that names no apply, a refusal written after the apply began."""
    if rejected is None:
        return False
    try:
        rej = ApplyRejection.model_validate_json(rejected)
    except ValueError:
        return False
    if rej.apply_seq is None and rejected == before:
        return False
    return rej.version == n and answers(rej, seq)


async def _wait_ack(svc: Services, pubsub: Any, aid: str, n: int, seq: int, deadline: float,
                    refused_before: str | None) -> bool:
    """True once the dataplane runs n; False at the deadline, or as soon as it refuses this apply of n."""
    while True:
        active, rejected = await svc.redis.mget(keys.appliance(aid, "active"), keys.appliance(aid, "rejected"))
        if active == str(n):
            return True
        if _refuses(rejected, refused_before, n, seq):
            return False
        left = deadline - time.perf_counter()
        if left <= 0:
            return False
        msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=min(left, REFUSAL_POLL_S))
        if msg and msg.get("data") == str(n):
            return True
        if msg is None:
            await asyncio.sleep(0)


WAIT = Query(default=0, ge=0, le=10000, description="Wait up to this long for the dataplane's ack, ms.")


@router.post("/versions/{version}/apply", response_model=ApplyResult, responses=APPLY,
             summary="Make a version the one its appliance should run")
async def apply_version(version: int, request: Request, response: Response, body: ApplyRequest | None = None,
                        wait_ms: int = WAIT, svc: Services = Depends(services),
                        who: Principal = Depends(operator)) -> ApplyResult:
    return _answered(response, await _apply(svc, request, who, version, wait_ms, "version.apply",
                                            {"comment": body.comment if body else ""}))


@router.post("/versions/{version}/rollback", response_model=ApplyResult, responses=APPLY,
             summary="Roll back: copy an earlier version as a new version and apply it")
async def rollback_version(version: int, request: Request, response: Response, body: ApplyRequest | None = None,
                           wait_ms: int = WAIT, svc: Services = Depends(services),
                           who: Principal = Depends(operator)) -> ApplyResult:
    old = await _version_or_404(svc, version)
    comment = (body.comment if body and body.comment else "") or f"rollback to version {version}"
    info = await _create(svc, request, who, old.doc, comment, None, "version.create", {"rollback_of": version})
    return _answered(response, await _apply(svc, request, who, info.version, wait_ms, "version.rollback",
                                            {"rollback_to": version, "comment": comment}))
