"""The figures of the mixed-traffic runs (004 Tables 5 and 6) from hand-made endpoint documents:
the HTTP page response times over every round, and the voice figures of rounds merged."""
from __future__ import annotations

from runner import http_load
from runner.http_server import PAGE_BYTES


def _pages(*response_ms: float) -> dict:
    return {"pages": [{"start_unix": float(i), "response_ms": ms, "bytes": PAGE_BYTES, "think_ms": 100.0}
                      for i, ms in enumerate(response_ms)], "errors": [], "connections": 6}


def test_median_page_response_of_an_even_count_is_the_mean_of_the_middle_two() -> None:
    # two rounds, four pages: the median is (200 + 300) / 2, not the lower middle page
    got = http_load.summarise([_pages(100.0, 300.0), _pages(400.0, 200.0)])
    assert got["median_response_ms"] == 250.0
    assert got["mean_response_ms"] == 250.0 and got["pages"] == 4
    # an odd count has its middle page
    assert http_load.summarise([_pages(100.0, 300.0, 200.0)])["median_response_ms"] == 200.0
