"""ovs-vsctl and ovs-ofctl against a private Open vSwitch run directory.

The OVS daemons run from a project-local directory (testbed/ovs/ovs-start.sh):
the database socket is `<run_dir>/db.sock` and each bridge's OpenFlow
management socket `<run_dir>/<bridge>.mgmt`. The bridge uses the userspace
datapath (`datapath_type=netdev`, SPEC §7: no OVS kernel module here),
`fail_mode=secure` (no controller means no flows of OVS's own making), and
OpenFlow 1.4 so a flow table can be replaced in one atomic bundle.

Whether ovs-vswitchd is there at all is asked without starting a process
(the manager asks at every poll): one OpenFlow hello exchanged on the
bridge's management socket, the first step of every ovs-ofctl session.
"""

from __future__ import annotations

import os
import socket
import struct
import subprocess
import tempfile
from pathlib import Path

OFCTL_PROTO = "OpenFlow14"  # bundles need OpenFlow 1.4
BRIDGE_PROTOCOLS = "OpenFlow10,OpenFlow13,OpenFlow14"
TIMEOUT_S = 5
CHECK_TIMEOUT_S = 0.25  # ovs-vswitchd's hello, at every poll of the manager: bounded well below a 5 s command
OFP14_HELLO = struct.pack("!BBHI", 0x05, 0, 8, 0)  # version 1.4, OFPT_HELLO, length 8, xid 0


class OvsError(RuntimeError):
    pass


class Ovs:
    def __init__(self, run_dir: str | Path, bridge: str, datapath_type: str = "netdev"):
        self.run_dir = Path(run_dir).resolve()
        self.bridge = bridge
        self.datapath_type = datapath_type  # "netdev" (userspace, here) or "system" (kernel module)
        self.db = f"unix:{self.run_dir / 'db.sock'}"
        self.mgmt = f"unix:{self.run_dir / (bridge + '.mgmt')}"

    def _run(self, argv: list[str]) -> str:
        try:
            res = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise OvsError(f"{argv[0]} timed out after {TIMEOUT_S} s: {' '.join(argv[1:])}") from None
        if res.returncode != 0:
            raise OvsError(f"{' '.join(argv)} failed ({res.returncode}): {res.stderr.strip()}")
        return res.stdout

    def vsctl(self, *args: str) -> str:
        return self._run(["ovs-vsctl", f"--db={self.db}", f"--timeout={TIMEOUT_S}", *args])

    def ofctl(self, command: str, *args: str) -> str:
        return self._run(["ovs-ofctl", "-O", OFCTL_PROTO, command, self.mgmt, *args])

    def ensure_bridge(self) -> None:
        self.vsctl("--may-exist", "add-br", self.bridge, "--", "set", "bridge", self.bridge,
                   f"datapath_type={self.datapath_type}", "fail_mode=secure", f"protocols={BRIDGE_PROTOCOLS}")

    def ports(self) -> list[str]:
        return [p for p in self.vsctl("list-ports", self.bridge).split() if p]

    def add_port(self, name: str, ofport: int) -> None:
        self.vsctl("--may-exist", "add-port", self.bridge, name, "--",
                   "set", "interface", name, f"ofport_request={ofport}")

    def ofport_requests(self) -> dict[str, int]:
        """The OpenFlow port number each port of the bridge asked for (ofport_request), by name."""
        ports = set(self.ports())
        out = self.vsctl("--format=csv", "--data=bare", "--no-headings", "--columns=name,ofport_request",
                         "list", "interface")
        held: dict[str, int] = {}
        for line in out.splitlines():
            name, _, number = line.partition(",")
            if name in ports and number.strip().isdigit():
                held[name] = int(number)
        return held

    def del_port(self, name: str) -> None:
        self.vsctl("--if-exists", "del-port", self.bridge, name)

    def set_no_flood(self, name: str) -> None:
        self._run(["ovs-ofctl", "mod-port", self.mgmt, name, "no-flood"])

    def replace_flows(self, flows: list[str]) -> None:
        """Make the flow table exactly `flows`, atomically (one OpenFlow bundle)."""
        fd, path = tempfile.mkstemp(prefix="flows-", suffix=".txt", dir=self.run_dir)
        try:
            with os.fdopen(fd, "w") as f:
                f.write("\n".join(flows) + "\n")
            self._run(["ovs-ofctl", "-O", OFCTL_PROTO, "--bundle", "replace-flows", self.mgmt, path])
        finally:
            os.unlink(path)

    def vswitchd_pid(self) -> int | None:
        """The pid in ovs-vswitchd's pid file: a new one means a restarted vswitchd with an empty flow table."""
        try:
            return int((self.run_dir / "ovs-vswitchd.pid").read_text().strip())
        except (OSError, ValueError):
            return None

    def check_vswitchd(self, timeout_s: float = CHECK_TIMEOUT_S) -> None:
        """Raise OvsError unless ovs-vswitchd answers a hello on the bridge's management socket within `timeout_s`.
        A killed vswitchd leaves the socket file behind (connection refused), a stopped one removes it; the hello
        both ways (not a bare connect) is what ovs-ofctl does, so vswitchd logs the close as an ordinary one."""
        path = self.mgmt.removeprefix("unix:")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout_s)
            try:
                _connect_unix(s, path)
                s.sendall(OFP14_HELLO)
                # All of its hello (a version bitmap follows the header): a byte left unread makes the close a
                # reset, which vswitchd logs as a dropped connection, once per poll.
                hello = _recv_exactly(s, 8)
                _recv_exactly(s, max(0, struct.unpack("!H", hello[2:4])[0] - 8))
            except TimeoutError:
                raise OvsError(f"ovs-vswitchd did not answer on {path} within {timeout_s * 1000:.0f} ms") from None
            except OSError as exc:
                raise OvsError(f"ovs-vswitchd unreachable on {path}: {exc.strerror or exc}") from None
            except EOFError:
                raise OvsError(f"ovs-vswitchd closed {path} before its hello") from None

    def dump_flows(self) -> str:
        return self.ofctl("dump-flows", "--names")


# The longest path a sockaddr_un holds (108 bytes with its terminating NUL).
UNIX_PATH_MAX = 107


def _connect_unix(s: socket.socket, path: str) -> None:
    """Connect to the unix socket at `path`; one longer than a sockaddr_un takes through its directory, as OVS does
    (lib/socket-util-unix.c): vswitchd listens on such a path and ovs-ofctl reaches it, so a deep --run-dir works
    for every OVS command, and refused here it read as vswitchd unreachable at every poll."""
    if len(os.fsencode(path)) <= UNIX_PATH_MAX:
        s.connect(path)
        return
    head, name = os.path.split(path)
    dfd = os.open(head, os.O_RDONLY | os.O_DIRECTORY)
    try:
        s.connect(f"/proc/self/fd/{dfd}/{name}")
    finally:
        os.close(dfd)


def _recv_exactly(s: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = s.recv(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data
