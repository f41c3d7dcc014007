"""Status of the aggregation-target loops (000 §VI) of an appliance, as the runner wrote it."""

from __future__ import annotations

import json
from typing import Any, get_args

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from .. import keys
from ..auth import Principal
from ..problems import ProblemException, responses
from ..telemetry import history, stream_number
from .appliances import COUNT, After, TelemetryPage, known
from .body import StrictJsonRoute
from .deps import Services, services, viewer

router = APIRouter(prefix="/api/v1", tags=["aggregation"], route_class=StrictJsonRoute)
READ = responses(401, 403, 404, 422)


class PairLoop(BaseModel):
    state: str = Field(description="tracking | held (backhaul bottleneck: rate kept) | no_rate (no PHY rate known)")
    phy_rate_mbps: float | None = Field(description="mu_R used for w_i, Mbit/s")
    rate_source: str = Field(description="telemetry (Redis phy_rate hash, e.g. the emulator's ground truth), "
                                         "topology (operator-entered) or none")
    rate_age_s: float | None = Field(default=None, description="Age of the pair's measured rate in the phy_rate "
                                     "hash (its time in phy_rate_ts against Redis's clock), s; null: none, or one "
                                     "entered by hand (no time, does not expire); negative: that time is over 1 s "
                                     "ahead of Redis's clock (the writer's clock is wrong) and the rate stale")
    rate_stale: bool = Field(default=False, description="The measured rate is older than the loop's limit "
                             "(--phy-rate-max-age, 5 s): the topology's rate is used, or without one the stale "
                             "rate as the last known")
    mu_n: float | None = Field(description="Measured mean MPDUs per A-MPDU over the last slot (agg_est)")
    mu_source: str = Field(default="agg_est", description="agg_est (appliance ACK-burst estimate) or sta "
                                                          "(STA-side MAC-timestamp agent, tm:sta)")
    frames_in_slot: int = Field(description="Telemetry samples with an aggregation estimate in the last slot")
    n_target: float | None = None
    z: float | None = None
    x_pps: float | None = Field(default=None, description="Rate x_i, packets/s")
    pace_bps: float | None = Field(default=None, description="Pacing rate handed to the dataplane, bit/s")
    delivered_bps: float | None = Field(default=None, description="What the dataplane released for the pair over "
                                                                  "the last slot, bit/s (released_bytes)")
    received_pps: float | None = Field(default=None, description="MPDUs per second the STA received over the last "
                                       "slot (tm:sta mpdus_ok, else tm:pair acked_segs, else agg_est x agg_bursts), "
                                       "over the time the entries that saw them cover")
    ap_queue_grew: bool | None = Field(default=None, description="More was released for the pair than its STA "
                                       "received (by over 10 %): the AP's queue grew, and the slot gave no c-check")
    bottleneck: str | None = Field(default=None, description="wlan | backhaul | unknown (001 §5)")
    p_backhaul: float | None = None
    loss: float | None = Field(default=None, description="Loss fraction L^p over the last p packets")
    agg_ratio: float | None = Field(default=None, description="Mean of the last n aggregation samples / N_target of the slot (the aggregation the loop asked of the AP)")
    n_bar: float | None = Field(default=None, description="N-bar of this pair for the step: the AP's, or its own "
                                "from a class override or the AP's airtime ceiling at the pair's PHY rate")
    ack_delay_ms: float | None = Field(default=None, description="Mean release-to-ACK delay over the last slot, ms: "
                                       "paced segments timed from their release to the STA's ACK of them "
                                       "(tm:pair ack_delay_ms)")
    ack_delay_floor_ms: float | None = Field(default=None, description="Its least over the last 20 slots, ms: the "
                                             "path without a queue")
    ack_queue_ms: float | None = Field(default=None, description="ack_delay_ms - ack_delay_floor_ms, ms: the AP's "
                                       "queue, and the STA's ACK waiting for the air and its reorder hold")


