#!/bin/bash
# Converge test: site.yml applied for real to a throwaway Debian 12 root
# (debootstrap, chroot connection), applied again with zero changes, an
# invalid document refused whole, then the result inspected by
# check_converged.py.
#
# Caches (ansible/.cache, reused between runs, `make clean-cache` drops them):
#   bookworm-minbase-<hash>.tar  pristine debootstrap root
#   apt-archives/                 .deb files the roles installed
#   wheels/                       the controller's wheels (pip wheel on the host)
# Each run extracts a fresh copy into ansible/.run/root.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
ansible_dir=$(dirname "$here")
repo=$(dirname "$ansible_dir")
cache="${ADWISER_ANSIBLE_CACHE:-$ansible_dir/.cache}"
run="$ansible_dir/.run"
root="$run/root"            # controller host + nfqueue appliance
root_dpdk="$run/root-dpdk"  # DPDK appliance
# Debian's Python: the one ansible and the target root run (the host PATH may
# put another python3 first).
SYSPY=/usr/bin/python3
suite=bookworm
include=python3-minimal,python3-apt

t0=$(date +%s)
stamp() { echo "converge: [$(( $(date +%s) - t0 ))s] $*"; }

# The Debian mirror this machine's apt uses (one-line or deb822 sources).
find_mirror() {
    local m
    m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
        | awk '$1=="deb" && $3 ~ /^bookworm$/ {print $2; exit}')
    if [ -z "$m" ]; then
        m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
            /^URIs:/ {u=$2} /^Suites:/ {for (i=2;i<=NF;i++) if ($i=="bookworm") s=1}
            /^$/ {if (u!="" && s) {print u; exit} u=""; s=0}
            END {if (u!="" && s) print u}' | head -n1)
    fi
    echo "${m:-http://deb.debian.org/debian}"
}

