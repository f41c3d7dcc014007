"""MPDUs an AP left in its queue when it sent a frame, from a run's ground truth
(issue 9: where the AP's queueing goes once a hidden AP's collisions set in).

000 §IV's model has the AP clear its queue at each transmission (regime 2):
every MPDU waiting when a frame starts goes in that frame, so an MPDU waits
at most one round. The ground truth shows where that does not hold. For each
data PPDU of a link, the MPDUs of the link that had reached the AP before the
PPDU was built, were not yet acknowledged and are not in it were left behind.
Why is read from the link's own sequence (its frames' order of arrival):

- `window`: every MPDU left behind lies beyond the BlockAck window, 64
  sequence numbers from the oldest unacknowledged one (802.11-2016 §10.24.7):
  the frame could not take them;
- `full`: some MPDU left behind lies inside the window: the frame stopped at
  the AP's own limit, the duration cap that an A-MPDU must meet at the
  slowest rate of its retry chain (the emulator's ampdu.c, after ath9k), or a
  rate-control probe, which goes alone.

A frame protected by RTS/CTS was built at the RTS, before its data PPDU
started: MPDUs that arrived in the RTS_LEAD_US before it are not counted.
An MPDU is acknowledged once a PPDU that carried it was decoded there and its
BlockAck came back; one that is never sent again after a PPDU that did not get
it through was given up at the retry limit, and leaves the window then too.

    python -m runner.left_behind GROUNDTRUTH.jsonl [--link ap1,sta1] --span 7-21 --span 27-43

(`runner.aggtarget ... --capture-acks` keeps a run's ground truth as
`results/runs/<scenario>/aggtarget-groundtruth.jsonl`.)
"""
from __future__ import annotations

import argparse
import bisect
import statistics
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .aggtarget_air import data_ppdus, first_sends

BA_WINDOW = 64        # 802.11 BlockAck window (MPDUs)
RTS_LEAD_US = 300     # RTS + SIFS + CTS + SIFS at the legacy rate, rounded up (µs)


@dataclass
class Span:
    """What the PPDUs of one time span did with the MPDUs queued behind them."""
    start_s: float
    end_s: float
    ppdus: int = 0
    left_window: int = 0               # left MPDUs behind, all beyond the BlockAck window
    left_full: int = 0                 # left MPDUs behind inside the window: the frame was full
    full_sizes: Counter[int] = field(default_factory=Counter)   # MPDUs per frame of left_full
    sizes: list[int] = field(default_factory=list)              # MPDUs per PPDU
    collided: int = 0
    waits_ms: list[float] = field(default_factory=list)         # enqueue to first transmission, per new MPDU

    def row(self) -> dict[str, Any]:
        n = max(self.ppdus, 1)
        return {
            "span_s": [self.start_s, self.end_s], "ppdus": self.ppdus,
            "left_window_frac": round(self.left_window / n, 4), "left_full_frac": round(self.left_full / n, 4),
            "mean_mpdus": round(statistics.fmean(self.sizes), 2) if self.sizes else None,
            "mpdu_weighted_mpdus": round(sum(x * x for x in self.sizes) / sum(self.sizes), 2) if self.sizes else None,
            "collided_frac": round(self.collided / n, 4),
            "mean_wait_ms": round(statistics.fmean(self.waits_ms), 3) if self.waits_ms else None,
            "full_sizes": sorted(self.full_sizes.most_common(8)),
        }


def _span_of(spans_: list[Span], t_us: int) -> Span | None:
    return next((sp for sp in spans_ if sp.start_s <= t_us / 1e6 < sp.end_s), None)


def spans(ppdus: list[dict[str, Any]], bounds_s: list[tuple[float, float]], window: int = BA_WINDOW,
          rts_lead_us: int = RTS_LEAD_US) -> list[Span]:
    """Walks one link's data PPDUs (aggtarget_air.data_ppdus) in order, keeping its acknowledged MPDUs, and
    sums each span's PPDUs."""
    ids = sorted({i for r in ppdus for i in r["ids"]})
    seq = {i: k for k, i in enumerate(ids)}                   # the link's own sequence: order of arrival
    out = [Span(a, b) for a, b in bounds_s]
    arrival_us = [0] * len(ids)                                # ids are given in order of arrival: sorted
    for _, start, _, enq, mpdu in first_sends(ppdus):
        arrival_us[seq[mpdu]] = enq
        sp = _span_of(out, start)
        if sp is not None:
            sp.waits_ms.append((start - enq) / 1000)
    last_sent = [0] * len(ids)                                 # start of each MPDU's last transmission
    for r in ppdus:
        for i in r["ids"]:
            last_sent[seq[i]] = r["start_us"]
    acked: set[int] = set()
    head = 0                                                   # oldest MPDU neither acknowledged nor given up
    for r in ppdus:
        while head < len(ids) and (head in acked or last_sent[head] < r["start_us"]):
            head += 1
        sp = _span_of(out, r["start_us"])
        if sp is not None:
            mine = [seq[i] for i in r["ids"]]
            built = r["start_us"] - (rts_lead_us if r.get("rts") else 0)
            queued = bisect.bisect_left(arrival_us, built)       # MPDUs 0 .. queued-1 had arrived
            behind = [q for q in range(max(mine) + 1, queued) if q not in acked and last_sent[q] >= r["start_us"]]
            sp.ppdus += 1
            sp.sizes.append(r["mpdus"])
            sp.collided += bool(r.get("collided"))
            if behind and min(behind) >= head + window:
                sp.left_window += 1
            elif behind:
                sp.left_full += 1
                sp.full_sizes[r["mpdus"]] += 1
        if r.get("ba_ok"):
            acked.update(seq[i] for i, ok in zip(r["ids"], r["ok_mask"]) if ok == "1")
    return out


def _span(text: str) -> tuple[float, float]:
    a, _, b = text.partition("-")
    try:
        lo, hi = float(a), float(b)
    except ValueError:
        raise argparse.ArgumentTypeError(f"span {text!r}: expected FROM-TO in seconds of the ground truth") from None
    if not 0 <= lo < hi:
        raise argparse.ArgumentTypeError(f"span {text!r}: expected 0 <= FROM < TO")
    return lo, hi


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m runner.left_behind", description=__doc__.split("\n\n")[0])
    ap.add_argument("groundtruth", type=Path, help="wlan-emu's ground-truth log (JSON lines)")
    ap.add_argument("--link", default="ap1,sta1", help="SRC,DST of the link (default ap1,sta1)")
    ap.add_argument("--span", type=_span, action="append", required=True,
                    help="FROM-TO, seconds on the ground truth's clock (repeatable)")
    args = ap.parse_args(argv)
    src, _, dst = args.link.partition(",")
    if not src or not dst:
        ap.error(f"--link {args.link!r}: expected SRC,DST")
    if not args.groundtruth.is_file():
        ap.error(f"{args.groundtruth}: no such file (runner.aggtarget --capture-acks keeps a run's ground truth)")
    ppdus = data_ppdus(args.groundtruth, [(src, dst)])
    if not ppdus:
        ap.error(f"{args.groundtruth}: no data PPDUs with enqueue times on {src}->{dst}")
    for sp in spans(ppdus, args.span):
        print(sp.row())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
