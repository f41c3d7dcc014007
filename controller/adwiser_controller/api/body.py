"""The base of every request body the API reads.

Unknown keys are refused (422 naming each), as in the configuration document
(models.Strict) and the query string (query_check.py): a misspelt
`base_version` must not drop the optimistic check, nor a misspelt `disabled`
answer 200 with nothing changed. A value is taken only in the JSON type the
API's OpenAPI schema gives it (pydantic's strict mode, as in the document):
`"disabled": "yes"` must not disable a user, nor `"base_version": "7"` pass for
the integer. No whitespace stripping here, unlike the document's strings:
passwords are taken as typed.

Validated from Python objects (FastAPI's validate_python, model_validate), a
strict enum takes only its members, not the JSON string that names one: a
field whose JSON value is an enum's string (a role) is made lax
(`Field(strict=False)`), which takes the enum's values and nothing else.

The body's JSON is read strictly too (StrictJsonRoute, which every router uses).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict

from .. import strict_json


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _StrictJsonRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            body = await self.body()
            try:
                self._json = strict_json.loads(body)
            except strict_json.NotStrictJson as exc:
                # FastAPI answers a JSONDecodeError with its 422 json_invalid, naming the reason.
                raise json.JSONDecodeError(str(exc), body.decode("utf-8", "replace"), 0) from None
        return self._json


class StrictJsonRoute(APIRoute):
    """A route whose JSON body is read as adwiser-dp reads a document (strict_json): Python's json would keep the
    last of two equal keys and drop the first without a word, which the dataplane, `adwiser_controller validate`
    and ansible all refuse; so is NaN. Every router of the API uses it (APIRouter(route_class=...))."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJsonRequest(request.scope, request.receive))

        return strict