class ApLoop(BaseModel):
    k: int = Field(description="Steps taken")
    nu: float = Field(description="Outer-loop variable: N_target of the lowest-MCS pair")
    c_hat_us: float = Field(description="Estimated per-round overhead c (eq. 40), microseconds")
    c_check_us: float | None = Field(description="This step's sample c-check, microseconds")
    t_bar_ms: float
    n_bar: float = Field(description="N-bar the AP's loop works to: n_target_max, cut to 48/64 of the AP's "
                         "measured aggregation ceiling when the topology has one (000 §V-A (17)), and at most "
                         "n_max_mpdus")
    ampdu_ceiling_mpdus: float | None = Field(
        default=None, description="The AP's operator-measured aggregation ceiling (topology), MPDUs; null = none")
    ampdu_ceiling_us: float | None = Field(
        default=None, description="The AP's operator-measured aggregation ceiling as A-MPDU airtime (topology), "
                                  "microseconds; null = none. Each pair's N-bar is then its own (pairs[].n_bar)")
    held: bool = Field(description="Every pair of the AP held (backhaul bottleneck)")
    pairs: dict[str, PairLoop]


class AggregationStatus(BaseModel):
    appliance_id: str
    version: int | None = Field(description="Configuration version whose policy the loops run; 0: the dataplane "
                                            "runs its --config file and the loops are paused (see paused)")
    enabled: bool
    paused: str | None = Field(default=None, description="Why the loops are paused and nothing is paced: set "
                               "while the dataplane runs its --config file (version 0); null otherwise")
    ts: float = Field(description="Runner clock (monotonic seconds) of the last step")
    delta_s: float | None = None
    classifier: str | None = Field(default=None, description="Bottleneck classifier coefficients version")
    aps: dict[str, ApLoop]


@router.get("/appliances/{appliance}/aggregation", response_model=AggregationStatus, responses=READ,
            summary="Aggregation-target loops: N_target, x, mu_N, c-hat and bottleneck per AP and pair")
async def aggregation(appliance: str, svc: Services = Depends(services),
                      _: Principal = Depends(viewer)) -> AggregationStatus:
    await known(svc, appliance)
    raw = await svc.redis.get(keys.appliance(appliance, "aggregation"))
    if raw is None:
        raise ProblemException(404, f"no aggregation-target loop has run for appliance {appliance!r} "
                                    "(is adwiser-aggregation-loop.service, `python -m adwiser_controller "
                                    "aggregation-loop`, running?)", "aggregation")
    return AggregationStatus.model_validate(json.loads(raw))


def _kind(annotation: object) -> type | None:
    """bool, int or float when a field is one of them (or one or None); None for a string."""
    args = get_args(annotation) or (annotation,)
    return next((t for t in (bool, int, float) if t in args), None)


# What one tm:aggregation entry carries: the runner's clock, the AP's step and the pair's status. The stream holds
# strings (a bool as "True"/"False", which a client takes as true); the history serves each field as the status
# types it, read off the models here, so a field added to them is served with its type (a hand-kept list served
# the int fields as floats).
ENTRY_KINDS = {name: kind for name, info in {"ts": AggregationStatus.model_fields["ts"],
                                             **{n: ApLoop.model_fields[n] for n in ("k", "nu", "c_hat_us")},
                                             **PairLoop.model_fields}.items()
               if (kind := _kind(info.annotation)) is not None}


def _value(kind: type, v: str) -> bool | int | float | None:
    """A stream field of the given kind, as the pair history reads its numbers (telemetry.stream_number: None for
    "" and for "nan" or "inf", which JSON has no number for)."""
    if kind is bool:
        return {"True": True, "False": False}.get(v)
    return stream_number(v, kind)


def parse_entry(sid: str, f: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {"id": sid}
    for k, v in f.items():
        kind = ENTRY_KINDS.get(k)
        out[k] = v if kind is None else _value(kind, v)
    return out


@router.get("/telemetry/{appliance}/aggregation", response_model=TelemetryPage, responses=READ,
            summary="History of the aggregation-target loops, one entry per pair per step")
async def aggregation_history(appliance: str, count: int = COUNT, after: After = "",
                              svc: Services = Depends(services), _: Principal = Depends(viewer)) -> TelemetryPage:
    await known(svc, appliance)
    entries, last_id, added = await history(svc.redis, appliance, "aggregation", count, after or None,
                                            parse=parse_entry)
    return TelemetryPage(appliance_id=appliance, entries=entries, last_id=last_id, entries_added=added)
