"""A request body is read as adwiser-dp reads a document: a key given twice is refused (422), not half-read.

Python's json keeps the last of two equal keys and drops the first without a word; the dataplane's loader
(jansson, JSON_REJECT_DUPLICATES), `adwiser_controller validate` and ansible's check refuse the document. A
configuration the API stored from such a body would be one the author did not write in full.
"""

from __future__ import annotations

import json

import pytest
from lab_document import lab_doc


def _versions(api, aid: str) -> int:
    return api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"]


def _post_text(api, text: str):
    return api("operator").post("/api/v1/versions", content=text.encode(),
                                headers={"Content-Type": "application/json"})


@pytest.mark.parametrize("first,last", [('"channel": 999', '"channel": 36'), ('"channel": 36', '"channel": 40')],
                         ids=["first-out-of-range", "both-valid"])
def test_a_new_version_naming_a_document_key_twice_is_refused_and_nothing_is_stored(api, appliance, first, last):
    aid, _ = appliance
    text = json.dumps({"doc": lab_doc(aid), "comment": "twice"}).replace('"channel": 36', f"{first}, {last}", 1)
    res = _post_text(api, text)
    assert res.status_code == 422, res.text
    assert "duplicate key 'channel'" in res.text, res.text
    assert _versions(api, aid) == 1


def test_a_body_naming_its_own_key_twice_is_refused(api, appliance):
    aid, _ = appliance
    text = json.dumps({"doc": lab_doc(aid), "comment": "first"})[:-1] + ', "comment": "second"}'
    res = _post_text(api, text)
    assert res.status_code == 422, res.text
    assert _versions(api, aid) == 1


def test_a_body_with_each_key_once_is_still_taken(api, appliance):
    aid, _ = appliance
    res = _post_text(api, json.dumps({"doc": lab_doc(aid), "comment": "once"}))
    assert res.status_code == 201, res.text


def test_a_body_nested_too_deeply_is_refused_as_json_invalid_naming_the_reason(api, appliance):
    # Python's json reader recurses per level: a few thousand brackets raised RecursionError, which FastAPI
    # answered 400 "There was an error parsing the body" naming no reason and no field.
    aid, _ = appliance
    res = _post_text(api, '{"doc": ' + "[" * 5000 + "]" * 5000 + "}")
    assert res.status_code == 422, res.text
    problem = res.json()
    assert problem["errors"][0]["type"] == "json_invalid", problem
    assert "nested too deeply" in problem["detail"], problem
    assert _versions(api, aid) == 1
