"""nginx's site (role webui) sends the files of the web UI it serves itself with the headers the controller
sends on its own answers (controller/adwiser_controller/security_headers.py): no content-type sniffing, no
framing by another page (a host of the same site gets the SameSite=Strict cookie sent along and could have the
operator click through a frame), scripts of the origin only; and HSTS stays. The proxied answers keep the
controller's headers, once. The rendered site runs in a real nginx, on a loopback port, without root."""

from __future__ import annotations

import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import urllib.request
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from conftest import REPO, Run
from roles_rendered import rendered

sys.path.insert(0, str(REPO / "controller"))
from adwiser_controller.security_headers import HEADERS  # noqa: E402

NGINX = shutil.which("nginx", path="/usr/sbin:/sbin:/usr/bin")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class _Controller(BaseHTTPRequestHandler):
    """Stands in for the controller: answers with its headers."""

    def do_GET(self) -> None:
        self.send_response(200)
        for name, value in HEADERS.items():
            self.send_header(name, value)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.mark.skipif(NGINX is None, reason="nginx is not installed")
def test_static_files_and_proxied_answers_carry_the_security_headers(playbook: Run, tmp_path: Path) -> None:
    upstream = HTTPServer(("127.0.0.1", 0), _Controller)
    threading.Thread(target=upstream.serve_forever, daemon=True).start()
    root, tls = tmp_path / "dist", tmp_path / "tls"
    root.mkdir()
    tls.mkdir()
    (root / "index.html").write_text("<!doctype html><title>ADWISER</title>")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
                    "-keyout", str(tls / "webui.key"), "-out", str(tls / "webui.crt")], check=True, capture_output=True)
    site = rendered(playbook, tmp_path, ["controller", "webui"],
                    {"webui_root": str(root), "webui_tls_dir": str(tls),
                     "webui_controller_upstream": f"127.0.0.1:{upstream.server_port}"},
                    templates={"site": "webui/templates/adwiser-nginx.conf.j2"})["site"]
    port = _free_port()
    site = re.sub(r"listen 80;", f"listen 127.0.0.1:{_free_port()};", site)
    site = re.sub(r"listen 443 ssl http2;", f"listen 127.0.0.1:{port} ssl;", site)
    site = re.sub(r"listen \[::\]:\d+[^;]*;", "", site)
    (tmp_path / "site.conf").write_text(site)
    (tmp_path / "nginx.conf").write_text(
        # As root, nginx's workers would run as nobody, who cannot read pytest's private folders.
        ("user root;\n" if os.geteuid() == 0 else "") +
        f"error_log {tmp_path}/error.log;\npid {tmp_path}/nginx.pid;\nevents {{}}\n"
        f"http {{\n access_log off;\n client_body_temp_path {tmp_path}/nginx-tmp;\n proxy_temp_path {tmp_path}/nginx-tmp;\n"
        f" include {tmp_path}/site.conf;\n}}\n")
    (tmp_path / "nginx-tmp").mkdir()
    nginx = subprocess.Popen([NGINX, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"), "-g", "daemon off;"],
                             stderr=subprocess.PIPE)
    insecure = ssl.create_default_context()
    insecure.check_hostname = False
    insecure.verify_mode = ssl.CERT_NONE
    try:
        def get(path: str):
            deadline = time.monotonic() + 10
            while True:
                try:
                    return urllib.request.urlopen(f"https://127.0.0.1:{port}{path}", context=insecure, timeout=5)
                except OSError:
                    if nginx.poll() is not None or time.monotonic() > deadline:
                        raise
                    time.sleep(0.1)

        for path, body in (("/index.html", b"<!doctype html><title>ADWISER</title>"), ("/api/v1/health", b"{}")):
            res = get(path)
            assert res.read() == body, path
            for name, value in HEADERS.items():
                assert res.headers.get_all(name) == [value], (path, name, res.headers.items())
            assert res.headers.get("Strict-Transport-Security") == "max-age=31536000", (path, res.headers.items())
    finally:
        nginx.terminate()
        nginx.wait(timeout=10)
        upstream.shutdown()
