"""The NIC binding unit of role dpdk gives the NICs back when it stops: its ExecStart (the role's script
files/adwiser-dpdk-bind, installed where the unit runs it) records the driver each NIC is on before binding it to the
DPDK driver, its ExecStop binds each back to it. The unit is rendered by ansible from the role's template; its
command lines run here with the role's script over a stand-in /sys (ADWISER_SYSFS) and a stand-in dpdk-devbind.py
first on PATH that moves the stand-in driver links as the real one binds."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from conftest import ANSIBLE, Run, localhost_play, play_tasks

SCRIPT = ANSIBLE / "roles" / "dpdk" / "files" / "adwiser-dpdk-bind"
TEMPLATE = ANSIBLE / "roles" / "dpdk" / "templates" / "adwiser-dpdk-bind.service.j2"
INSTALLED = "/usr/local/sbin/adwiser-dpdk-bind"
NICS = {"0000:00:04.0": "ixgbe", "0000:00:05.0": "i40e", "0000:00:06.0": None}


def _unit(playbook: Run, tmp_path: Path, driver: str, devices: list[str]) -> dict[str, str]:
    """The [Service] commands of the unit as the role renders it."""
    dest = tmp_path / "adwiser-dpdk-bind.service"
    rendered = playbook(localhost_play([{"name": "Render", "ansible.builtin.template": {
        "src": str(TEMPLATE), "dest": str(dest), "mode": "0644"}}],
        vars={"dpdk_driver": driver, "dpdk_pci_devices": devices}))
    assert rendered.returncode == 0, rendered.stdout
    return dict(line.split("=", 1) for line in dest.read_text().splitlines() if line.startswith("Exec"))


class Host:
    """A stand-in /sys with the PCI devices of NICS on their drivers and a stand-in dpdk-devbind.py."""

    def __init__(self, tmp_path: Path) -> None:
        self.sysfs, self.record, self.log = tmp_path / "sys", tmp_path / "run" / "kernel-drivers", tmp_path / "devbind.log"
        for dev, driver in NICS.items():
            (self.sysfs / "bus" / "pci" / "devices" / dev).mkdir(parents=True)
            if driver:
                self.bind(dev, driver)
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        stub = bin_dir / "dpdk-devbind.py"
        # --bind=DRIVER / -b DRIVER / -u, then the devices: the device's driver link moves (or goes).
        stub.write_text(f"""#!/bin/sh
echo "$*" >> '{self.log}'
case "$1" in
    --bind=*) driver=${{1#--bind=}}; shift ;;
    -b) driver=$2; shift 2 ;;
    -u) driver=; shift ;;
    *) exit 2 ;;
esac
for dev in "$@"; do
    d='{self.sysfs}'/bus/pci/devices/$dev
    [ -d "$d" ] || {{ echo "unknown device $dev" >&2; exit 1; }}
    rm -f "$d/driver"
    [ -z "$driver" ] || ln -s "../../drivers/$driver" "$d/driver"
