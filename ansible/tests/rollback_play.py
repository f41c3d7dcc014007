"""upgrade.yml's appliance play as the rollback tests run it on the control node: its tasks and rescue as they are,
over files in a scratch folder, its upgrade a stand-in that rewrites files, enables and starts units, and fails;
systemctl a stand-in first on PATH that keeps which units are enabled and active in a folder."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import yaml

from conftest import ANSIBLE

APPLIANCES = "Upgrade the appliances, one at a time"
UPGRADE = "Upgrade the appliance and check it"


def rollback_play(root: Path, before: dict[str, str | None], after: dict[str, str], units: dict[str, str],
                  enable: dict[str, bool] | None = None, start: list[str] | None = None,
                  retire: dict[str, list[str]] | None = None) -> list[dict]:
    """upgrade.yml's appliance play over files in `root`, each with the unit of `units`, installed with the contents
    of `before` (None: absent); its upgrade a stand-in that writes `after`, retires the units of `retire` with their
    files (role unit_retire, as the roles do with the previous backend's), enables (True) or disables (False) the
    units of `enable`, restarts those of `start` (as the roles' handlers do) and fails."""
    play = copy.deepcopy(next(p for p in yaml.safe_load((ANSIBLE / "upgrade.yml").read_text())
                              if p["name"] == APPLIANCES))
    upgrade = next(t for t in play["tasks"] if t["name"] == UPGRADE)
    upgrade["block"] = [
        {"name": "Stand-in upgrade", "ansible.builtin.copy": {"content": "{{ item.value }}", "dest": "{{ item.key }}",
                                                             "mode": "0644"},
         "loop": "{{ upgrade_after | dict2items }}"},
        *({"name": f"Retire {unit}", "ansible.builtin.include_role": {"name": "unit_retire"},
           "vars": {"unit_retire_name": unit, "unit_retire_unit_dir": str(root),
                    "unit_retire_files": [str(root / name) for name in files]}}
          for unit, files in (retire or {}).items()),
        {"name": "Stand-in enablement", "ansible.builtin.systemd": {"name": "{{ item.key }}",
                                                                   "enabled": "{{ item.value }}"},
         "loop": "{{ upgrade_enable | dict2items }}"},
        {"name": "Stand-in handlers", "ansible.builtin.systemd": {"name": "{{ item }}", "state": "restarted"},
         "loop": "{{ upgrade_start }}"},
        {"name": "Stand-in check", "ansible.builtin.fail": {"msg": "the new dataplane does not come up"}}]
    for name, content in before.items():
        if content is not None:
            (root / name).write_text(content)
    files = [{"path": str(root / name), "unit": unit} for name, unit in units.items()]
    play.update(hosts="localhost", connection="local", gather_facts=False, become=False)
    play["vars"].update(upgrade_rollback_dir=str(root / "backup"), upgrade_rollback_files=files,
                        upgrade_after={str(root / name): content for name, content in after.items()},
                        upgrade_enable=enable or {}, upgrade_start=start or [], adwiser_manage_services=True)
    return [play]


def fake_systemctl(tmp_path: Path, root: Path, enabled: set[str], active: set[str]) -> dict[str, str]:
    """The environment of a playbook whose systemctl records its arguments in tmp_path/systemctl.log and keeps each
    unit's state in tmp_path/units (UNIT.enabled, UNIT.active), starting with `enabled` and `active`. As systemd's,
    it enables, disables and stops only a unit whose file is there (root/UNIT): stopping runs the unit's ExecStop,
    which needs the unit's files; is-enabled says nothing on its stdout of a unit without a file that is not
    enabled; and show says LoadState=not-found of a unit without a file that is not running (ansible's systemd
    module then fails: no such unit)."""
    bin_dir, state = tmp_path / "bin", tmp_path / "units"
    bin_dir.mkdir()
    state.mkdir()
    for unit in enabled:
        (state / f"{unit}.enabled").touch()
    for unit in active:
        (state / f"{unit}.active").touch()
    stub = bin_dir / "systemctl"
    stub.write_text(f"""#!/bin/sh
echo "$*" >> '{tmp_path / 'systemctl.log'}'
unit=$2 state='{state}'
case "$1" in enable|disable|stop)
    [ -e '{root}'/"$unit" ] || {{ echo "Unit file $unit does not exist." >&2; exit 1; }} ;;
esac
case "$1" in
    show)
        if [ -e '{root}'/"$unit" ] || [ -e "$state/$unit.active" ]; then echo LoadState=loaded
        else echo LoadState=not-found; fi
        if [ -e "$state/$unit.active" ]; then echo ActiveState=active; else echo ActiveState=inactive; fi ;;
    is-enabled)
        if [ -e "$state/$unit.enabled" ]; then echo enabled
        elif [ -e '{root}'/"$unit" ]; then echo disabled; exit 1
        else echo "Failed to get unit file state for $unit: No such file or directory" >&2; exit 1; fi ;;
    enable) touch "$state/$unit.enabled" ;;
    disable) rm -f "$state/$unit.enabled" ;;
    start|restart) touch "$state/$unit.active" ;;
    stop) rm -f "$state/$unit.active" ;;
esac
exit 0
""")
    stub.chmod(0o755)
    return {"PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"}


def unit_states(tmp_path: Path, suffix: str) -> set[str]:
    """The units the stand-in systemctl has enabled (suffix "enabled") or active ("active")."""
    return {p.name.removesuffix(f".{suffix}") for p in (tmp_path / "units").glob(f"*.{suffix}")}


def systemctl_calls(tmp_path: Path, command: str) -> list[str]:
    """The units of the stand-in systemctl's calls of `command` (restart, stop, ...), in order."""
    return [line.split()[1].strip("'") for line in (tmp_path / "systemctl.log").read_text().splitlines()
            if line.split()[:1] == [command]]
