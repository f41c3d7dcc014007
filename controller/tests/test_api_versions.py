"""Versions over the API: edits make immutable versions, diff, apply, ack, rollback; problems name fields."""

from __future__ import annotations

import json
import time

import httpx
import pytest
from at_once import at_once
from lab_document import lab_doc
from reference_dataplane import ReferenceDataplane


def test_slice_map_edit_creates_a_new_version_with_parent_and_author(api, appliance):
    aid, v1 = appliance
    sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()
    assert sm["version"] == v1 and sm["frame_ms"] == 40
    sm["slice_map"]["slices"][0]["duration_ms"] = 30
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid},
                              json={"slice_map": sm["slice_map"], "comment": "longer AP1 slice", "base_version": v1})
    assert res.status_code == 201, res.text
    info = res.json()
    assert info["parent"] == v1 and info["author"] == "operator1" and info["comment"] == "longer AP1 slice"
    shown = api("viewer").get(f"/api/v1/versions/{info['version']}").json()
    assert shown["doc"]["slice_map"]["slices"][0]["duration_ms"] == 30
    assert api("viewer").get(f"/api/v1/versions/{v1}").json()["doc"]["slice_map"]["slices"][0]["duration_ms"] == 20


def test_stale_base_version_is_refused_with_409_naming_base_version(api, appliance):
    aid, v1 = appliance
    pol = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]
    first = api("operator").put("/api/v1/policies", params={"appliance": aid},
                                json={"policies": pol, "base_version": v1})
    assert first.status_code == 201
    second = api("operator").put("/api/v1/policies", params={"appliance": aid},
                                 json={"policies": pol, "base_version": v1})
    assert second.status_code == 409
    assert second.headers["content-type"].startswith("application/problem+json")
    assert second.json()["field"] == "base_version"


def test_a_stale_base_version_is_409_even_when_the_edit_does_not_fit_the_newer_version(api, appliance):
    # The part was merged into the newer head and validated before the base was compared: a slice map loaded
    # from v1 checked against v2's topology answered 422 naming topology.stas[2], a field the user never
    # touched, instead of 409 base_version (reload and edit again).
    aid, v1 = appliance
    sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()["slice_map"]
    doc = lab_doc(aid)
    doc["topology"]["stas"].append({"id": "sta3", "mac": "02:ad:00:00:01:02", "ips": ["198.18.0.13"], "ap": "ap1"})
    doc["slice_map"]["slices"][0]["pairs"].append("ap1/sta3")
    assert api("operator").post("/api/v1/versions", json={"doc": doc}).status_code == 201
    sm["slices"][0]["duration_ms"] = 30
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid},
                              json={"slice_map": sm, "base_version": v1})
    assert res.status_code == 409, res.text
    assert res.json()["field"] == "base_version"
    assert api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"] == 2


def test_a_misspelt_base_version_is_refused_naming_it_not_ignored(api, appliance):
    # Request bodies ignored keys they do not know: a misspelt base_version dropped the optimistic check,
    # and an edit made on a stale read was stored over the edit that had landed since (a lost update).
    aid, v1 = appliance
    pol = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]
    assert api("operator").put("/api/v1/policies", params={"appliance": aid},
                               json={"policies": pol, "base_version": v1}).status_code == 201
    res = api("operator").put("/api/v1/policies", params={"appliance": aid},
                              json={"policies": pol, "base_verison": v1})
    assert res.status_code == 422 and res.json()["field"] == "base_verison", res.text
    assert api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"] == 2
    res = api("operator").post(f"/api/v1/versions/{v1}/apply", json={"coment": "typo"})
    assert res.status_code == 422 and res.json()["field"] == "coment", res.text


