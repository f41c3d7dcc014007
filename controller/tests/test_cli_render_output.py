"""`render -o OUT`: an output it cannot write is an error naming the file, and leaves nothing behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

LAB = Path(__file__).resolve().parents[2] / "configs" / "lab-2ap-2sta.yaml"


def render(out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "adwiser_controller", "render", str(LAB), "-o", str(out)],
                          capture_output=True, text=True, timeout=60)


def test_render_into_a_missing_directory_names_the_output_without_a_traceback(tmp_path: Path):
    out = tmp_path / "no-such-dir" / "out.json"
    res = render(out)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith(f"{out}: "), res.stderr


def test_render_onto_a_directory_fails_and_leaves_no_temporary_file(tmp_path: Path):
    out = tmp_path / "a-directory"
    out.mkdir()
    res = render(out)
    assert res.returncode == 1 and "Traceback" not in res.stderr, res.stderr
    assert res.stderr.startswith(f"{out}: "), res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-directory"]
