"""Edits of the lab document that break (or just keep) a rule relating several fields: the models' validators and
models.cross_reference_problems, which the JSON Schema cannot express. Each applies to the document of
test_dataplane_refuses_what_the_controller_refuses.full_lab (two APs, a pair on each, the pairs conflicting, one
aggregation override of ap2/sta2).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Edit:
    """A change spanning several fields (the cross-field rules)."""

    name: str
    edit: Callable[[dict[str, Any]], None]

    def label(self) -> str:
        return self.name

    def applied_to(self, doc: dict[str, Any]) -> dict[str, Any]:
        out = json.loads(json.dumps(doc))
        self.edit(out)
        return out


def _slices(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return doc["slice_map"]["slices"]


def _agg(doc: dict[str, Any]) -> dict[str, Any]:
    return doc["policies"]["aggregation_target"]


def _set(**fields: Any) -> Callable[[dict[str, Any]], None]:
    """An edit setting fields named by their path with '__' between the keys (topology__aps__1__id="ap1")."""

    def edit(doc: dict[str, Any]) -> None:
        for dotted, value in fields.items():
            keys = [int(k) if k.isdigit() else k for k in dotted.split("__")]
            parent = doc
            for key in keys[:-1]:
                parent = parent[key]
            parent[keys[-1]] = value
    return edit


# The rules of models.cross_reference_problems and the models' validators, with a valid neighbour of each.
CROSS_FIELD = [
    Edit("duplicate AP id", _set(topology__aps__1__id="ap1")),
    Edit("duplicate STA id", _set(topology__stas__1__id="sta1")),
    Edit("duplicate MAC in another case", _set(topology__stas__1__mac="02:AD:00:00:01:01")),
    Edit("duplicate IPv4 address across STAs", _set(topology__stas__1__ips=["198.18.0.11"])),
    Edit("duplicate IPv4 address in one STA", _set(topology__stas__0__ips=["198.18.0.11", "198.18.0.11"])),
    Edit("duplicate IPv6 address spelt differently",
         _set(topology__stas__0__ips=["2001:db8::1"], topology__stas__1__ips=["2001:DB8:0:0::1"])),
    Edit("IPv4 and its IPv4-mapped IPv6 address on two STAs", _set(topology__stas__1__ips=["::ffff:198.18.0.11"])),
    Edit("two APs on one port and VLAN", _set(topology__aps__1__port="ap1", topology__aps__1__vlan=100)),
    Edit("two untagged APs on one port",
         _set(topology__aps__0__vlan=None, topology__aps__1__port="ap1")),
    Edit("two APs on one port, one untagged", _set(topology__aps__1__port="ap1")),
    Edit("two APs on one port with their own VLANs", _set(topology__aps__1__port="ap1", topology__aps__1__vlan=101)),
    Edit("one VLAN on two ports", _set(topology__aps__1__vlan=100)),
    Edit("STA on an unknown AP", _set(topology__stas__0__ap="ap9")),
    Edit("pair naming an unknown STA", lambda d: _slices(d)[0]["pairs"].append("ap1/sta9")),
    Edit("pair naming an unknown AP", lambda d: _slices(d)[0]["pairs"].append("ap9/sta1")),
    Edit("pair naming the wrong AP", _set(slice_map__slices__0__pairs=["ap2/sta1"])),
    Edit("conflict naming an unknown pair", _set(topology__conflicts=[["ap1/sta1", "ap1/sta2"]])),
    Edit("pair conflicting with itself", _set(topology__conflicts=[["ap1/sta1", "ap1/sta1"]])),
    Edit("the same conflict twice, once reversed",
         _set(topology__conflicts=[["ap1/sta1", "ap2/sta2"], ["ap2/sta2", "ap1/sta1"]])),
    Edit("pair listed twice in one slice", lambda d: _slices(d)[0]["pairs"].append("ap1/sta1")),
    Edit("conflicting pairs in one slice", lambda d: _slices(d)[0]["pairs"].append("ap2/sta2")),
    Edit("non-conflicting pairs in one slice",
         _set(topology__conflicts=[], slice_map__slices__0__pairs=["ap1/sta1", "ap2/sta2"])),
    Edit("managed pair in no slice", lambda d: _slices(d).pop()),
    Edit("pair in two slices", lambda d: _slices(d).append({"duration_ms": 20, "pairs": ["ap1/sta1"]})),
    Edit("frame of 1000 ms", _set(slice_map__slices__0__duration_ms=500, slice_map__slices__1__duration_ms=500)),
    Edit("frame of 1001 ms", lambda d: _slices(d).extend(
        [{"duration_ms": 480, "pairs": ["ap1/sta1"]}, {"duration_ms": 481, "pairs": ["ap2/sta2"]}])),
    Edit("r_min above r_max", _set(policies__ts_abr_qd__r_min_pkts=2049)),
    Edit("r_init below r_min", _set(policies__ts_abr_qd__r_init_pkts=1)),
    Edit("r_init above r_max", _set(policies__ts_abr_qd__r_init_pkts=2049)),
    Edit("r_min = r_init = r_max",
         _set(policies__ts_abr_qd__r_min_pkts=40, policies__ts_abr_qd__r_max_pkts=40)),
    Edit("q_min above q_max", _set(policies__queue_sizing__q_min_pkts=4097)),
    Edit("q_min = q_max", _set(policies__queue_sizing__q_min_pkts=4096)),
    Edit("AP aggregation ceiling above n_max_mpdus", _set(topology__aps__0__ampdu_ceiling_mpdus=64.5)),
    Edit("AP aggregation ceiling = n_max_mpdus", _set(topology__aps__0__ampdu_ceiling_mpdus=64)),
    Edit("AP aggregation ceiling under a raised n_max_mpdus",
         _set(topology__aps__0__ampdu_ceiling_mpdus=200, policies__aggregation_target__n_max_mpdus=200)),
    Edit("n_max_mpdus lowered under an AP's aggregation ceiling", _set(policies__aggregation_target__n_max_mpdus=47)),
    Edit("AP aggregation ceiling above the default n_max_mpdus", lambda d: (
        _agg(d).pop("n_max_mpdus"), _set(topology__aps__0__ampdu_ceiling_mpdus=65)(d))),
    Edit("pair twice in dynamic_slicing.pairs", _set(policies__dynamic_slicing__pairs=["ap1/sta1", "ap1/sta1"])),
    Edit("unknown pair in dynamic_slicing.pairs", _set(policies__dynamic_slicing__pairs=["ap1/sta2"])),
    Edit("pair twice in aggregation_target.pairs", _set(policies__aggregation_target__pairs=["ap2/sta2", "ap2/sta2"])),
    Edit("every pair in aggregation_target.pairs", _set(policies__aggregation_target__pairs=["ap2/sta2", "ap1/sta1"])),
    Edit("pair in two aggregation overrides",
         lambda d: _agg(d)["overrides"].append({"pairs": ["ap1/sta1", "ap2/sta2"], "t_bar_ms": 20})),
    Edit("pair twice in one aggregation override", _set(policies__aggregation_target__overrides__0__pairs=[
        "ap2/sta2", "ap2/sta2"])),
    Edit("two aggregation overrides of different pairs",
         lambda d: _agg(d)["overrides"].append({"pairs": ["ap1/sta1"], "n_target_max": 16})),
    Edit("unknown pair in an aggregation override",
         _set(policies__aggregation_target__overrides__0__pairs=["ap2/sta1"])),
]

