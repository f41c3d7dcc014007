"""The trainer's features (runner/ack_dataset.features, used by runner/sta_frames.py and runner/ack_burst_train.py)
against what the STA agent computes from the same receive times (dataplane/agent/frame_boundary.c with the
model's coefficients, adwiser/ack_model.h): the same gaps in µs, oldest first, the population standard deviation,
the same warm-up, so the same probabilities. The agent's side is frame_probe.c, compiled here from the dataplane's
sources (needs cc and libjansson's headers)."""
from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from runner import ack_dataset, sta_frames

DATAPLANE = Path(__file__).resolve().parents[2] / "dataplane"
T0 = 1_700_000_000_000_000_000  # Unix-clock ns, as the agent logs them
US = 1_000


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler")
    out = tmp_path_factory.mktemp("probe") / "frame_probe"
    d = DATAPLANE
    cmd = ["cc", "-std=c17", "-D_DEFAULT_SOURCE", "-O1", f"-I{d}/include", f"-I{d}/dp", f"-I{d}/agent",
           str(Path(__file__).with_name("frame_probe.c")), f"{d}/agent/frame_boundary.c", f"{d}/core/ack_burst.c",
           f"{d}/dp/ack_model_json.c", f"{d}/dp/json_walk.c", "-ljansson", "-lm", "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        pytest.skip(f"frame_probe does not build here: {r.stderr[-300:]}")
    return out


def _agent(probe: Path, model: Path, t_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    r = subprocess.run([str(probe), str(model)], input="".join(f"{int(t)}\n" for t in t_ns), capture_output=True,
                       text=True, check=True)
    rows = [line.split() for line in r.stdout.splitlines()]
    return np.array([int(a) for a, _ in rows]), np.array([float(p) for _, p in rows])


def _trainer(model: dict, t_ns: np.ndarray) -> np.ndarray:
    """P(first) per packet from i = m on, as the coefficients were fitted (raw µs, the scaler folded in)."""
    m = model["m"]
    x = ack_dataset.features(t_ns, m)[m:]
    return 1 / (1 + np.exp(-(model["intercept"] + x @ np.array(model["coef"]))))


def _times(gaps_ns: list[int]) -> np.ndarray:
    return T0 + np.concatenate([[0], np.cumsum(gaps_ns)]).astype(np.int64)


def _ampdu_gaps(seed: int, ampdus: int) -> list[int]:
    rnd = np.random.default_rng(seed)
    gaps: list[int] = []
    for _ in range(ampdus):
        gaps += [int(g) for g in rnd.integers(10 * US, 40 * US, int(rnd.integers(1, 30)))]
        gaps.append(int(rnd.integers(150 * US, 1500 * US)))
    return gaps


def test_trainer_features_give_the_agents_probabilities_and_decisions(probe: Path):
    model = json.loads(sta_frames.MODEL.read_text())
    m = model["m"]
    t = _times(_ampdu_gaps(1, 300))
    first, p_agent = _agent(probe, sta_frames.MODEL, t)
    p = _trainer(model, t)
    assert (p_agent[:m] == -1).all()  # the warm-up: m gaps are needed
    np.testing.assert_allclose(p_agent[m:], p, rtol=0, atol=1e-12)
    assert first.tolist() == sta_frames._with_warmup((p >= model["threshold"]).astype(np.int8), m).tolist()


def test_a_receive_time_stepping_back_is_no_gap_for_the_trainer_as_for_the_agent(probe: Path, tmp_path: Path):
    # CLOCK_REALTIME (the kernel's receive timestamps, Unix ns) can step back; frame_boundary.c and ack_burst.c
    # count such a gap as 0 µs. The trainer must see the rows the agent classifies, not a negative gap.
    model = {"model": sta_frames.MODEL_KIND, "version": 1, "m": 2, "intercept": -5.0, "coef": [0.0, 0.02, 0.0],
             "threshold": 0.5, "n_max": 64}
    path = tmp_path / "model.json"
    path.write_text(json.dumps(model))
    t = _times([20 * US] * 5 + [-3000 * US] + [20 * US] * 5)
    _, p_agent = _agent(probe, path, t)
    np.testing.assert_allclose(p_agent[2:], _trainer(model, t), rtol=0, atol=1e-12)
    x = ack_dataset.features(t, 2)
    assert x[6, 1] == 0.0 and x[7, 0] == 0.0
