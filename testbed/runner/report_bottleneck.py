"""Report section of the bottleneck classifier (issue 9; 001 §5, like Fig. 19(a)):
results/bottleneck-classifier.json, written by `python -m runner.bottleneck_train`
from the runs of runner/bottleneck_capture.py."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 - after the backend is chosen

from .jsonl import result_doc  # noqa: E402


def _backhaul_key(k: str) -> float:
    return float("inf") if k == "none" else float(k)


def _bin_key(k: str) -> float:
    return float(k.split("-")[0].lstrip(">="))


def plot(doc: dict[str, Any], out: Path) -> Path:
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 3.6))
    bh = sorted(doc["by_backhaul_mbit"], key=_backhaul_key)
    x = list(range(len(bh)))
    for what, style, label in (("verdict", "o-", "fitted (controller's verdict)"),
                               ("model", "s--", "fitted, p > 0.5 alone"),
                               ("hand_set_3_model", "d:", "hand-set-3, p > 0.5")):
        a1.plot(x, [doc["by_backhaul_mbit"][k][what].get("accuracy") for k in bh], style, label=label)
    a1.set_xticks(x, [k if k == "none" else f"{float(k):g}" for k in bh])
    a1.set_xlabel("backhaul rate (Mbit/s; none = unlimited)")
    a1.set_ylabel("held-out accuracy")
    a1.set_ylim(0, 1.02)
    a1.legend(fontsize=8)
    bins = sorted(doc["by_carried_rate_mbit"], key=_bin_key)
    xb = list(range(len(bins)))
    a2.plot(xb, [doc["by_carried_rate_mbit"][k]["verdict"].get("accuracy") for k in bins], "o-",
            label="fitted (verdict)")
    a2.plot(xb, [doc["by_carried_rate_mbit"][k]["hand_set_3_model"].get("accuracy") for k in bins], "d:",
            label="hand-set-3")
    a2.set_xticks(xb, bins, rotation=30, fontsize=8)
    a2.set_xlabel("rate the pair carried in the slot (Mbit/s)")
    a2.set_ylabel("held-out accuracy")
    a2.set_ylim(0, 1.02)
    a2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def section_lines(results_dir: Path) -> list[str]:
    lines = ["## Bottleneck classifier, WLAN or backhaul (issue 9; 001 §5, like Fig. 19(a))", ""]
    doc = result_doc(results_dir / "bottleneck-classifier.json", "by_backhaul_mbit")
    if doc is None:
        return lines + ["(not measured yet: `python -m runner.bottleneck_capture` under the testbed lock, then "
                        "`python -m runner.bottleneck_train`)", ""]
    png = plot(doc, results_dir / "bottleneck_classifier.png")
    coef = doc["coef"]
    lines += [f"Logistic regression on the controller's own features, agg_ratio (mean of the last 5 aggregation "
              f"samples / N_target) and L^p (loss over the last 100 packets), fitted with scikit-learn on the "
              f"testbed's aggregation-target runs behind a wan-emu backhaul at several rates and without one "
              f"(`{doc['model_file']}`, version {doc['model_version']}: intercept {doc['intercept']:.3f}, "
              f"agg_ratio {coef['agg_ratio']:.3f}, loss {coef['loss']:.3f}). Each run classified by a model fitted "
              "without it (leave-one-run-out); a step is labelled backhaul when the backhaul's rate is clearly below "
              "the WLAN's and the pacer's (runner/bottleneck_train.py). The verdict adds the controller's "
              "pacer-limited rule.", "",
              f"![bottleneck classifier]({png.name})", "",
              "| backhaul (Mbit/s) | steps | backhaul steps | accuracy (verdict) | F1 (verdict) | accuracy (hand-set-3) |",
              "|---|---|---|---|---|---|"]
    for k in sorted(doc["by_backhaul_mbit"], key=_backhaul_key):
        g = doc["by_backhaul_mbit"][k]
        v, h = g["verdict"], g["hand_set_3_model"]
        f1 = "–" if v.get("f1_backhaul") is None else f"{v['f1_backhaul']:.3f}"
        lines.append(f"| {k} | {v['steps']} | {v['backhaul_steps']} | {v['accuracy']:.3f} | {f1} | "
                     f"{h['accuracy']:.3f} |")
    o = doc["overall"]
    lines += ["", f"Overall: accuracy {o['verdict']['accuracy']:.3f}, F1 {o['verdict']['f1_backhaul']:.3f} "
              f"(hand-set-3 on the same steps: {o['hand_set_3_model']['accuracy']:.3f}, "
              f"{o['hand_set_3_model']['f1_backhaul']:.3f}); runs left out as ambiguous: "
              f"{', '.join(doc.get('runs_left_out') or []) or 'none'}.", ""]
    return lines