def test_concurrent_edits_of_two_parts_without_base_version_keep_both(api, appliance, controller, tokens):
    """Without base_version an edit applies to whatever is latest: one that lands while another part's edit
    is being merged must not be reverted by it (before the fix, most of these rounds lost one edit)."""
    aid, _ = appliance
    headers = {"Authorization": f"Bearer {tokens['operator']}"}
    with httpx.Client(base_url=controller.url, headers=headers, timeout=10) as c1, \
            httpx.Client(base_url=controller.url, headers=headers, timeout=10) as c2:
        for i in range(10):
            pol = api("viewer").get("/api/v1/policies", params={"appliance": aid}).json()["policies"]
            sm = api("viewer").get("/api/v1/slice-maps", params={"appliance": aid}).json()["slice_map"]
            pol["ts_abr_qd"]["a_pkts_per_ms"] = 1 + (i + 1) / 100
            sm["slices"][0]["duration_ms"] = 21 + i
            r1, r2 = at_once(
                lambda: c1.put("/api/v1/policies", params={"appliance": aid}, json={"policies": pol}),
                lambda: c2.put("/api/v1/slice-maps", params={"appliance": aid}, json={"slice_map": sm}))
            assert r1.status_code == 201 and r2.status_code == 201, (r1.text, r2.text)
            latest = max(r1.json()["version"], r2.json()["version"])
            doc = api("viewer").get(f"/api/v1/versions/{latest}").json()["doc"]
            assert doc["policies"]["ts_abr_qd"]["a_pkts_per_ms"] == pol["ts_abr_qd"]["a_pkts_per_ms"], i
            assert doc["slice_map"]["slices"][0]["duration_ms"] == 21 + i, i


def test_invalid_edit_is_refused_whole_naming_the_field(api, appliance):
    aid, v1 = appliance
    topo = api("viewer").get("/api/v1/topology", params={"appliance": aid}).json()["topology"]
    topo["stas"][1]["mac"] = topo["stas"][0]["mac"]
    res = api("operator").put("/api/v1/topology", params={"appliance": aid}, json={"topology": topo})
    assert res.status_code == 422
    body = res.json()
    assert body["status"] == 422 and body["field"] == "topology.stas[1].mac"
    assert "duplicate MAC" in body["errors"][0]["message"]
    assert api("viewer").get("/api/v1/versions", params={"appliance": aid}).json()["total"] == 1


def test_structural_error_in_body_names_the_field_without_body_prefix(api, appliance):
    aid, _ = appliance
    doc = lab_doc(aid)
    doc["policies"]["ts_abr_qd"]["a_pkts_per_ms"] = -1
    res = api("operator").post("/api/v1/versions", json={"doc": doc})
    assert res.status_code == 422
    assert res.json()["field"] == "doc.policies.ts_abr_qd.a_pkts_per_ms"


def test_a_body_that_is_not_json_is_refused_as_the_document_saying_where_it_breaks(api, appliance):
    # FastAPI puts the character offset of a JSON syntax error where a field's path goes: the problem named
    # field "[1]", an array element that does not exist, and its message did not say what was wrong
    aid, v1 = appliance
    res = api("operator").post(f"/api/v1/versions/{v1}/apply", content=b'{bad',
                               headers={"content-type": "application/json"})
    assert res.status_code == 422
    body = res.json()
    assert body["field"] == "(document)", body
    assert "character 1" in body["detail"] and "double quotes" in body["detail"], body


def test_conflicting_pairs_in_one_slice_refused_via_slice_map_endpoint(api, appliance):
    aid, _ = appliance
    res = api("operator").put("/api/v1/slice-maps", params={"appliance": aid}, json={
        "slice_map": {"slices": [{"duration_ms": 20, "pairs": ["ap1/sta1", "ap2/sta2"]}]}})
    assert res.status_code == 422
    assert res.json()["field"] == "slice_map.slices[0].pairs[1]"


def test_diff_lists_changed_paths_and_a_unified_diff(api, appliance):
    aid, v1 = appliance
    doc = lab_doc(aid)
    doc["policies"]["realtime"]["udp_ports"] = [5004]
    doc["slice_map"]["slices"][1]["duration_ms"] = 25
    v2 = api("operator").post("/api/v1/versions", json={"doc": doc, "base_version": v1}).json()["version"]
    d = api("viewer").get(f"/api/v1/versions/{v2}/diff").json()
    assert d["from_version"] == v1
    paths = {c["path"]: c for c in d["changes"]}
    assert paths["slice_map.slices[1].duration_ms"] == {"path": "slice_map.slices[1].duration_ms", "op": "changed",
                                                       "old": 20, "new": 25}
    assert paths["policies.realtime.udp_ports[0]"]["op"] == "added"
    assert "-  - duration_ms: 20" in d["unified"] and "+  - duration_ms: 25" in d["unified"]


