"""Redis key names: the dataplane part is controller/REDIS.md, the rest is the controller's own."""

PREFIX = "adwiser:"

VERSION_SEQ = "adwiser:version:seq"
VERSIONS = "adwiser:versions"
APPLIANCES = "adwiser:appliances"
AUDIT = "adwiser:audit"
AUDIT_DENIED_LOGINS = "adwiser:audit:denied-logins"
USERS = "adwiser:users"


def version(n: int) -> str:
    return f"adwiser:version:{n}"


def appliance(aid: str, what: str) -> str:
    """`desired`, `apply_seq`, `active`, `rejected`, `heartbeat`, `config` (channel), `ack` (channel), `tm:frame`,
    `tm:pair`, and the controller's own `versions` (sorted set) and `applied` (list of apply events)."""
    return f"adwiser:appliance:{aid}:{what}"


def user(name: str) -> str:
    return f"adwiser:user:{name}"


def user_tokens(name: str) -> str:
    return f"adwiser:user:{name}:tokens"


def session(digest: str) -> str:
    return f"adwiser:session:{digest}"


def token(token_id: str) -> str:
    return f"adwiser:token:{token_id}"


def login_failures(by: str, what: str) -> str:
    """`by` is `user` (`what`: SHA-256 of the name sent), `client` (its address) or `user-client` (the name's
    SHA-256, a colon, the address)."""
    return f"adwiser:login-failures:{by}:{what}"
