"""The example campus's vault (inventories/campus/vault.example.yml) names the secrets a site puts in its
vault: each one must reach the variable of the role that uses it."""

from __future__ import annotations

import re

from conftest import ANSIBLE, Run

CAMPUS = ANSIBLE / "inventories" / "campus"
EXAMPLE = (CAMPUS / "vault.example.yml").read_text()


def test_every_secret_the_vault_example_names_is_read_by_the_inventory() -> None:
    named = set(re.findall(r"^#?\s*(vault_\w+):", EXAMPLE, re.M))
    read = {name for f in (CAMPUS / "group_vars").rglob("*.yml") for name in re.findall(r"\bvault_\w+", f.read_text())}
    assert named, "vault.example.yml names no secret"
    assert named <= read, f"named in vault.example.yml, read nowhere: {sorted(named - read)}"


def _webui_tls_is(cert: str, key: str) -> list[dict]:
    # The play runs no role: `default('')` stands for the webui role's defaults.
    return [{"name": "The web UI's TLS variables", "hosts": "controllers", "connection": "local",
             "gather_facts": False, "tasks": [{"name": "Compare", "ansible.builtin.assert": {
                 "that": [f"webui_tls_cert | default('') == {cert!r}", f"webui_tls_key | default('') == {key!r}"],
                 "quiet": True}}]}]


def test_the_vaults_web_ui_certificate_and_key_reach_the_webui_role(playbook: Run) -> None:
    assert "vault_webui_tls_cert" in EXAMPLE and "vault_webui_tls_key" in EXAMPLE
    cert, key = "-----BEGIN CERTIFICATE-----\nMIIB\n", "-----BEGIN PRIVATE KEY-----\nMIGH\n"
    given = playbook(_webui_tls_is(cert, key), "-e", f"vault_webui_tls_cert={cert!r} vault_webui_tls_key={key!r}",
                     inventory=str(CAMPUS / "hosts.yml"))
    assert given.returncode == 0, given.stdout
    # Without them the role generates a self-signed certificate.
    none = playbook(_webui_tls_is("", ""), inventory=str(CAMPUS / "hosts.yml"))
    assert none.returncode == 0, none.stdout
