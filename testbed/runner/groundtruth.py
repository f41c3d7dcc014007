"""Reading the WLAN emulator's ground-truth log: one record per transmitted
PPDU (AP, STA, start, duration, MPDUs, MCS, collided), as JSON lines or CSV
with a header. Only what the report needs is taken: who sent to whom, how
many MPDUs were aggregated and at what PHY rate.
"""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# 802.11n HT, 20 MHz, long GI: PHY rate (Mbit/s) of MCS 0-15 (IEEE 802.11-2016
# Table 19-27 and 19-28); used when a record names its MCS but not its rate.
HT20_LGI_MBPS = (6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0,
                 13.0, 26.0, 39.0, 52.0, 78.0, 104.0, 117.0, 130.0)


@dataclass(frozen=True)
class Ppdu:
    src: str            # transmitting node, e.g. "ap1"
    dst: str            # receiving node, e.g. "sta1"
    mpdus: int          # MPDUs aggregated in the A-MPDU, count
    phy_mbps: float     # PHY rate, Mbit/s
    start_us: float     # start, virtual µs
    duration_us: float  # airtime, µs
    collided: bool      # overlapped another transmission it could not survive
    ac: str = "BE"      # access category, "VO" for real-time (voice) traffic, else "BE"


def _first(rec: dict[str, Any], *keys: str) -> Any:
    for k in keys:
        if k in rec and rec[k] not in (None, ""):
            return rec[k]
    return None


def _parse(rec: dict[str, Any]) -> Ppdu | None:
    src, dst = _first(rec, "src", "tx", "from", "ap"), _first(rec, "dst", "rx", "to", "sta")
    mpdus = _first(rec, "mpdus", "n_mpdu", "n_mpdus", "ampdu")
    if src is None or dst is None or mpdus is None:
        return None
    rate = _first(rec, "phy_mbps", "rate_mbps", "phy_rate_mbps")
    if rate is None:
        mcs = _first(rec, "mcs")
        if mcs is None or not 0 <= int(mcs) < len(HT20_LGI_MBPS):
            return None
        rate = HT20_LGI_MBPS[int(mcs)]
    collided = _first(rec, "collided", "lost")
    return Ppdu(str(src), str(dst), int(mpdus), float(rate),
                float(_first(rec, "start_us", "start") or 0.0),
                float(_first(rec, "duration_us", "duration", "dur_us") or 0.0),
                str(collided).lower() in ("1", "true", "yes"), str(_first(rec, "ac") or "BE"))


def read(path: Path) -> list[Ppdu]:
    """All data PPDUs of the log (records it cannot read are skipped)."""
    text = path.read_text(errors="replace")
    out: list[Ppdu] = []
    first = next((ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")), "")
    if first.lstrip().startswith("{"):
        for line in text.splitlines():
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(rec, dict) and (p := _parse(rec)) is not None:
                out.append(p)
    else:
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
        for rec in csv.DictReader(lines):
            p = _parse(dict(rec))
            if p is not None:
                out.append(p)
    return [p for p in out if p.mpdus > 0]
