"""The NFQUEUE rules unit's stop (a backend switch retires it, a restart runs it) puts the appliance back as its start
found it: the VLAN interfaces the start created are deleted and every kernel setting it changed (ip_forward,
send_redirects, proxy_arp) gets the value it had, while a VLAN interface that was there before (the operator's own)
stays, and a setting another role made (common's ip_forward=1) is kept. The rendered script runs against stand-in
`ip`, `sysctl` and `iptables` that keep the links and settings in a scratch folder, as tests/bridge_vlans.sh runs
the bridge script against a private database."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from conftest import Run
from roles_rendered import rendered
from test_nfqueue_appliance_forwards_through_the_kernel import APPLIANCE_ROLES, SOUTH

# Links and settings as files: links/NAME, sys/net/ipv4/... (sysctl keys by path). A new VLAN link gets the
# kernel's defaults for the settings the script touches; a deleted one takes its settings along.
STAND_INS = {
    "ip": r"""#!/bin/sh
case "$1 $2" in
"link show") [ -e "$STATE/links/$3" ] ;;
"link add")
    # ip link add link LINK name NAME type vlan id ID
    touch "$STATE/links/$6"
    mkdir -p "$STATE/sys/net/ipv4/conf/$6"
    echo 1 > "$STATE/sys/net/ipv4/conf/$6/send_redirects"
    echo 0 > "$STATE/sys/net/ipv4/conf/$6/proxy_arp" ;;
"link del"|"link delete") rm "$STATE/links/$3" && rm -r "$STATE/sys/net/ipv4/conf/$3" ;;
*) exit 0 ;;
esac
""",
    "sysctl": r"""#!/bin/sh
print=
while [ $# -gt 0 ]; do
    case "$1" in
    -n) print=1 ;;
    -q|-w|-qw|-wq) ;;
    *) break ;;
    esac
    shift
done
path() { case "$1" in */*) echo "$1" ;; *) echo "$1" | tr . / ;; esac; }
if [ -n "$print" ]; then cat "$STATE/sys/$(path "$1")"; exit; fi
key=${1%%=*}
file="$STATE/sys/$(path "$key")"
[ -e "$file" ] || { echo "sysctl: cannot stat $key" >&2; exit 255; }
echo "${1#*=}" > "$file"
""",
    # No chain or rule to find: the stop's loops end at once.
    "iptables": """#!/bin/sh
case " $* " in *" -D "*|*" -C "*) exit 1 ;; esac
exit 0
""",
}


def _setting(state: Path, key: str, value: int) -> None:
    path = state / "sys" / key
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"{value}\n")


def _snapshot(state: Path) -> dict[str, str]:
    return {str(p.relative_to(state)): p.read_text() for p in sorted(state.rglob("*")) if p.is_file()}


def _appliance(tmp_path: Path) -> Path:
    """Links and settings before the start: eno2.201 is the operator's (eno2.202 the start creates), common's
    ip_forward=1, the kernel's send_redirects=1 and proxy_arp=0."""
    state = tmp_path / "appliance"
    (state / "links").mkdir(parents=True)
    for link in ("eno1", "eno2", "eno2.201"):
        (state / "links" / link).touch()
    _setting(state, "net/ipv4/ip_forward", 1)
    for dev in ("all", "eno1", "eno2", "eno2.201"):
        _setting(state, f"net/ipv4/conf/{dev}/send_redirects", 1)
        _setting(state, f"net/ipv4/conf/{dev}/proxy_arp", 0)
    return state


def _script(playbook: Run, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    out = rendered(playbook, tmp_path, APPLIANCE_ROLES,
                   {**SOUTH, "adwiser_backend": "nfqueue", "dataplane_nfqueue_state_dir": str(tmp_path / "run")},
                   templates={"script": "dataplane/templates/adwiser-nfqueue-rules.j2"})
    script = tmp_path / "adwiser-nfqueue-rules"
    script.write_text(out["script"])
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in STAND_INS.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "STATE": str(tmp_path / "appliance")}
    return script, env


def _run(script: Path, env: dict[str, str], verb: str) -> None:
    done = subprocess.run(["sh", str(script), verb], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, (verb, done.stdout, done.stderr)


def test_the_rules_stop_puts_back_what_the_start_changed_and_nothing_else(playbook: Run, tmp_path: Path) -> None:
    state = _appliance(tmp_path)
    before = _snapshot(state)
    script, env = _script(playbook, tmp_path)

    _run(script, env, "start")
    assert (state / "links" / "eno2.202").exists()
    assert (state / "sys/net/ipv4/conf/eno2.201/send_redirects").read_text() == "0\n"
    assert (state / "sys/net/ipv4/conf/eno1/proxy_arp").read_text() == "1\n"

    _run(script, env, "stop")
    assert _snapshot(state) == before


def test_a_start_run_twice_still_stops_to_what_the_first_found(playbook: Run, tmp_path: Path) -> None:
    """The script is idempotent: a second start must not take the first one's settings and links for the
    appliance's own."""
    state = _appliance(tmp_path)
    before = _snapshot(state)
    script, env = _script(playbook, tmp_path)
    for verb in ("start", "start", "stop"):
        _run(script, env, verb)
    assert _snapshot(state) == before
    # A restart is a stop and a start: the next stop again finds the appliance's own.
    for verb in ("start", "stop", "start", "stop"):
        _run(script, env, verb)
    assert _snapshot(state) == before
