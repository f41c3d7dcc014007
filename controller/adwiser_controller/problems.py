"""RFC 7807 problem documents for every error the API returns.

Each problem names the field at fault (`field`, and `errors` when there are
several), whether it comes from request validation, configuration validation,
authentication (401: the credential), authorisation (403), a missing object
(404: the path parameter) or a conflict (409). On a WebSocket the same
problem is sent in the socket and closes it with 4000 + its status (ws_refusal.py).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError, WebSocketRequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.websockets import WebSocket

from .field_errors import FieldError, flatten, strip_request_part
from .ws_refusal import refuse

PROBLEM_MEDIA_TYPE = "application/problem+json"

TITLES = {
    400: "Bad request",
    401: "Authentication required",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    413: "Request body too large",
    422: "Invalid input",
    429: "Too many requests",
    500: "Internal error",
    503: "Store unavailable",
}


class Problem(BaseModel):
    type: str = Field(default="about:blank", description="URI of the problem type (RFC 7807).")
    title: str = Field(description="Short summary of the problem type.")
    status: int = Field(description="HTTP status code.")
    detail: str = Field(default="", description="What went wrong in this request.")
    instance: str = Field(default="", description="Path of the request.")
    field: str | None = Field(default=None, description="The (first) field at fault, as a dotted path.")
    errors: list[FieldError] = Field(default_factory=list, description="Every field at fault, with its message.")


class ProblemException(Exception):
    def __init__(self, status: int, detail: str, field: str | None = None,
                 errors: list[FieldError] | None = None, headers: dict[str, str] | None = None):
        super().__init__(detail)
        self.status = status
        self.detail = detail
        self.field = field
        self.errors = errors or ([FieldError(field=field, message=detail, type=f"http_{status}")] if field else [])
        self.headers = headers


def problem_response(request: HTTPConnection, status: int, detail: str, field: str | None,
                     errors: list[FieldError], headers: dict[str, str] | None = None) -> JSONResponse:
    body = Problem(
        type=f"https://adwiser.invalid/problems/{status}",
        title=TITLES.get(status, "Error"),
        status=status,
        detail=detail,
        instance=request.url.path,
        field=field if field is not None else (errors[0].field if errors else None),
        errors=errors,
    )
    return JSONResponse(body.model_dump(), status_code=status, media_type=PROBLEM_MEDIA_TYPE, headers=headers)


def _fields_detail(errors: list[FieldError], lead: str = "") -> str:
    """The first five fields at fault with their messages (after `lead`, if any)."""
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors[:5])
    if len(errors) > 5:
        detail += f"; and {len(errors) - 5} more"
    return f"{lead}: {detail}" if lead else detail


def fields_problem(request: Request, errors: list[FieldError], lead: str = "") -> JSONResponse:
    """422 naming each field at fault."""
    return problem_response(request, 422, _fields_detail(errors, lead), None, errors)


def _validation_problem(request: Request, raw: list[dict[str, Any]]) -> JSONResponse:
    return fields_problem(request, flatten(strip_request_part(raw)))


def install(app: FastAPI) -> None:
    @app.exception_handler(ProblemException)
    async def _problem(conn: HTTPConnection, exc: ProblemException) -> JSONResponse | None:
        if isinstance(conn, WebSocket):  # e.g. a misspelt query parameter (query_check.py)
            await refuse(conn, exc.status, exc.detail, exc.field or (exc.errors[0].field if exc.errors else None))
            return None
        return problem_response(conn, exc.status, exc.detail, exc.field, exc.errors, exc.headers)

    @app.exception_handler(WebSocketRequestValidationError)
    async def _ws_invalid(ws: WebSocket, exc: WebSocketRequestValidationError) -> None:
        # FastAPI's own closes the handshake with 1008, which the server answers with a bare HTTP 403.
        errors = flatten(strip_request_part(list(exc.errors())))
        await refuse(ws, 422, _fields_detail(errors), errors[0].field if errors else None)

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return _validation_problem(request, list(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        field = "path" if exc.status_code in (404, 405) else None
        return problem_response(request, exc.status_code, str(exc.detail), field, [], getattr(exc, "headers", None))


def responses(*codes: int) -> dict[int | str, dict[str, Any]]:
    """OpenAPI `responses=` entries documenting the problem documents a route can return."""
    return {
        c: {"model": Problem, "description": TITLES.get(c, "Error"), "content": {PROBLEM_MEDIA_TYPE: {}}}
        for c in codes
    }
