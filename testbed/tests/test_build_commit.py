"""Every scenario's JSON names the commit it was run at, marked when the tree had other changes than the
results the runs rewrite, and REPORT.md says it beside each run."""
from __future__ import annotations

import json
import subprocess
from pathlib import Path

from runner import report
from runner.build_commit import build_commit


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True).stdout.strip()


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    (repo / "testbed" / "results").mkdir(parents=True)
    (repo / "dataplane.c").write_text("int x;\n")
    (repo / "testbed" / "results" / "isolated.json").write_text("{}\n")
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@example.org", "commit", "-qm", "one")
    return repo


def test_result_of_a_clean_tree_names_its_commit(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "testbed" / "results" / "isolated.json").write_text('{"rewritten": 1}\n')   # the run's own output
    (repo / "notes.txt").write_text("untracked\n")
    assert build_commit(repo) == _git(repo, "rev-parse", "--short", "HEAD")


def test_result_of_a_changed_tree_says_so(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    (repo / "dataplane.c").write_text("int y;\n")
    assert build_commit(repo) == _git(repo, "rev-parse", "--short", "HEAD") + "+changes"


def test_no_commit_outside_a_git_tree(tmp_path: Path) -> None:
    assert build_commit(tmp_path) is None


def test_report_gives_each_run_its_time_and_commit(tmp_path: Path) -> None:
    pairs = [{"ap": f"ap{i}", "sta": f"sta{i}", "direction": "downlink", "throughput_mbps": t, "mean_ampdu": None,
              "mean_phy_mbps": None, "mean_drain_ms": None} for i, t in ((1, 80.0), (2, 100.0))]
    base = {"duration_s": 20, "slice_ms": None, "pairs": pairs, "utility": 8.99, "utility_bound": None,
            "backend": "none", "started_unix": 1795790064.1}
    (tmp_path / "isolated.json").write_text(json.dumps(dict(base, scenario="isolated", build_commit="abc1234")))
    (tmp_path / "together.json").write_text(json.dumps(dict(base, scenario="together")))
    text = report.write_report(tmp_path).read_text()
    runs = text.split("## Runs", 1)[1]
    assert "`isolated`" in runs and "run 2026-11-27 14:34 UTC at commit abc1234" in runs
    assert "run 2026-11-27 14:34 UTC (its commit not recorded)" in runs
