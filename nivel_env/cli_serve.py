"""The ``serve`` command: the browser game on http://127.0.0.1:8000 (uvicorn + Starlette).

Binds to 127.0.0.1 unless told otherwise: it is a local app for one machine's players.
Extra decks (``--decks``) and policy files (``--policy``) join the menus; a browser can
choose only what the server offers, never a path of its own.
"""
from __future__ import annotations

import sys
from pathlib import Path


def cmd_serve(args) -> int:
    try:
        import uvicorn
        from .web.app import ServerConfig, create_app, default_opponents
    except ImportError as e:
        print(f"serve: needs the web extra (pip install -e \".[web]\"): {e}", file=sys.stderr)
        return 2
    from .cards import CardDataError, DeckError, list_decks
    from .cli_cards import _db
    from .session import SetupError
    try:
        db = _db(args.cards)
    except (CardDataError, DeckError) as e:
        print(f"serve: {e}", file=sys.stderr)
        return 2
    decks = {n: n for n in list_decks()}
    for f in args.decks or []:
        decks[Path(f).stem] = f
    opponents = default_opponents()
    for f in args.policy or []:
        if not Path(f).is_file():
            print(f"serve: policy file {f} not found", file=sys.stderr)
            return 2
        opponents[Path(f).stem] = (str(Path(f).resolve()), f"{Path(f).stem}: policy file {f}")
    if args.opponent not in opponents:
        print(f"serve: unknown opponent {args.opponent!r}; one of: {', '.join(opponents)}",
              file=sys.stderr)
        return 2
    cfg = ServerConfig(db=db, decks=decks, opponents=opponents,
                       default_opponent=args.opponent, per_client=args.games_per_client,
                       total=args.max_games, idle_s=args.idle_minutes * 60.0,
                       lifetime_s=args.lifetime_hours * 3600.0,
                       allowed_hosts=["127.0.0.1", "localhost"]
                       if args.host in ("127.0.0.1", "localhost") else ["*"])
    try:
        app = create_app(cfg)
    except SetupError as e:
        print(e, file=sys.stderr)
        return 2
    url = f"http://{'127.0.0.1' if args.host in ('0.0.0.0', '::') else args.host}:{args.port}/"
    print(f"Nivel Arena in the browser: open {url}  (Ctrl-C stops)", flush=True)
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
                   help="address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--open", action="store_true", help="open the page in your web browser")
    p.add_argument("--opponent", default="casual",
                   help="the opponent the page offers first (default: casual)")
    p.add_argument("--policy", nargs="+", metavar="FILE",
                   help="trained policy files to offer as opponents")
    p.add_argument("--decks", nargs="+", metavar="FILE", help="deck files to offer too")
    p.add_argument("--cards", nargs="+", metavar="FILE", help="extra card files to load")
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
