"""The bottleneck classifier's fitted coefficient file (001 §5; configs/bottleneck_model.json, written by
testbed/runner/bottleneck_train.py): the shipped file loads and separates a clear backhaul case from a clear
WLAN case, and a malformed file is refused naming what is wrong, by the loader and by aggregation-loop."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from bottleneck_windows import full_window

from adwiser_controller.aggregation import bottleneck as bn

CONTROLLER = Path(__file__).resolve().parents[1]


def _good() -> dict[str, Any]:
    return json.loads(bn.DEFAULT_MODEL_PATH.read_text())


def test_shipped_model_is_a_fitted_version_and_loads() -> None:
    m = bn.load_model(bn.DEFAULT_MODEL_PATH)
    assert m.version.startswith("fitted-")
    assert _good()["training"]["steps"] > 0


def test_fitted_model_puts_aggtarget_backhaul_operating_point_on_the_backhaul() -> None:
    # a 100 Mbit/s backhaul: A-MPDUs of about 6 MPDUs against N_target 40, no loss in the last p packets
    m = bn.load_model(bn.DEFAULT_MODEL_PATH)
    v = full_window(aggregation=6.0, sent=1000, lost=0).classify(target=40.0, model=m)
    assert v.bottleneck == "backhaul" and v.p_backhaul is not None and v.p_backhaul > 0.7


def test_fitted_model_puts_a_pair_at_its_target_on_the_wlan() -> None:
    # WLAN bottleneck: the loop holds the AP at N_target (aggtarget-1sta: μ̃_N ≈ N_target ≈ 28)
    m = bn.load_model(bn.DEFAULT_MODEL_PATH)
    v = full_window(aggregation=28.0, sent=1000, lost=0).classify(target=28.0, model=m)
    assert v.bottleneck == "wlan" and v.p_backhaul is not None and v.p_backhaul < 0.3


def test_the_model_given_is_the_one_used() -> None:
    always = bn.Model(version="test-always-backhaul", intercept=50.0, coef_agg_ratio=0.0, coef_loss=0.0)
    never = bn.Model(version="test-never-backhaul", intercept=-50.0, coef_agg_ratio=0.0, coef_loss=0.0)
    w = full_window(aggregation=28.0, sent=1000, lost=0)
    assert w.classify(target=28.0, model=always).bottleneck == "backhaul"
    assert w.classify(target=28.0, model=never).bottleneck == "wlan"


def _broken(edit: Any) -> dict[str, Any]:
    doc = _good()
    edit(doc)
    return doc


MALFORMED = [
    ("coef", lambda d: d["coef"].pop("loss")),
    ("intercept", lambda d: d.update(intercept="2.8")),
    ("intercept", lambda d: d.update(intercept=float("nan"))),
    ("features", lambda d: d.update(features=["n_1", "n_2", "n_3", "n_4", "n_5", "loss"])),
    ("version", lambda d: d.update(version="")),
    ("model", lambda d: d.update(model="ack-burst")),
    ("threshold", lambda d: d.update(threshold=1.5)),
    ("coef: agg_ratio", lambda d: d["coef"].update(agg_ratio=True)),
]


@pytest.mark.parametrize("field,edit", MALFORMED, ids=[f"{f}-{i}" for i, (f, _) in enumerate(MALFORMED)])
def test_malformed_model_file_is_refused_naming_the_field(tmp_path: Path, field: str, edit: Any) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_broken(edit), allow_nan=True))
    with pytest.raises(bn.ModelError, match=f"{bad}: {field}"):
        bn.load_model(bad)


def test_model_file_that_is_not_json_or_missing_is_refused(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": ')
    with pytest.raises(bn.ModelError, match="not JSON"):
        bn.load_model(bad)
    with pytest.raises(bn.ModelError, match="cannot read"):
        bn.load_model(tmp_path / "absent.json")


def _loop_cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "adwiser_controller", "aggregation-loop",
                           "--redis-url", "unix:///nonexistent/redis.sock", *args],
                          capture_output=True, text=True, timeout=60, cwd=CONTROLLER,
                          env={**os.environ, "PYTHONPATH": str(CONTROLLER), **(env or {})})


def test_aggregation_loop_refuses_to_start_with_a_malformed_model(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_broken(lambda d: d["coef"].pop("agg_ratio"))))
    res = _loop_cli("--bottleneck-model", str(bad))
    assert res.returncode == 2 and f"{bad}: coef" in res.stderr


def test_aggregation_loop_reads_the_model_the_environment_names(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_broken(lambda d: d.update(threshold=0))))
    res = _loop_cli(env={bn.MODEL_ENV: str(bad)})
    assert res.returncode == 2 and f"{bad}: threshold" in res.stderr
