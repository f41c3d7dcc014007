"""The emulator's ground truth as the aggregation loop's STA-side measurements (runner/gt_feed.py),
against a real redis-server on a unix socket that the test starts and stops."""
import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis

from runner.gt_feed import GroundTruthFeed

AID = "lab"


def _ppdu(src: str, dst: str, mpdus: int, ok: int, phy: float, ac: str = "BE") -> str:
    return json.dumps({"src": src, "dst": dst, "ac": ac, "mpdus": mpdus, "ok": ok, "phy_mbps": phy}) + "\n"


@pytest.fixture
def redis_sock(tmp_path: Path) -> Iterator[Path]:
    sock = tmp_path / "redis.sock"
    srv = subprocess.Popen(["redis-server", "--port", "0", "--unixsocket", str(sock), "--save", "", "--appendonly", "no",
                            "--dir", str(tmp_path)], stdout=subprocess.DEVNULL)
    try:
        r = redis.Redis(unix_socket_path=str(sock), decode_responses=True)
        for _ in range(100):
            try:
                r.ping()
                break
            except redis.ConnectionError:
                time.sleep(0.05)
        r.close()
        yield sock
    finally:
        srv.terminate()
        srv.wait(timeout=10)


def _feed_once(sock: Path, gt: Path, **kwargs: bool) -> redis.Redis:
    """Runs a feed over gt until it has written the PHY rate, then stops it; returns a client."""
    r = redis.Redis(unix_socket_path=str(sock), decode_responses=True)
    feed = GroundTruthFeed(f"unix://{sock}", AID, gt, ["ap1/sta1"], period_s=0.05, **kwargs).start()
    try:
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not r.hget(f"adwiser:appliance:{AID}:phy_rate", "ap1/sta1"):
            time.sleep(0.05)
        time.sleep(0.1)   # the period that wrote the rate has written its entries too
    finally:
        feed.stop()
    return r


def test_entries_carry_the_mean_a_mpdu_size_the_frames_the_mpdus_received_and_the_mpdu_weighted_rate(
        tmp_path: Path, redis_sock: Path) -> None:
    gt = tmp_path / "groundtruth.jsonl"
    gt.write_text(_ppdu("ap1", "sta1", 20, 18, 390.0) + _ppdu("ap1", "sta1", 10, 10, 130.0)
                  + _ppdu("ap1", "sta1", 3, 3, 390.0, ac="VO")      # voice: not the loop's pair
                  + _ppdu("ap2", "sta2", 30, 30, 390.0)            # not a controlled pair
                  + _ppdu("sta1", "ap1", 2, 2, 390.0))             # uplink
    r = _feed_once(redis_sock, gt)
    entries = r.xrange(f"adwiser:appliance:{AID}:tm:sta")
    assert [f for _, f in entries] == [{"pair": "ap1/sta1", "mpdus": "15.000", "frames": "2", "mpdus_ok": "28"}]
    # μ_R over the MPDUs, so that w times the mean A-MPDU is the mean payload airtime (000 eq. 4 with N and R
    # not independent): 30 / (20/390 + 10/130) = 234, where 1 / E[1/R] over the PPDUs would be 195
    assert float(r.hget(f"adwiser:appliance:{AID}:phy_rate", "ap1/sta1")) == 234.0
    r.close()


def test_the_phy_rate_carries_the_time_it_was_measured(tmp_path: Path, redis_sock: Path) -> None:
    # without it the controller cannot tell a rate this feed keeps up to date from one it left when it stopped
    gt = tmp_path / "groundtruth.jsonl"
    gt.write_text(_ppdu("ap1", "sta1", 20, 18, 390.0))
    before = time.time()
    r = _feed_once(redis_sock, gt, aggregation=False)
    written = float(r.hget(f"adwiser:appliance:{AID}:phy_rate_ts", "ap1/sta1"))
    assert before - 0.01 <= written <= time.time()
    r.close()


def test_without_aggregation_the_feed_writes_the_phy_rate_alone(tmp_path: Path, redis_sock: Path) -> None:
    # the appliance-alone scenarios (mu_source "ack"): the loop reads the dataplane's agg_est instead
    gt = tmp_path / "groundtruth.jsonl"
    gt.write_text(_ppdu("ap1", "sta1", 20, 18, 390.0) + _ppdu("ap1", "sta1", 10, 10, 130.0))
    r = _feed_once(redis_sock, gt, aggregation=False)
    assert float(r.hget(f"adwiser:appliance:{AID}:phy_rate", "ap1/sta1")) == 234.0
    assert r.xlen(f"adwiser:appliance:{AID}:tm:sta") == 0
    r.close()
