"""upgrade.yml's play on the appliances checks the Redis password against the controller host's redis.conf, where
the controller host's inventory says it is: the task is delegated to the controller host, but a delegated task's
variables are the appliance's, so a redis_config_file set for the controllers group alone (or the controller host's
host_vars) was not seen and the play read role redis's default path on the controller host (refusing the installed
password, or passing on whatever file is there). The password it compares is still each appliance's own
adwiser_redis_password (what its dataplane gets). The play is taken from upgrade.yml as written and run on the control
node with an inventory of a controller host and two appliances, limited to the appliances, with and without --check."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

from conftest import ANSIBLE, Run, write_redis_conf

CHECK = "Check the controller host's Redis password before anything changes"
INSTALLED = "the-installed-redis-password"


def _check_play() -> dict:
    found = [p for p in yaml.safe_load((ANSIBLE / "upgrade.yml").read_text()) if p["name"] == CHECK]
    assert len(found) == 1, f"upgrade.yml has no play {CHECK!r}"
    return {k: v for k, v in copy.deepcopy(found[0]).items() if k != "become"}


@pytest.mark.parametrize("check_mode", [False, True], ids=["run", "check"])
@pytest.mark.parametrize("where", ["group_vars", "host_vars"])
@pytest.mark.parametrize(("password", "refused"), [(INSTALLED, False), ("a-new-password-for-redis", True)])
def test_the_appliances_check_reads_the_redis_config_the_controller_hosts_inventory_names(
        playbook: Run, tmp_path: Path, password: str, refused: bool, where: str, check_mode: bool) -> None:
    conf = tmp_path / "controller-redis.conf"
    write_redis_conf(playbook, conf, INSTALLED)
    # What an appliance's own variables would name: a file of the other password, so that reading it shows.
    decoy = tmp_path / "appliance-redis.conf"
    write_redis_conf(playbook, decoy, "a-new-password-for-redis" if not refused else password)
    controller_vars = {"redis_config_file": str(conf)}
    controllers: dict = ({"vars": controller_vars, "hosts": {"controller": {}}} if where == "group_vars"
                         else {"hosts": {"controller": controller_vars}})
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(yaml.safe_dump({"all": {
        "vars": {"ansible_connection": "local", "adwiser_controller_host": "controller",
                 "adwiser_redis_password": password},
        "children": {"controllers": controllers, "appliances": {
            "vars": {"redis_config_file": str(decoy)}, "hosts": {"appliance-1": {}, "appliance-2": {}}}}}}))
    args = ["--limit", "appliances", *(["--check"] if check_mode else [])]
    run = playbook([_check_play()], *args, inventory=str(hosts))
    assert (run.returncode != 0) == refused, run.stdout
    if refused:
        assert str(conf) in run.stdout and "site.yml" in run.stdout, run.stdout
    assert password not in run.stdout + run.stderr


def test_the_appliances_check_compares_each_appliances_own_redis_password(playbook: Run, tmp_path: Path) -> None:
    conf = tmp_path / "controller-redis.conf"
    write_redis_conf(playbook, conf, INSTALLED)
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(yaml.safe_dump({"all": {
        "vars": {"ansible_connection": "local", "adwiser_controller_host": "controller"},
        "children": {
            "controllers": {"vars": {"redis_config_file": str(conf), "adwiser_redis_password": INSTALLED},
                            "hosts": {"controller": {}}},
            "appliances": {"hosts": {"appliance-1": {"adwiser_redis_password": INSTALLED},
                                     "appliance-2": {"adwiser_redis_password": "a-stale-password"}}}}}}))
    run = playbook([_check_play()], "--limit", "appliances", inventory=str(hosts))
    assert run.returncode != 0, run.stdout
    assert "appliance-2: adwiser_redis_password" in run.stdout, run.stdout
    assert "appliance-1: adwiser_redis_password" not in run.stdout, run.stdout


def test_without_one_in_the_controller_hosts_inventory_the_check_reads_role_rediss_default(
        playbook: Run, tmp_path: Path) -> None:
    default = yaml.safe_load((ANSIBLE / "roles/redis/defaults/main.yml").read_text())["redis_config_file"]
    hosts = tmp_path / "hosts.yml"
    hosts.write_text(yaml.safe_dump({"all": {
        "vars": {"ansible_connection": "local", "adwiser_controller_host": "controller",
                 "adwiser_redis_password": "a-password-no-redis-here-has"},
        "children": {"controllers": {"hosts": {"controller": {}}},
                     "appliances": {"hosts": {"appliance-1": {}}}}}}))
    run = playbook([_check_play()], "--limit", "appliances", inventory=str(hosts))
    # Refused: the test host's Redis, if any, has another password, or its redis.conf is not readable to the test.
    assert run.returncode != 0, run.stdout
    assert f"of Redis ({default} on controller)" in run.stdout, run.stdout
