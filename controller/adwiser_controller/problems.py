"""RFC 7807 problem documents for every error the API returns.

Each problem names the field at fault (`field`, and `errors` when there are
several), whether it comes from request validation, configuration validation,
authentication (401: the credential), authorisation (403), a missing object
(404: the path parameter) or a conflict (409).
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from .field_errors import FieldError, flatten, strip_request_part

PROBLEM_MEDIA_TYPE = "application/problem+json"

TITLES = {
    400: "Bad request",
    401: "Authentication required",
    403: "Forbidden",
    404: "Not found",
    405: "Method not allowed",
    409: "Conflict",
    422: "Invalid input",
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


def problem_response(request: Request, status: int, detail: str, field: str | None,
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


def fields_problem(request: Request, errors: list[FieldError], lead: str = "") -> JSONResponse:
    """422 naming each field at fault; the detail lists the first five (after `lead`, if any)."""
    detail = "; ".join(f"{e.field}: {e.message}" for e in errors[:5])
    if len(errors) > 5:
        detail += f"; and {len(errors) - 5} more"
    return problem_response(request, 422, f"{lead}: {detail}" if lead else detail, None, errors)


def _validation_problem(request: Request, raw: list[dict[str, Any]]) -> JSONResponse:
    return fields_problem(request, flatten(strip_request_part(raw)))


def install(app: FastAPI) -> None:
    @app.exception_handler(ProblemException)
    async def _problem(request: Request, exc: ProblemException) -> JSONResponse:
        return problem_response(request, exc.status, exc.detail, exc.field, exc.errors, exc.headers)

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
