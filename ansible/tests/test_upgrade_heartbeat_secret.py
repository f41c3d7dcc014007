"""upgrade.yml's heartbeat probe reads Redis with the Redis password: the password reaches redis-cli on its
stdin only, never in a command line of it or of the processes ansible starts for it (readable by every user of
the controller host in /proc, and logged by sudo when the play becomes root), nor in ansible's output."""

from __future__ import annotations

from pathlib import Path

from conftest import MAIN_PID, Run, localhost_play, upgrade_task

PASSWORD = "heartbeat-probe-password-7f3a"


def test_the_heartbeat_probe_keeps_the_redis_password_out_of_command_lines(
        playbook: Run, redis_cli: dict[str, str], tmp_path: Path) -> None:
    probe = upgrade_task("Wait for a heartbeat from the new dataplane process")
    play = localhost_play([probe], vars={
        "adwiser_manage_services": True, "adwiser_controller_host": "localhost",
        "adwiser_redis_host": "127.0.0.1", "adwiser_redis_port": 6379, "adwiser_redis_password": PASSWORD,
        "upgrade_heartbeat_key": "adwiser:appliance:lab:heartbeat",
        "upgrade_unit": {"status": {"ActiveState": "active", "MainPID": MAIN_PID}}})
    run = playbook(play, "-vvv", env=redis_cli)
    assert run.returncode == 0, run.stdout
    seen = (tmp_path / "redis-cli.log").read_text().splitlines()
    assert [line for line in seen if PASSWORD in line] == [f"stdin: {PASSWORD}"], seen
    assert PASSWORD not in run.stdout + run.stderr
