#!/usr/bin/python3
"""Inspect a root that site.yml converged into (tests/converge.sh).

No daemon can run in a chroot, so this checks what a booted appliance would
use: the users, the configuration files (owner, mode, content), the rendered
dataplane document (valid against the schema, equal to the inventory's lab
document, accepted by the controller's own validator), the systemd units
(`systemd-analyze verify` inside the root, enabled links, restart policy,
fail-open rules), nginx's configuration (`nginx -t`), the TLS certificate,
and that the installed programs find their libraries.  Prints one line per
check and closes with "N passed, N failed"; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import stat
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema
import yaml


@dataclass
class Report:
    passed: int = 0
    failed: list[str] = field(default_factory=list)

    def check(self, name: str, ok: bool, detail: str = "") -> None:
        if ok:
            self.passed += 1
            print(f"PASS {name}")
        else:
            self.failed.append(name)
            print(f"FAIL {name}{': ' + detail if detail else ''}")


class Root:
    """The converged tree, with its own user and group databases."""

    def __init__(self, path: Path):
        self.path = path
        self.users = self._db("etc/passwd")
        self.groups = self._db("etc/group")

    def _db(self, rel: str) -> dict[str, list[str]]:
        rows = (line.split(":") for line in (self.path / rel).read_text().splitlines() if line)
        return {r[0]: r for r in rows}

    def p(self, rel: str) -> Path:
        return self.path / rel.lstrip("/")

    def owner(self, rel: str) -> tuple[str, str, int]:
        st = self.p(rel).lstat()
        user = next((n for n, r in self.users.items() if int(r[2]) == st.st_uid), str(st.st_uid))
        group = next((n for n, r in self.groups.items() if int(r[2]) == st.st_gid), str(st.st_gid))
        return user, group, stat.S_IMODE(st.st_mode)

    def run(self, *argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
        return subprocess.run(["chroot", str(self.path), *argv], input=stdin, text=True,
                              capture_output=True, env=env, timeout=120)


def systemd_env_file(text: str) -> dict[str, str]:
    """The variables systemd's EnvironmentFile= sets from `text`: the state machine of
    parse_env_file_internal() (src/basic/env-file.c), which systemd 252 (Debian 12) runs on the file.
    Unquoted: a backslash takes the next character, trailing blanks dropped; '...': literal; "...": only
    \\ \" \$ \` are escapes (another backslash stays), a backslash-newline is dropped; no $ expansion."""
    ws, nl = " \t\n\r", "\n\r"
    env: dict[str, str] = {}
    state, key, val, key_end, val_end = "pre_key", "", "", None, None

    def push() -> None:
        k = key[:key_end] if key_end is not None else key
        env[k] = val

    for c in text:
        if state == "pre_key":
            if c in "#;":
                state = "comment"
            elif c not in ws:
                state, key, key_end = "key", c, None
        elif state == "key":
            if c in nl:
                state = "pre_key"
            elif c == "=":
                state, val, val_end = "pre_value", "", None
            else:
                if c not in ws:
                    key_end = None
                elif key_end is None:
                    key_end = len(key)
                key += c
        elif state == "pre_value":
            if c in nl:
                push()
                state = "pre_key"
            elif c == "'":
                state = "single"
            elif c == '"':
                state = "double"
            elif c == "\\":
                state = "value_escape"
            elif c not in ws:
                state, val = "value", val + c
        elif state == "value":
            if c in nl:
                if val_end is not None:
                    val = val[:val_end]
                push()
                state = "pre_key"
            elif c == "\\":
                state, val_end = "value_escape", None
            else:
                if c not in ws:
                    val_end = None
                elif val_end is None:
                    val_end = len(val)
                val += c
        elif state == "value_escape":
            state = "value"
            if c not in nl:
                val += c
        elif state == "single":
            if c == "'":
                state = "pre_value"
            else:
                val += c
        elif state == "double":
            if c == '"':
                state = "pre_value"
            elif c == "\\":
                state = "double_escape"
            else:
                val += c
        elif state == "double_escape":
            state = "double"
            if c in '"\\`$':
                val += c
            elif c != "\n":
                val += "\\" + c
        elif state == "comment":
            if c == "\\":
                state = "comment_escape"
            elif c in nl:
                state = "pre_key"
        elif state == "comment_escape":
            state = "comment"
    if state in ("pre_value", "value", "value_escape", "single", "double", "double_escape"):
        if state == "value" and val_end is not None:
            val = val[:val_end]
        push()
    return env


