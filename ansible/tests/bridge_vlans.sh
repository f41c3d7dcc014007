#!/bin/bash
# The bridge script (role openvswitch) against a private ovsdb-server: every
# port starts with another VLAN setting than the inventory's (trunk, access
# tag, none), and after the script each port must have exactly the
# inventory's tag / trunks / vlan_mode.  Then the inventory is turned around
# and the script run again; then the ports are retired (an nfqueue appliance)
# beside a port the script does not own.  ovs-vsctl talks to the private database
# (--db, --no-wait: no ovs-vswitchd); `ip` is a no-op.  Usage: bridge_vlans.sh RUN_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
ansible_dir=$(dirname "$here")
work="$1/bridge-vlans"
rm -rf "$work"; mkdir -p "$work/bin"
db="unix:$work/db.sock"
ovsdb-tool create "$work/conf.db" /usr/share/openvswitch/vswitch.ovsschema
ovsdb-server "$work/conf.db" --remote="punix:$work/db.sock" --pidfile="$work/ovsdb.pid" \
    --unixctl="$work/ovsdb.ctl" --log-file="$work/ovsdb.log" --detach --no-chdir 2> "$work/ovsdb.err"
trap 'kill "$(cat "$work/ovsdb.pid")" 2>/dev/null || true' EXIT
real_vsctl=$(command -v ovs-vsctl)
printf '#!/bin/sh\nexec %s --db=%s --no-wait "$@"\n' "$real_vsctl" "$db" > "$work/bin/ovs-vsctl"
printf '#!/bin/sh\nexit 0\n' > "$work/bin/ip"
chmod +x "$work/bin/ovs-vsctl" "$work/bin/ip"
vsctl() { "$work/bin/ovs-vsctl" "$@"; }

# render PORTS_JSON OUT [RETIRED_JSON]: the role's template with this port list (and these ports to take off).
render() {
    ANSIBLE_CONFIG="$ansible_dir/ansible.cfg" ansible localhost -c local -i localhost, -o \
        -m ansible.builtin.template -a "src=$ansible_dir/roles/openvswitch/templates/adwiser-ovs-bridge.j2 dest=$2 mode=0755" \
        -e "{\"ovs_bridge\": \"br-test\", \"ovs_datapath_type\": \"netdev\", \"ovs_fail_mode\": \"standalone\", \"ovs_ports\": $1, \"ovs_retired_ports\": ${3:-[]}}" \
        > "$work/render.log" || { cat "$work/render.log"; exit 1; }
}
# vlan PORT: "tag=... trunks=... vlan_mode=..." as ovsdb holds them.
vlan() { echo "tag=$(vsctl get port "$1" tag) trunks=$(vsctl get port "$1" trunks) vlan_mode=$(vsctl get port "$1" vlan_mode)"; }
failed=0
expect() {
    local got; got=$(vlan "$1")
    if [ "$got" = "$2" ]; then echo "PASS bridge $3: $1 $got"; else echo "FAIL bridge $3: $1 $got, want $2"; failed=1; fi
}

# Before: p-trunk was an access port, p-access a trunk, p-plain both tagged and trunked.
vsctl add-br br-test -- set bridge br-test datapath_type=netdev \
    -- add-port br-test p-trunk -- set port p-trunk tag=55 vlan_mode=access \
    -- add-port br-test p-access -- set port p-access vlan_mode=trunk trunks=101,102 \
    -- add-port br-test p-plain -- set port p-plain tag=7 trunks=8,9 vlan_mode=native-untagged \
    -- set interface p-trunk type=internal -- set interface p-access type=internal -- set interface p-plain type=internal
render '[{"name": "p-trunk", "trunks": [101, 102]}, {"name": "p-access", "tag": 30}, {"name": "p-plain"}]' "$work/script1"
PATH="$work/bin:$PATH" sh "$work/script1"
expect p-trunk "tag=[] trunks=[101, 102] vlan_mode=trunk" "round 1"
expect p-access "tag=30 trunks=[] vlan_mode=[]" "round 1"
expect p-plain "tag=[] trunks=[] vlan_mode=[]" "round 1"

# The inventory turned around: trunk -> untagged, access -> trunk, untagged -> access.
render '[{"name": "p-trunk"}, {"name": "p-access", "trunks": [5]}, {"name": "p-plain", "tag": 12}]' "$work/script2"
PATH="$work/bin:$PATH" sh "$work/script2"
expect p-trunk "tag=[] trunks=[] vlan_mode=[]" "round 2"
expect p-access "tag=[] trunks=[5] vlan_mode=trunk" "round 2"
expect p-plain "tag=12 trunks=[] vlan_mode=[]" "round 2"

# Switched to nfqueue: the dataplane's ports leave the bridge, a port someone else added (the controller's fabric)
# stays, and a retired port already gone is no error.
vsctl add-port br-test p-fabric -- set interface p-fabric type=internal
render '[]' "$work/script3" '["p-trunk", "p-access", "p-gone"]'
PATH="$work/bin:$PATH" sh "$work/script3" || { echo "FAIL bridge round 3: the script failed"; failed=1; }
ports=$(vsctl list-ports br-test | tr '\n' ' ')
if [ "$ports" = "p-fabric p-plain " ]; then echo "PASS bridge round 3: ports $ports"
else echo "FAIL bridge round 3: ports $ports, want p-fabric p-plain"; failed=1; fi
exit $failed
