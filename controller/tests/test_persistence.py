"""A restart of the controller and of Redis (AOF) loses nothing committed: versions, desired,
users, tokens, audit."""

from __future__ import annotations

import httpx
from lab_document import lab_doc
from servers import ControllerServer, RedisServer, cli


def test_versions_users_and_tokens_survive_restarting_controller_and_redis(tmp_path):
    rs = RedisServer(tmp_path / "redis").start()
    cs = None
    try:
        assert cli(rs.url, "create-admin", "--username", "boss", "--password-stdin",
                   stdin="boss password 1\n").returncode == 0
        cs = ControllerServer(rs.url, tmp_path / "ctl").start()
        client = httpx.Client(base_url=cs.url, timeout=10)
        csrf = client.post("/api/v1/auth/login", json={"username": "boss", "password": "boss password 1"}).json()
        token = client.post("/api/v1/auth/tokens", headers={"X-CSRF-Token": csrf["csrf_token"]},
                            json={"name": "p"}).json()["token"]
        client.close()
        hdr = {"Authorization": f"Bearer {token}"}
        made = []
        for ms in (20, 30, 40):
            doc = lab_doc("persist")
            doc["slice_map"]["slices"][0]["duration_ms"] = ms
            res = httpx.post(cs.url + "/api/v1/versions", headers=hdr, json={"doc": doc, "comment": f"{ms} ms"})
            assert res.status_code == 201
            made.append(res.json())
        assert httpx.post(cs.url + f"/api/v1/versions/{made[1]['version']}/apply", headers=hdr).status_code == 200
        before = {m["version"]: httpx.get(cs.url + f"/api/v1/versions/{m['version']}", headers=hdr).json()
                  for m in made}
        audit_before = httpx.get(cs.url + "/api/v1/audit", headers=hdr).json()

        cs.stop()
        rs.stop()
        rs.start()
        cs.start()

        after = {n: httpx.get(cs.url + f"/api/v1/versions/{n}", headers=hdr).json() for n in before}
        assert after == before
        st = httpx.get(cs.url + "/api/v1/appliances/persist", headers=hdr).json()
        assert st["desired"] == made[1]["version"] and st["head"] == made[2]["version"]
        assert httpx.get(cs.url + "/api/v1/audit", headers=hdr).json() == audit_before
        res = httpx.post(cs.url + "/api/v1/auth/login", json={"username": "boss", "password": "boss password 1"})
        assert res.status_code == 200
        doc = lab_doc("persist")
        res = httpx.post(cs.url + "/api/v1/versions", headers=hdr, json={"doc": doc})
        assert res.json()["version"] == made[2]["version"] + 1 and res.json()["parent"] == made[2]["version"]
    finally:
        if cs:
            cs.stop()
        rs.stop()


def test_cli_seed_and_apply_store_and_publish_a_version(redis_server, rdb, tmp_path):
    import yaml

    path = tmp_path / "doc.yaml"
    path.write_text(yaml.safe_dump(lab_doc("seeded")))
    pubsub = rdb.pubsub(ignore_subscribe_messages=True)
    pubsub.subscribe("adwiser:appliance:seeded:config")
    res = cli(redis_server.url, "seed", str(path), "--comment", "from file", "--apply")
    assert res.returncode == 0, res.stderr
    n = int(res.stdout.split("stored version ")[1].split()[0])
    assert rdb.hget(f"adwiser:version:{n}", "comment") == "from file"
    assert rdb.get("adwiser:appliance:seeded:desired") == str(n)
    msg = None
    for _ in range(50):
        msg = pubsub.get_message(timeout=0.1)
        if msg:
            break
    assert msg and msg["data"] == str(n)
    pubsub.close()
    assert cli(redis_server.url, "apply", "99999999").returncode == 1


def test_cli_seed_is_audited_with_the_version_it_follows_as_every_version_create_is(redis_server, rdb, tmp_path):
    import json

    import yaml

    from adwiser_controller import keys

    path = tmp_path / "doc.yaml"
    path.write_text(yaml.safe_dump(lab_doc("seeded-twice")))
    seeded = [int(cli(redis_server.url, "seed", str(path), "--comment", c).stdout.split("stored version ")[1].split()[0])
              for c in ("one", "two")]
    details = [json.loads(f["detail"]) for _, f in rdb.xrevrange(keys.AUDIT, count=50)
               if f["action"] == "version.create" and json.loads(f["detail"]).get("appliance_id") == "seeded-twice"]
    assert details[0] == {"appliance_id": "seeded-twice", "comment": "two", "parent": seeded[0]}
    assert details[1] == {"appliance_id": "seeded-twice", "comment": "one", "parent": None}


def test_cli_seed_refuses_an_invalid_file_and_stores_nothing(redis_server, rdb, tmp_path):
    import yaml

    doc = lab_doc("seedbad")
    doc["topology"]["stas"][0]["ap"] = "apX"
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(doc))
    seq = rdb.get("adwiser:version:seq")
    res = cli(redis_server.url, "seed", str(path))
    assert res.returncode == 1 and "topology.stas[0].ap" in res.stderr
    assert rdb.get("adwiser:version:seq") == seq
