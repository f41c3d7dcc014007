"""upgrade.yml's health probes under --check (the preview of a rollout): they only read, so they run and pass
on healthy hosts instead of being skipped and taken for a failed upgrade. Each probe is taken from upgrade.yml
as it is and run on the control node against a stand-in: an HTTP server for the controller's health, a
redis-cli on PATH answering with the unit's process for the heartbeat."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Iterator

import pytest
import yaml

from conftest import ANSIBLE, MAIN_PID, Run, localhost_play, upgrade_task


class _Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200 if self.path == "/api/v1/health" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def controller() -> Iterator[int]:
    """A stand-in controller on a free loopback port whose /api/v1/health answers 200."""
    server = http.server.HTTPServer(("127.0.0.1", 0), _Health)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_port
    finally:
        server.shutdown()
        server.server_close()


def test_check_mode_passes_the_controllers_health_probe(playbook: Run, controller: int) -> None:
    probe = upgrade_task("Wait for the controller to answer")
    # the play runs role webui, whose default names where the controller is reached
    upstream = yaml.safe_load((ANSIBLE / "roles" / "webui" / "defaults" / "main.yml").read_text())["webui_controller_upstream"]
    play = localhost_play([probe], vars={"adwiser_manage_services": True, "controller_listen_host": "127.0.0.1",
                                         "controller_listen_port": controller, "webui_controller_upstream": upstream})
    checked = playbook(play, "--check")
    assert checked.returncode == 0, checked.stdout


def test_check_mode_passes_the_dataplanes_heartbeat_probe(playbook: Run, redis_cli: dict[str, str]) -> None:
    probe = upgrade_task("Wait for a heartbeat from the new dataplane process")
    play = localhost_play([probe], vars={
        "adwiser_manage_services": True, "adwiser_controller_host": "localhost",
        "adwiser_redis_host": "127.0.0.1", "adwiser_redis_port": 6379, "adwiser_redis_password": "a-redis-password",
        "upgrade_heartbeat_key": "adwiser:appliance:lab:heartbeat",
        "upgrade_unit": {"status": {"ActiveState": "active", "MainPID": MAIN_PID}}})
    checked = playbook(play, "--check", env=redis_cli)
    assert checked.returncode == 0, checked.stdout
