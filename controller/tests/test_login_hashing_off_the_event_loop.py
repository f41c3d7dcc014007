"""A password is checked off the server's event loop: logins in flight (wrong passwords from anyone, no
login needed to send them) must not hold up every other request and live socket while Argon2 runs."""

from __future__ import annotations

import threading
import time

import httpx

WRONG_LOGINS = 8


def _wrong_login(url: str) -> None:
    res = httpx.post(url + "/api/v1/auth/login", json={"username": "nobody", "password": "not the password"},
                     timeout=60)
    assert res.status_code == 401


def test_other_requests_are_answered_while_wrong_logins_are_checked(controller):
    assert httpx.get(controller.url + "/api/v1/health").status_code == 200   # connection and app warm
    t0 = time.perf_counter()
    _wrong_login(controller.url)
    one_check_s = time.perf_counter() - t0

    threads = [threading.Thread(target=_wrong_login, args=(controller.url,)) for _ in range(WRONG_LOGINS)]
    for t in threads:
        t.start()
    time.sleep(one_check_s / 2)   # every login has reached the server, the first is being checked
    t0 = time.perf_counter()
    res = httpx.get(controller.url + "/api/v1/health", timeout=60)
    health_s = time.perf_counter() - t0
    for t in threads:
        t.join()
    assert res.status_code == 200
    # Checked on the event loop, the health check waited for (nearly) all the logins' hashing, several
    # times one check; checked off it, it is answered while they run.
    assert health_s < 2 * one_check_s, (health_s, one_check_s)
