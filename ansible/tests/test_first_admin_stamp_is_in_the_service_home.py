"""The first-admin unit (role controller) keeps its stamp in the service account's state directory, the one role
common creates and gives the account: an inventory that moves that directory moves the stamp with it, so the unit,
running as the account, can write it and runs once."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import Run
from roles_rendered import rendered


def test_the_stamp_is_in_the_directory_common_creates(playbook: Run, tmp_path: Path) -> None:
    out = rendered(playbook, tmp_path, ["common", "controller"], {"common_service_home": "/srv/adwiser"},
                   templates={"unit": "controller/templates/adwiser-first-admin.service.j2"},
                   values=["common_service_home"])
    stamps = re.findall(r"^(?:ConditionPathExists=!|ExecStartPost=/usr/bin/touch )(\S+)$", out["unit"], re.M)
    assert stamps == ["/srv/adwiser/first-admin.done"] * 2, out["unit"]