done
""")
        stub.chmod(0o755)
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                    "ADWISER_SYSFS": str(self.sysfs), "ADWISER_DPDK_RECORD": str(self.record)}

    def bind(self, dev: str, driver: str) -> None:
        link = self.sysfs / "bus" / "pci" / "devices" / dev / "driver"
        link.unlink(missing_ok=True)
        link.symlink_to(f"../../drivers/{driver}")

    def drivers(self) -> dict[str, str | None]:
        links = {dev: self.sysfs / "bus" / "pci" / "devices" / dev / "driver" for dev in NICS}
        return {dev: os.path.basename(os.readlink(p)) if p.is_symlink() else None for dev, p in links.items()}

    def run(self, command: str) -> subprocess.CompletedProcess:
        """A unit's command line, with the role's script where the unit runs the installed one."""
        argv = shlex.split(command)
        assert argv[0] == INSTALLED, command
        return subprocess.run([str(SCRIPT), *argv[1:]], env=self.env, capture_output=True, text=True, timeout=30)


def test_the_role_installs_the_script_the_unit_runs() -> None:
    tasks = play_tasks("site.yml")["Appliances (bridge, DPDK, dataplane)"]
    installs = [t["args"] for t in tasks if t["role"] == "dpdk" and t["args"].get("dest") == INSTALLED]
    assert [(a["src"], a["mode"]) for a in installs] == [("adwiser-dpdk-bind", "0755")]


def test_stopping_the_binding_gives_the_nics_back_to_their_drivers(playbook: Run, tmp_path: Path) -> None:
    unit = _unit(playbook, tmp_path, "vfio-pci", list(NICS))
    assert unit["ExecStart"] == f"{INSTALLED} start vfio-pci {' '.join(NICS)}"
    assert unit["ExecStop"] == f"{INSTALLED} stop"
    host = Host(tmp_path)
    started = host.run(unit["ExecStart"])
    assert started.returncode == 0, started.stderr
    assert host.drivers() == dict.fromkeys(NICS, "vfio-pci")
    # A second start (the unit restarted without its stop, e.g. started again after a failed stop) records the
    # drivers it found the first time, not the DPDK driver.
    again = host.run(unit["ExecStart"])
    assert again.returncode == 0, again.stderr
    stopped = host.run(unit["ExecStop"])
    assert stopped.returncode == 0, stopped.stderr
    assert host.drivers() == NICS
    assert not host.record.exists()
    # Nothing recorded any more: a second stop changes nothing.
    calls = host.log.read_text()
    assert host.run(unit["ExecStop"]).returncode == 0
    assert host.log.read_text() == calls


def test_a_nic_left_out_of_the_list_goes_back_on_the_restart(playbook: Run, tmp_path: Path) -> None:
    host = Host(tmp_path)
    before = _unit(playbook, tmp_path, "vfio-pci", list(NICS))
    assert host.run(before["ExecStart"]).returncode == 0
    after = _unit(playbook, tmp_path, "vfio-pci", ["0000:00:04.0"])
    for command in (before["ExecStop"], after["ExecStart"]):
        done = host.run(command)
        assert done.returncode == 0, done.stderr
    assert host.drivers() == {**NICS, "0000:00:04.0": "vfio-pci"}
    assert host.run(after["ExecStop"]).returncode == 0
    assert host.drivers() == NICS


def test_a_nic_found_on_a_dpdk_driver_is_not_given_to_it(playbook: Run, tmp_path: Path) -> None:
    host = Host(tmp_path)
    host.bind("0000:00:05.0", "uio_pci_generic")
    unit = _unit(playbook, tmp_path, "vfio-pci", list(NICS))
    for command in (unit["ExecStart"], unit["ExecStop"]):
        done = host.run(command)
        assert done.returncode == 0, done.stderr
    # Its kernel driver is not known here: it stays where the start put it, the others go back.
    assert host.drivers() == {**NICS, "0000:00:05.0": "vfio-pci"}


def test_a_nic_that_cannot_be_given_back_stays_recorded(playbook: Run, tmp_path: Path) -> None:
    host = Host(tmp_path)
    unit = _unit(playbook, tmp_path, "vfio-pci", list(NICS))
    assert host.run(unit["ExecStart"]).returncode == 0
    # The device disappears (hot-unplugged): the stand-in refuses it; the others go back, and the stop fails.
    gone = host.sysfs / "bus" / "pci" / "devices" / "0000:00:04.0"
    (gone / "driver").unlink()
    gone.rmdir()
    stopped = host.run(unit["ExecStop"])
    assert stopped.returncode != 0
    assert host.record.read_text() == "0000:00:04.0 ixgbe\n"
    assert {d: v for d, v in host.drivers().items() if d != "0000:00:04.0"} == {
        d: v for d, v in NICS.items() if d != "0000:00:04.0"}
