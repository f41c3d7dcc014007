"""The traffic endpoint programs (runner.voice, runner.http_load) end by themselves: a value on their command
line that would keep one running without end is refused, naming its option, before it sends anything. Nothing
is sent here: the endpoints' loops are replaced."""
from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from runner import voice


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
