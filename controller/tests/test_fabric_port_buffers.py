"""The receive buffer OVS's port sockets need for a slice batch (fabric/port_buffers.py), on a stand-in for
/proc/sys/net/core/rmem_default, and its agreement with what ansible writes on an appliance."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from adwiser_controller.fabric.port_buffers import PORT_RCVBUF_BYTES, raised_rmem_default, rcvbuf_shortfall

ANSIBLE_COMMON = Path(__file__).resolve().parents[2] / "ansible" / "roles" / "common" / "defaults" / "main.yml"
KERNEL_DEFAULT = 212992  # bytes, Linux's net.core.rmem_default


@pytest.fixture
def rmem(tmp_path: Path) -> Path:
    p = tmp_path / "rmem_default"
    p.write_text(f"{KERNEL_DEFAULT}\n")
    return p


def test_ansible_gives_an_appliance_the_port_buffer_the_fabric_needs() -> None:
    sysctl = yaml.safe_load(ANSIBLE_COMMON.read_text())["common_sysctl"]
    assert int(sysctl["net.core.rmem_default"]) == PORT_RCVBUF_BYTES
    assert int(sysctl["net.core.rmem_max"]) >= PORT_RCVBUF_BYTES


def test_kernel_default_is_reported_naming_the_setting_and_both_sizes(rmem: Path) -> None:
    msg = rcvbuf_shortfall(rmem)
    assert msg is not None
    assert "net.core.rmem_default" in msg and str(KERNEL_DEFAULT) in msg and str(PORT_RCVBUF_BYTES) in msg


def test_appliance_value_or_more_is_no_shortfall(rmem: Path) -> None:
    rmem.write_text(f"{PORT_RCVBUF_BYTES}\n")
    assert rcvbuf_shortfall(rmem) is None
    rmem.write_text(f"{2 * PORT_RCVBUF_BYTES}\n")
    assert rcvbuf_shortfall(rmem) is None


def test_unreadable_setting_is_reported(tmp_path: Path) -> None:
    msg = rcvbuf_shortfall(tmp_path / "missing")
    assert msg is not None and "missing" in msg


def test_raised_rmem_default_holds_the_appliance_value_then_puts_the_host_value_back(rmem: Path) -> None:
    with raised_rmem_default(rmem):
        assert int(rmem.read_text()) == PORT_RCVBUF_BYTES
    assert int(rmem.read_text()) == KERNEL_DEFAULT


def test_raised_rmem_default_puts_the_host_value_back_when_the_body_fails(rmem: Path) -> None:
    with pytest.raises(RuntimeError):
        with raised_rmem_default(rmem):
            raise RuntimeError("ovs-vswitchd did not start")
    assert int(rmem.read_text()) == KERNEL_DEFAULT


def test_raised_rmem_default_leaves_a_larger_host_value_alone(rmem: Path) -> None:
    rmem.write_text(f"{8 * PORT_RCVBUF_BYTES}\n")
    with raised_rmem_default(rmem):
        assert int(rmem.read_text()) == 8 * PORT_RCVBUF_BYTES
    assert int(rmem.read_text()) == 8 * PORT_RCVBUF_BYTES
