"""The browser game's web app (Starlette): a JSON API over ``PlaySession`` plus one page.

Routes (all answers JSON unless said):
  GET  /                         the page (static/index.html)
  GET  /api/options              decks, opponents, difficulties to choose from
  GET  /api/rules                the rules primer (nivel_env/primer.py)
  POST /api/games                {deck, opponent_deck, opponent, difficulty, seat, seed}
  GET  /api/games/{id}?since=N   the game as the person's seat sees it; log lines from N
  POST /api/games/{id}/move      {action, moves}: ``moves`` is the move count the page
                                 saw, so a move sent from a stale page changes nothing
  POST /api/games/{id}/surrender
  DELETE /api/games/{id}
  GET  /api/games/{id}/replay    the finished game as a replay file (JSON Lines, a download)
  POST /api/games/{id}/review    open the finished game's replay in the viewer
  POST /api/replays              a replay file's text: load it for stepping through
  GET  /api/replays/{id}?step=N  position N of a loaded replay, both hands shown
  DELETE /api/replays/{id}       close a loaded replay (the page does on leaving it)

Every answer for a game in play is built by ``view.seat_view`` / ``view.legal_moves`` for
the person's seat, so nothing their seat may not see leaves the server.  The seed and the
replay (which holds the seed: with the recorded moves it rebuilds both hands and both
decks' order) are given only once the game is over; ``checks/web.py`` holds every answer
to this.  Errors are ``{"error": message}`` with 400 (bad request), 404 (no such game),
409 (stale or illegal move, or a replay asked for during play: nothing changed), 413 (too
large) or 429 (too many games).
"""
from __future__ import annotations

import importlib.util
import json
from urllib.parse import quote
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from ..cards import CardDataError, Deck, DeckError, list_decks, load_deck
from ..narrate import replay_seat, replay_story
from ..primer import BASICS, glossary, keyword_lines
from ..replay import ReplayError, parse_replay
from ..session import SEED_SPACE, IllegalMove, PlaySession, SetupError
from .store import LimitError, Store
from .view import legal_moves, seat_view

STATIC = Path(__file__).with_name("static")
MAX_BODY = 1 << 14                       # a move or a new game: a few hundred bytes
MAX_REPLAY = 16 << 20                    # a 200-turn game records about 2 MB
DIFFICULTIES = ("hard", "normal", "easy")
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


class _SecurityHeaders:
    """Headers for every answer: the page loads only its own scripts and styles, is not
    framed by other sites, and its JSON is never sniffed as something else."""

    HEADERS = [(b"content-security-policy", b"default-src 'self'; frame-ancestors 'none'"),
               (b"x-content-type-options", b"nosniff"), (b"referrer-policy", b"no-referrer")]

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                message["headers"] = list(message.get("headers", [])) + self.HEADERS
            await send(message)
        await self.app(scope, receive, send_with_headers if scope["type"] == "http" else send)


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


@dataclass
class ServerConfig:
    """What a server offers: the card pool, decks by name, opponents by name (each an
    ``agents.load_opponent`` spec and a description), the rule settings (``RuleConfig``,
    None: the defaults), and the store limits."""
    db: object = None
    decks: dict = field(default_factory=dict)            # name -> deck name, file or Deck
    opponents: dict = field(default_factory=dict)        # name -> (spec, description)
    default_opponent: str = "casual"
    per_client: int = 4
    total: int = 64
    idle_s: float = 1800.0
    lifetime_s: float = 4 * 3600.0
    #: Host headers answered (a page on another site cannot reach a local server through
    #: a name it controls, "DNS rebinding"); ``serve --allow-host`` adds names, "*" any
    allowed_hosts: list = field(default_factory=lambda: list(LOOPBACK))
    rules: object = None


def default_opponents() -> dict:
    """The difficulty ladder first, then the named agents."""
    try:
        from agents.opponents import LEVELS, SEARCHES, bundled_opponents
    except ImportError:                                   # the agents package is absent
        return {"random": ("random", "random: moves at random"),
                "heuristic": ("heuristic", "heuristic: rule-based")}
    words = {"random": "moves at random", "heuristic": "the rule-based heuristic, greedy",
             **{s: f"search over {p}" for s, (p, _) in SEARCHES.items()},
             **{name: what for name, (_spec, what) in LEVELS.items()}}
    return {name: (name, f"{name}: {words.get(name, 'a shipped trained policy')}")
            for name in list(LEVELS) + [n for n in bundled_opponents() if n not in LEVELS]}