def redis_accepts(root: Root, conf: str, logins: list[tuple[str, str]]) -> tuple[bool, str]:
    """Start the root's redis-server on its redis.conf (on a scratch socket, no TCP port, no persistence) and
    log in as each (user, password) with redis-cli: the server must accept the file and every password."""
    sock, scratch = "/tmp/adwiser-check-redis.sock", "/tmp/adwiser-check-redis"
    root.p(scratch).mkdir(exist_ok=True)
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
    srv = subprocess.Popen(["chroot", str(root.path), "redis-server", conf, "--port", "0", "--unixsocket", sock,
                            "--dir", scratch, "--pidfile", scratch + "/redis.pid", "--supervised", "no",
                            "--daemonize", "no", "--appendonly", "no", "--save", ""],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        for _ in range(100):
            if root.p(sock).exists() or srv.poll() is not None:
                break
            time.sleep(0.05)
        if srv.poll() is not None:
            return False, "redis-server refused the file: " + (srv.stdout.read() if srv.stdout else "")[-400:]
        for user, password in logins:
            res = root.run("redis-cli", "-s", sock, "--no-auth-warning", "--user", user, "--pass", password,
                           "ACL", "WHOAMI" if user == "default" else "DRYRUN")
            # A logged-in sta-agent may not run ACL: NOPERM; a wrong password: WRONGPASS (or AUTH failed).
            if "WRONGPASS" in res.stdout + res.stderr or "AUTH failed" in res.stdout + res.stderr \
                    or (user == "default" and res.stdout.strip() != "default"):
                return False, f"{user}: {(res.stdout + res.stderr).strip()[-300:]}"
        return True, ""
    finally:
        srv.terminate()
        srv.wait(timeout=10)
        root.p(sock).unlink(missing_ok=True)


def file_is(root: Root, rel: str, user: str, group: str, mode: int) -> tuple[bool, str]:
    if not root.p(rel).exists():
        return False, "missing"
    got = root.owner(rel)
    return got == (user, group, mode), f"{got[0]}:{got[1]} {got[2]:04o}, want {user}:{group} {mode:04o}"


def check_ack_model(root: Root, args: argparse.Namespace, unit: str, r: Report, tag: str = "") -> None:
    """The ACK-burst classifier's coefficients (the paced pairs' agg_est) installed and passed to adwiser-dp;
    adwiser-dp itself refuses a malformed file at start (dataplane/dp/tests/test_dp_pacing.c)."""
    ok, d = file_is(root, "etc/adwiser/ack_burst_model.json", "root", "root", 0o644)
    r.check(f"{tag}ACK-burst model installed root 0644, the project's file",
            ok and root.p("etc/adwiser/ack_burst_model.json").read_bytes()
            == (args.repo / "configs/ack_burst_model.json").read_bytes(), d)
    r.check(f"{tag}dataplane unit loads the ACK-burst model", " --ack-model /etc/adwiser/ack_burst_model.json" in unit)


def check_dp_checks_documents(root: Root, doc: dict, r: Report) -> None:
    """The installed adwiser-dp --check-config (the role's validate step) accepts the installed document and
    refuses one the schema accepts but its loader does not (a pair in no slice), naming it."""
    res = root.run("/usr/local/sbin/adwiser-dp", "--check-config", "/etc/adwiser/dataplane.json")
    r.check("adwiser-dp --check-config accepts the installed document",
            res.returncode == 0 and res.stdout.strip() == "/etc/adwiser/dataplane.json: ok",
            (res.stdout + res.stderr).strip()[-400:])
    bad = dict(doc, slice_map={"slices": [{"duration_ms": 20, "pairs": ["ap1/sta1"]}]})
    root.p("tmp/bad.json").write_text(json.dumps(bad))
    res = root.run("/usr/local/sbin/adwiser-dp", "--check-config", "/tmp/bad.json")
    root.p("tmp/bad.json").unlink()
    r.check("adwiser-dp --check-config refuses a pair in no slice, naming it",
            res.returncode == 1 and "pair ap2/sta2 is in no slice" in res.stderr, (res.stdout + res.stderr).strip())


def check_dpdk_appliance(root: Root, args: argparse.Namespace, schema: dict, r: Report) -> None:
    """The second root: an appliance with the dpdk backend (no controller there)."""
    doc = json.loads(root.p("etc/adwiser/dataplane.json").read_text())
    errors = [e.message for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(doc)]
    r.check("dpdk: dataplane.json validates against the schema", not errors, "; ".join(errors))
    r.check("dpdk: document carries its appliance id and PCI ports",
            doc["appliance_id"] == "lab-dpdk" and {a["port"] for a in doc["topology"]["aps"]} == {"0000:00:05.0"})
    unit = root.p("etc/systemd/system/adwiser-dataplane.service").read_text()
    r.check("dpdk: unit runs EAL on core 1 with 512 MB and both NICs",
            "-l 1 -m 512 --file-prefix adwiser -a 0000:00:04.0 -a 0000:00:05.0 -- --config /etc/adwiser/dataplane.json"
            " --uplink 0000:00:04.0" in unit)
    r.check("dpdk: unit needs the NIC binding, restarts always",
            "Requires=adwiser-dpdk-bind.service" in unit and "Restart=always" in unit)
    r.check("dpdk: unit checks its config with adwiser-dp before start",
            "ExecStartPre=/usr/local/sbin/adwiser-dp --check-config /etc/adwiser/dataplane.json" in unit)
    check_ack_model(root, args, unit, r, "dpdk: ")
    bind = root.p("etc/systemd/system/adwiser-dpdk-bind.service").read_text()
    r.check("dpdk: binding unit binds both NICs to uio_pci_generic and gives them back when it stops",
            "ExecStart=/usr/local/sbin/adwiser-dpdk-bind start uio_pci_generic 0000:00:04.0 0000:00:05.0\n" in bind
            and "ExecStop=/usr/local/sbin/adwiser-dpdk-bind stop\n" in bind, bind)
    ok, d = file_is(root, "usr/local/sbin/adwiser-dpdk-bind", "root", "root", 0o755)
    r.check("dpdk: binding script installed 0755", ok, d)
    huge = root.p("etc/sysctl.d/61-adwiser-hugepages.conf").read_text()
    r.check("dpdk: 256 hugepages of 2 MB reserved at boot", "vm.nr_hugepages = 256" in huge, huge)
    r.check("dpdk: driver loaded at boot",
            root.p("etc/modules-load.d/adwiser-dpdk.conf").read_text() == "uio_pci_generic\n")
    units = ["adwiser-dpdk-bind.service", "adwiser-ovs-bridge.service"]
    if args.dp_method == "release":
        units.append("adwiser-dataplane.service")
    res = root.run("systemd-analyze", "verify", "--man=no", *[f"/etc/systemd/system/{u}" for u in units])
    r.check("dpdk: systemd-analyze verify of the units is clean", res.returncode == 0 and not res.stderr.strip(),
            res.stderr.strip()[-600:])
    for u in units:
        r.check(f"dpdk: {u} enabled", root.p(f"etc/systemd/system/multi-user.target.wants/{u}").is_symlink())
    r.check("dpdk: no NFQUEUE rules unit", not root.p("etc/systemd/system/adwiser-nfqueue-rules.service").exists())
    bridge = root.p("usr/local/sbin/adwiser-ovs-bridge").read_text()
    r.check("dpdk: the bridge takes no DPDK-owned port", "add-br br-adwiser" in bridge and "add-port" not in bridge)
    r.check("dpdk: no controller, Redis or nginx on an appliance",
            not root.p("opt/adwiser/controller").exists() and not root.p("etc/redis").exists()
            and not root.p("etc/nginx").exists())
    if args.dp_method == "release":
        res = root.run("ldd", "/usr/local/sbin/adwiser-dp")
        r.check("dpdk: adwiser-dp finds all its libraries", res.returncode == 0 and "not found" not in res.stdout,
                res.stdout[-300:])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, type=Path)
    ap.add_argument("--dpdk-root", required=True, type=Path, help="the DPDK appliance's root")
    ap.add_argument("--repo", required=True, type=Path, help="the project tree the converge used")
    ap.add_argument("--redis-password", required=True)
    ap.add_argument("--admin-password", required=True)
    ap.add_argument("--sta-agent-password", required=True)
    ap.add_argument("--dp-method", choices=["release", "source"], required=True)
    args = ap.parse_args()
    root = Root(args.root)
    r = Report()

    # Users and groups.
    adw = root.users.get("adwiser")
    r.check("user adwiser is a system account without login",
            adw is not None and int(adw[2]) < 1000 and adw[6] == "/usr/sbin/nologin" and adw[5] == "/var/lib/adwiser",
            str(adw))
    netops = root.users.get("netops")
    sudo_members = root.groups.get("sudo", ["", "", "", ""])[3].split(",")
    r.check("operator netops exists, in group sudo", netops is not None and "netops" in sudo_members, str(netops))
    keys = root.p("home/netops/.ssh/authorized_keys")
    r.check("operator netops has its SSH key", keys.exists() and "netops@converge-test" in keys.read_text())
    ok, d = file_is(root, "var/lib/adwiser", "adwiser", "adwiser", 0o750)
    r.check("/var/lib/adwiser adwiser:adwiser 0750", ok, d)
    ok, d = file_is(root, "etc/adwiser", "root", "adwiser", 0o750)
    r.check("/etc/adwiser root:adwiser 0750", ok, d)

    # Kernel settings.
    sysctl = root.p("etc/sysctl.d/60-adwiser.conf")
    r.check("sysctl file enables forwarding", sysctl.exists() and "net.ipv4.ip_forward = 1" in sysctl.read_text())

    # The dataplane document: where it belongs, valid, equal to the inventory's lab document.
    doc_path = "etc/adwiser/dataplane.json"
    ok, d = file_is(root, doc_path, "root", "adwiser", 0o640)
    r.check("dataplane.json root:adwiser 0640", ok, d)
    schema = json.loads((args.repo / "configs/schema/adwiser-config.schema.json").read_text())
    doc = json.loads(root.p(doc_path).read_text())
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}"
              for e in jsonschema.validators.validator_for(schema)(schema).iter_errors(doc)]
    r.check("dataplane.json validates against the schema", not errors, "; ".join(errors))
    lab = yaml.safe_load((args.repo / "configs/lab-2ap-2sta.yaml").read_text())
    r.check("dataplane.json is the lab document of the inventory", doc == json.loads(json.dumps(lab)),
            f"keys {sorted(doc)} vs {sorted(lab)}")
    res = root.run("/usr/local/sbin/adwiser-validate-config", "/usr/share/adwiser/adwiser-config.schema.json",
                   "/" + doc_path)
    r.check("the appliance's own validator accepts it", res.returncode == 0, res.stderr.strip())
    bad = dict(doc, slice_map={"slices": [{"duration_ms": -5, "pairs": ["ap1/sta1"]}]})
    root.p("tmp/bad.json").write_text(json.dumps(bad))
    res = root.run("/usr/local/sbin/adwiser-validate-config", "/usr/share/adwiser/adwiser-config.schema.json",
                   "/tmp/bad.json")
    r.check("the appliance's validator refuses a negative slice, naming the field",
            res.returncode == 1 and "slice_map.slices.0.duration_ms" in res.stderr, res.stderr.strip())
    root.p("tmp/bad.json").unlink()
    res = root.run("sh", "-c", "cd /opt/adwiser/controller/app && "
                   "../venv/bin/python -m adwiser_controller validate /etc/adwiser/dataplane.json")
    r.check("the installed controller validates it (cross-field rules)", res.returncode == 0,
            (res.stdout + res.stderr).strip()[-400:])
    env = root.p("etc/adwiser/dataplane.env")
    ok, d = file_is(root, "etc/adwiser/dataplane.env", "root", "root", 0o600)
    r.check("dataplane.env root:root 0600", ok, d)
    r.check("dataplane.env gives the vaulted Redis password by systemd's EnvironmentFile= rules",
            systemd_env_file(env.read_text()).get("ADWISER_REDIS_PASSWORD") == args.redis_password)

    # The dataplane program.
    dp = "usr/local/sbin/adwiser-dp"
    if args.dp_method == "release":
        r.check("adwiser-dp installed 0755", file_is(root, dp, "root", "root", 0o755)[0])
        res = root.run("ldd", "/" + dp)
        missing = [line.strip() for line in res.stdout.splitlines() if "not found" in line]
        r.check("adwiser-dp finds all its libraries in the root", res.returncode == 0 and not missing,
                "; ".join(missing) or res.stderr)
        check_dp_checks_documents(root, doc, r)
    else:
        r.check("dataplane sources copied (build skipped by dataplane_build: false)",
                root.p("opt/adwiser/src/dataplane/Makefile").exists() and not root.p(dp).exists())

    # Units: verified by systemd itself, enabled, with the restart policy and fail-open.
    units = ["adwiser-dataplane.service", "adwiser-nfqueue-rules.service", "adwiser-ovs-bridge.service",
             "adwiser-controller.service", "adwiser-first-admin.service", "adwiser-aggregation-loop.service"]
    for u in units:
        r.check(f"{u} enabled", root.p(f"etc/systemd/system/multi-user.target.wants/{u}").is_symlink())
    verify = [f"/etc/systemd/system/{u}" for u in units]
    if args.dp_method == "source":
        verify.remove("/etc/systemd/system/adwiser-dataplane.service")  # its ExecStart is not installed
    res = root.run("systemd-analyze", "verify", "--man=no", *verify)
    r.check("systemd-analyze verify of the ADWISER units is clean", res.returncode == 0 and not res.stderr.strip(),
            res.stderr.strip()[-600:])
    res = root.run("systemd-analyze", "verify", "--man=no", "/lib/systemd/system/redis-server.service",
                   "/lib/systemd/system/nginx.service", "/lib/systemd/system/openvswitch-switch.service")
    r.check("systemd-analyze verify of redis, nginx, openvswitch", res.returncode == 0, res.stderr.strip()[-600:])
    for u in ["redis-server.service", "nginx.service", "openvswitch-switch.service"]:
        r.check(f"{u} enabled", root.p(f"etc/systemd/system/multi-user.target.wants/{u}").exists())
    unit = root.p("etc/systemd/system/adwiser-dataplane.service").read_text()
    r.check("dataplane unit restarts always", "Restart=always" in unit and "StartLimitBurst=" in unit)
    r.check("dataplane unit runs the nfqueue backend on queue 7 with the lab config",
            "--config /etc/adwiser/dataplane.json --backend nfqueue --uplink uplink0 --queue-num 7" in unit)
    lines = unit.splitlines()
    r.check("dataplane unit checks its config with adwiser-dp before start, with the start's backend and extra arguments",
            "ExecStartPre=/usr/local/sbin/adwiser-dp --check-config /etc/adwiser/dataplane.json"
            " --backend nfqueue --uplink uplink0 --queue-num 7"
            " --ack-model /etc/adwiser/ack_burst_model.json --rt-priority 10" in lines
            and any(x.startswith("ExecStart=") and x.endswith(" --rt-priority 10") for x in lines))
    check_ack_model(root, args, unit, r)
    rules = root.p("usr/local/sbin/adwiser-nfqueue-rules").read_text()
    r.check("NFQUEUE rules fail open (--queue-bypass) on both AP interfaces",
            "--queue-bypass" in rules and all(f"-o {i} " in rules and f"-i {i} " in rules for i in ("ap1", "ap2")))
    for script in ["usr/local/sbin/adwiser-nfqueue-rules", "usr/local/sbin/adwiser-ovs-bridge"]:
        res = root.run("sh", "-n", "/" + script)
        r.check(f"{script} is valid sh", res.returncode == 0, res.stderr)
    bridge = root.p("usr/local/sbin/adwiser-ovs-bridge").read_text()
    r.check("bridge script: br-adwiser, standalone (fail-open), none of the nfqueue appliance's interfaces "
            "(it routes them through the kernel's FORWARD chain)",
            "add-br br-adwiser" in bridge and "set-fail-mode br-adwiser standalone" in bridge
            and "add-port" not in bridge)
    r.check("NFQUEUE rules unit routes with proxy ARP (dataplane/dp/README.md)",
            "set_sysctl net/ipv4/conf/ap1/proxy_arp 1" in rules and "ip route replace 198.18.0.11/32 dev ap1" in rules)

    # Redis.
    ok, d = file_is(root, "etc/redis/redis.conf", "redis", "redis", 0o640)
    conf = root.p("etc/redis/redis.conf").read_text().splitlines()
    r.check("redis.conf redis:redis 0640", ok, d)
    r.check("redis: AOF on, bound to loopback, a password required",
            "appendonly yes" in conf and "bind 127.0.0.1" in conf and any(x.startswith("requirepass ") for x in conf))
    r.check("redis: the STA agents' ACL user may only XADD to tm:sta",
            any(x.startswith('user sta-agent on ">') and x.endswith('" ~adwiser:appliance:*:tm:sta +xadd') for x in conf))
    ok, d = redis_accepts(root, "/etc/redis/redis.conf",
                          [("default", args.redis_password), ("sta-agent", args.sta_agent_password)])
    r.check("redis-server accepts redis.conf, with the vaulted passwords of default and sta-agent", ok, d)

    # Controller.
    venv_ok = root.run("/opt/adwiser/controller/venv/bin/python", "-c", "import fastapi, redis, pydantic, uvicorn")
    r.check("controller virtualenv has its requirements", venv_ok.returncode == 0, venv_ok.stderr[-300:])
    r.check("controller package installed",
            root.p("opt/adwiser/controller/app/adwiser_controller/__main__.py").exists())
    ok, d = file_is(root, "etc/adwiser/credentials/first-admin-password", "root", "adwiser", 0o640)
    pw = root.p("etc/adwiser/credentials/first-admin-password")
    r.check("first admin password from the vault, root:adwiser 0640",
            ok and pw.read_text() == args.admin_password + "\n", d)
    fa = root.p("etc/systemd/system/adwiser-first-admin.service").read_text()
    r.check("first-admin unit creates netops once",
            "create-admin" in fa and "--username netops" in fa and "ConditionPathExists=!" in fa)
    loop_unit = root.p("etc/systemd/system/adwiser-aggregation-loop.service").read_text()
    r.check("aggregation-loop unit restarts always and runs the loops with the installed bottleneck model",
            "Restart=always" in loop_unit and "User=adwiser" in loop_unit
            and "adwiser_controller aggregation-loop --bottleneck-model /etc/adwiser/bottleneck_model.json" in loop_unit)
    ok, d = file_is(root, "etc/adwiser/bottleneck_model.json", "root", "root", 0o644)
    r.check("bottleneck model installed root 0644, the project's file",
            ok and root.p("etc/adwiser/bottleneck_model.json").read_bytes()
            == (args.repo / "configs/bottleneck_model.json").read_bytes(), d)
    res = root.run("sh", "-c", "cd /opt/adwiser/controller/app && ../venv/bin/python -c 'import sys; "
                   "from adwiser_controller.aggregation import bottleneck; "
                   "print(bottleneck.load_model(sys.argv[1]).version)' /etc/adwiser/bottleneck_model.json")
    r.check("the installed controller loads the bottleneck model", res.returncode == 0 and res.stdout.strip(),
            res.stderr[-300:])
    cenv = root.p("etc/adwiser/controller.env")
    ok, d = file_is(root, "etc/adwiser/controller.env", "root", "adwiser", 0o640)
    r.check("controller.env root:adwiser 0640 with the Redis URL",
            ok and f"redis://:{urllib.parse.quote(args.redis_password, safe='')}@127.0.0.1:6379/0" in cenv.read_text(), d)

    # Web UI behind nginx with TLS.
    res = root.run("nginx", "-t")
    r.check("nginx -t accepts the configuration", res.returncode == 0, res.stderr.strip())
    site = root.p("etc/nginx/sites-enabled/adwiser")
    r.check("nginx site enabled, default site gone",
            site.is_symlink() and not root.p("etc/nginx/sites-enabled/default").exists())
    ok, d = file_is(root, "etc/adwiser/tls/webui.key", "root", "root", 0o600)
    r.check("TLS key root 0600", ok, d)
    res = root.run("openssl", "x509", "-in", "/etc/adwiser/tls/webui.crt", "-noout", "-subject", "-ext", "subjectAltName")
    r.check("self-signed certificate for the server name",
            res.returncode == 0 and "adwiser-test.invalid" in res.stdout, res.stdout + res.stderr)
    dist = args.repo / "webui/dist/index.html"
    if dist.exists():
        r.check("web UI assets installed", root.p("opt/adwiser/webui/dist/index.html").read_bytes() == dist.read_bytes())

    # Nothing secret outside the files meant for it.
    leaks = []
    for rel in ["etc/adwiser/dataplane.json", "etc/systemd/system/adwiser-dataplane.service",
                "etc/systemd/system/adwiser-controller.service", "etc/systemd/system/adwiser-first-admin.service",
                "etc/systemd/system/adwiser-aggregation-loop.service"]:
        text = root.p(rel).read_text()
        if any(pw in text for pw in (args.redis_password, args.admin_password, args.sta_agent_password)):
            leaks.append(rel)
    r.check("no secret in the document or the units", not leaks, ", ".join(leaks))

    check_dpdk_appliance(Root(args.dpdk_root), args, schema, r)

    print(f"{r.passed} passed, {len(r.failed)} failed")
    return 1 if r.failed else 0


if __name__ == "__main__":
    sys.exit(main())
