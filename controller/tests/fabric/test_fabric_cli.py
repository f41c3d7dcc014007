"""`python -m adwiser_controller.fabric`: the dry-run flow listing and its refusals (no root needed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import yaml

CONTROLLER = Path(__file__).resolve().parents[2]
LAB = CONTROLLER.parent / "configs" / "lab-2ap-2sta.yaml"


def fabric(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "adwiser_controller.fabric", *args], capture_output=True, text=True,
                          cwd=CONTROLLER, timeout=60)


def test_flows_prints_the_table_of_the_requested_mode() -> None:
    steered = fabric("flows", "--config", str(LAB), "--uplink", "up0", "--mode", "steered")
    bypass = fabric("flows", "--config", str(LAB), "--uplink", "up0", "--mode", "bypass")
    assert steered.returncode == 0 and bypass.returncode == 0, steered.stderr + bypass.stderr
    assert "dl_dst=02:ad:00:00:01:01,actions=output:fb-up" in steered.stdout
    assert "dl_dst=02:ad:00:00:01:01,actions=output:ap1" in bypass.stdout
    assert steered.stdout.strip().splitlines()[-1] == "priority=0,actions=NORMAL"


def test_an_invalid_document_is_refused_naming_the_field(tmp_path: Path) -> None:
    doc = yaml.safe_load(LAB.read_text())
    doc["topology"]["stas"][0]["mac"] = "03:ad:00:00:01:01"  # multicast
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(doc))
    res = fabric("flows", "--config", str(bad), "--uplink", "up0")
    assert res.returncode == 1 and res.stdout == ""
    assert "topology.stas" in res.stderr and "mac" in res.stderr, res.stderr


def test_an_uplink_that_is_not_an_interface_name_is_refused() -> None:
    res = fabric("flows", "--config", str(LAB), "--uplink", "0000:03:00.0")
    assert res.returncode == 1
    assert "uplink: '0000:03:00.0' is not a Linux interface name" in res.stderr


def test_run_refuses_a_redis_address_it_cannot_read(tmp_path: Path) -> None:
    res = fabric("run", "--config", str(LAB), "--uplink", "up0", "--run-dir", str(tmp_path), "--redis", "nowhere")
    assert res.returncode == 1
    assert "--redis: 'nowhere' is neither unix:/path, host:port nor a redis:// URL" in res.stderr


def test_run_refuses_a_healthy_poll_count_or_poll_period_that_is_not_positive(tmp_path: Path) -> None:
    # --healthy-polls 0 was taken: a fabric in bypass steered back at the next poll whatever the verdict, and
    # went to bypass again at the one after, a flow swap every poll for as long as the dataplane was dead;
    # --poll-ms 0 polled without a pause. Both are refused before anything is built.
    for option, value in (("--healthy-polls", "0"), ("--poll-ms", "0"), ("--poll-ms", "-100")):
        res = fabric("run", "--config", str(LAB), "--uplink", "up0", "--run-dir", str(tmp_path / "none"),
                     "--redis", "unix:/nonexistent/redis.sock", option, value)
        assert res.returncode == 2, (option, value, res.stderr)
        assert f"argument {option}: must be positive, got {value}" in res.stderr, res.stderr
