"""The request-latency histogram's labels take a bounded set of values: HTTP lets a client name any
method token, and a series per name sent (no login needed) grew the controller's memory and every
/metrics scrape without bound."""

from __future__ import annotations

import socket


def _raw_request(url: str, method: str) -> None:
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(f"{method} /api/v1/health HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n".encode())
        while s.recv(4096):
            pass


def test_made_up_methods_do_not_each_get_a_series(controller, api):
    made_up = [f"MADEUP{i}" for i in range(20)]
    for method in made_up:
        _raw_request(controller.url, method)
    text = api("viewer").get("/metrics").text
    series = [line for line in text.splitlines()
              if line.startswith("adwiser_controller_request_seconds_count{")]
    assert not any(m in line for line in series for m in made_up), [s for s in series if "MADEUP" in s][:3]
    assert any('method="other"' in line and 'route="/api/v1/health"' in line for line in series), series
