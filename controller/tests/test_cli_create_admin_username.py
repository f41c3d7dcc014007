"""create-admin takes only the user names the API takes (USERNAME_PATTERN as a whole).

It checked the name with re.match, whose `$` also matches before a final newline: `--username "$'alice\n'"`
made an admin whose name the API refuses, who cannot log in and whom no admin can address.
"""

from __future__ import annotations

from servers import cli

from adwiser_controller import keys


def test_create_admin_refuses_a_name_with_a_trailing_newline(redis_server, rdb):
    res = cli(redis_server.url, "create-admin", "--username", "newline\n", "--password-stdin",
              stdin="long enough password\n")
    assert res.returncode == 1 and "username" in res.stderr, (res.returncode, res.stderr)
    assert not rdb.exists(keys.user("newline\n")) and not rdb.sismember(keys.USERS, "newline\n")
