"""From one capture of runner/ack_capture.py to labelled ACK arrivals (001 §4.1).

Alignment with the emulator's ground truth, without fitting anything:
wlan-emu numbers every frame it takes in, in arrival order, and its log lists
the numbers (ids) of the MPDUs of every PPDU. The frames the appliance sent
out of ap1 towards sta1 (captured there, in order) enter the air on the
ap1 -> sta1 link in that same order, so the k-th of them is the k-th smallest
id seen on that link. The alignment is checked PPDU by PPDU: an A-MPDU's
`bytes` must equal the sum of its frames' lengths plus a fixed per-MPDU
overhead (the MAC header, FCS and delimiter the air model adds).

Labels: an ACK's A-MPDU is the downlink PPDU that first delivered (ok = 1) the
segment whose end it acknowledges; Y = 1 when that A-MPDU is later than the
A-MPDUs of all earlier ACKs (the ACK starts a new burst; an MPDU the MAC
retransmitted in a later PPDU does not make the labels flip back and forth).
ACKs that acknowledge nothing new (duplicates) keep the previous ACK's A-MPDU,
so they are never boundaries.

The way back is aligned the same way: the frames the appliance received from
the STA are the STA -> AP link's ids in order, since the AP's BlockAck
reordering hands them up in sequence (802.11-2016 §10.24.7). Each ACK's
uplink burst is the STA's PPDU whose reception released it (the one carrying
it, or a later retransmission that filled a gap before it). ACKs released by
one PPDU reach the appliance microseconds apart, so the A-MPDU boundaries that
fall inside an uplink burst are out of reach of any estimator that sees only
arrival times; `boundary_ceiling` measures that.
"""
from __future__ import annotations

import bisect
import json
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

STA1_MAC = bytes.fromhex("02ad00000101")


@dataclass
class Frame:
    t_ns: int
    length: int          # original frame length, bytes
    to_sta: bool         # towards the STA (data)
    from_sta: bool       # from the STA (its ACKs)
    tcp: bool
    flow: tuple[int, int] = (0, 0)   # (server port, STA port)
    seq: int = 0
    ack: int = 0
    payload: int = 0
    flags: int = 0
    src: bytes = b""     # source MAC


def is_pure_ack(f: Frame) -> bool:
    """A TCP ACK without payload, SYN, FIN or RST: what the dataplane's estimator counts (ack_burst.c)."""
    return f.tcp and f.payload == 0 and bool(f.flags & 0x10) and not f.flags & 0x07


