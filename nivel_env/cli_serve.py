"""The ``serve`` command: the browser game on http://127.0.0.1:8000 (uvicorn + Starlette).

Binds to 127.0.0.1 unless told otherwise: it is a local app for one machine's players.
Where it listens (``--host``) and which names it answers to (the Host header) are separate:
it answers to the loopback names, the address it is bound to unless that is a wildcard
(0.0.0.0, ::), and each ``--allow-host NAME``; any other Host gets 400, so a page on
another site cannot reach the server through a name of its own ("DNS rebinding") however
it is bound.  Extra decks (``--decks``) and policy files (``--policy``) join the menus; a
browser can choose only what the server offers, never a path of its own.
"""
from __future__ import annotations

import ipaddress
import re
import sys
from pathlib import Path

WILDCARDS = ("0.0.0.0", "::", "")
#: a host name as a Host header carries it (no scheme, port or path); "*.lan" any under .lan
LABEL = r"[a-z0-9_]([a-z0-9_-]*[a-z0-9_])?"
NAME = re.compile(rf"\*|(\*\.)?{LABEL}(\.{LABEL})*")


def allowed_hosts(bind: str, extra=()) -> list[str]:
    """The Host names a server bound to ``bind`` answers to (see the module docstring);
    an IPv6 address as the Host header writes it, in brackets.  Raises ``ValueError``
    naming an entry that is not a host name or address (a URL, a name with a port)."""
    from .web.app import LOOPBACK
    hosts = list(LOOPBACK)
    for name in ([] if bind in WILDCARDS else [bind]) + list(extra):
        name = name.strip().lower()
        try:
            ip = ipaddress.ip_address(name.strip("[]"))
            name = f"[{ip}]" if ip.version == 6 else str(ip)
        except ValueError:
            if not NAME.fullmatch(name):
                raise ValueError(f"{name!r} is not a host name or address (give the name "
                                 f"alone, without scheme or port: gamebox.lan, "
                                 f"192.168.1.20)") from None
        if name not in hosts:
            hosts.append(name)
    return hosts


def cmd_serve(args) -> int:
    try:
        import uvicorn
        from .web.app import ServerConfig, create_app, default_opponents
    except ImportError as e:
        from .install_hints import extra
        print(f"serve: needs the web extra ({extra('web')}): {e}", file=sys.stderr)
        return 2
    from .cards import CardDataError, DeckError, list_decks
    from .cli_cards import _db
    from .session import SetupError
    try:
        db = _db(args.cards)
    except (CardDataError, DeckError) as e:
        print(f"serve: {e}", file=sys.stderr)
        return 2
    from .players import MAX_FILE_BYTES

    from .files import FileRefused, open_regular
    decks = {n: n for n in list_decks()}
    opponents = default_opponents()
    for flag, files, menu in (("--decks", args.decks, decks), ("--policy", args.policy,
                                                               opponents)):
        for f in files or []:          # a file named like a bundled one would replace it
            if Path(f).stem in menu:   # in the menu (bare names are bundled things)
                print(f"serve: {flag} {f} is named like the bundled {Path(f).stem!r}; "
                      f"rename the file", file=sys.stderr)
                return 2
    for f in args.decks or []:
        decks[Path(f).stem] = f
    for f in args.policy or []:
        try:                           # the one file check: a FIFO, a folder or a missing
            open_regular(f, MAX_FILE_BYTES, "policy file").close()     # file, by name
        except FileRefused as e:
            print(f"serve: --policy {e}", file=sys.stderr)
            return 2
        opponents[Path(f).stem] = (str(Path(f).resolve()), f"{Path(f).stem}: policy file {f}")
    if args.opponent not in opponents:
        print(f"serve: unknown opponent {args.opponent!r}; one of: {', '.join(opponents)}",
              file=sys.stderr)
        return 2
    for flag, bind, extra in (("--host", args.host, ()),
                              ("--allow-host", args.host, args.allow_host or ())):
        try:
            hosts = allowed_hosts(bind, extra)
        except ValueError as e:
            print(f"serve: {flag} {e}", file=sys.stderr)
            return 2
    cfg = ServerConfig(db=db, decks=decks, opponents=opponents,
                       default_opponent=args.opponent, per_client=args.games_per_client,
                       total=args.max_games, idle_s=args.idle_minutes * 60.0,
                       lifetime_s=args.lifetime_hours * 3600.0,
                       allowed_hosts=hosts)
    try:
        app = create_app(cfg)
    except SetupError as e:
        print(e, file=sys.stderr)
        return 2
    host = "127.0.0.1" if args.host in WILDCARDS else args.host
    url = f"http://{f'[{host}]' if ':' in host else host}:{args.port}/"
    print(f"Nivel Arena in the browser: open {url}  (Ctrl-C stops)", flush=True)
    if "*" in cfg.allowed_hosts:
        print("answering to any Host name (--allow-host '*'): a web page on another site "
              "can reach this server through a name it controls", flush=True)
    elif args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"answering to the Host names {', '.join(cfg.allowed_hosts)}; players reaching "
              f"this machine by another name or address need --allow-host NAME", flush=True)
    if args.open:                                  # once the server is listening
        import threading
        import webbrowser
        threading.Timer(1.0, webbrowser.open, [url]).start()
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level)
    return 0


def add_parser(sub) -> None:
    p = sub.add_parser("serve", help="play in the browser: a local web app "
                                     "(http://127.0.0.1:8000)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1: this machine only; "
                        "0.0.0.0: every network this machine is on)")
    p.add_argument("--allow-host", action="append", metavar="NAME",
                   help="a host name or address players type to reach the server, "
                        "answered besides the loopback names and the --host address "
                        "(repeatable; '*' answers any name, which lets other sites' pages "
                        "reach it)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--open", action="store_true", help="open the page in your web browser")
    p.add_argument("--opponent", default="casual",
                   help="the opponent the page offers first (default: casual)")
    p.add_argument("--policy", nargs="+", metavar="FILE",
                   help="trained policy files to offer as opponents")
    p.add_argument("--decks", nargs="+", metavar="FILE", help="deck files to offer too")
    from .cli_cards import add_cards_option
    add_cards_option(p)
    p.add_argument("--games-per-client", type=int, default=4,
                   help="games in play (and replays open) one address may have at once "
                        "(default 4)")
    p.add_argument("--max-games", type=int, default=64,
                   help="games (and replays) the server holds at once (default 64)")
    p.add_argument("--idle-minutes", type=float, default=30.0,
                   help="a game untouched this long is dropped (default 30)")
    p.add_argument("--lifetime-hours", type=float, default=4.0,
                   help="a game is dropped this long after it started (default 4)")
    p.add_argument("--log-level", default="warning", help="uvicorn's log level")
    p.set_defaults(func=cmd_serve)
