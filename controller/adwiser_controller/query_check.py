"""Refuse query parameters a route does not declare (422 naming each), instead of ignoring them:
a misspelt `?apliance=` must not silently fall back to a default."""

from __future__ import annotations

from starlette.requests import HTTPConnection
from fastapi.dependencies.utils import get_flat_dependant

from .field_errors import FieldError
from .problems import ProblemException

_allowed: dict[int, set[str]] = {}


def _declared(route: object) -> set[str]:
    key = id(route)
    if key not in _allowed:
        dependant = getattr(route, "dependant", None)
        _allowed[key] = {p.alias for p in get_flat_dependant(dependant).query_params} if dependant else set()
    return _allowed[key]


async def forbid_unknown_query(request: HTTPConnection) -> None:
    route = request.scope.get("route")
    if route is None:
        return
    unknown = sorted(set(request.query_params.keys()) - _declared(route))
    if unknown:
        errors = [FieldError(field=f"query.{k}", message="unknown query parameter", type="extra_forbidden")
                  for k in unknown]
        raise ProblemException(422, "unknown query parameter(s): " + ", ".join(unknown), errors[0].field, errors)