def needs_torch(spec: str) -> bool:
    """Whether an opponent is a trained policy or searches over one (it needs torch)."""
    base = spec.split(":")[0]
    try:
        from agents.opponents import LEVELS
        base = LEVELS[base][0].split(":")[0] if base in LEVELS else base
    except ImportError:
        pass
    return base not in ("random", "heuristic")


def _client(request: Request) -> str:
    return request.client.host if request.client else "unknown"


async def _body(request: Request, limit: int, what: str = "request body") -> bytes:
    """The request's body, read as it streams: a declared length over ``limit`` is refused
    before reading, and reading stops at ``limit`` (413), so a large body never sits in
    the server's memory (``request.body()`` would buffer all of it first)."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise BadRequest(f"a {what} of {int(declared):,} bytes; at most {limit:,}", 413)
    chunks, size = [], 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise BadRequest(f"a {what} of over {limit:,} bytes; at most {limit:,}", 413)
        chunks.append(chunk)
    return b"".join(chunks)


def attachment(filename: str) -> str:
    """A ``Content-Disposition`` for a download named ``filename`` (any script): an ASCII
    ``filename`` for old clients and the name itself as RFC 5987 ``filename*``."""
    safe = "".join(ch if ch.isalnum() or ch in "-._" else "-" for ch in filename)
    plain = "".join(ch if ch.isascii() else "_" for ch in safe)
    return f"attachment; filename=\"{plain}\"; filename*=UTF-8''{quote(safe, safe='')}"


async def _json(request: Request, limit: int = MAX_BODY) -> dict:
    body = await _body(request, limit)
    if not body:
        return {}
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise BadRequest("the request body is not JSON") from None
    if not isinstance(data, dict):
        raise BadRequest("the request body must be a JSON object")
    return data


def _int(data: dict, key: str, lo: int, hi: int, default=None):
    v = data.get(key, default)
    if v is None or v == "":
        return default
    if isinstance(v, str) and v.strip().lstrip("-").isdigit():
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise BadRequest(f"'{key}' must be a whole number from {lo} to {hi}, got {v!r}"[:200])
    return v


def _choice(data: dict, key: str, options, default):
    v = data.get(key) or default
    if not isinstance(v, str) or v not in options:
        raise BadRequest(f"unknown {key} {str(v)[:80]!r}; one of: {', '.join(options)}")
    return v


def create_app(config: ServerConfig | None = None) -> Starlette:
    cfg = config or ServerConfig()
    if not cfg.decks:
        cfg.decks = {n: n for n in list_decks()}
    if not cfg.opponents:
        cfg.opponents = default_opponents()
    if cfg.default_opponent not in cfg.opponents:
        cfg.default_opponent = next(iter(cfg.opponents))
    games = Store("games", cfg.per_client, cfg.total, cfg.idle_s, cfg.lifetime_s,
                  done=lambda s: s.over)
    replays = Store("replays", cfg.per_client, cfg.total, cfg.idle_s, cfg.lifetime_s)
    deck_info = []
    for name, spec in cfg.decks.items():
        try:
            d = spec if isinstance(spec, Deck) else load_deck(spec, cfg.db)
        except (CardDataError, DeckError) as e:
            raise SetupError(f"serve: deck {name!r}: {e}") from None
        deck_info.append({"name": name, "title": d.name, "leader": d.leader.name,
                          "plan": d.plan or ""})

    def game_state(key: str, s: PlaySession, since: int = 0) -> dict:
        """The game as the person's seat sees it; the seed only once it is over."""
        since = min(max(since, 0), len(s.log))
        out = {"id": key, "moves": s.moves, "seat": s.human,
               "deck": s.my_deck.name, "opponent_deck": s.their_deck.name,
               "opponent": s.opponent, "over": s.over, "outcome": s.outcome(),
               "board": seat_view(s.g, s.human), "legal": legal_moves(s.g, s.human),
               "log": s.log[since:], "log_from": since, "log_total": len(s.log)}
        if s.over:
            out["seed"] = s.seed
        return out

    async def locked(e, fn):
        """``fn()`` under the game's lock, in a worker thread: the opponent may be thinking
        in another, and the event loop must not wait for it."""
        def run():
            with e.lock:
                return fn()
        return await run_in_threadpool(run)

    def game_entry(request: Request):
        e = games.get(request.path_params["id"])
        if e is None:
            raise BadRequest("no such game (it may have ended and expired); start a new "
                             "one", 404)
        return request.path_params["id"], e

    # ------------------------------------------------------------------ routes
    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    torch = importlib.util.find_spec("torch") is not None

    def ok(spec: str) -> bool:
        return torch or not needs_torch(spec)

    async def options(request: Request) -> Response:
        return JSONResponse({
            "decks": deck_info,
            "opponents": [{"name": k, "label": v[1] + ("" if ok(v[0]) else
                                                        " (needs torch)"),
                           "available": ok(v[0])} for k, v in cfg.opponents.items()],
            "default_opponent": cfg.default_opponent, "difficulties": list(DIFFICULTIES)})

    async def rules(request: Request) -> Response:
        return JSONResponse({"basics": [list(b) for b in BASICS],
                             "keywords": keyword_lines(), "glossary": glossary()})

    async def new_game(request: Request) -> Response:
        data = await _json(request)
        decks = list(cfg.decks)
        deck = _choice(data, "deck", decks, "") if data.get("deck") else None
        other = _choice(data, "opponent_deck", decks, "") if data.get("opponent_deck") \
            else None
        opponent = _choice(data, "opponent", list(cfg.opponents), cfg.default_opponent)
        difficulty = _choice(data, "difficulty", DIFFICULTIES, "hard")
        seat = data.get("seat", "random")
        if type(seat) is int and seat in (0, 1) or seat in ("0", "1"):   # not true, 1.0
            seat = int(seat)
        elif seat in ("random", None, ""):
            seat = None
        else:
            raise BadRequest(f"'seat' must be 0, 1 or random, got {str(seat)[:40]!r}")
        seed = _int(data, "seed", 0, SEED_SPACE - 1)   # None: PlaySession draws one
        client = _client(request)
        games.check_room(client)

        def make() -> PlaySession:
            return PlaySession(cfg.decks.get(deck), cfg.decks.get(other),
                               cfg.opponents[opponent][0], difficulty, seat=seat, seed=seed,
                               db=cfg.db, label=opponent, meta={"via": "serve"},
                               config=cfg.rules)
        try:
            s = await run_in_threadpool(make)
        except SetupError as e:
            raise BadRequest(str(e)) from None
        key = games.add(s, client)
        return JSONResponse(game_state(key, s), status_code=201)

    async def show_game(request: Request) -> Response:
        key, e = game_entry(request)
        since = _int(dict(request.query_params), "since", 0, 10 ** 9, 0)
        return JSONResponse(await locked(e, lambda: game_state(key, e.value, since)))

    async def move(request: Request) -> Response:
        key, e = game_entry(request)
        data = await _json(request)
        action = _int(data, "action", 0, 10 ** 6)
        if action is None:
            raise BadRequest("'action' is required: the id of one of the legal moves")
        seen = _int(data, "moves", 0, 10 ** 9)
        if seen is None:
            raise BadRequest("'moves' is required: the game's move count the page saw, so "
                             "that a move sent twice is not played twice; nothing changed")
        since = _int(data, "since", 0, 10 ** 9, 0)

        def work() -> dict:
            s = e.value
            if seen != s.moves:
                raise BadRequest(f"the page is out of date (it saw {seen} moves, the game "
                                 f"has had {s.moves}); nothing changed", 409)
            try:
                s.play(action)
            except IllegalMove as err:
                raise BadRequest(f"{err}; nothing changed", 409) from None
            return game_state(key, s, since)
        return JSONResponse(await locked(e, work))

    async def surrender(request: Request) -> Response:
        key, e = game_entry(request)
        data = await _json(request)
        since = _int(data, "since", 0, 10 ** 9, 0)

        def work() -> dict:
            e.value.surrender()
            return game_state(key, e.value, since)
        return JSONResponse(await locked(e, work))

    async def close_game(request: Request) -> Response:
        key, _ = game_entry(request)
        games.remove(key)
        return JSONResponse({"closed": key})

    def finished_replay(e) -> list[str]:
        """The game's replay lines, refused while it is in play: the replay holds the
        seed, and the seed with the moves rebuilds the opponent's hand and both decks."""
        if not e.value.over:
            raise BadRequest("the replay is given once the game is over (it holds the seed, "
                             "which deals every hidden card); finish or surrender first; "
                             "nothing changed", 409)
        return e.value.replay_lines()

    async def download(request: Request) -> Response:
        key, e = game_entry(request)
        s = e.value
        text = "\n".join(await locked(e, lambda: finished_replay(e))) + "\n"
        name = f"nivel-{s.my_deck.name}-vs-{s.their_deck.name}-seed{s.seed}.jsonl"
        return Response(text, media_type="application/x-ndjson",
                        headers={"Content-Disposition": attachment(name)})

    def open_replay(text: str, name: str, client: str) -> dict:
        replays.check_room(client)
        try:
            rep = parse_replay(text, name, cfg.db)
        except ReplayError as err:
            raise BadRequest(str(err)) from None
        seat = replay_seat(rep.header)
        setup, steps = replay_story(rep, seat)
        key = replays.add({"rep": rep, "seat": seat, "setup": setup, "steps": steps}, client)
        return replay_state(key, replays.get(key).value, 0)

    def replay_state(key: str, r: dict, step: int) -> dict:
        rep, seat = r["rep"], r["seat"]
        n = len(rep.games) - 1
        step = min(max(step, 0), n)
        h = rep.header
        def said(row):
            return None if row is None else {
                "player": h["players"][row["player"]],
                "name": row.get("name") if row["kind"] == "action" else "surrenders"}
        nxt = rep.rows[step] if step < n else None
        return {"id": key, "step": step, "steps": n, "seat": seat, "seed": h["seed"],
                "players": h["players"], "decks": [d["name"] for d in h["decks"]],
                "board": seat_view(rep.games[step], seat, reveal=True),
                "lines": r["setup"] if step == 0 else r["steps"][step - 1],
                "last": said(rep.rows[step - 1] if step else None), "next": said(nxt),
                "result": None if rep.games[-1].result is None else
                list(rep.games[-1].result)}

    async def review(request: Request) -> Response:
        key, e = game_entry(request)
        text = "\n".join(await locked(e, lambda: finished_replay(e)))
        return JSONResponse(await run_in_threadpool(open_replay, text, f"game {key}",
                                                    _client(request)), status_code=201)

    async def upload_replay(request: Request) -> Response:
        body = await _body(request, MAX_REPLAY, "replay")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("the replay is not UTF-8 text") from None
        name = (request.query_params.get("name") or "uploaded replay")[:100]
        return JSONResponse(await run_in_threadpool(open_replay, text, name,
                                                    _client(request)), status_code=201)

    async def show_replay(request: Request) -> Response:
        key = request.path_params["id"]
        e = replays.get(key)
        if e is None:
            raise BadRequest("no such replay (it may have expired); load it again", 404)
        step = _int(dict(request.query_params), "step", 0, 10 ** 9, 0)
        return JSONResponse(replay_state(key, e.value, step))

    async def close_replay(request: Request) -> Response:
        key = request.path_params["id"]
        if not replays.remove(key):
            raise BadRequest("no such replay (it may have expired or been closed)", 404)
        return JSONResponse({"closed": key})

    async def bad_request(request: Request, exc: BadRequest) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    async def too_many(request: Request, exc: LimitError) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=429)

    async def crashed(request: Request, exc: Exception) -> Response:
        return JSONResponse({"error": f"the server failed on this request "
                                      f"({type(exc).__name__}); the game is unchanged"},
                            status_code=500)

    routes = [
        Route("/", index),
        Route("/api/options", options),
        Route("/api/rules", rules),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{id}", show_game),
        Route("/api/games/{id}", close_game, methods=["DELETE"]),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/surrender", surrender, methods=["POST"]),
        Route("/api/games/{id}/replay", download),
        Route("/api/games/{id}/review", review, methods=["POST"]),
        Route("/api/replays", upload_replay, methods=["POST"]),
        Route("/api/replays/{id}", show_replay),
        Route("/api/replays/{id}", close_replay, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={
        BadRequest: bad_request, LimitError: too_many, Exception: crashed},
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=cfg.allowed_hosts),
                    Middleware(_SecurityHeaders)])
    app.state.games, app.state.replays, app.state.config = games, replays, cfg
    return app


__all__ = ["LOOPBACK", "ServerConfig", "attachment", "create_app", "default_opponents"]
