"""The dataplane role's check of the document on the control node (tasks/check_inputs.yml) under --check: the
preview of a rollout refuses a document the real run would refuse, naming the field."""

from __future__ import annotations

import copy

import yaml

from conftest import REPO, Run, localhost_play

LAB = yaml.safe_load((REPO / "configs" / "lab-2ap-2sta.yaml").read_text())


def _check_inputs(doc: dict) -> list[dict]:
    return localhost_play(
        [{"name": "Check the inputs", "ansible.builtin.include_role": {"name": "dataplane", "tasks_from": "check_inputs.yml"}}],
        vars={"adwiser_repo_dir": str(REPO), "adwiser_redis_password": "a-redis-password",
              "adwiser_appliance_id": doc["appliance_id"], "adwiser_topology": doc["topology"],
              "adwiser_slice_map": doc["slice_map"], "adwiser_policies": doc["policies"]})


def test_check_mode_refuses_a_document_outside_the_schema(playbook: Run) -> None:
    bad = copy.deepcopy(LAB)
    bad["slice_map"]["slices"][0]["duration_ms"] = -5
    refused = playbook(_check_inputs(bad), "--check")
    assert refused.returncode != 0, refused.stdout
    assert "slice_map.slices.0.duration_ms" in refused.stdout


def test_check_mode_passes_the_lab_document(playbook: Run) -> None:
    passed = playbook(_check_inputs(LAB), "--check")
    assert passed.returncode == 0, passed.stdout
