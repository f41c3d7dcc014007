"""A bottleneck classifier's input window filled to a chosen state, shared by the classifier tests."""

from __future__ import annotations

from adwiser_controller.aggregation import bottleneck as bn


def full_window(aggregation: float, sent: int, lost: int) -> bn.PairWindow:
    """A window of n=5 samples, all at `aggregation`, and `lost` of `sent` packets lost (p=100)."""
    w = bn.PairWindow(n=5, p=100)
    for _ in range(5):
        w.add_aggregation(aggregation)
    w.add_packets(sent, lost)
    return w
