"""The loops' history (GET /telemetry/{id}/aggregation, tm:aggregation) gives each field the type the status
(GET /appliances/{id}/aggregation, PairLoop) gives it: the stream holds strings, and a field the history
did not know to parse reached clients as "123.4" or "False" (a string "False" is true in JavaScript)."""

from __future__ import annotations

import pytest
from test_aggregation_runner import tick_once, warmed_up

from adwiser_controller import keys
from adwiser_controller.api.aggregation import AggregationStatus, ApLoop, PairLoop, parse_entry


def _kinds(annotation: object) -> set[type]:
    return {t for t in (bool, int, float, str) if t is annotation or t in getattr(annotation, "__args__", ())}


def test_history_entries_carry_the_status_fields_as_numbers_and_booleans(api, appliance, redis_server, rdb):
    aid, _ = appliance
    _, _, runner = warmed_up(api, aid, redis_server.url)
    t0 = int(rdb.time()[0]) * 1000 + 60_000
    for k in range(5):   # a slot with every measured field: aggregation, ACKs, release-to-ACK delays
        rdb.xadd(keys.appliance(aid, "tm:pair"),
                 {"pair": "ap1/sta1", "released_pkts": "100", "released_bytes": str(100 * 1514), "agg_est": "10",
                  "agg_bursts": "10", "acked_segs": "100", "ack_delay_ms": "3", "ack_delay_min_ms": "1",
                  "ack_delay_samples": "4"}, id=f"{t0 + 100 * k}-0")
    status = tick_once(runner, redis_server.url, aid, 1.5)["aps"]["ap1"]["pairs"]["ap1/sta1"]
    entry = api("viewer").get(f"/api/v1/telemetry/{aid}/aggregation", params={"count": 1}).json()["entries"][-1]
    assert entry["pair"] == "ap1/sta1"
    wrong = {}
    for name, info in PairLoop.model_fields.items():
        kinds = _kinds(info.annotation)
        if status.get(name) is None or str in kinds:
            continue
        want = next(t for t in (bool, int, float) if t in kinds)
        same = entry.get(name) == (status[name] if want is bool else pytest.approx(status[name], rel=1e-5))
        if not isinstance(entry.get(name), want) or not same:
            wrong[name] = (entry.get(name), status[name])
    assert wrong == {}


# what one tm:aggregation entry carries besides the pair's status (PairLoop): the runner's clock and the AP's step
ENTRY_FIELDS = {"ts": AggregationStatus.model_fields["ts"],
                **{name: ApLoop.model_fields[name] for name in ("k", "nu", "c_hat_us")}, **PairLoop.model_fields}


def _as_the_runner_writes(kind: type) -> tuple[str, object]:
    """A value of `kind` as runner.py writes it into the stream, and what a client must get back."""
    if kind is bool:
        return "False", False
    if kind is int:
        return "7", 7
    if kind is float:
        return f"{12.25:.6g}", 12.25
    return "tracking", "tracking"


@pytest.mark.parametrize("name", sorted(ENTRY_FIELDS))
def test_every_field_of_a_history_entry_is_parsed_to_the_type_the_status_model_gives_it(name):
    kinds = _kinds(ENTRY_FIELDS[name].annotation)
    kind = next((t for t in (bool, int, float) if t in kinds), str)
    written, wanted = _as_the_runner_writes(kind)
    got = parse_entry("1-0", {name: written})[name]
    assert type(got) is kind and got == wanted
    if kind is not str:   # the runner writes a missing value (None) as ""
        assert parse_entry("1-0", {name: ""})[name] is None


@pytest.mark.parametrize("written", ["inf", "-inf", "nan", "Infinity"])
def test_a_history_number_field_that_is_no_finite_number_is_null(written):
    # JSON has no NaN or Infinity: as the status and the pair history (telemetry.stream_number) do, such a field is null.
    for name in ("phy_rate_mbps", "mu_n", "x_pps", "frames_in_slot"):
        assert parse_entry("1-0", {name: written})[name] is None, name


def test_the_history_serves_a_non_finite_field_as_null(api, appliance, rdb):
    aid, _ = appliance
    rdb.xadd(keys.appliance(aid, "tm:aggregation"), {"pair": "ap1/sta1", "x_pps": "inf", "mu_n": "nan"})
    res = api("viewer").get(f"/api/v1/telemetry/{aid}/aggregation", params={"count": 1})
    assert res.status_code == 200, res.text
    entry = res.json()["entries"][-1]
    assert entry["x_pps"] is None and entry["mu_n"] is None, entry
