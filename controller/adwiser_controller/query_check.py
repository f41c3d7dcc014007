"""Refuse query parameters a route does not declare, and any given more than once (422 naming each),
instead of ignoring them: a misspelt `?apliance=` must not silently fall back to a default, and of
`?limit=1&limit=500` one value would be used without a word."""

from __future__ import annotations

from collections import Counter

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


async def forbid_unknown_or_repeated_query(request: HTTPConnection) -> None:
    route = request.scope.get("route")
    if route is None:
        return
    given = Counter(k for k, _ in request.query_params.multi_items())
    unknown = sorted(set(given) - _declared(route))
    repeated = sorted(k for k, times in given.items() if times > 1 and k not in unknown)
    errors = [FieldError(field=f"query.{k}", message="unknown query parameter", type="extra_forbidden")
              for k in unknown]
    errors += [FieldError(field=f"query.{k}", message="query parameter given more than once", type="repeated")
               for k in repeated]
    if errors:
        said = ([f"unknown query parameter(s): {', '.join(unknown)}"] if unknown else []) + (
            [f"query parameter(s) given more than once: {', '.join(repeated)}"] if repeated else [])
        raise ProblemException(422, "; ".join(said), errors[0].field, errors)
