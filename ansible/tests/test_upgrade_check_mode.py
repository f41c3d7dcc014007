"""upgrade.yml's health probes under --check (the preview of a rollout): they only read, so they run and pass
on healthy hosts instead of being skipped and taken for a failed upgrade. Each probe is taken from upgrade.yml
as it is and run on the control node against a stand-in: an HTTP server for the controller's health, a
redis-cli on PATH answering with the unit's process for the heartbeat."""

from __future__ import annotations

import copy
import os
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, localhost_play

MAIN_PID = 4242


def upgrade_task(name: str) -> dict:
    """The task of upgrade.yml called `name`, wherever it is (play tasks, post_tasks, blocks)."""
    def walk(tasks: list[dict]) -> Iterator[dict]:
        for t in tasks:
            yield t
            for key in ("block", "rescue", "always"):
                yield from walk(t.get(key) or [])
    plays = yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())
    found = [t for play in plays for key in ("pre_tasks", "tasks", "post_tasks")
             for t in walk(play.get(key) or []) if t.get("name") == name]
    assert len(found) == 1, name
    # Fewer and quicker retries than a rollout waits: the outcome, not the patience, is under test.
    return {**copy.deepcopy(found[0]), "retries": 2, "delay": 0}


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


@pytest.fixture
def redis_cli(tmp_path: Path) -> dict[str, str]:
    """A redis-cli first on PATH that prints the heartbeat of process MAIN_PID (and reads what it is given)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stub = bin_dir / "redis-cli"
    stub.write_text(f"#!/bin/sh\ncat >/dev/null\necho '{{\"pid\": {MAIN_PID}, \"ts\": 1}}'\n")
    stub.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def test_check_mode_passes_the_controllers_health_probe(playbook: Run, controller: int) -> None:
    probe = upgrade_task("Wait for the controller to answer")
    play = localhost_play([probe], vars={"adwiser_manage_services": True, "controller_listen_host": "127.0.0.1",
                                         "controller_listen_port": controller})
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
