"""Command line of the controller.

    validate FILE...           check documents; exit 1 naming each bad field
    render FILE -o OUT.json    the validated, normalised JSON for the dataplane/ansible
    schema [-o PATH] [--check] write (or check) configs/schema/adwiser-config.schema.json
    seed FILE                  store a document as a new version in Redis
    apply VERSION              make a stored version the desired one of its appliance
    create-admin               create the first admin (password from a prompt or stdin)
    serve                      run the API with uvicorn

Exit status: 0 done, 1 refused input (a bad document, version or user), 2 usage, and EXIT_REDIS (3) when seed,
apply or create-admin cannot use Redis, with one line `redis <address>: <reason>` on stderr.
"""

from __future__ import annotations

import argparse
import getpass
import ipaddress
import os
import sys
from collections.abc import Callable
from pathlib import Path

from . import configfile, schema
from .models import AdwiserConfig
from .settings import Settings

DEFAULT_REDIS = os.environ.get("ADWISER_REDIS_URL", "redis://127.0.0.1:6379/0")
EXIT_REDIS = 3  # Redis unreachable, refused the credentials, or never answered (sync_admin.RedisUnavailable)
EPILOG = (f"exit status: 0 done; 1 refused input (a bad document, version or user); 2 usage; {EXIT_REDIS} Redis "
          "could not be used by seed, apply or create-admin (not listening, wrong password, malformed URL, no "
          "answer within 5 s), said in one line 'redis <address>: <reason>'. serve and aggregation-loop keep "
          "running and retry instead.")


def _load(path: str) -> AdwiserConfig | None:
    """The validated document, or None once the reasons it is not (each bad field) are on stderr."""
    try:
        return configfile.load(path)
    except configfile.ConfigInvalid as exc:
        print(exc, file=sys.stderr)
        return None


def _cmd_validate(args: argparse.Namespace) -> int:
    bad = 0
    for f in args.files:
        cfg = _load(f)
        if cfg is None:
            bad += 1
            continue
        print(f"{f}: valid (appliance {cfg.appliance_id}, {len(cfg.topology.aps)} APs, "
              f"{len(cfg.topology.stas)} pairs, {len(cfg.slice_map.slices)} slices, "
              f"frame {cfg.slice_map.frame_ms()} ms)")
    return 1 if bad else 0


def _cmd_render(args: argparse.Namespace) -> int:
    cfg = _load(args.file)
    if cfg is None:
        return 1
    text = configfile.render_json(cfg)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        out = Path(args.output)
        tmp = out.with_name(out.name + ".tmp")
        try:
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(out)  # whole or nothing
        except OSError as exc:
            # Named like a validation problem, and the partial temporary file removed: "whole or nothing"
            # holds for a failed write too, and a script reading stderr sees which path was at fault.
            if tmp.is_file():
                tmp.unlink()
            print(f"{out}: cannot write: {exc.strerror or exc}", file=sys.stderr)
            return 1
    return 0


def _cmd_schema(args: argparse.Namespace) -> int:
    path = Path(args.output)
    if args.check:
        if schema.is_current(path):
            print(f"{path}: up to date")
            return 0
        print(f"{path}: out of date with the models; run `make -C controller schema`", file=sys.stderr)
        return 1
    schema.write(path)
    print(f"wrote {path}")
    return 0


def _cmd_seed(args: argparse.Namespace) -> int:
    from .sync_admin import seed

    cfg = _load(args.file)
    if cfg is None:
        return 1
    n = seed(args.redis_url, cfg, author=args.author, comment=args.comment or f"seeded from {args.file}")
    print(f"stored version {n} for appliance {cfg.appliance_id}")
    if args.apply:
        from .sync_admin import apply

        apply(args.redis_url, n, author=args.author)
        print(f"applied version {n}")
    return 0


