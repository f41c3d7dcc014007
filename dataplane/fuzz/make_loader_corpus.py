"""Writes the seed corpus of fuzz_loaders.c into corpus_loaders/: one file per
input, named after what it holds. Byte 0 picks the reader (0 configuration
document, 1 --pacing file, 2 Redis pacing hash as field/value lines,
3 --ack-model file); the rest is the text. The documents are variants of the
lab document as the controller renders it, the model is the shipped
configs/ack_burst_model.json.
Run (from dataplane/fuzz):
  (cd ../../controller && ../.venv/bin/python -m adwiser_controller render ../configs/lab-2ap-2sta.yaml -o /tmp/lab.json)
  python3 make_loader_corpus.py /tmp/lab.json ../../configs/ack_burst_model.json corpus_loaders
"""
from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

CONFIG, PACING_FILE, PACING_HASH, ACK_MODEL = 0, 1, 2, 3


def config_variants(lab: dict) -> dict[str, dict]:
    """The lab document, and variants that reach the loader's optional fields and its refusals."""
    v: dict[str, dict] = {"lab": lab}

    d = copy.deepcopy(lab)   # both APs on one trunk port, told apart by VLAN; measured A-MPDU ceilings
    for k, ap in enumerate(d["topology"]["aps"]):
        ap.update(port="trunk0", vlan=101 + k, ampdu_ceiling_mpdus=32, ampdu_ceiling_us=5000.0)
    v["vlan_trunk_with_ceilings"] = d

    d = copy.deepcopy(lab)   # every policy on, with pair lists and an override
    pol = d["policies"]
    pol["dynamic_slicing"].update(enabled=True, pairs=["ap1/sta1", "ap2/sta2"])
    pol["realtime"].update(dscp=[46, 34], udp_ports=[5004, 3478])
    pol["aggregation_target"].update(enabled=True, pairs=["ap1/sta1"],
                                     overrides=[{"pairs": ["ap2/sta2"], "n_target_max": 16, "t_bar_ms": 4.0}])
    pol["ts_abr_qd"]["early_handover"] = True
    v["policies_all_on"] = d

    d = copy.deepcopy(lab)   # IPv6 and several addresses, a PHY rate, one slice for both (no conflict then)
    sta = d["topology"]["stas"][0]
    sta.update(ips=["198.18.0.11", "2001:db8::11", "fe80::ad:1"], phy_rate_mbps=433.3)
    d["topology"]["conflicts"] = []
    d["slice_map"]["slices"] = [{"duration_ms": 10, "pairs": ["ap1/sta1", "ap2/sta2"]}]
    v["ipv6_one_slice"] = d

    d = copy.deepcopy(lab)   # refused by the core's cross-field check: conflicting pairs in one slice
    d["slice_map"]["slices"] = [{"duration_ms": 10, "pairs": ["ap1/sta1", "ap2/sta2"]}]
    v["conflicting_pairs_in_one_slice"] = d

    d = copy.deepcopy(lab)
    d["topology"]["stas"][1]["ap"] = "ap1"
    v["pair_of_a_sta_on_another_ap"] = d

    d = copy.deepcopy(lab)
    d["topology"]["aps"][0]["name"] = "Zugang \u00fcber \u00e9tage \u2603"
    v["ap_name_not_ascii"] = d
    return v


def pacing_files() -> dict[str, str]:
    return {
        "rates": '{"ap1/sta1": 60000000, "ap2/sta2": 0}',
        "real_rate": '{"ap1/sta1": 1.5e6}',
        "rate_negative": '{"ap1/sta1": -5}',
        "rate_not_a_number": '{"ap1/sta1": "fast"}',
        "not_a_pair": '{"sta1": 5}',
        "pair_written_twice": '{"ap1/sta1": 1, "ap1/sta1": 2}',
        "not_an_object": "[1, 2]",
    }


def pacing_hashes() -> dict[str, str]:
    return {
        "rates": "ap1/sta1\n125000000\nap2/sta2\n1.5e6",
        "rate_with_unit": "ap1/sta1\n12 Mbit",
        "pair_twice": "ap1/sta1\n5\nap1/sta1\n6",
        "rate_huge": "ap1/sta1\n1e300",
    }


def ack_models(model: dict) -> dict[str, dict]:
    v: dict[str, dict] = {"shipped": model}
    d = copy.deepcopy(model)
    d.update(m=3, coef=[0.1, 0.2, 0.3, 0.4], gap_by_stas_us=[0, 100, 250.5])
    v["m3_with_gaps"] = d
    d = copy.deepcopy(model)
    d["model"] = "adwiser-sta-frame-classifier"
    v["other_kind"] = d
    d = copy.deepcopy(model)
    d["coef"] = d["coef"][:-1]
    v["coef_short"] = d
    d = copy.deepcopy(model)
    d["threshold"] = 1
    v["threshold_one"] = d
    return v


def main() -> None:
    lab = json.loads(Path(sys.argv[1]).read_text())
    model = json.loads(Path(sys.argv[2]).read_text())
    out = Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)

    def write(reader: int, name: str, text: str) -> None:
        (out / name).write_bytes(bytes([reader]) + text.encode())

    for name, doc in config_variants(lab).items():
        write(CONFIG, f"config_{name}", json.dumps(doc, separators=(",", ":"), ensure_ascii=False))
    write(CONFIG, "config_not_json", '{"schema_version": 1,')
    for name, text in pacing_files().items():
        write(PACING_FILE, f"pacing_file_{name}", text)
    for name, text in pacing_hashes().items():
        write(PACING_HASH, f"pacing_hash_{name}", text)
    for name, doc in ack_models(model).items():
        write(ACK_MODEL, f"ack_model_{name}", json.dumps(doc, separators=(",", ":")))


if __name__ == "__main__":
    main()
