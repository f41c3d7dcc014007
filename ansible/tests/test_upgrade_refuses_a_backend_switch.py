"""upgrade.yml refuses to switch an appliance's backend (dpdk <-> nfqueue), before it changes anything: it does not
run role openvswitch, which moves the uplink and AP ports off the bridge (to nfqueue) or onto it (to dpdk), so a
switch it made would leave an nfqueue appliance's ports on the bridge, past the NFQUEUE rules. What the appliance
runs is told by what is installed: the unit only the other backend installs (role dpdk's NIC binding, role
dataplane's NFQUEUE rules). The check is taken from upgrade.yml as it is and run on the control node over a scratch
folder of units."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run

CHECK = "Check the appliances before anything changes"
BACKEND_UNIT = {"dpdk": "adwiser-dpdk-bind.service", "nfqueue": "adwiser-nfqueue-rules.service"}


def _plays() -> list[dict]:
    return yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())


def _check_play(unit_dir: Path, backend: str) -> list[dict]:
    found = [p for p in _plays() if p["name"] == CHECK]
    assert len(found) == 1, f"upgrade.yml has no play {CHECK!r}"
    play = copy.deepcopy(found[0])
    play.update(hosts="localhost", connection="local")
    play.setdefault("vars", {}).update(upgrade_unit_dir=str(unit_dir), adwiser_backend=backend)
    return [play]


def test_upgrade_checks_every_appliance_before_it_changes_anything() -> None:
    first = _plays()[0]
    assert first["name"] == CHECK, first["name"]
    assert first["hosts"] == "appliances"
    # One appliance asked to switch stops the whole rollout, the controller's upgrade included.
    assert first.get("any_errors_fatal") is True


@pytest.mark.parametrize(("installed", "backend"), [("dpdk", "nfqueue"), ("nfqueue", "dpdk")])
def test_upgrade_refuses_a_backend_switch(playbook: Run, tmp_path: Path, installed: str, backend: str) -> None:
    (tmp_path / BACKEND_UNIT[installed]).write_text("[Unit]\n")
    for args in ((), ("--check",)):
        refused = playbook(_check_play(tmp_path, backend), *args)
        assert refused.returncode != 0, refused.stdout
        assert "adwiser_backend" in refused.stdout and "site.yml" in refused.stdout, refused.stdout


# None: an appliance the roles never ran on, which upgrade.yml installs as a whole.
@pytest.mark.parametrize(("installed", "backend"), [(None, "dpdk"), (None, "nfqueue"), ("dpdk", "dpdk"),
                                                    ("nfqueue", "nfqueue")])
def test_upgrade_passes_an_appliance_that_keeps_its_backend(playbook: Run, tmp_path: Path, installed: str | None,
                                                            backend: str) -> None:
    if installed:
        (tmp_path / BACKEND_UNIT[installed]).write_text("[Unit]\n")
    checked = playbook(_check_play(tmp_path, backend))
    assert checked.returncode == 0, checked.stdout
