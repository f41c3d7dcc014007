"""Role tree_copy under --check (the preview of a rollout): it runs, changes nothing on the host, leaves no
scratch archive on the control node, and its fingerprint is the tree's, so the task that records it (as the
controller role does, to restart the controller) shows a changed tree. unarchive itself cannot preview a tar:
it skips under --check."""

from __future__ import annotations

from pathlib import Path

from conftest import Run, localhost_play, recap


def _copy(src: Path, dest: Path, record: Path) -> list[dict]:
    return localhost_play([
        {"name": "Copy the tree", "ansible.builtin.include_role": {"name": "tree_copy"},
         "vars": {"tree_copy_src": str(src), "tree_copy_dest": str(dest)}},
        {"name": "Record the fingerprint",
         "ansible.builtin.copy": {"content": "{{ tree_copy_archive_stat.stat.checksum }}\n", "dest": str(record),
                                  "mode": "0644"}},
    ])


def test_check_mode_previews_a_changed_tree_without_copying_it(playbook: Run, tmp_path: Path) -> None:
    src, dest, record = tmp_path / "src", tmp_path / "dest", tmp_path / "tree.sha256"
    src.mkdir()
    (src / "app.py").write_text("one\n")
    first = playbook(_copy(src, dest, record))
    assert first.returncode == 0, first.stdout
    recorded = record.read_text()

    unchanged = playbook(_copy(src, dest, record), "--check")
    assert unchanged.returncode == 0, unchanged.stdout
    assert recap(unchanged.stdout)["changed"] == 0

    (src / "app.py").write_text("two\n")
    changed = playbook(_copy(src, dest, record), "--check")
    assert changed.returncode == 0, changed.stdout
    assert recap(changed.stdout)["changed"] == 1
    assert (dest / "app.py").read_text() == "one\n"
    assert record.read_text() == recorded
    assert list((tmp_path / "tmp").iterdir()) == []