def test_diff_of_versions_stored_before_a_defaulted_field_existed_shows_no_phantom_change(api, appliance, rdb):
    """Versions stored by an older controller lack fields added later with a default (early_handover,
    hold_max_fraction, guard_us): two such versions with the same content differ in nothing."""
    aid, v1 = appliance
    v2 = api("operator").post("/api/v1/versions", json={"doc": lab_doc(aid), "comment": "same again"}).json()["version"]
    for n in (v1, v2):
        doc = json.loads(rdb.hget(f"adwiser:version:{n}", "doc"))
        del doc["policies"]["ts_abr_qd"]["early_handover"]
        del doc["policies"]["realtime"]["hold_max_fraction"], doc["policies"]["realtime"]["guard_us"]
        rdb.hset(f"adwiser:version:{n}", "doc", json.dumps(doc))
    d = api("viewer").get(f"/api/v1/versions/{v2}/diff").json()
    assert d["from_version"] == v1
    assert d["changes"] == [] and d["unified"] == ""


def test_unknown_version_is_404_naming_version(api):
    res = api("viewer").get("/api/v1/versions/987654321")
    assert res.status_code == 404 and res.json()["field"] == "version"


def test_apply_is_acknowledged_by_the_dataplane_and_shown_active(api, appliance, redis_server):
    aid, v1 = appliance
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False).start()
    try:
        res = api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000})
        assert res.status_code == 200, res.text
        body = res.json()
        assert body["acknowledged"] is True and body["ack_ms"] is not None
        st = api("viewer").get(f"/api/v1/appliances/{aid}").json()
        assert st["desired"] == v1 and st["active"] == v1 and st["pending"] is False and st["alive"] is True
    finally:
        dp.stop()


def test_concurrent_applies_report_a_chain_of_previous_versions(api, appliance, controller, tokens):
    """Each apply reports the desired version it replaced, read in the same transaction as its write: of two
    applies at once, one replaced the old desired version and the other the first one's."""
    aid, v1 = appliance
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = 25
    versions = [v1] + [api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]
                       for _ in range(2)]
    headers = {"Authorization": f"Bearer {tokens['operator']}"}
    with httpx.Client(base_url=controller.url, headers=headers, timeout=10) as c1, \
            httpx.Client(base_url=controller.url, headers=headers, timeout=10) as c2:
        for _ in range(6):
            before = api("viewer").get(f"/api/v1/appliances/{aid}").json()["desired"]
            a, b = [v for v in versions if v != before][:2]
            ra, rb = at_once(lambda: c1.post(f"/api/v1/versions/{a}/apply"),
                             lambda: c2.post(f"/api/v1/versions/{b}/apply"))
            assert ra.status_code == 200 and rb.status_code == 200, (ra.text, rb.text)
            chain = {(a, ra.json()["previous"]), (b, rb.json()["previous"])}
            assert chain in ({(a, before), (b, a)}, {(b, before), (a, b)}), chain


def test_apply_without_a_dataplane_stays_pending(api, appliance):
    aid, v1 = appliance
    body = api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 200}).json()
    assert body["acknowledged"] is False
    assert body["status"]["pending"] is True and body["status"]["desired"] == v1 and body["status"]["active"] is None
    assert body["status"]["alive"] is False


def test_a_dataplane_running_its_config_file_shows_the_applied_version_pending(api, appliance, rdb):
    # An operator's SIGHUP made the dataplane run its --config file: it writes active 0 (REDIS.md), and there is no
    # version 0 to look up. The applied version is pending, not in sync, and nothing that reads `active` fails.
    aid, v1 = appliance
    assert api("operator").post(f"/api/v1/versions/{v1}/apply").status_code == 200
    rdb.set(f"adwiser:appliance:{aid}:active", 0)
    rdb.set(f"adwiser:appliance:{aid}:heartbeat",
            json.dumps({"ts_ns": time.time_ns(), "pid": 1, "version": 0, "backend": "dpdk"}), px=3000)
    st = api("viewer").get(f"/api/v1/appliances/{aid}").json()
    assert st["active"] == 0 and st["desired"] == v1 and st["pending"] is True and st["heartbeat"]["version"] == 0
    metrics = api("viewer").get("/metrics")
    assert metrics.status_code == 200
    assert f'adwiser_config_pending{{appliance="{aid}"}} 1.0' in metrics.text


