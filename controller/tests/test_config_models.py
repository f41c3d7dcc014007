"""The configuration models refuse bad documents whole, naming the field at fault."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from adwiser_controller import configfile, schema
from adwiser_controller.configfile import ConfigInvalid

CONFIGS = Path(__file__).resolve().parents[2] / "configs"
LAB = CONFIGS / "lab-2ap-2sta.yaml"
DATAPLANE_CONFIG_H = Path(__file__).resolve().parents[2] / "dataplane" / "include" / "adwiser" / "config.h"


def lab() -> dict[str, Any]:
    return yaml.safe_load(LAB.read_text())


def problems(doc: dict[str, Any]) -> dict[str, str]:
    with pytest.raises(ConfigInvalid) as info:
        configfile.validate_data(doc, "test")
    return {e.field: e.message for e in info.value.errors}


def test_lab_document_is_valid_and_lists_its_pairs():
    cfg = configfile.load(LAB)
    assert cfg.managed_pairs() == ["ap1/sta1", "ap2/sta2"]
    assert cfg.slice_map.frame_ms() == 40


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("*.yaml")), ids=lambda p: p.name)
def test_every_committed_config_is_valid_against_models_and_schema(path: Path):
    configfile.load(path)
    committed = json.loads(schema.DEFAULT_PATH.read_text())
    jsonschema.Draft202012Validator(committed).validate(yaml.safe_load(path.read_text()))


def test_committed_schema_matches_models():
    assert schema.is_current(), "run `make -C controller schema`"


def test_schema_refuses_a_structural_error_the_models_refuse():
    doc = lab()
    doc["slice_map"]["slices"][0]["duration_ms"] = 0
    validator = jsonschema.Draft202012Validator(json.loads(schema.DEFAULT_PATH.read_text()))
    assert list(validator.iter_errors(doc))
    assert "slice_map.slices[0].duration_ms" in problems(doc)


def test_unknown_sta_in_slice_is_named():
    doc = lab()
    doc["slice_map"]["slices"][1]["pairs"].append("ap2/sta9")
    assert problems(doc)["slice_map.slices[1].pairs[1]"] == "unknown STA 'sta9' in pair 'ap2/sta9'"


def test_pair_naming_the_wrong_ap_is_refused():
    doc = lab()
    doc["slice_map"]["slices"][0]["pairs"] = ["ap2/sta1"]
    found = problems(doc)
    assert "associated with AP 'ap1'" in found["slice_map.slices[0].pairs[0]"]
    assert "in no slice" in found["topology.stas[0]"]


def test_conflicting_pairs_in_one_slice_are_refused():
    doc = lab()
    doc["slice_map"]["slices"] = [{"duration_ms": 20, "pairs": ["ap1/sta1", "ap2/sta2"]}]
    assert "conflicts with 'ap1/sta1'" in problems(doc)["slice_map.slices[0].pairs[1]"]


def test_non_conflicting_pairs_may_share_a_slice():
    doc = lab()
    doc["topology"]["conflicts"] = []
    doc["slice_map"]["slices"] = [{"duration_ms": 20, "pairs": ["ap1/sta1", "ap2/sta2"]}]
    configfile.validate_data(doc, "test")


def test_managed_pair_missing_from_every_slice_is_refused():
    doc = lab()
    doc["slice_map"]["slices"].pop()
    assert problems(doc)["topology.stas[1]"] == "managed pair 'ap2/sta2' is in no slice of slice_map"


def _aps_on_one_port(vlan1: int | None, vlan2: int | None) -> dict[str, Any]:
    doc = lab()
    doc["topology"]["aps"][0].update(port="trunk0", vlan=vlan1)
    doc["topology"]["aps"][1].update(port="trunk0", vlan=vlan2)
    return doc


@pytest.mark.parametrize("vlan,said", [(101, "vlan 101"), (None, "untagged")], ids=["same-vlan", "both-untagged"])
def test_two_aps_on_one_port_and_vlan_are_refused_naming_the_second_aps_vlan(vlan, said):
    # The dataplane's loader refuses these with the same message (dataplane/dp/config_json.c).
    assert problems(_aps_on_one_port(vlan, vlan))["topology.aps[1].vlan"] == (
        f"AP 'ap2' has the port and VLAN of AP 'ap1' (port 'trunk0', {said}); "
        "APs on one port need each its own vlan, at most one untagged")


@pytest.mark.parametrize("vlans", [(101, 102), (None, 102), (101, None)], ids=str)
def test_aps_on_one_port_with_their_own_vlans_are_accepted(vlans):
    configfile.validate_data(_aps_on_one_port(*vlans), "test")


def test_one_vlan_on_two_ports_is_accepted():
    doc = lab()
    for ap in doc["topology"]["aps"]:
        ap["vlan"] = 101
    configfile.validate_data(doc, "test")


def test_duplicate_mac_ignores_case_and_duplicate_ip_ignores_spelling():
    doc = lab()
    doc["topology"]["stas"][1]["mac"] = "02:AD:00:00:01:01"
    doc["topology"]["stas"][1]["ips"] = ["198.18.0.011".replace("011", "11")]
    found = problems(doc)
    assert "duplicate MAC" in found["topology.stas[1].mac"]
    assert "duplicate IP" in found["topology.stas[1].ips[0]"]


def test_scoped_ipv6_address_is_refused_naming_the_field():
    # Python's ip_address takes 'fe80::1%eth0'; the dataplane (inet_pton) does not, and classifies by address only.
    doc = lab()
    doc["topology"]["stas"][0]["ips"] = ["198.18.0.10", "fe80::1%eth0"]
    assert "scoped IPv6 address" in problems(doc)["topology.stas[0].ips[1]"]


def test_ap_name_is_bounded_in_characters_as_the_schema_counts_them():
    # JSON Schema's maxLength (ansible's control-node check, the dashboard) counts characters: 128 x 'é' is 256 bytes.
    doc = lab()
    doc["topology"]["aps"][0]["name"] = "é" * 128
    configfile.validate_data(doc, "test")
    jsonschema.Draft202012Validator(json.loads(schema.DEFAULT_PATH.read_text())).validate(doc)
    doc["topology"]["aps"][0]["name"] = "é" * 129
    assert "at most 128 characters" in problems(doc)["topology.aps[0].name"]


def test_ap_name_with_a_nul_character_is_refused():
    # The dataplane's JSON parser (jansson, without JSON_ALLOW_NUL) refuses the whole document at a \u0000.
    doc = lab()
    doc["topology"]["aps"][1]["name"] = "AP2\x00lab"
    assert "NUL" in problems(doc)["topology.aps[1].name"]


def test_multicast_mac_is_refused():
    doc = lab()
    doc["topology"]["stas"][0]["mac"] = "01:00:5e:00:00:01"
    assert "unicast" in problems(doc)["topology.stas[0].mac"]


def test_unknown_ap_of_station_is_named():
    doc = lab()
    doc["topology"]["stas"][1]["ap"] = "ap7"
    assert problems(doc)["topology.stas[1].ap"] == "unknown AP 'ap7'"


def test_frame_longer_than_bound_is_refused():
    doc = lab()
    for s in doc["slice_map"]["slices"]:
        s["duration_ms"] = 500
    doc["slice_map"]["slices"].append({"duration_ms": 20, "pairs": ["ap1/sta1"]})
    assert "more than the 1000 ms" in problems(doc)["slice_map"]


@pytest.mark.parametrize(
    "section,key,value,field",
    [
        ("ts_abr_qd", "a_pkts_per_ms", 0, "policies.ts_abr_qd.a_pkts_per_ms"),
        ("ts_abr_qd", "r_min_pkts", 4096, "policies.ts_abr_qd.r_min_pkts"),
        ("ts_abr_qd", "r_init_pkts", 1, "policies.ts_abr_qd.r_init_pkts"),
        ("ts_abr_qd", "v_cap_factor", 1.0, "policies.ts_abr_qd.v_cap_factor"),
        ("queue_sizing", "q_min_pkts", 5000, "policies.queue_sizing.q_min_pkts"),
        ("queue_sizing", "ewma_alpha", 1.5, "policies.queue_sizing.ewma_alpha"),
        ("aggregation_target", "n_target_max", 0, "policies.aggregation_target.n_target_max"),
        ("aggregation_target", "t_bar_ms", -1, "policies.aggregation_target.t_bar_ms"),
        ("aggregation_target", "k1", 2.0, "policies.aggregation_target.k1"),  # the loop refuses K1 >= 2
        ("aggregation_target", "k2", 1.0, "policies.aggregation_target.k2"),  # and K2 >= 1 (000 §VI)
        ("aggregation_target", "delta_s", 0, "policies.aggregation_target.delta_s"),
        ("realtime", "dscp", [46, 64], "policies.realtime.dscp[1]"),
        ("realtime", "udp_ports", [5004, 5004], "policies.realtime.udp_ports"),
    ],
)
def test_policy_out_of_range_names_the_field(section, key, value, field):
    doc = lab()
    doc["policies"][section][key] = value
    assert field in problems(doc)


def test_unknown_pair_in_policy_is_named():
    doc = lab()
    doc["policies"]["dynamic_slicing"]["pairs"] = ["ap1/sta1", "ap1/nobody"]
    assert "policies.dynamic_slicing.pairs[1]" in problems(doc)


@pytest.mark.parametrize("policy", ["dynamic_slicing", "aggregation_target"])
def test_pair_listed_twice_in_a_policy_is_refused_naming_the_repeat(policy):
    # The dataplane stores these lists in arrays of one entry per pair: a repeat is refused there ("more entries
    # than pairs") once the list is longer than the pairs, and is meaningless before.
    doc = lab()
    doc["policies"][policy]["pairs"] = ["ap1/sta1", "ap2/sta2", "ap1/sta1"]
    found = problems(doc)
    assert found == {
        f"policies.{policy}.pairs[2]": f"duplicate pair 'ap1/sta1', already at policies.{policy}.pairs[0]"
    }


def test_a_pair_in_two_aggregation_overrides_is_refused_naming_the_second():
    # The loop takes a pair's N-bar and T-bar from one override: with the pair in two, the later one replaced
    # the earlier whole, so N-bar 16 of the first was dropped without a word for the second's T-bar.
    doc = lab()
    doc["policies"]["aggregation_target"]["overrides"] = [
        {"pairs": ["ap1/sta1"], "n_target_max": 16}, {"pairs": ["ap2/sta2", "ap1/sta1"], "t_bar_ms": 2.0}]
    assert problems(doc) == {
        "policies.aggregation_target.overrides[1].pairs[1]":
            "pair 'ap1/sta1' is already in policies.aggregation_target.overrides[0].pairs[0]: "
            "a pair takes its N-bar and T-bar from one override"}


def test_misspelt_key_is_refused_by_name():
    doc = lab()
    doc["policies"]["ts_abr_qd"]["r_maxpkts"] = 5
    assert "policies.ts_abr_qd.r_maxpkts" in problems(doc)


def test_every_problem_is_reported_not_only_the_first():
    doc = copy.deepcopy(lab())
    doc["topology"]["stas"][1]["ap"] = "nope"
    doc["slice_map"]["slices"][0]["pairs"] = ["ap1/zzz"]
    assert len(problems(doc)) >= 3


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "adwiser_controller", *args], capture_output=True, text=True, timeout=60)


def test_cli_validate_exits_nonzero_naming_the_field(tmp_path: Path):
    doc = lab()
    doc["topology"]["stas"][0]["mac"] = "not-a-mac"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    res = run_cli("validate", str(LAB), str(bad))
    assert res.returncode == 1
    assert "bad.yaml: topology.stas[0].mac:" in res.stderr
    assert "lab-2ap-2sta.yaml: valid" in res.stdout


def test_cli_validate_reports_yaml_syntax_errors_by_line(tmp_path: Path):
    bad = tmp_path / "broken.yaml"
    bad.write_text("schema_version: 1\ntopology: [\n")
    res = run_cli("validate", str(bad))
    assert res.returncode == 1 and "line" in res.stderr


def test_cli_validate_refuses_a_duplicate_key_naming_it_and_its_line(tmp_path: Path):
    # Plain yaml.safe_load keeps the last value, so the first appliance_id would be ignored silently.
    text = LAB.read_text()
    dup = tmp_path / "dup.yaml"
    dup.write_text(text + "appliance_id: other-id\n")
    line = len(text.splitlines()) + 1
    res = run_cli("validate", str(dup))
    assert res.returncode == 1, res.stdout
    assert f"dup.yaml: line {line} column 1: " in res.stderr and "duplicate key 'appliance_id'" in res.stderr


def test_duplicate_key_in_a_nested_mapping_is_refused():
    with pytest.raises(ConfigInvalid) as info:
        configfile.parse_text("topology:\n  aps: []\n  stas: []\n  aps: []\n", "test")
    assert info.value.errors[0].field == "line 4 column 3" and "duplicate key 'aps'" in info.value.errors[0].message


@pytest.mark.parametrize("value", ["!!set {ap1/sta1, ap2/sta2}", "!!omap [{a: 1}]", "!!pairs [[a, 1]]",
                                   "!!binary aGVsbG8="])
def test_yaml_types_json_has_not_are_refused_naming_the_line(value: str):
    # A !!set conflict pair was read as a Python set and taken as a pair in some order; the schema refuses it.
    with pytest.raises(ConfigInvalid) as info:
        configfile.parse_text(f"topology:\n  conflicts:\n    - {value}\n", "test")
    err = info.value.errors[0]
    assert err.field == "line 3 column 7" and "has no JSON type" in err.message, err


@pytest.mark.parametrize("value,in_11,in_12", [
    ("036", "30", "36"), ("0b101", "5", "the text '0b101'"), ("1_000", "1000", "the text '1_000'"),
    ("1:30", "90", "the text '1:30'"), ("2_0.5", "20.5", "the text '2_0.5'"), ("yes", "true", "the text 'yes'"),
    ("Off", "false", "the text 'Off'"), ("-0x10", "-16", "the text '-0x10'")])
def test_yaml_scalar_that_yaml_1_1_and_1_2_read_differently_is_refused_naming_both(value: str, in_11: str,
                                                                                   in_12: str):
    # PyYAML reads YAML 1.1 and read `channel: 036` as 30; the dashboard's import (YAML 1.2) reads 36.
    with pytest.raises(ConfigInvalid) as info:
        configfile.parse_text(f"topology:\n  aps:\n    - {{id: ap1, channel: {value}}}\n", "test")
    err = info.value.errors[0]
    assert err.field == "line 3 column 26" and f"{value} is {in_11} in YAML 1.1 and {in_12} in YAML 1.2" in err.message


def test_yaml_scalars_both_versions_read_alike_are_taken():
    doc = configfile.parse_text("a: 36\nb: -7\nc: 0x1F\nd: 1.5\ne: 1.0e+3\nf: true\ng: False\nh: '036'\ni: 0\n", "t")
    assert doc == {"a": 36, "b": -7, "c": 31, "d": 1.5, "e": 1000.0, "f": True, "g": False, "h": "036", "i": 0}


def test_an_unquoted_date_is_read_as_its_text():
    assert configfile.parse_text("appliance_id: 2026-11-27\n", "test") == {"appliance_id": "2026-11-27"}


def test_yaml_merge_key_may_be_overridden_without_a_duplicate_error():
    doc = configfile.parse_text("base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  x: 3\n", "test")
    assert doc["other"] == {"x": 3, "y": 2}


def test_cli_validate_reports_a_non_utf8_file_and_goes_on_with_the_others(tmp_path: Path):
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"schema_version: 1\nappliance_id: caf\xe9\n")
    res = run_cli("validate", str(bad), str(LAB))
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert "latin1.yaml: (file): not UTF-8 text: byte 0xe9 at line 2" in res.stderr
    assert "lab-2ap-2sta.yaml: valid" in res.stdout


def test_cli_render_writes_normalised_json_valid_against_schema(tmp_path: Path):
    doc = lab()
    doc["topology"]["stas"][0]["mac"] = "02:AD:00:00:01:01"
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(doc))
    out = tmp_path / "out.json"
    res = run_cli("render", str(src), "-o", str(out))
    assert res.returncode == 0, res.stderr
    rendered = json.loads(out.read_text())
    assert rendered["topology"]["stas"][0]["mac"] == "02:ad:00:00:01:01"
    jsonschema.Draft202012Validator(json.loads(schema.DEFAULT_PATH.read_text())).validate(rendered)


def test_cli_render_of_invalid_file_writes_nothing(tmp_path: Path):
    doc = lab()
    doc["slice_map"]["slices"] = []
    src = tmp_path / "in.yaml"
    src.write_text(yaml.safe_dump(doc))
    out = tmp_path / "out.json"
    res = run_cli("render", str(src), "-o", str(out))
    assert res.returncode == 1 and "slice_map.slices" in res.stderr
    assert not out.exists()


def test_cli_schema_check_detects_a_stale_file(tmp_path: Path):
    stale = tmp_path / "s.json"
    stale.write_text("{}\n")
    assert run_cli("schema", "--check", "-o", str(stale)).returncode == 1
    assert run_cli("schema", "-o", str(stale)).returncode == 0
    assert run_cli("schema", "--check", "-o", str(stale)).returncode == 0


@pytest.mark.parametrize("field,value", [("ampdu_ceiling_mpdus", 0.5), ("ampdu_ceiling_mpdus", 300),
                                         ("ampdu_ceiling_mpdus", "many"), ("ampdu_ceiling_us", 50),
                                         ("ampdu_ceiling_us", 20000), ("ampdu_ceiling_us", "long")])
def test_ap_aggregation_ceiling_out_of_range_names_the_field(field, value):
    doc = lab()
    doc["topology"]["aps"][0][field] = value
    assert f"topology.aps[0].{field}" in problems(doc)


# w_i = (l + l_oh)/μ_R (000 eq. 4): a rate of 5e-324 Mbit/s passed a bound of "above 0" and made w infinite;
# 802.11's lowest rate is 1 Mbit/s (DSSS), so no link measures less
@pytest.mark.parametrize("value", [5e-324, 0.5, 0, -1, 10001])
def test_sta_phy_rate_below_802_11s_lowest_rate_or_above_the_bound_is_refused_naming_the_field(value):
    doc = lab()
    doc["topology"]["stas"][0]["phy_rate_mbps"] = value
    assert "topology.stas[0].phy_rate_mbps" in problems(doc)


def test_sta_phy_rate_of_802_11s_lowest_rate_is_taken():
    doc = lab()
    doc["topology"]["stas"][0]["phy_rate_mbps"] = 1
    configfile.validate_data(doc, "test")


def test_ap_aggregation_ceiling_above_n_max_is_refused_naming_both_fields():
    doc = lab()
    doc["topology"]["aps"][1]["ampdu_ceiling_mpdus"] = 70
    found = problems(doc)
    assert "topology.aps[1].ampdu_ceiling_mpdus" in found
    assert "n_max_mpdus (64)" in found["topology.aps[1].ampdu_ceiling_mpdus"]


def test_ap_aggregation_ceiling_is_optional_and_accepted_by_the_schema():
    doc = lab()
    doc["topology"]["aps"][0]["ampdu_ceiling_mpdus"] = 38.5
    doc["topology"]["aps"][1]["ampdu_ceiling_us"] = 1450.0
    cfg = configfile.validate_data(doc, "test")
    assert cfg.topology.aps[0].ampdu_ceiling_mpdus == 38.5 and cfg.topology.aps[1].ampdu_ceiling_mpdus is None
    assert cfg.topology.aps[1].ampdu_ceiling_us == 1450.0 and cfg.topology.aps[0].ampdu_ceiling_us is None
    jsonschema.Draft202012Validator(json.loads(schema.DEFAULT_PATH.read_text())).validate(doc)


# ---------------------------------------------------------------- the dataplane's capacity


def dataplane_capacity() -> dict[str, int]:
    """The ADW_MAX_* limits of dataplane/include/adwiser/config.h (a name defined as another is resolved)."""
    defines: dict[str, int] = {}
    for name, value in re.findall(r"^#define\s+(ADW_MAX_\w+)\s+(\d+|ADW_\w+)\b", DATAPLANE_CONFIG_H.read_text(), re.M):
        defines[name] = int(value) if value.isdigit() else defines[value]
    return defines


def test_schema_array_bounds_equal_the_dataplane_capacity():
    # Every array the dataplane's loader (dp/config_json.c) bounds, with the ADW_MAX_* it bounds it by.
    bounded_by = {
        ("Topology", "aps"): "ADW_MAX_APS",
        ("Topology", "stas"): "ADW_MAX_STAS",
        ("Topology", "conflicts"): "ADW_MAX_CONFLICTS",
        ("Station", "ips"): "ADW_MAX_STA_ADDRS",
        ("SliceMap", "slices"): "ADW_MAX_SLICES",
        ("Slice", "pairs"): "ADW_MAX_PAIRS",
        ("DynamicSlicing", "pairs"): "ADW_MAX_PAIRS",
        ("Realtime", "dscp"): "ADW_MAX_RT_DSCP",
        ("Realtime", "udp_ports"): "ADW_MAX_RT_PORTS",
        ("AggregationTarget", "pairs"): "ADW_MAX_PAIRS",
        ("AggregationTarget", "overrides"): "ADW_MAX_PAIRS",
        ("AggregationOverride", "pairs"): "ADW_MAX_PAIRS",
    }
    capacity = dataplane_capacity()
    defs = schema.build_schema()["$defs"]
    found = {f"{m}.{f}": defs[m]["properties"][f].get("maxItems") for m, f in bounded_by}
    wanted = {f"{m}.{f}": capacity[c] for (m, f), c in bounded_by.items()}
    assert found == wanted


def with_aps(doc: dict[str, Any], n: int) -> dict[str, Any]:
    first = doc["topology"]["aps"][0]
    doc["topology"]["aps"] += [dict(first, id=f"x{i}", port=f"x{i}") for i in range(n - len(doc["topology"]["aps"]))]
    return doc


def with_stas(doc: dict[str, Any], n: int) -> dict[str, Any]:
    stas, in_slice = doc["topology"]["stas"], doc["slice_map"]["slices"][0]["pairs"]
    for i in range(n - len(stas)):
        stas.append({"id": f"s{i}", "mac": f"02:00:00:{i >> 8:02x}:{i & 0xFF:02x}:01", "ap": "ap1"})
        in_slice.append(f"ap1/s{i}")
    return doc


def set_conflicts(doc: dict[str, Any], n: int) -> None:
    doc["topology"]["conflicts"] = [["ap1/sta1", "ap2/sta2"]] * n


def set_udp_ports(doc: dict[str, Any], n: int) -> None:
    doc["policies"]["realtime"]["udp_ports"] = list(range(1000, 1000 + n))


def set_override_pairs(doc: dict[str, Any], n: int) -> None:
    doc["policies"]["aggregation_target"]["overrides"] = [{"pairs": ["ap1/sta1"] * n}]


@pytest.mark.parametrize(
    "grow,limit,field",
    [
        (with_aps, 512, "topology.aps"),
        (with_stas, 4096, "topology.stas"),
        (set_conflicts, 16384, "topology.conflicts"),
        (set_udp_ports, 64, "policies.realtime.udp_ports"),
        (set_override_pairs, 4096, "policies.aggregation_target.overrides[0].pairs"),
    ],
    ids=["aps", "stas", "conflicts", "udp-ports", "override-pairs"],
)
def test_list_longer_than_the_dataplane_holds_is_refused_naming_it(grow, limit, field):
    at_limit = lab()
    grow(at_limit, limit)
    configfile.validate_data(at_limit, "test")
    over = lab()
    grow(over, limit + 1)
    assert "at most" in problems(over)[field]


@pytest.mark.parametrize("name,text", [("deep.json", "[" * 5000 + "]" * 5000),
                                       ("deep.yaml", "topology: " + "[" * 5000 + "]" * 5000 + "\n")],
                         ids=["json", "yaml"])
def test_cli_validate_refuses_a_file_nested_too_deeply_without_a_traceback(tmp_path: Path, name: str, text: str):
    # Both readers recurse per level: the RecursionError they raised ended `validate` with a traceback.
    deep = tmp_path / name
    deep.write_text(text)
    res = run_cli("validate", str(deep), str(LAB))
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert f"{name}: (document): " in res.stderr and "nested too deeply" in res.stderr, res.stderr
    assert "lab-2ap-2sta.yaml: valid" in res.stdout


def test_json_after_a_byte_order_mark_is_refused_as_adwiser_dp_refuses_it():
    """adwiser-dp reads a JSON file with a UTF-8 byte-order mark as no JSON ("'[' or '{' expected"): the YAML reader,
    which skips the mark, would take what the dataplane refuses, a file the controller calls valid and the
    appliance does not start on."""
    text = "\ufeff" + configfile.render_json(configfile.load(LAB))
    with pytest.raises(ConfigInvalid) as info:
        configfile.parse_text(text, "test")
    err = info.value.errors[0]
    assert err.field == "(document)" and "byte-order mark" in err.message, err
    # YAML may begin with one (YAML 1.2 5.2); adwiser-dp reads no YAML.
    assert configfile.parse_text("\ufeff" + LAB.read_text(encoding="utf-8"), "test")["schema_version"] == 1