def _cmd_apply(args: argparse.Namespace) -> int:
    from .field_errors import flatten
    from .store import StoredInvalid
    from .sync_admin import apply

    try:
        appliance = apply(args.redis_url, args.version, author=args.author)
    except LookupError as exc:
        print(f"version: {exc}", file=sys.stderr)
        return 1
    except StoredInvalid as exc:
        # The store refuses to publish it; say which fields a new version must fix, as the API does (doc.<path>).
        for e in flatten(exc.errors, ("doc",)):
            print(f"version {args.version}: {e.field}: {e.message}", file=sys.stderr)
        return 1
    print(f"version {args.version} is now desired for appliance {appliance}")
    return 0


def _cmd_create_admin(args: argparse.Namespace) -> int:
    from .sync_admin import create_admin

    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\n")
    else:
        password = getpass.getpass("password: ")
        if password != getpass.getpass("again: "):
            print("password: the two entries differ", file=sys.stderr)
            return 1
    try:
        create_admin(args.redis_url, args.username, password)
    except ValueError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"created admin {args.username}")
    return 0


def serve_settings(args: argparse.Namespace) -> Settings:
    """The API server's settings from `serve`'s command line."""
    return Settings(
        redis_url=args.redis_url,
        webui_dist=Path(args.webui_dist) if args.webui_dist else Settings().webui_dist,
        secure_cookies=args.secure_cookies,
        max_body_bytes=round(args.max_body_mib * 2**20),
    )


def _number(v: str, ok: Callable[[float], bool], expected: str) -> float:
    """An argparse type's value: v as a float that ok takes (nan, which no comparison takes, for a non-number)."""
    try:
        x = float(v)
    except ValueError:
        x = float("nan")
    if not ok(x):
        raise argparse.ArgumentTypeError(f"expected {expected}, got {v!r}")
    return x


def _positive_mib(v: str) -> float:
    return _number(v, lambda m: 1 / 1024 <= m <= 1024, "MiB from 0.001 to 1024")


# nginx (ansible role webui) connects from the loopback when the controller listens there or on a wildcard address.
DEFAULT_PROXIES = "127.0.0.1,::1"


def _proxy_addresses(v: str) -> list[str]:
    """Addresses (or networks) whose X-Forwarded-For is believed. uvicorn would also take '*' or a name, and
    believing anyone's header lets every client choose the address the login limit and the audit see."""
    out = [a.strip() for a in v.split(",")]
    for a in out:
        try:
            ipaddress.ip_network(a, strict=False)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected IP addresses or networks separated by commas, "
                                             f"got {a!r}") from None
    return out


def _cmd_serve(args: argparse.Namespace) -> int:
    import uvicorn

    from .app import create_app

    # Named here, so that uvicorn's FORWARDED_ALLOW_IPS from the environment (default 127.0.0.1 only) plays no
    # part: behind nginx on ::1 or the host's address, every user was one client to the login limit and the audit.
    uvicorn.run(create_app(serve_settings(args)), host=args.host, port=args.port, log_level=args.log_level,
                access_log=args.access_log, proxy_headers=True, forwarded_allow_ips=args.forwarded_allow_ips)
    return 0


def _positive_seconds(v: str) -> float:
    return _number(v, lambda x: 0 < x < float("inf"), "a positive number of seconds")


