"""Prometheus exposition of the appliances' state, read from Redis at scrape time.

Each scrape builds a fresh registry from the current keys and the latest
stream entries (so there is no stale state in the controller), plus the
controller's own request metrics from the default registry. Per-frame and
per-pair series are left out while an appliance's dataplane is not alive.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis
from prometheus_client import REGISTRY, CollectorRegistry, Histogram
from prometheus_client.exposition import choose_encoder
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from . import keys
from .store import Store
from .telemetry import appliance_status, latest_per_pair

REQUEST_SECONDS = Histogram(
    "adwiser_controller_request_seconds", "API request latency, seconds", ["method", "route", "status"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5),
)
# A client may send any method token (h11 takes them all), and each value given a label is a series kept
# for good: made-up ones share "other", so no request, logged in or not, adds series without bound.
REQUEST_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def method_label(method: str) -> str:
    return method if method in REQUEST_METHODS else "other"

PAIR_GAUGES = {
    "tput_mbps": ("adwiser_pair_throughput_mbps", "EWMA downlink throughput of the pair, Mbit/s"),
    "r_pkts": ("adwiser_pair_batch_pkts", "TS-ABR-QD batch size r of the pair, packets"),
    "v_ms": ("adwiser_pair_drain_ms", "Drain time V of the last completed batch, ms"),
    "s_ms": ("adwiser_pair_slice_ms", "Slice length S of the pair in the last frame, ms"),
    "queue_pkts": ("adwiser_pair_queue_pkts", "Queue length of the pair, packets"),
    "limit_pkts": ("adwiser_pair_queue_limit_pkts", "Queue limit (A*) of the pair, packets"),
    "released_pkts": ("adwiser_pair_released_pkts", "Packets released for the pair in the last frame"),
    "reassigned": ("adwiser_pair_slice_reassigned", "1 if the pair's slice was given away in the last frame"),
}
# The dataplane reports these per pair as running totals since the pair's state was made, at its start or by the
# version that added the pair (back), which it gives as `counters_since_ns` (controller/REDIS.md), so they are
# counters: typed as gauges, rate() and increase() would not treat a dataplane restart as a reset. The time is their
# created time: a counter that restarted and climbed past its old value between two scrapes looks like no reset.
PAIR_COUNTERS = {
    "drops_tail": ("adwiser_pair_drops_tail", "Tail drops of the pair since its counters began (_created: the "
                                              "dataplane's start or the version that added the pair)"),
    "drops_other": ("adwiser_pair_drops_other", "Other drops of the pair since its counters began (_created: the "
                                                "dataplane's start or the version that added the pair)"),
}


AGG_PAIR_GAUGES = {
    "n_target": ("adwiser_aggregation_target_mpdus", "Aggregation target N_target of the pair, MPDUs per A-MPDU"),
    "mu_n": ("adwiser_aggregation_measured_mpdus", "Measured mean aggregation mu_N of the pair over the last slot"),
    "x_pps": ("adwiser_aggregation_rate_pps", "Rate x of the pair set by the loop, packets/s"),
    "pace_bps": ("adwiser_aggregation_pace_bps", "Pacing rate handed to the dataplane, bit/s"),
    "p_backhaul": ("adwiser_aggregation_p_backhaul", "Classifier probability that the backhaul is the bottleneck"),
    "ack_delay_ms": ("adwiser_aggregation_ack_delay_ms", "Mean release-to-ACK delay of the pair's paced segments "
                                                         "over the last slot, ms"),
    "ack_queue_ms": ("adwiser_aggregation_ack_queue_ms", "Release-to-ACK delay over its least of the last 20 slots "
                                                         "(the AP's queue and the STA's ACK path), ms"),
}
AGG_AP_GAUGES = {
    "nu": ("adwiser_aggregation_nu", "Outer-loop variable nu (target of the lowest-MCS pair)"),
    "c_hat_us": ("adwiser_aggregation_c_hat_us", "Estimated per-round overhead c-hat (000 eq. 40), microseconds"),
}


def sample(value: object) -> float | None:
    """`value` as a Prometheus sample (a double); None for what is no number, or an int beyond a double's range
    (Redis and JSON carry any digits): converting that raised OverflowError while the scrape was written, a 500
    for every appliance."""
    if not isinstance(value, int | float):
        return None
    try:
        return float(value)
    except OverflowError:
        return None


def _add(fam: Metric, labels: list[str], value: object) -> None:
    if (v := sample(value)) is not None:
        fam.add_metric(labels, v)


def counters_created(entry: dict[str, Any]) -> float | None:
    """The Unix time (s) a `tm:pair` entry's cumulative counters began; None for an entry without one (a dataplane
    that predates `counters_since_ns`) or with no number there."""
    since_ns = sample(entry.get("counters_since_ns"))
    return since_ns / 1e9 if since_ns is not None else None


def _add_pair(gauges: dict[str, GaugeMetricFamily], counters: dict[str, CounterMetricFamily], labels: list[str],
              entry: dict[str, Any]) -> None:
    for key, fam in gauges.items():
        _add(fam, labels, entry.get(key))
    created = counters_created(entry)
    for key, counter in counters.items():
        if (v := sample(entry.get(key))) is not None:
            counter.add_metric(labels, v, created=created)


def _aggregation_families(status: dict[str, Any] | None, aid: str, pair_fams: dict[str, GaugeMetricFamily],
                          ap_fams: dict[str, GaugeMetricFamily], bottleneck: GaugeMetricFamily) -> None:
    for ap, st in ((status or {}).get("aps") or {}).items():
        for key, fam in ap_fams.items():
            _add(fam, [aid, ap], st.get(key))
        for pair, ps in (st.get("pairs") or {}).items():
            for key, fam in pair_fams.items():
                _add(fam, [aid, pair], ps.get(key))
            if ps.get("bottleneck") in ("wlan", "backhaul"):
                bottleneck.add_metric([aid, pair], 1 if ps["bottleneck"] == "backhaul" else 0)


class _Snapshot(Collector):
    def __init__(self, families: list[Metric]):
        self.families = families

    def collect(self):
        return iter(self.families)


async def exposition(r: aioredis.Redis, store: Store, heartbeat_stale_s: float = 3.0,
                     accept: str = "") -> tuple[bytes, str]:
    """The scrape body and its content type: OpenMetrics if `accept` (the request's Accept) asks for it, as
    Prometheus does, where a counter's `_created` is its created time; else the text format 0.0.4, which has it only
    as a gauge of its own. Per-frame and per-pair series only for an appliance whose dataplane is alive (heartbeat
    present and at most `heartbeat_stale_s` old): the last stream entries of a dead dataplane are not current
    values."""
    fams = {
        "desired": GaugeMetricFamily("adwiser_config_version_desired", "Configuration version applied", labels=["appliance"]),
        "active": GaugeMetricFamily("adwiser_config_version_active", "Configuration version the dataplane runs", labels=["appliance"]),
        "head": GaugeMetricFamily("adwiser_config_version_latest", "Latest stored configuration version", labels=["appliance"]),
        "pending": GaugeMetricFamily("adwiser_config_pending", "1 while desired != active", labels=["appliance"]),
        "up": GaugeMetricFamily("adwiser_dataplane_up", "1 while the dataplane heartbeat is present", labels=["appliance"]),
        "utility": GaugeMetricFamily("adwiser_frame_utility", "Network utility sum ln(theta_i) of the last frame", labels=["appliance"]),
        "bound": GaugeMetricFamily("adwiser_frame_utility_bound", "Utility bound sum ln(beta_i S_i/S)", labels=["appliance"]),
        "reassign": GaugeMetricFamily("adwiser_frame_reassignments", "Slices given away in the last frame", labels=["appliance"]),
    }
    pair_gauges = {k: GaugeMetricFamily(n, h, labels=["appliance", "pair"]) for k, (n, h) in PAIR_GAUGES.items()}
    pair_counters = {
        k: CounterMetricFamily(n, h, labels=["appliance", "pair"]) for k, (n, h) in PAIR_COUNTERS.items()}
    agg_pair = {k: GaugeMetricFamily(n, h, labels=["appliance", "pair"]) for k, (n, h) in AGG_PAIR_GAUGES.items()}
    agg_ap = {k: GaugeMetricFamily(n, h, labels=["appliance", "ap"]) for k, (n, h) in AGG_AP_GAUGES.items()}
    agg_bn = GaugeMetricFamily("adwiser_aggregation_backhaul_bottleneck",
                               "1 if the classifier puts the pair's bottleneck in the backhaul, 0 if in the WLAN",
                               labels=["appliance", "pair"])
    for aid in await store.appliances():
        head = await store.head(aid)
        st = await appliance_status(r, aid, head)
        for key, val in (("desired", st.desired), ("active", st.active), ("head", head)):
            _add(fams[key], [aid], val)
        fams["pending"].add_metric([aid], 1 if st.pending else 0)
        fams["up"].add_metric([aid], 1 if st.alive else 0)
        live = st.alive and (st.heartbeat_age_s is None or st.heartbeat_age_s <= heartbeat_stale_s)
        if live and st.last_frame:
            for key, field in (("utility", "utility"), ("bound", "utility_bound"), ("reassign", "reassignments")):
                _add(fams[key], [aid], st.last_frame.get(field))
        if live:
            npairs = 0
            if head is not None:
                npairs = len((await store.get_raw_doc(head))["topology"]["stas"])
            for pair, entry in (await latest_per_pair(r, aid, npairs)).items():
                _add_pair(pair_gauges, pair_counters, [aid, pair], entry)
        raw = await r.get(keys.appliance(aid, "aggregation"))
        _aggregation_families(json.loads(raw) if raw else None, aid, agg_pair, agg_ap, agg_bn)
    # One registry with the controller's own metrics: an OpenMetrics exposition ends at its one "# EOF".
    reg = CollectorRegistry()
    reg.register(_Snapshot(list(REGISTRY.collect()) + list(fams.values()) + list(pair_gauges.values())
                           + list(pair_counters.values()) + list(agg_pair.values()) + list(agg_ap.values())
                           + [agg_bn]))
    encode, content_type = choose_encoder(accept)
    return encode(reg), content_type
