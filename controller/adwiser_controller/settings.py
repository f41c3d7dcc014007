"""Run-time settings of the API server."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Settings:
    redis_url: str = "redis://127.0.0.1:6379/0"
    webui_dist: Path | None = field(default_factory=lambda: REPO_ROOT / "webui" / "dist")
    secure_cookies: bool = False
    session_ttl_s: int = 12 * 3600          # sliding lifetime of a web-UI session, seconds
    heartbeat_stale_s: float = 3.0          # heartbeat older than this = dataplane down, seconds
    telemetry_max_count: int = 2000         # largest page of telemetry history served, entries
    # Largest request body taken, bytes (413 beyond). configs/campus-dorm.yaml (120 APs, 360 STAs) is 160 kB
    # as indented JSON; a document at the schema's largest counts with ids like it is about 1.2 MB compact, with
    # the longest ids, names and addresses 8.1-36.5 MiB (API.md): `serve --max-body-mib` raises it for such a site.
    max_body_bytes: int = 4 * 1024 * 1024
    login_failures_per_user_client: int = 10   # failed logins to one user name from one address per window, then 429
    login_failures_per_client: int = 30        # failed logins from one address per window, then 429
    login_failures_per_user: int = 100         # failed logins to one user name from every address per window, then 429
    login_window_s: int = 60                   # window of the three counts above, seconds
