"""The base of every request body the API reads.

Unknown keys are refused (422 naming each), as in the configuration document
(models.Strict) and the query string (query_check.py): a misspelt
`base_version` must not drop the optimistic check, nor a misspelt `disabled`
answer 200 with nothing changed. No whitespace stripping here, unlike the
document's strings: passwords are taken as typed.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")