cleanup() {
    local rc=$?
    local r
    for r in "$root" "$root_dpdk"; do
        if [ "${KEEP_ROOT:-0}" != 1 ] && [ -d "$r" ]; then
            # Keep what apt downloaded for the next run before dropping the root.
            if [ -d "$r/var/cache/apt/archives" ]; then
                cp -n "$r"/var/cache/apt/archives/*.deb "$cache/apt-archives/" 2>/dev/null || true
            fi
            rm -rf "$r"
        fi
    done
    rm -f "$run/vault-password" "$run/vault-plain.yml"
    exit $rc
}
trap cleanup EXIT

mkdir -p "$cache/apt-archives" "$cache/wheels"
rm -rf "$run"
mkdir -p "$run"

# 1. Pristine root (cached).
mirror=$(find_mirror)
key=$(echo "$suite $include $mirror" | sha1sum | cut -c1-10)
tarball="$cache/$suite-minbase-$key.tar"
if [ ! -f "$tarball" ]; then
    stamp "debootstrap --variant=minbase --include=$include $suite from $mirror"
    tmp="$cache/debootstrap.$$"
    rm -rf "$tmp"
    debootstrap --variant=minbase --include="$include" "$suite" "$tmp" "$mirror" > "$run/debootstrap.log" 2>&1 \
        || { tail -20 "$run/debootstrap.log"; rm -rf "$tmp"; exit 1; }
    tar -C "$tmp" -cf "$tarball.part" .
    mv "$tarball.part" "$tarball"
    rm -rf "$tmp"
fi
stamp "fresh roots from $(basename "$tarball")"
for r in "$root" "$root_dpdk"; do
    mkdir -p "$r"
    tar -C "$r" -xf "$tarball"
    # Debian's way to keep maintainer scripts from starting daemons in a chroot.
    printf '#!/bin/sh\nexit 101\n' > "$r/usr/sbin/policy-rc.d"
    chmod 0755 "$r/usr/sbin/policy-rc.d"
    cp -l "$cache"/apt-archives/*.deb "$r/var/cache/apt/archives/" 2>/dev/null || true
done

# 2. Controller wheels, built on the host once per requirements change, by
#    a pip running on the same Python version as the root's (markers match).
reqs="$repo/controller/requirements.txt"
if [ ! -f "$cache/wheels/.stamp" ] || [ "$reqs" -nt "$cache/wheels/.stamp" ]; then
    stamp "pip wheel -r controller/requirements.txt"
    [ -x "$cache/wheel-venv/bin/pip" ] || "$SYSPY" -m venv "$cache/wheel-venv"
    "$cache/wheel-venv/bin/pip" wheel -q -r "$reqs" -w "$cache/wheels" > "$run/pip-wheel.log" 2>&1 \
        || { tail -20 "$run/pip-wheel.log"; exit 1; }
    touch "$cache/wheels/.stamp"
fi
mkdir -p "$root/var/cache/adwiser-wheels"
cp -l "$cache"/wheels/*.whl "$root/var/cache/adwiser-wheels/"

# 3. A snapshot of the project's inputs (sources, schema, configs, built
#    artifacts), so that both converges see the same tree even while the
#    work tree changes under them.
snap="$run/repo"
mkdir -p "$snap"
for d in configs controller dataplane webui/dist; do
    [ -e "$repo/$d" ] || continue
    mkdir -p "$snap/$(dirname "$d")"
    tar -C "$repo" --exclude=.venv --exclude=node_modules --exclude=__pycache__ -cf - "$d" | tar -C "$snap" -xf -
done
export ADWISER_REPO_DIR="$snap"
# Dataplane: the host's build when there is one (heavy DPDK builds never run in the chroot).
# ADWISER_DP_METHOD=release|source forces one.
if [ -n "${ADWISER_DP_METHOD:-}" ]; then
    export ADWISER_DP_METHOD
elif [ -x "$snap/dataplane/build/adwiser-dp" ]; then
    export ADWISER_DP_METHOD=release
else
    export ADWISER_DP_METHOD=source
fi
stamp "dataplane install method: $ADWISER_DP_METHOD"

# 4. Throwaway secrets, encrypted with a throwaway vault password.
umask 077
head -c 32 /dev/urandom | base64 | tr -d '/+=\n' > "$run/vault-password"
# The Redis passwords carry the characters that need quoting in redis.conf and in
# systemd's EnvironmentFile= (space, both quotes, backslash, $, `, #, ;).
awkward=$' "q\\b$x\'#;`'
redis_pw="$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')$awkward"
admin_pw=$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')
agent_pw="$(head -c 24 /dev/urandom | base64 | tr -d '/+=\n')$awkward"
"$SYSPY" -c 'import sys, yaml; yaml.safe_dump(dict(zip(sys.argv[1::2], sys.argv[2::2])), sys.stdout)' \
    vault_adwiser_redis_password "$redis_pw" vault_controller_first_admin_password "$admin_pw" \
    vault_adwiser_redis_sta_agent_password "$agent_pw" > "$run/vault-plain.yml"
ansible-vault encrypt --vault-password-file "$run/vault-password" \
    --output "$run/vault.yml" "$run/vault-plain.yml" > /dev/null
rm -f "$run/vault-plain.yml"
head -n1 "$run/vault.yml" | grep -q '^\$ANSIBLE_VAULT' || { echo "converge: vault file not encrypted" >&2; exit 1; }
umask 022

export ADWISER_CONVERGE_ROOT="$root" ADWISER_CONVERGE_ROOT_DPDK="$root_dpdk"
# The chroot connection passes the environment on: keep the host's pip settings out.
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export ANSIBLE_CALLBACKS_ENABLED=ansible.posix.profile_tasks
play() {
    ansible-playbook -i "$here/inventory/hosts.yml" -e "@$run/vault.yml" \
        --vault-password-file "$run/vault-password" "$@"
}
# PLAY RECAP lines: "<host> : ok=N changed=N unreachable=N failed=N ..."
hosts="converge-root converge-dpdk"
recap() { grep -E "^$2 +: ok=" "$1" | tail -n1; }
field() { recap "$1" "$2" | sed -E "s/.* $3=([0-9]+).*/\1/"; }
recaps() { local h; for h in $hosts; do echo "  $(recap "$1" "$h")"; done; }

# 5. First converge.
stamp "converge 1: site.yml"
cd "$ansible_dir"
play site.yml > "$run/converge1.log" 2>&1 || { tail -40 "$run/converge1.log"; echo "converge: first run failed" >&2; exit 1; }
stamp "converge 1:"; recaps "$run/converge1.log"
for h in $hosts; do
    [ -n "$(recap "$run/converge1.log" "$h")" ] || { echo "converge: no recap for $h" >&2; exit 1; }
done
# On an appliance the kernel settings are loaded before Open vSwitch starts (common role, flush_handlers): a
# userspace-datapath port keeps the socket buffer it was added with.
order=$(sed -n '/^PLAY \[Appliances/,$p' "$run/converge1.log" \
    | grep -nE '^(RUNNING HANDLER \[common : Apply kernel settings\]|TASK \[openvswitch : Start Open vSwitch and the bridge\])' \
    | cut -d: -f2- | cut -c1-16 | tr '\n' ',')
[ "$order" = "RUNNING HANDLER ,TASK [openvswitc," ] \
    || { echo "converge: appliance kernel settings not applied before OVS starts (order: $order)" >&2; exit 1; }

# 6. Idempotence: the second run changes nothing.
stamp "converge 2: site.yml again"
play site.yml > "$run/converge2.log" 2>&1 || { tail -40 "$run/converge2.log"; echo "converge: second run failed" >&2; exit 1; }
stamp "converge 2:"; recaps "$run/converge2.log"
for h in $hosts; do
    if [ "$(field "$run/converge2.log" "$h" changed)" != 0 ] || [ "$(field "$run/converge2.log" "$h" failed)" != 0 ]; then
        grep -E '^changed:' "$run/converge2.log" -B2 | head -40
        echo "converge: second run is not idempotent on $h: $(recap "$run/converge2.log" "$h")" >&2
        exit 1
    fi
done

# 7. The rolling upgrade over the converged roots (health checks need running
#    services and are skipped here) also changes nothing.
stamp "upgrade.yml over the converged roots"
play upgrade.yml > "$run/upgrade.log" 2>&1 || { tail -40 "$run/upgrade.log"; echo "converge: upgrade.yml failed" >&2; exit 1; }
recaps "$run/upgrade.log"
for h in $hosts; do
    if [ "$(field "$run/upgrade.log" "$h" changed)" != 0 ] || [ "$(field "$run/upgrade.log" "$h" failed)" != 0 ]; then
        echo "converge: upgrade.yml changed or failed on $h: $(recap "$run/upgrade.log" "$h")" >&2
        exit 1
    fi
done

# 7b. An upgrade to a dataplane program that cannot start (and a changed unit
#     and NFQUEUE number) fails, and the appliance gets its previous program,
#     document, environment, unit and NFQUEUE rules back, byte for byte, owner
#     and mode.
stamp "upgrade.yml with a broken dataplane program must roll back"
dp_files="usr/local/sbin/adwiser-dp etc/adwiser/dataplane.json etc/adwiser/dataplane.env etc/systemd/system/adwiser-dataplane.service etc/adwiser/ack_burst_model.json
          usr/local/sbin/adwiser-nfqueue-rules etc/systemd/system/adwiser-nfqueue-rules.service"
dp_state() { local f; for f in $dp_files; do
    if [ -e "$root/$f" ]; then echo "$(sha256sum < "$root/$f") $(stat -c '%u:%g %a' "$root/$f") $f"; else echo "absent $f"; fi
done; }
before=$(dp_state)
printf '#!/bin/sh\nexit 1\n' > "$run/broken-adwiser-dp"
if play upgrade.yml --limit converge-root -e dataplane_install_method=release \
        -e "dataplane_release_binary=$run/broken-adwiser-dp" -e dataplane_nfqueue_num=9 > "$run/upgrade-broken.log" 2>&1; then
    echo "converge: upgrade.yml accepted a dataplane program that cannot start" >&2; exit 1
fi
grep -q "previous dataplane (program, document, environment, unit, ACK model, NFQUEUE rules, DPDK setup) was put back" "$run/upgrade-broken.log" \
    || { tail -30 "$run/upgrade-broken.log"; echo "converge: the failed upgrade was not rolled back" >&2; exit 1; }
[ "$before" = "$(dp_state)" ] \
    || { diff <(echo "$before") <(dp_state) || true; echo "converge: the rollback did not restore the previous dataplane" >&2; exit 1; }

# Plays dataplane-only.yml with the extra variables $2 (log $run/$1.log): it must fail on both appliances (two
# lines matching $3) and leave both installed documents as they were.
expect_refused() {
    local log="$run/$1.log" before
    before=$(sha256sum "$root/etc/adwiser/dataplane.json" "$root_dpdk/etc/adwiser/dataplane.json")
    if play "$here/dataplane-only.yml" -e "$2" > "$log" 2>&1; then
        echo "converge: $1: the document was accepted" >&2; exit 1
    fi
    [ "$(grep -cE "$3" "$log")" = 2 ] \
        || { tail -30 "$log"; echo "converge: $1: the refusal did not stop both appliances" >&2; exit 1; }
    [ "$before" = "$(sha256sum "$root/etc/adwiser/dataplane.json" "$root_dpdk/etc/adwiser/dataplane.json")" ] \
        || { echo "converge: $1: the refused document changed the installed one" >&2; exit 1; }
}

# 8. An invalid document is refused on the control node, the installed one untouched.
stamp "converge 3: invalid slice map must be refused"
expect_refused converge3 '{"adwiser_slice_map": {"slices": [{"duration_ms": "twenty", "pairs": ["ap1/sta1"]}]}}' \
    'fatal: \[converge-(root|dpdk) -> localhost\]'
grep -q "slice_map.slices.0.duration_ms" "$run/converge3.log" \
    || { tail -30 "$run/converge3.log"; echo "converge: the refusal does not name the field" >&2; exit 1; }

# 8a. A document the schema accepts but the dataplane's loader refuses (a pair in no slice) passes the control
#     node and is refused on each appliance by adwiser-dp --check-config, the installed one untouched.  Only
#     with an installed adwiser-dp (method release); the source method here builds none and checks the schema.
if [ "$ADWISER_DP_METHOD" = release ]; then
    stamp "converge 4: a slice map leaving a pair out must be refused on the appliances"
    expect_refused converge4 '{"adwiser_slice_map": {"slices": [{"duration_ms": 20, "pairs": ["ap1/sta1"]}]}}' \
        'fatal: \[converge-(root|dpdk)\]: FAILED.*pair ap2/sta2 is in no slice'
fi

# 8a'. A new program whose checks refuse the unchanged document stops the play at the start's check on each
#      appliance, before the restart the program's change notified; a run with the project's program puts it back.
if [ "$ADWISER_DP_METHOD" = release ]; then
    stamp "converge 5: a program that refuses the unchanged document must stop before any restart"
    printf '#!/bin/sh\necho "stricter: refused" >&2\nexit 1\n' > "$run/stricter-adwiser-dp"
    chmod 0755 "$run/stricter-adwiser-dp"
    expect_refused converge5 "dataplane_release_binary=$run/stricter-adwiser-dp" \
        'fatal: \[converge-(root|dpdk)\]: FAILED.*stricter: refused'
    if grep -q "RUNNING HANDLER" "$run/converge5.log"; then
        echo "converge: a handler ran after the start's check refused the document" >&2; exit 1
    fi
    play "$here/dataplane-only.yml" > "$run/converge5-restore.log" 2>&1 \
        || { tail -30 "$run/converge5-restore.log"; echo "converge: the project's program was not put back" >&2; exit 1; }
fi

# 8b. The bridge script brings each port's VLAN setting in line with the inventory
#     (a private ovsdb-server; no root needed).
stamp "bridge script against ports with other VLAN settings"
"$here/bridge_vlans.sh" "$run" || { echo "converge: the bridge script left old VLAN settings" >&2; exit 1; }

# 8c. The dataplane's source build on the control node (a stand-in tree whose
#     make can be made to fail): a failed build fails again on a re-run.
stamp "dataplane source build: a failed build is retried"
"$here/dataplane_build.sh" "$run" || { echo "converge: the dataplane's source build is not retried or not installed" >&2; exit 1; }

# 9. What the converge left in the root.
stamp "slowest tasks of converge 1:"
sed -n '/^PLAY RECAP/,$p' "$run/converge1.log" | grep -E -- ' -+ +[0-9.]+s$' | head -n 8
stamp "checks"
"$SYSPY" "$here/check_converged.py" --root "$root" --dpdk-root "$root_dpdk" --repo "$snap" \
    --redis-password "$redis_pw" --admin-password "$admin_pw" --sta-agent-password "$agent_pw" \
    --dp-method "$ADWISER_DP_METHOD"
stamp "done"
