"""The calibration table shows each figure to the digits at which it sits on the same side of its target's
limit as the measured value: a PHY rate of 59.96 Mbit/s meets "under 60" and is not shown as 60.0."""
from __future__ import annotations

from runner import report


def _doc(name: str, rows: list[tuple[float, float, float]]) -> dict[str, object]:
    return {"scenario": name, "pairs": [
        {"ap": f"ap{i}", "sta": f"sta{i}", "throughput_mbps": t, "mean_ampdu": a, "mean_phy_mbps": p}
        for i, (t, a, p) in enumerate(rows, 1)]}


def test_calibration_figures_near_a_limit_are_shown_to_the_digits_that_agree_with_met() -> None:
    text = "\n".join(report.calibration_lines({
        "isolated": _doc("isolated", [(83.5796, 21.849, 125.0), (98.3243, 21.86, 140.0)]),
        "together": _doc("together", [(21.7, 6.0, 59.96), (25.7, 6.0, 60.04)]),
    }))
    assert "| together | ap1-sta1 | PHY Mbit/s 59.96 | under 60 | yes |" in text
    assert "| together | ap2-sta2 | PHY Mbit/s 60.04 | under 60 | no |" in text
    # near 19 is within ±15 %, up to 21.85
    assert "| isolated | ap1-sta1 | A-MPDU 21.8 | near 19 | yes |" in text
    assert "| isolated | ap2-sta2 | A-MPDU 21.86 | near 19 | no |" in text
    # 83.5796 is 4.9995 % over 79.6 (shown +4.999, not +5.0), within ± 5 %; 98.3243 is 5.0007 % under 103.5, outside
    assert "| isolated | ap1-sta1 | θ 83.6 Mbit/s (+4.999 %) | 79.6 ± 5 % | yes |" in text
    assert "| isolated | ap2-sta2 | θ 98.3 Mbit/s (-5.001 %) | 103.5 ± 5 % | no |" in text
