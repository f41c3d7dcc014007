"""Report section of the appliance-side ACK-burst aggregation estimator (issue 9;
001 §4.1, like Fig 13): results/ack-burst-estimator.json, written by
`python -m runner.ack_burst_train` from the captures of runner/ack_capture.py."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

from .ack_scale import MODEL  # noqa: E402
from .jsonl import result_doc  # noqa: E402


def plot(doc: dict[str, Any], out: Path) -> Path:
    rows = doc["per_rate"]
    x = [r["send_rate_mbit"] for r in rows]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    a1.plot(x, [r["f1"] for r in rows], "o-", label=f"logistic, m = {doc['m']} + σ (shipped)")
    a1.plot(x, [r["baseline_m1"]["f1"] for r in rows], "s--", label="threshold (m = 1)")
    reach = [(r["send_rate_mbit"], r["reach"]["f1"]) for r in rows if (r.get("reach") or {}).get("f1") is not None]
    if reach:
        a1.plot(*zip(*reach), "k:", label="ceiling: boundaries that start an uplink burst")
    for sw in doc.get("m_sweep", []):
        if sw["m"] == 20 and doc["m"] != 20 and len(sw.get("per_rate_f1", [])) == len(x):
            a1.plot(x, sw["per_rate_f1"], "d:", label="logistic, m = 20 + σ (001's choice)")
    a1.set_xlabel("send rate (Mbit/s)")
    a1.set_ylabel("F1 of frame boundaries")
    a1.set_ylim(0, 1.02)
    a1.legend()
    a2.plot(x, [r["true_mean_ampdu"] for r in rows], "k^-", label="ground truth (wlan-emu)")
    a2.plot(x, [r["est_mean_ampdu"] for r in rows], "o-", label=f"estimate, m = {doc['m']}")
    a2.plot(x, [r["baseline_m1"]["est_mean_ampdu"] for r in rows], "s--", label="estimate, threshold (m = 1)")
    a2.set_xlabel("send rate (Mbit/s)")
    a2.set_ylabel("mean MPDUs per A-MPDU")
    a2.legend()
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def section_lines(results_dir: Path) -> list[str]:
    lines = ["## ACK-burst aggregation estimator on the appliance (issue 9; 001 §4.1, like Fig 13)", ""]
    doc = result_doc(results_dir / "ack-burst-estimator.json", "per_rate")
    if doc is None:
        return lines + ["(not measured yet: `python -m runner.ack_capture` under the testbed lock, then "
                        "`python -m runner.ack_burst_train`)", ""]
    png = plot(doc, results_dir / "ack_burst_estimator.png")
    lines += [f"Logistic regression on the last m = {doc['m']} ACK inter-arrival times at the appliance and their "
              f"standard deviation, one estimator for all rates (model version {doc.get('model_version')}, "
              f"commit {doc.get('commit')}); labels and the true A-MPDU sizes from wlan-emu's ground truth "
              "(802.11ac 80 MHz air, TCP CUBIC paced by the sender to the send rate, appliance bridging). "
              f"m chosen by {doc.get('m_chosen_by', 'argument')}. Out-of-fold figures ({doc['folds']} folds in time). "
              f"Mean per-rate F1 {doc['cv_f1']} (threshold baseline, m = 1 without σ: {doc['baseline_m1_cv_f1']}). The estimate is what adwiser-dp "
              f"reports as `agg_est`: a scale (fitted leaving the rate out; the shipped model's is fitted on all) "
              f"times the segments acknowledged per estimated burst, capped at {doc['n_max']}; "
              f"slot RMSE is over {doc['slot_s']:g} s slots (the controller's Δ).", "",
              "The ceiling is what arrival times can show at all (runner/ack_dataset.py `boundary_ceiling`, from "
              "the STA -> AP PPDUs of the ground truth): the ACKs that one uplink PPDU releases at the AP reach the "
              "appliance microseconds apart, so a boundary is within reach only where its ACK is the first of an "
              "uplink burst. Ceiling F1 = 2R / (1 + R) with R the fraction of boundaries that are; 'burst starts' "
              "is the F1 of marking every uplink burst's first ACK; 'A-MPDUs / burst' how many downlink A-MPDUs "
              "one uplink burst acknowledges.", "",
              "| send rate Mbit/s | received Mbit/s | F1 | F1 (m=1) | ceiling F1 | burst starts F1 | A-MPDUs / burst "
              "| true A-MPDU | estimate | raw (no scale) | error | estimate (m=1) | slot RMSE |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["per_rate"]:
        b, reach = r["baseline_m1"], r.get("reach") or {}
        lines.append(f"| {r['send_rate_mbit']:g} | {r.get('received_mbps')} | {r['f1']} | {b['f1']} | "
                     f"{reach.get('f1', '–')} | {reach.get('f1_burst_starts', '–')} | "
                     f"{reach.get('ampdus_per_burst', '–')} | "
                     f"{r['true_mean_ampdu']} | {r['est_mean_ampdu']} | {r.get('est_raw')} | {r['error']} | "
                     f"{b['est_mean_ampdu']} | {r['slot_rmse']} |")
    if doc.get("m_sweep"):
        lines += ["", "F1 against m, with σ (like Fig 13(a); pooled / mean per rate): " + ", ".join(
            f"m = {s['m']}: {s['f1']} / {s.get('macro_f1')}" for s in doc["m_sweep"])]
    runs = doc.get("dataplane_runs") or []
    if runs:
        lines += ["", "Through adwiser-dp (`ack_capture --dataplane`): the dataplane paces ap1/sta1 at x_i "
                  "(`--pacing`, plain CUBIC at the sender) and runs the shipped model itself (`--ack-model`). "
                  "Goodput expected = x_i × 1448/1500 (x_i counts IP bytes); `agg_est` is the dataplane's own "
                  "telemetry (mean weighted by bursts) with the model version it ran, the replay is that model on "
                  "the appliance's capture, the last estimate the model fitted now (it never saw these runs).", "",
                  "| x_i Mbit/s | goodput Mbit/s | expected | true A-MPDU | dataplane agg_est (model) | replay | "
                  "this model | F1 | ceiling F1 | tail drops | mean queue pkts |",
                  "|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in runs:
            lines.append(f"| {r['pace_mbit']:g} | {r['received_mbps']} | {r['goodput_expected_mbps']} | "
                         f"{r['true_mean_ampdu']} | {r['dp_agg_est']} (v{r.get('model_version')}) | "
                         f"{r['replay_agg_est']} | {r.get('model_agg_est')} | {r['f1']} | "
                         f"{(r.get('reach') or {}).get('f1', '–')} | "
                         f"{r['dp_drops_tail']} | {r['dp_mean_queue_pkts']} |")
    lines += scale_table_lines(MODEL)
    lines += ["", f"![ACK-burst estimator]({png.name})", ""]
    return lines


def scale_table_lines(model_path: Path) -> list[str]:
    """The shipped model's scale per receiving-STA count (runner/ack_scale.py), if it has one: these captures
    have one STA, so the table above uses the one-STA scale only."""
    try:
        model = json.loads(model_path.read_text())
    except (OSError, json.JSONDecodeError):
        return []
    by, fit = model.get("scale_by_stas"), model.get("scale_by_stas_training") or {}
    if not by:
        return []
    per, gaps = fit.get("per_stas") or {}, model.get("gap_by_stas_us") or []
    gap_note = (" and a burst needs a least gap after the previous ACK (`gap_by_stas_us`, runner/ack_gap.py on "
                "captured ACKs)") if any(gaps) else ""
    return ["", f"The shipped model (version {model.get('version')}) scales the estimate by the number of STAs "
            f"receiving at the pair's AP (`scale_by_stas`, `agg_stas` in the telemetry){gap_note}, fitted on the "
            f"controlled aggtarget runs fed by the ground truth ({', '.join(fit.get('scenarios') or [])}): "
            + ", ".join(
                f"{k} STA{'s' if k > 1 else ''} {v:g}" + (f" ({per[str(k)]['slots']} slots)" if str(k) in per
                                                         else " (interpolated)")
                + (f" at {gaps[k - 1]:g} µs" if any(gaps) and k <= len(gaps) else "")
                for k, v in enumerate(by, start=1)) + "."]
