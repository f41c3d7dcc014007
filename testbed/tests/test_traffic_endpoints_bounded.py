"""The traffic endpoint programs (runner.voice, runner.http_load) end by themselves: a value on their command
line that would keep one running without end is refused, naming its option, before it sends anything. Nothing
is sent here: the endpoints' loops are replaced."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from runner import http_load, voice


def _voice_argv(tmp_path: Path, *extra: str) -> list[str]:
    return ["--bind", "198.18.0.1", "--peer", "198.18.0.12", "--start-unix", f"{time.time():.6f}",
            "--duration", "1", "--out", str(tmp_path / "voice.json"), *extra]


@pytest.mark.parametrize("extra,option", [
    # nan: the receive loop's end (last send + linger) was never reached, and it ran until killed
    (["--linger", "nan"], "--linger"),
    (["--linger", "1e9"], "--linger"),
    (["--linger", "-1"], "--linger"),
    # a start far ahead: the endpoint waited for it (a year, or an OverflowError in select past time_t)
    (["--start-unix", "1e12"], "--start-unix"),
    (["--start-unix", "nan"], "--start-unix"),
])
def test_a_voice_endpoint_that_would_not_end_is_refused_naming_the_option(
        extra: list[str], option: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    def ran(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the endpoint ran")

    monkeypatch.setattr(voice, "run_endpoint", ran)
    argv = _voice_argv(tmp_path)
    if extra[0] == "--start-unix":
        argv = argv[:4] + extra + argv[6:]
    else:
        argv += extra
    with pytest.raises(SystemExit) as e:
        voice.main(argv)
    assert e.value.code == 2
    assert option in capsys.readouterr().err


@pytest.mark.parametrize("timeout", ["inf", "nan", "0", "-1", "1e6"])
def test_a_page_load_client_whose_page_could_hang_without_end_is_refused_naming_the_option(
        timeout: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    # --page-timeout inf against a server that never answers: the client ran until killed (its --duration only
    # stops it starting pages)
    def ran(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the client ran")

    monkeypatch.setattr(http_load, "load_pages", ran)
    with pytest.raises(SystemExit) as e:
        http_load.main(["--base-url", "http://198.18.0.1:8080", "--duration", "1", "--page-timeout", timeout,
                        "--out", str(tmp_path / "http.json")])
    assert e.value.code == 2
    assert "--page-timeout" in capsys.readouterr().err
