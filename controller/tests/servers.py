"""Start and stop a real redis-server and a real controller (uvicorn) on loopback, by PID.

Used by the test session, the persistence test (which restarts both) and the
benchmarks. Nothing here is a mock: Redis runs with AOF in its own directory
and the controller is `python -m adwiser_controller serve` in a subprocess.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import redis

CONTROLLER_DIR = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen[bytes] | None, timeout: float = 10.0) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


class RedisServer:
    def __init__(self, workdir: Path, port: int | None = None, password: str | None = None,
                 unix_socket: bool = False):
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        # unix_socket: listen on <workdir>/redis.sock only (no TCP port), for tests that need no port at all.
        self.socket = self.dir / "redis.sock" if unix_socket else None
        self.port = 0 if unix_socket else port or free_port()
        self.password = password  # requirepass; `url` leaves it out
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"unix://{self.socket}" if self.socket else f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> RedisServer:
        log = open(self.dir / "redis.log", "ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--dir", str(self.dir),
             "--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--daemonize", "no",
             "--protected-mode", "yes", *(("--requirepass", self.password) if self.password else ()),
             *(("--unixsocket", str(self.socket), "--unixsocketperm", "700") if self.socket else ())],
            stdout=log, stderr=subprocess.STDOUT)
        (self.dir / "redis.pid").write_text(str(self.proc.pid))
        client = (redis.Redis(unix_socket_path=str(self.socket), password=self.password) if self.socket
                  else redis.Redis(host="127.0.0.1", port=self.port, password=self.password))
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"redis-server did not start; see {self.dir / 'redis.log'}") from None
                time.sleep(0.05)
        client.close()
        return self

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None

    def __enter__(self) -> RedisServer:
        """Started for a `with` block and stopped at its end, also when the start itself fails (a redis-server that
        never answered is stopped, not left running)."""
        try:
            return self.start()
        except BaseException:
            self.stop()
            raise

    def __exit__(self, *exc: object) -> None:
        self.stop()


class ControllerServer:
    def __init__(self, redis_url: str, workdir: Path, port: int | None = None, webui_dist: Path | None = None,
                 host: str = "127.0.0.1", args: tuple[str, ...] = ()):
        self.redis_url = redis_url
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)
        self.host = host
        self.port = port or free_port()
        self.webui_dist = webui_dist
        self.args = args  # further options of `serve`
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://[{self.host}]:{self.port}" if ":" in self.host else f"http://{self.host}:{self.port}"

    def start(self) -> ControllerServer:
        log = open(self.dir / "controller.log", "ab")
        cmd = [sys.executable, "-m", "adwiser_controller", "serve", "--redis-url", self.redis_url,
               "--host", self.host, "--port", str(self.port), "--log-level", "warning",
               "--no-access-log", "--webui-dist", str(self.webui_dist or self.dir / "no-webui"), *self.args]
        env = {**os.environ, "PYTHONPATH": str(CONTROLLER_DIR)}
        self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=CONTROLLER_DIR, env=env)
        (self.dir / "controller.pid").write_text(str(self.proc.pid))
        deadline = time.monotonic() + 20
        while True:
            try:
                if httpx.get(self.url + "/api/v1/health", timeout=1).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"controller did not start; see {self.dir / 'controller.log'}")
            time.sleep(0.1)

    def stop(self) -> None:
        _stop(self.proc)
        self.proc = None


def cli(redis_url: str, *args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(CONTROLLER_DIR)}
    return subprocess.run([sys.executable, "-m", "adwiser_controller", *args, "--redis-url", redis_url],
                          input=stdin, capture_output=True, text=True, timeout=60, cwd=CONTROLLER_DIR, env=env)
