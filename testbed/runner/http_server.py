"""nginx (Debian's) in <P>server, serving the web page of 004 §6.3.

The page is 10 objects: 1 of 1 MB, 3 of 10 kB, 3 of 100 kB and 3 of 500 kB
(22.640 Mbit in all, as the paper counts it: kB = 1000 bytes). Everything
nginx needs lives in one directory the runner owns (configuration, pid file,
temp paths, the document root; the error log beside the other process logs), so nothing of the host's /etc/nginx or
/var/lib/nginx is read or written. nginx runs in the foreground
(`daemon off`) with no worker processes (`master_process off`): one process,
started and stopped by its PID like every other process of the testbed, and
still the same event loop and sendfile path that serves real sites.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import processes
from .shell import ns_argv

NGINX = shutil.which("nginx", path="/usr/sbin:/usr/bin:/sbin:/bin") or "/usr/sbin/nginx"
HTTP_PORT = 8080
# (object name, size in bytes): 004 §6.3, "1 of size 1MB, 3 of size 10KB, 3 of size 100KB, 3 of size 500KB".
PAGE: tuple[tuple[str, int], ...] = (
    ("obj-1m.bin", 1_000_000),
    *((f"obj-10k-{i}.bin", 10_000) for i in range(3)),
    *((f"obj-100k-{i}.bin", 100_000) for i in range(3)),
    *((f"obj-500k-{i}.bin", 500_000) for i in range(3)),
)
PAGE_BYTES = sum(size for _, size in PAGE)

CONFIG_TEMPLATE = """\
# Written by testbed/runner/http_server.py for one experiment; not a site config.
daemon off;
master_process off;
worker_processes 1;
pid {dir}/nginx.pid;
error_log {log} warn;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {dir}/tmp/body;
    proxy_temp_path {dir}/tmp/proxy;
    fastcgi_temp_path {dir}/tmp/fastcgi;
    uwsgi_temp_path {dir}/tmp/uwsgi;
    scgi_temp_path {dir}/tmp/scgi;
    types {{ application/octet-stream bin; }}
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    # Persistent connections for the whole run (the client reuses them page after page).
    keepalive_timeout 300s;
    keepalive_requests 100000;
    server {{
        listen {ip}:{port} reuseport backlog=64;
        root {dir}/www;
    }}
}}
"""


@dataclass
class HttpServer:
    proc: processes.ManagedProcess
    base_url: str
    directory: Path


def write_site(directory: Path, ip: str, port: int = HTTP_PORT) -> Path:
    """Writes the configuration and the page's objects under directory; returns the config path."""
    www = directory / "www"
    www.mkdir(parents=True, exist_ok=True)
    (directory / "tmp").mkdir(exist_ok=True)
    for name, size in PAGE:
        path = www / name
        if not path.exists() or path.stat().st_size != size:
            # Incompressible content: nothing between server and client may shrink it.
            path.write_bytes(os.urandom(size))
    conf = directory / "nginx.conf"
    conf.write_text(CONFIG_TEMPLATE.format(dir=directory, ip=ip, port=port,
                                           log=directory.parent / "nginx-error.log"))
    return conf


def _wait_listening(ns: str, ip: str, port: int, proc: processes.ManagedProcess, timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if not proc.running():
            raise RuntimeError(f"nginx exited at start: {proc.log_tail()}")
        out = subprocess.run(ns_argv(ns, ["ss", "-Hltn", f"sport = :{port}"]),
                             capture_output=True, text=True, timeout=5).stdout
        if out.strip():
            return
        time.sleep(0.05)
    raise RuntimeError(f"nginx {ip}:{port} in {ns} did not start listening: {proc.log_tail()}")


def start(run_dir: Path, ns: str, ip: str, port: int = HTTP_PORT) -> HttpServer:
    """Starts nginx in namespace ns on ip:port, serving the page from run_dir/http."""
    directory = run_dir / "http"
    conf = write_site(directory, ip, port)
    check = processes.start(run_dir, "nginx-check", ns, [NGINX, "-t", "-q", "-c", str(conf),
                                                             "-p", str(directory)])
    check.popen.wait(timeout=10)
    processes.stop(check)
    if check.popen.returncode != 0:
        raise RuntimeError(f"nginx refused {conf}: {check.log_tail()}")
    proc = processes.start(run_dir, "nginx", ns, [NGINX, "-c", str(conf), "-p", str(directory)])
    try:
        _wait_listening(ns, ip, port, proc)
    except BaseException:
        processes.stop(proc)
        raise
    return HttpServer(proc, f"http://{ip}:{port}", directory)


def stop(server: HttpServer) -> None:
    """Stops nginx by its PID (SIGTERM is nginx's fast shutdown) and removes
    its directory (its error log stays beside the other process logs)."""
    processes.stop(server.proc, grace_s=5.0)
    shutil.rmtree(server.directory, ignore_errors=True)


def page_urls(base_url: str) -> list[str]:
    return [f"{base_url}/{name}" for name, _ in PAGE]