def bursts(t_ns: np.ndarray, segs: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """What the dataplane counts (ack_burst.c): a burst ends when the next ACK is labelled first; its size is the
    segments it acknowledged; empty bursts are not counted. Returns (end time, segments) per burst."""
    ends, sizes = [], []
    cur, open_ = 0.0, False
    for i in range(len(t_ns)):
        if first[i] and open_:
            if cur > 0:
                ends.append(t_ns[i])
                sizes.append(cur)
            cur = 0.0
        open_ = True
        cur += segs[i]
    return np.array(ends, dtype=np.int64), np.array(sizes)


def read_pcap(path: Path) -> list[Frame]:
    """Ethernet/IPv4/TCP headers of a (nanosecond or microsecond) pcap file."""
    data = path.read_bytes()
    magic = struct.unpack_from("<I", data, 0)[0]
    if magic == 0xA1B23C4D:
        scale = 1
    elif magic == 0xA1B2C3D4:
        scale = 1000
    else:
        raise ValueError(f"{path}: not a little-endian pcap file (magic {magic:#x})")
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, incl, orig = struct.unpack_from("<IIII", data, off)
        off += 16
        pkt = data[off:off + incl]
        off += incl
        to_sta = pkt[0:6] == STA1_MAC
        f = Frame(sec * 1_000_000_000 + frac * scale, orig, to_sta, pkt[6:12] == STA1_MAC, False, src=pkt[6:12])
        if len(pkt) >= 54 and pkt[12:14] == b"\x08\x00" and pkt[23] == 6:
            ihl = (pkt[14] & 0x0F) * 4
            tot = struct.unpack_from(">H", pkt, 16)[0]
            t = 14 + ihl
            if len(pkt) >= t + 14:
                doff = (pkt[t + 12] >> 4) * 4
                f.tcp = True
                sport, dport = struct.unpack_from(">HH", pkt, t)
                f.flow = (sport, dport) if to_sta else (dport, sport)
                f.seq, f.ack = struct.unpack_from(">II", pkt, t + 4)
                f.flags = pkt[t + 13]
                f.payload = tot - ihl - doff
        out.append(f)
    return out


@dataclass
class Ppdu:
    start_us: int
    ids: list[int]
    ok: str
    bytes: int
    mpdus: int


def read_links(path: Path, links: tuple[tuple[str, str], ...]) -> dict[tuple[str, str], list[Ppdu]]:
    """The PPDUs of each (src, dst) link in wlan-emu's ground-truth log, in order, from one pass over it."""
    out: dict[tuple[str, str], list[Ppdu]] = {link: [] for link in links}
    with open(path) as fh:
        for line in fh:
            r = json.loads(line)
            got = out.get((r["src"], r["dst"]))
            if got is not None:
                got.append(Ppdu(int(r["start_us"]), [int(i) for i in r["ids"]], r["ok_mask"], int(r["bytes"]),
                                int(r["mpdus"])))
    return out


@dataclass
class Capture:
    rate_mbit: float
    ack_t_ns: np.ndarray                 # arrival time of each pure ACK at the appliance
    ack_segs: np.ndarray                 # segments newly acknowledged (advance / MSS)
    ack_ppdu: np.ndarray                 # index of the downlink A-MPDU it answers (-1 unknown)
    labels: np.ndarray                   # Y: 1 = first ACK of a new A-MPDU
    ppdu_mpdus: np.ndarray               # MPDUs per downlink A-MPDU (ground truth)
    ppdu_send_ns: np.ndarray             # when the appliance sent the PPDU's first MPDU (its clock), -1 unknown
    ack_uplink: np.ndarray               # index of the STA -> AP PPDU whose reception released the ACK, -1 unknown
    check: dict[str, float] = field(default_factory=dict)


def _alignment(ppdus: list[Ppdu], frames: list[Frame], frame_of_id: dict[int, int]) -> tuple[int, float]:
    """(per-MPDU overhead in bytes, fraction of PPDUs whose length matches their frames). An A-MPDU's length is
    every MPDU's frame plus a fixed overhead (delimiter, MAC header, FCS), each subframe but the last padded to 4
    bytes (802.11n/ac A-MPDU format). The overhead is read off single-MPDU PPDUs; a PPDU whose length then
    matches exactly confirms the alignment of its frames."""
    singles = [p.bytes - frames[frame_of_id[p.ids[0]]].length for p in ppdus
               if len(p.ids) == 1 and p.ids[0] in frame_of_id]
    mode = int(np.median(singles)) if singles else 0

    def expected(p: Ppdu) -> int:
        sub = [frames[frame_of_id[i]].length + mode for i in p.ids]
        return sum(sub) + sum(-x % 4 for x in sub[:-1])

    checked = [p.bytes == expected(p) for p in ppdus if all(i in frame_of_id for i in p.ids)]
    return mode, float(np.mean(checked)) if checked else 0.0


def _uplink_release(up: list[Ppdu], frames: list[Frame]) -> tuple[dict[int, int], float]:
    """Per frame the appliance received from the STA (keyed by its index in `frames`), the STA -> AP PPDU whose
    reception released it from the AP's reorder buffer; and the fraction of uplink PPDUs aligned. Only MPDUs
    that got through are handed up, in id order: the k-th received frame is the k-th delivered id, released by
    the latest first-delivering PPDU among it and every id before it."""
    first: dict[int, int] = {}
    for pi, p in enumerate(up):
        for i, okc in zip(p.ids, p.ok):
            if okc == "1":
                first.setdefault(i, pi)
    ids = sorted(first)
    from_sta = [k for k, f in enumerate(frames) if f.from_sta]
    n = min(len(ids), len(from_sta))
    released = np.maximum.accumulate(np.array([first[i] for i in ids[:n]], dtype=np.int64)) if n else []
    sent = [frames[k] for k in from_sta]
    frame_of_id = {ids[k]: k for k in range(n)}
    _, aligned = _alignment(up, sent, frame_of_id)  # PPDUs with a lost MPDU have an id missing: skipped
    return {from_sta[k]: int(released[k]) for k in range(n)}, aligned


def build(run: Path) -> Capture:
    meta = json.loads((run / "meta.json").read_text())
    frames = read_pcap(run / "ap1.pcap")
    links = read_links(run / "groundtruth.jsonl", (("ap1", "sta1"), ("sta1", "ap1")))
    ppdus = links[("ap1", "sta1")]
    down = [f for f in frames if f.to_sta]
    if (run / "wlan-ap1.pcap").exists():  # adwiser-dp's sends are invisible on its side (ack_capture.py)
        down = [f for f in read_pcap(run / "wlan-ap1.pcap") if f.to_sta]
    ids = sorted({i for p in ppdus for i in p.ids})
    frame_of_id = {ids[k]: k for k in range(min(len(down), len(ids)))}
    mode, aligned = _alignment(ppdus, down, frame_of_id)
    # First delivering PPDU of each frame.
    ppdu_of_frame = np.full(len(down), -1, dtype=np.int64)
    for pi, p in enumerate(ppdus):
        for i, okc in zip(p.ids, p.ok):
            k = frame_of_id.get(i)
            if k is not None and okc == "1" and ppdu_of_frame[k] < 0:
                ppdu_of_frame[k] = pi
    # Segment end -> frames carrying it (a TCP retransmission is a new frame with the same end).
    ends: dict[tuple[tuple[int, int], int], list[int]] = {}
    mss = max((f.payload for f in down if f.tcp), default=1448) or 1448
    for k, f in enumerate(down):
        if f.tcp and f.payload > 0:
            ends.setdefault((f.flow, (f.seq + f.payload) & 0xFFFFFFFF), []).append(k)
    down_t = [f.t_ns for f in down]
    acks = [k for k, f in enumerate(frames) if f.from_sta and is_pure_ack(f)]
    released_by, up_aligned = _uplink_release(links[("sta1", "ap1")], frames)
    t, segs, pp = [], [], []
    last_ack: dict[tuple[int, int], int] = {}
    prev_pp = -1
    for a in (frames[k] for k in acks):
        prev = last_ack.get(a.flow)
        adv = 0 if prev is None else (a.ack - prev) & 0xFFFFFFFF
        if adv >= 1 << 31:
            adv = 0
        cur = prev_pp
        if adv > 0 or prev is None:
            cand = ends.get((a.flow, a.ack), [])
            before = bisect.bisect_right(down_t, a.t_ns)
            cand = [k for k in cand if k < before]
            if cand:
                cur = int(ppdu_of_frame[cand[-1]])
            last_ack[a.flow] = a.ack
        t.append(a.t_ns)
        segs.append(adv / mss)
        pp.append(cur)
        prev_pp = cur
    ack_pp = np.array(pp, dtype=np.int64)
    # A new A-MPDU is one later than any answered so far: a cumulative ACK that only now covers an MPDU
    # retransmitted in a later PPDU moves forward once, not back and forth.
    labels = np.zeros(len(ack_pp), dtype=np.int8)
    seen = np.maximum.accumulate(ack_pp) if len(ack_pp) else ack_pp
    labels[1:] = ack_pp[1:] > seen[:-1]
    send_ns = np.array([down[frame_of_id[p.ids[0]]].t_ns if p.ids and p.ids[0] in frame_of_id else -1
                        for p in ppdus], dtype=np.int64)
    check = {"down_frames": len(down), "downlink_ids": len(ids), "ppdus": len(ppdus), "acks": len(acks),
             "mpdu_overhead_bytes": mode, "ppdus_aligned_frac": aligned,
             "acks_mapped_frac": float(np.mean(ack_pp >= 0)) if len(ack_pp) else 0.0, "mss": mss,
             "uplink_ppdus_aligned_frac": up_aligned}
    return Capture(float(meta["rate_mbit"]), np.array(t, dtype=np.int64), np.array(segs), ack_pp, labels,
                   np.array([p.mpdus for p in ppdus]), send_ns,
                   np.array([released_by.get(k, -1) for k in acks], dtype=np.int64), check)


def boundary_ceiling(c: Capture) -> dict[str, float | None]:
    """What arrival times alone can tell: an A-MPDU boundary is within reach only where its ACK is the first of
    an uplink burst. `recall` is the fraction of boundaries that are; `f1` = 2R / (1 + R), the F1 of a classifier
    that marks exactly those (precision 1); `f1_burst_starts` the F1 of one marking every uplink burst's first
    ACK; `ampdus_per_burst` the mean number of downlink A-MPDUs whose ACKs one uplink burst carries."""
    up = c.ack_uplink
    known = up >= 0
    known[0] = False  # the first ACK has no predecessor: neither a label nor a burst start
    starts = np.zeros(len(up), dtype=bool)
    starts[1:] = up[1:] != up[:-1]
    y, starts = c.labels.astype(bool) & known, starts & known
    if not y.any():
        return {"recall": None, "f1": None, "f1_burst_starts": None, "ampdus_per_burst": None}
    tp, fp, fn = int((y & starts).sum()), int((~y & starts).sum()), int((y & ~starts).sum())
    recall = tp / (tp + fn)
    per_burst: dict[int, set[int]] = {}
    for u, p in zip(up[known], c.ack_ppdu[known]):
        per_burst.setdefault(int(u), set()).add(int(p))
    return {"recall": round(recall, 4), "f1": round(2 * recall / (1 + recall), 4),
            "f1_burst_starts": round(2 * tp / (2 * tp + fp + fn), 4),
            "ampdus_per_burst": round(float(np.mean([len(v) for v in per_burst.values()])), 3)}


def features(t_ns: np.ndarray, m: int) -> np.ndarray:
    """001 §4.1 eq. (3): per ACK i >= m, [t_{i-m+1} .. t_i, sigma_i] with t the inter-arrival times in µs
    (oldest first) and sigma their population standard deviation; rows for ACKs 0..m-1 are NaN. Exactly what
    dataplane/core/ack_burst.c computes."""
    # Differences first, in integer ns: Unix-clock times (~1.7e18 ns, the STA agent's) step by 256 ns as float64.
    # A time before the previous one (the Unix clock stepped back) is no gap, as the C estimators count it.
    ia = np.maximum(np.diff(np.asarray(t_ns, dtype=np.int64)), 0).astype(np.float64) / 1000.0
    n = len(t_ns)
    x = np.full((n, m + 1), np.nan)
    if n <= m:
        return x
    win = np.lib.stride_tricks.sliding_window_view(ia, m)  # win[j] = ia[j .. j+m-1]; ACK i = j + m
    x[m:, :m] = win
    x[m:, m] = win.std(axis=1)
    return x
