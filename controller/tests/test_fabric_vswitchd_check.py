"""The fabric manager's per-poll question to ovs-vswitchd (Ovs.check_vswitchd, fabric/ovs.py), against unix
sockets standing in for a bridge's management socket: answered at once either way, and bounded when nobody
answers."""

from __future__ import annotations

import os
import shutil
import socket
import struct
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from adwiser_controller.fabric.ovs import Ovs, OvsError


@pytest.fixture
def run_dir() -> Iterator[Path]:
    d = Path(tempfile.mkdtemp(prefix="adwovs", dir="/tmp"))  # short: unix socket paths are limited to 107 bytes
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def listening(path: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(path))
    s.listen(4)
    return s


@contextmanager
def vswitchd_on(srv: socket.socket, answer: Callable[[socket.socket], None]) -> Iterator[None]:
    """A stand-in ovs-vswitchd: the first connection to srv is answered by `answer`, in a thread (still in accept()
    if the check never connected); srv is closed at the end."""
    def run() -> None:
        conn, _ = srv.accept()
        with conn:
            answer(conn)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    try:
        yield
    finally:
        t.join(2)
        srv.close()


def test_a_vswitchd_that_says_hello_is_there_and_is_greeted_as_by_ovs_ofctl(run_dir: Path) -> None:
    srv = listening(run_dir / "br-t.mgmt")
    got: list[bytes] = []

    def hello(conn: socket.socket) -> None:
        # OVS's hello: the header and a version bitmap element (OpenFlow 1.0, 1.3, 1.4)
        conn.sendall(struct.pack("!BBHI", 0x05, 0, 16, 7) + struct.pack("!HHI", 1, 8, 0b110010))
        got.append(conn.recv(8))
        got.append(conn.recv(1))  # the check has read the whole hello before it closes: no reset

    with vswitchd_on(srv, hello):
        Ovs(run_dir, "br-t").check_vswitchd()
    assert got == [struct.pack("!BBHI", 0x05, 0, 8, 0), b""]  # an OpenFlow 1.4 hello, not a bare connect


def test_a_vswitchd_that_closes_before_its_hello_is_unreachable(run_dir: Path) -> None:
    srv = listening(run_dir / "br-t.mgmt")
    with vswitchd_on(srv, lambda conn: conn.recv(8)):
        with pytest.raises(OvsError, match=r"closed .*br-t\.mgmt before its hello"):
            Ovs(run_dir, "br-t").check_vswitchd()


def test_a_killed_vswitchd_whose_socket_file_is_left_is_unreachable(run_dir: Path) -> None:
    listening(run_dir / "br-t.mgmt").close()  # the file stays, nobody listens: SIGKILL's leftover
    with pytest.raises(OvsError, match=r"ovs-vswitchd unreachable on .*br-t\.mgmt: Connection refused"):
        Ovs(run_dir, "br-t").check_vswitchd()


def test_a_stopped_vswitchd_without_a_socket_file_is_unreachable(run_dir: Path) -> None:
    with pytest.raises(OvsError, match=r"ovs-vswitchd unreachable on .*br-t\.mgmt: No such file or directory"):
        Ovs(run_dir, "br-t").check_vswitchd()


def test_a_vswitchd_that_never_answers_is_given_up_at_the_timeout(run_dir: Path) -> None:
    srv = listening(run_dir / "br-t.mgmt")  # the kernel accepts into the backlog; nothing answers (SIGSTOP)
    try:
        with pytest.raises(OvsError, match=r"did not answer on .*br-t\.mgmt within 50 ms"):
            Ovs(run_dir, "br-t").check_vswitchd(timeout_s=0.05)
    finally:
        srv.close()


def test_a_vswitchd_whose_socket_path_is_longer_than_a_sockaddr_takes_is_there(run_dir: Path) -> None:
    """OVS reaches a socket whose path is longer than sockaddr_un's 108 bytes through its directory
    (/proc/self/fd/<dir fd>/<name>, lib/socket-util-unix.c): ovs-vswitchd listens there and ovs-ofctl connects,
    so a --run-dir that deep works for every OVS command, and the check must not call it unreachable."""
    deep = run_dir / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    assert len(str(deep / "br-t.mgmt")) > 108
    dfd = os.open(deep, os.O_RDONLY | os.O_DIRECTORY)
    try:
        srv = listening(Path(f"/proc/self/fd/{dfd}/br-t.mgmt"))
    finally:
        os.close(dfd)

    def hello(conn: socket.socket) -> None:
        conn.sendall(struct.pack("!BBHI", 0x05, 0, 8, 7))
        conn.recv(8)

    with vswitchd_on(srv, hello):
        Ovs(deep, "br-t").check_vswitchd()
