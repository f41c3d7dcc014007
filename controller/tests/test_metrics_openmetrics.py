"""/metrics answers a scrape that asks for OpenMetrics (Prometheus's default Accept) in OpenMetrics, where a
counter's `_created` sample is its created time; the text format 0.0.4 has it only as a gauge of its own."""

from __future__ import annotations

from prometheus_client.openmetrics.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString

from test_metrics_counter_created import COUNTERS, live_pairs


def test_openmetrics_scrape_gives_the_created_time_in_the_counter_family(api, appliance, rdb):
    """One exposition of the appliances' and the controller's metrics, ended by a single `# EOF`."""
    aid, _ = appliance
    since_ns = 1795402100012000000
    live_pairs(rdb, aid, since_ns)
    resp = api("viewer").get("/metrics", headers={"Accept": "application/openmetrics-text; version=1.0.0"})
    assert resp.status_code == 200, resp.text
    assert resp.headers["content-type"].startswith("application/openmetrics-text"), resp.headers
    text = resp.text
    assert text.endswith("# EOF\n") and text.count("# EOF") == 1, text[-200:]
    list(text_string_to_metric_families(text))  # the strict OpenMetrics parser takes it whole
    for name in COUNTERS:
        assert f"# TYPE {name} counter" in text
        assert f"# TYPE {name}_created gauge" not in text
        assert f'{name}_created{{appliance="{aid}",pair="ap1/sta1"}} {floatToGoString(since_ns / 1e9)}' in text
        assert f'{name}_created{{appliance="{aid}",pair="ap2/sta2"}}' not in text
    assert "# TYPE adwiser_controller_request_seconds histogram" in text  # the controller's own metrics too
