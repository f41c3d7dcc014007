"""The cross-field checks of a document take time linear in its size: a document at the schema's largest
counts (4096 STAs, each pair in several slices) is validated on the API's event loop for every edit and apply,
so a check quadratic in it held every other request for seconds to minutes. Measured as ratios of two documents
of one size, so the host's speed cancels out."""

from __future__ import annotations

import time
from typing import Any

import pytest
from test_config_models import lab

from adwiser_controller.models import PAIRS_MAX, AdwiserConfig


def _site(pairs_per_slice: int, sta_in_refs: str = "s") -> dict[str, Any]:
    """PAIRS_MAX STAs s<i> of AP a, each pair in one slice of `pairs_per_slice`, its STA named <sta_in_refs><i>."""
    doc = lab()
    stas = [{"id": f"s{i}", "mac": f"02:00:00:{i >> 16:02x}:{(i >> 8) & 255:02x}:{i & 255:02x}", "ap": "a"}
            for i in range(PAIRS_MAX)]
    doc["topology"] = {"aps": [{"id": "a", "channel": 36, "port": "p0"}], "stas": stas, "conflicts": []}
    refs = [f"a/{sta_in_refs}{i}" for i in range(PAIRS_MAX)]
    doc["slice_map"] = {"slices": [{"duration_ms": 1, "pairs": refs[i:i + pairs_per_slice]}
                                   for i in range(0, PAIRS_MAX, pairs_per_slice)]}
    for policy in ("dynamic_slicing", "aggregation_target"):
        doc["policies"][policy]["pairs"] = []
    doc["policies"]["aggregation_target"]["overrides"] = []
    return doc


def _validation_s(doc: dict[str, Any]) -> float:
    best = float("inf")
    for _ in range(2):
        t0 = time.perf_counter()
        try:
            AdwiserConfig.model_validate(doc)
        except ValueError:
            pass
        best = min(best, time.perf_counter() - t0)
    return best


def test_one_slice_of_every_pair_is_checked_as_fast_as_many_small_slices():
    # every pair against every other of its slice: 4096 pairs in one slice were 16.7 M comparisons
    many_small, one_big = _site(64), _site(PAIRS_MAX)
    AdwiserConfig.model_validate(one_big)
    assert _validation_s(one_big) < 3 * _validation_s(many_small)


def test_pairs_naming_unknown_stas_are_refused_in_linear_time():
    # STAs renamed in the topology but not in the slice map: each pair's STA was searched through every STA.
    # A problem for each pair and each STA costs what it costs; the search cost 50 times the right document.
    right, wrong = _site(64), _site(64, sta_in_refs="t")
    with pytest.raises(ValueError, match="unknown STA 't0' in pair 'a/t0'"):
        AdwiserConfig.model_validate(wrong)
    assert _validation_s(wrong) < 10 * _validation_s(right)
