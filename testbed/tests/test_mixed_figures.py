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


def test_merged_voice_rounds_offset_what_an_end_received_by_what_its_peer_sent() -> None:
    from runner import mixed, scenarios

    def end(sent: int, got: list[int]) -> dict:
        return {"sent": sent, "received": [[s, 0, 1_000_000] for s in got], "late_sends": 0}

    # Round 0: the server sent 3 (all received), STA2 sent 5; round 1: 3 and 5 again, all received.
    rounds = [{"server": end(3, [0, 1, 2, 3, 4]), "sta2": end(5, [0, 1, 2])} for _ in range(2)]
    voice = mixed.summary(scenarios.get("voice-bulk"), rounds)["voice"]
    # downlink: 6 sent by the server, 6 received by STA2, none lost
    assert (voice["down"]["sent"], voice["down"]["lost"]) == (6, 0)
    assert (voice["up"]["sent"], voice["up"]["lost"]) == (10, 0)
