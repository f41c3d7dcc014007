"""Fixtures of the fabric tests: the namespace lab, once per dataplane kind.

The fault tests need root (namespaces, veths, OVS); they skip with that
reason otherwise. They run against the real dataplane
(dataplane/build/adwiser-dp, built by `make test-fabric` first; a missing
binary is a failure, not a skip) and against the clearly named test stand-in
(heartbeat_forwarder.py).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator

import pytest

from fabric_lab import ADWISER_DP, Lab

NEEDED_TOOLS = ("ip", "ethtool", "ovs-vsctl", "ovs-ofctl", "ovsdb-server", "ovs-vswitchd", "redis-server", "iperf3")


@pytest.fixture(scope="module", params=["adwiser-dp", "stand-in"])
def lab(request: pytest.FixtureRequest) -> Iterator[Lab]:
    if os.geteuid() != 0:
        pytest.skip("the fabric fault tests need root (network namespaces, veths, Open vSwitch)")
    missing = [t for t in NEEDED_TOOLS if shutil.which(t) is None]
    if missing:
        pytest.skip(f"missing tools: {', '.join(missing)} (make deps)")
    if request.param == "adwiser-dp" and not ADWISER_DP.exists():
        pytest.fail(f"{ADWISER_DP} is not built (make -C dataplane build)")
    lab = Lab(request.param)
    failed_before = request.session.testsfailed
    try:
        lab.create()
        lab.start_dataplane()
        yield lab
    finally:
        lab.close(keep_logs=request.session.testsfailed > failed_before)