def test_refused_version_is_reported_and_the_old_one_keeps_running(api, appliance, redis_server):
    aid, v1 = appliance
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = 25
    v2 = api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False, refuse_versions={v2}).start()
    try:
        assert api("operator").post(f"/api/v1/versions/{v1}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
        res = api("operator").post(f"/api/v1/versions/{v2}/apply", params={"wait_ms": 300}).json()
        assert res["acknowledged"] is False
        deadline = time.monotonic() + 3
        while time.monotonic() < deadline:
            st = api("viewer").get(f"/api/v1/appliances/{aid}").json()
            if st["rejected"]:
                break
            time.sleep(0.05)
        assert st["rejected"]["version"] == v2 and st["active"] == v1 and st["pending"] is True
    finally:
        dp.stop()


def test_a_stored_version_that_no_longer_validates_is_refused_with_a_problem_naming_its_field(api, appliance, rdb):
    # A version stored under looser rules (an older controller) or edited in Redis. Its apply re-validates it
    # ("never publish a bad one") but answered a bare text/plain 500, and the server dropped the connection.
    aid, v1 = appliance
    raw = json.loads(rdb.hget(f"adwiser:version:{v1}", "doc"))
    raw["topology"]["aps"][0]["channel"] = 999
    rdb.hset(f"adwiser:version:{v1}", "doc", json.dumps(raw))
    for method, path in (("post", f"/api/v1/versions/{v1}/apply"), ("get", f"/api/v1/versions/{v1}"),
                         ("put", f"/api/v1/slice-maps?appliance={aid}")):
        body = {"slice_map": lab_doc(aid)["slice_map"]} if method == "put" else None
        res = api("operator").request(method.upper(), path, json=body)
        assert res.status_code == 422, (path, res.status_code, res.text)
        assert res.headers["content-type"] == "application/problem+json"
        assert res.json()["field"] == "doc.topology.aps[0].channel"
        assert f"version {v1}" in res.json()["detail"]
    assert rdb.get(f"adwiser:appliance:{aid}:desired") is None


def test_rollback_copies_the_old_version_and_applies_it(api, appliance, redis_server):
    aid, v1 = appliance
    doc = lab_doc(aid)
    doc["slice_map"]["slices"][0]["duration_ms"] = 60
    v2 = api("operator").post("/api/v1/versions", json={"doc": doc}).json()["version"]
    dp = ReferenceDataplane(redis_server.url, aid, telemetry=False).start()
    try:
        assert api("operator").post(f"/api/v1/versions/{v2}/apply", params={"wait_ms": 3000}).json()["acknowledged"]
        rb = api("operator").post(f"/api/v1/versions/{v1}/rollback", params={"wait_ms": 3000}).json()
        v3 = rb["version"]
        assert v3 > v2 and rb["acknowledged"] and rb["previous"] == v2
        assert api("viewer").get(f"/api/v1/versions/{v3}").json()["doc"] == \
            api("viewer").get(f"/api/v1/versions/{v1}").json()["doc"]
        history = api("viewer").get(f"/api/v1/appliances/{aid}/applied").json()
        assert [h["version"] for h in history[:2]] == [v3, v2]
    finally:
        dp.stop()


def test_version_list_is_newest_first_and_pages(api, appliance):
    aid, v1 = appliance
    for i in range(3):
        doc = lab_doc(aid)
        doc["slice_map"]["slices"][0]["duration_ms"] = 21 + i
        assert api("operator").post("/api/v1/versions", json={"doc": doc}).status_code == 201
    page = api("viewer").get("/api/v1/versions", params={"appliance": aid, "limit": 2}).json()
    assert page["total"] == 4 and len(page["items"]) == 2
    assert page["items"][0]["version"] > page["items"][1]["version"] > v1


@pytest.mark.parametrize("path", ["/api/v1/topology", "/api/v1/slice-maps", "/api/v1/policies"])
def test_parts_of_an_unknown_appliance_are_404(api, path):
    res = api("viewer").get(path, params={"appliance": "nowhere"})
    assert res.status_code == 404 and res.json()["field"] == "appliance"
