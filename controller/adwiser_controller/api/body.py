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
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