def _cmd_aggregation_loop(args: argparse.Namespace) -> int:
    import asyncio

    from .aggregation import bottleneck, phy_rate
    from .aggregation.runner import run_forever

    try:
        model = (bottleneck.load_model(args.bottleneck_model) if args.bottleneck_model
                 else bottleneck.default_model())
    except bottleneck.ModelError as e:
        print(f"aggregation-loop: {e}", file=sys.stderr)
        return 2
    try:
        max_age = args.phy_rate_max_age if args.phy_rate_max_age is not None else phy_rate.MAX_AGE_S
        asyncio.run(run_forever(args.redis_url, args.appliance or None, model=model, phy_rate_max_age_s=max_age))
    except KeyboardInterrupt:
        pass
    return 0


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m adwiser_controller", description="ADWISER controller",
                                epilog=EPILOG)
    sub = p.add_subparsers(dest="cmd", required=True)

    v = sub.add_parser("validate", help="validate configuration documents (YAML or JSON)")
    v.add_argument("files", nargs="+")
    v.set_defaults(fn=_cmd_validate)

    r = sub.add_parser("render", help="write the validated JSON document")
    r.add_argument("file")
    r.add_argument("-o", "--output", required=True, help="output file, '-' for stdout")
    r.set_defaults(fn=_cmd_render)

    s = sub.add_parser("schema", help="write or check the JSON Schema")
    s.add_argument("-o", "--output", default=str(schema.DEFAULT_PATH))
    s.add_argument("--check", action="store_true", help="exit 1 if the file differs from the models")
    s.set_defaults(fn=_cmd_schema)

    for name, fn, hlp in (("seed", _cmd_seed, "store a document as a new version"),
                          ("apply", _cmd_apply, "apply a stored version")):
        c = sub.add_parser(name, help=hlp)
        c.add_argument("--redis-url", default=DEFAULT_REDIS, help="redis://host:port/db or unix:///path.sock")
        c.add_argument("--author", default=f"cli:{getpass.getuser()}")
        if name == "seed":
            c.add_argument("file")
            c.add_argument("--comment", default="")
            c.add_argument("--apply", action="store_true", help="apply the new version too")
        else:
            c.add_argument("version", type=int)
        c.set_defaults(fn=fn)

    a = sub.add_parser("create-admin", help="create an admin user (the first one, or another)")
    a.add_argument("--redis-url", default=DEFAULT_REDIS)
    a.add_argument("--username", required=True)
    a.add_argument("--password-stdin", action="store_true", help="read the password from the first line of stdin")
    a.set_defaults(fn=_cmd_create_admin)

    sv = sub.add_parser("serve", help="run the HTTP API")
    sv.add_argument("--redis-url", default=DEFAULT_REDIS)
    sv.add_argument("--host", default="127.0.0.1")
    sv.add_argument("--port", type=int, default=8080)
    sv.add_argument("--webui-dist", default="", help="built web UI to serve at / (default: webui/dist if present)")
    sv.add_argument("--secure-cookies", action="store_true", help="mark the session cookie Secure (behind TLS)")
    sv.add_argument("--max-body-mib", type=_positive_mib, default=Settings.max_body_bytes / 2**20,
                    help="largest request body taken, MiB (default 4; 413 beyond): a document at the schema's "
                         "largest counts can be several times that (API.md)")
    sv.add_argument("--forwarded-allow-ips", metavar="ADDR,...", type=_proxy_addresses,
                    default=_proxy_addresses(DEFAULT_PROXIES),
                    help="the proxies (nginx) whose X-Forwarded-For names the client, for the failed-login limit "
                         f"and the audit log; from any other address it is ignored (default {DEFAULT_PROXIES})")
    sv.add_argument("--log-level", default="info")
    sv.add_argument("--no-access-log", dest="access_log", action="store_false")
    sv.set_defaults(fn=_cmd_serve)

    ag = sub.add_parser("aggregation-loop",
                        help="run the aggregation-target loops (000 §VI) of the appliances against Redis")
    ag.add_argument("--redis-url", default=DEFAULT_REDIS)
    ag.add_argument("--appliance", action="append", default=[], help="only this appliance (repeatable); default all")
    ag.add_argument("--bottleneck-model", metavar="FILE", default=None,
                    help="bottleneck classifier coefficients (001 §5); default $ADWISER_BOTTLENECK_MODEL or "
                         "configs/bottleneck_model.json")
    ag.add_argument("--phy-rate-max-age", metavar="S", type=_positive_seconds, default=None,
                    help="a measured PHY rate (phy_rate with a time in phy_rate_ts) older than S seconds is stale: "
                         "the topology's phy_rate_mbps is used instead (default 5)")
    ag.set_defaults(fn=_cmd_aggregation_loop)
    return p


def main(argv: list[str] | None = None) -> int:
    from .sync_admin import RedisUnavailable

    args = build_parser().parse_args(argv)
    try:
        return int(args.fn(args))
    except RedisUnavailable as exc:
        print(exc, file=sys.stderr)
        return EXIT_REDIS
