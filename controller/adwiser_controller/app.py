"""The FastAPI application: routes, problem documents, /metrics, the web UI at /."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import Depends, FastAPI, Request, Response
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel
from redis.exceptions import RedisError

from . import __version__, metrics, problems, redis_client
from .api import aggregation, appliances, audit_routes, auth_routes, live, versions
from .api.deps import Services, services, viewer
from .audit import Audit
from .auth import Auth, Principal
from .body_limit import BodyLimit
from .login_limit import LoginLimit
from .query_check import forbid_unknown_or_repeated_query
from .security_headers import SecurityHeaders
from .field_errors import flatten
from .settings import Settings
from .store import Store, StoredInvalid
from .store_errors import unavailable_reason


class Health(BaseModel):
    status: str
    version: str


def create_app(settings: Settings) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        r = redis_client.connect(settings.redis_url, health_check_interval=30)
        limit = LoginLimit(r, settings.login_failures_per_user_client, settings.login_failures_per_client,
                           settings.login_failures_per_user, settings.login_window_s)
        app.state.services = Services(redis=r, store=Store(r), auth=Auth(r, settings.session_ttl_s), audit=Audit(r),
                                      settings=settings, login_limit=limit)
        try:
            yield
        finally:
            await r.aclose()

    app = FastAPI(
        title="ADWISER controller",
        version=__version__,
        description="Topology, slice maps and policies of ADWISER appliances: versioned, validated, applied "
                    "through Redis; telemetry; operators. See controller/API.md.",
        lifespan=lifespan,
        dependencies=[Depends(forbid_unknown_or_repeated_query)],
    )
    problems.install(app)

    @app.exception_handler(RedisError)
    async def _redis_down(request: Request, exc: RedisError) -> Response:
        return problems.problem_response(request, 503, f"store unavailable: {unavailable_reason(exc)}", "redis", [])

    @app.exception_handler(StoredInvalid)
    async def _stored_invalid(request: Request, exc: StoredInvalid) -> Response:
        # the fields as in POST /versions (doc.<path>): the document a new version must fix
        return problems.fields_problem(request, flatten(exc.errors, ("doc",)), str(exc))

    @app.middleware("http")
    async def _timing(request: Request, call_next):  # type: ignore[no-untyped-def]
        t0 = time.perf_counter()
        response = await call_next(request)
        route = request.scope.get("route")
        metrics.REQUEST_SECONDS.labels(metrics.method_label(request.method), getattr(route, "path", "other"),
                                       str(response.status_code)).observe(time.perf_counter() - t0)
        return response

    # Added after the others, so outside them: a body over the limit is refused before any other layer reads it.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    # Outside that: its 413 carries the headers as well.
    app.add_middleware(SecurityHeaders)

    for r in (versions.router, appliances.router, aggregation.router, live.router, audit_routes.router, auth_routes.router):
        app.include_router(r)

    @app.get("/api/v1/health", response_model=Health, tags=["health"], responses=problems.responses(422, 503),
             summary="Liveness of the controller and its store (no login needed)")
    async def health(svc: Services = Depends(services)) -> Health:
        await svc.redis.ping()
        return Health(status="ok", version=__version__)

    @app.get("/metrics", tags=["telemetry"], response_class=Response, responses=problems.responses(401, 403, 422),
             summary="Prometheus metrics of every appliance and of the controller")
    async def prometheus(request: Request, svc: Services = Depends(services),
                         _: Principal = Depends(viewer)) -> Response:
        body, content_type = await metrics.exposition(svc.redis, svc.store, svc.settings.heartbeat_stale_s,
                                                      request.headers.get("accept", ""))
        return Response(body, media_type=content_type)

    dist = settings.webui_dist
    if dist is not None and (dist / "index.html").is_file():
        app.mount("/", StaticFiles(directory=dist, html=True), name="webui")
    return app
