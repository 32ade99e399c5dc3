"""The browser game's web app (Starlette): a JSON API over ``PlaySession`` plus one page.

Routes (all answers JSON unless said):
  GET  /                         the page (static/index.html)
  GET  /api/options              decks, opponents, difficulties to choose from
  GET  /api/rules                the rules primer (nivel_env/primer.py)
  GET  /api/decks/{name}         an offered deck's list (by its menu name, never a path)
  POST /api/games                {deck, opponent_deck, opponent, difficulty, seat, seed},
                                 or {tutorial: true}: the guided first game
  GET  /api/games                the games made with this request's player token
  GET  /api/games/{id}?since=N   the game as the person's seat sees it; log lines from N
  GET  /api/games/{id}/hint      the coach's move for the person now, and why
  POST /api/games/{id}/move      {action, moves}: ``moves`` is the move count the page
                                 saw, so a move sent from a stale page changes nothing
  POST /api/games/{id}/surrender
  POST /api/games/{id}/rematch   a new game with the finished one's choices, a fresh seed
  DELETE /api/games/{id}         leave (a game in play is surrendered) and forget it
  GET  /api/games/{id}/replay    the finished game as a replay file (JSON Lines, a download)
  POST /api/games/{id}/review    open the finished game's replay in the viewer
  POST /api/replays              a replay file's text: load it for stepping through
  GET  /api/replays/{id}?step=N  position N of a loaded replay, both hands shown
  DELETE /api/replays/{id}       close a loaded replay (the page does on leaving it)

Every POST and DELETE, and the listing, needs an ``X-Nivel-Player`` header: a random
token the page makes once and keeps.  The listing shows only the games made with it
(never by address: everyone behind one address would see, and so hold, each other's
games), and a page on another site cannot send a custom header without the server's
leave (a CORS preflight it never gets), so it cannot drive the API either.

Every answer for a game in play is built by ``view.seat_view`` / ``view.legal_moves`` for
the person's seat, so nothing their seat may not see leaves the server.  The seed and the
replay (which holds the seed: with the recorded moves it rebuilds both hands and both
decks' order) are given only once the game is over; ``checks/web.py`` holds every answer
to this.  Errors are ``{"error": message}`` with 400 (bad request, or no player token),
404 (no such game), 409 (stale or illegal move, or a replay or rematch asked for during
play: nothing changed), 413 (too large) or 429 (too many games).
"""
from __future__ import annotations

import importlib.util
import json
import re
import time
from urllib.parse import quote
from dataclasses import dataclass, field
from pathlib import Path

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import players
from ..cards import CardDataError, Deck, DeckError, list_decks, load_deck
from ..narrate import replay_seat, replay_story
from ..difficulty import DEFAULT_DIFFICULTY, DIFFICULTIES
from ..primer import basics, glossary, keyword_lines
from ..replay import ReplayError, parse_replay
from ..session import (SEED_SPACE, IllegalMove, PlaySession, SetupError, default_decks,
                       tutorial)
from .store import LimitError, Store
from .view import card_data, hint_data, legal_moves, seat_view

STATIC = Path(__file__).with_name("static")
MAX_BODY = 1 << 14                       # a move or a new game: a few hundred bytes
MAX_REPLAY = 16 << 20                    # a 200-turn game records about 2 MB
LOOPBACK = ("127.0.0.1", "localhost", "[::1]")
PLAYER_HEADER = "X-Nivel-Player"
#: a player token: the page's 32 hex digits (128 random bits), or any such word of 16-128
PLAYER_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,128}")
NO_PLAYER = (f"send an {PLAYER_HEADER} header: the player's token, 16 to 128 letters, digits, "
             f"'-' or '_' (the page makes a random one and keeps it); it names whose games "
             f"GET /api/games lists, and a page on another site cannot send it")


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


class _PlayerHeader:
    """Every POST and DELETE under /api/ needs a well-formed ``X-Nivel-Player`` header,
    refused (400) before the body is read.  Browsers send a custom header across sites
    only after a CORS preflight, which this server never answers: so another site's page
    can neither start, move in, nor close games here."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] == "http" and scope["method"] in ("POST", "DELETE") and \
                scope["path"].startswith("/api/") and player_token(Request(scope)) is None:
            await JSONResponse({"error": NO_PLAYER}, status_code=400)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def player_token(request: Request) -> str | None:
    """The request's player token, or None when it has none or a malformed one."""
    token = request.headers.get(PLAYER_HEADER, "")
    return token if PLAYER_TOKEN.fullmatch(token) else None


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
    #: the stores' clock (seconds): expiry and the listing's ages; a check stops it, so
    #: that two askings of the listing differ only in what they show
    clock: object = time.monotonic


def default_opponents() -> dict:
    """The difficulty ladder first, then the named agents (``players.names``: what the
    installed player loaders list); random and heuristic when none lists any."""
    named = players.names()
    if not named:                                         # the agents package is absent
        return {"random": ("random", "random: moves at random"),
                "heuristic": ("heuristic", "heuristic: rule-based")}
    return {name: (name, f"{name}: {what}") for name, what in named.items()}


def needs_torch(spec: str) -> bool:
    """Whether an opponent needs torch: anything but the players their loader names as
    torch-free (``players.torch_free``) -- trained policies and searches over one."""
    base = spec.split(":")[0]
    levels = players.levels()
    base = levels[base][0].split(":")[0] if base in levels else base
    return base not in players.torch_free()


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


def _count(n: int, word: str) -> str:
    """``n`` and ``word``, plural unless one: "1 move", "0 moves", "12 moves"."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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
                  clock=cfg.clock, done=lambda s: s.over,
                  close_hint="close one under 'Your games' on the New game panel, or "
                             "finish it (games from another browser at this address count "
                             "too)")
    replays = Store("replays", cfg.per_client, cfg.total, cfg.idle_s, cfg.lifetime_s,
                    clock=cfg.clock)
    loaded: dict[str, Deck] = {}
    for name, spec in cfg.decks.items():
        try:
            loaded[name] = spec if isinstance(spec, Deck) else load_deck(spec, cfg.db)
        except (CardDataError, DeckError) as e:
            raise SetupError(f"serve: deck {name!r}: {e}") from None
    deck_info = [{"name": name, "title": d.name, "leader": d.leader.name,
                  "plan": d.plan or ""} for name, d in loaded.items()]

    def game_state(key: str, s: PlaySession, since: int = 0) -> dict:
        """The game as the person's seat sees it; the seed only once it is over."""
        since = min(max(since, 0), len(s.log))
        out = {"id": key, "moves": s.moves, "seat": s.human,
               "deck": s.my_deck.name, "opponent_deck": s.their_deck.name,
               "opponent": s.opponent, "over": s.over, "outcome": s.outcome(),
               "board": seat_view(s.g, s.human), "legal": legal_moves(s.g, s.human),
               "log": s.log[since:], "log_from": since, "log_total": len(s.log),
               "guided": s.coaching}
        if s.coaching:                        # the guided first game: a hint at every move
            out["coach"] = hint_data(s)
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

    def game_summary(key: str, e) -> dict:
        """A line of the player's games: public facts only (decks, opponent, turn, whose
        move, the outcome), never the seed.  Read without the game's lock (the opponent
        may be thinking): each field is one read of the game as it stands."""
        s = e.value
        started, idle = games.ages(e)
        over = s.over
        return {"id": key, "deck": s.my_deck.name, "opponent_deck": s.their_deck.name,
                "opponent": s.opponent, "difficulty": s.difficulty, "turn": s.g.turn,
                "over": over, "outcome": s.outcome() if over else None,
                "your_move": not over and s.g.current_player == s.human,
                "started_s": int(started), "idle_s": int(idle)}

    def played_decks(choices: dict, s: PlaySession) -> dict:
        """``choices`` with decks the seed dealt named by their menu names (when the menu
        offers them), so that a rematch is played with the same decks."""
        mine, theirs = default_decks(s.seed)        # as PlaySession deals them
        out = dict(choices)
        for key, name in (("deck", mine), ("opponent_deck", theirs)):
            if out[key] is None and cfg.decks.get(name) == name:
                out[key] = name
        return out

    async def start_game(request: Request, choices: dict, seed: int | None):
        """A new game for this request's address and player token, with ``choices``
        (deck and opponent_deck menu names or None, opponent, difficulty, seat 0, 1 or
        None) recorded for a rematch; the answer for its first position."""
        client = _client(request)
        games.check_room(client)

        def make() -> PlaySession:
            if choices.get("tutorial"):          # the guided first game (coach.TUTORIAL)
                return tutorial(db=cfg.db, meta={"via": "serve"})
            return PlaySession(cfg.decks.get(choices["deck"]),
                               cfg.decks.get(choices["opponent_deck"]),
                               cfg.opponents[choices["opponent"]][0], choices["difficulty"],
                               seat=choices["seat"], seed=seed, db=cfg.db,
                               label=choices["opponent"], meta={"via": "serve"},
                               config=cfg.rules)
        try:
            s = await run_in_threadpool(make)
        except SetupError as e:
            raise BadRequest(str(e)) from None
        key = games.add(s, client, owner=player_token(request) or "",
                        meta={"choices": choices if choices.get("tutorial") else
                              played_decks(choices, s)})
        return JSONResponse(game_state(key, s), status_code=201)

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
        """The primer under the rules this server's games are played by (``cfg.rules``)."""
        return JSONResponse({"basics": [list(b) for b in basics(cfg.rules)],
                             "keywords": keyword_lines(), "glossary": glossary()})

    async def deck_list(request: Request) -> Response:
        """An offered deck by its menu name: leader, plan and its cards with counts."""
        name = request.path_params["name"]
        d = loaded.get(name)
        if d is None:
            raise BadRequest(f"no deck {name[:80]!r} on offer; one of: {', '.join(loaded)}",
                             404)
        counts: dict[str, list] = {}
        for c in d.cards:                        # file order, each card once with its count
            counts.setdefault(c.id, [c, 0])[1] += 1
        return JSONResponse({"name": name, "title": d.name, "plan": d.plan or "",
                             "leader": card_data(d.leader), "size": len(d.cards),
                             "cards": [{"count": n, "card": card_data(c)}
                                       for c, n in counts.values()]})

    async def new_game(request: Request) -> Response:
        data = await _json(request)
        if data.get("tutorial") is True:         # the guided first game: its own deal
            return await start_game(request, {"tutorial": True}, None)
        decks = list(cfg.decks)
        seat = data.get("seat", "random")
        if type(seat) is int and seat in (0, 1) or seat in ("0", "1"):   # not true, 1.0
            seat = int(seat)
        elif seat in ("random", None, ""):
            seat = None
        else:
            raise BadRequest(f"'seat' must be 0, 1 or random, got {str(seat)[:40]!r}")
        choices = {
            "deck": _choice(data, "deck", decks, "") if data.get("deck") else None,
            "opponent_deck": _choice(data, "opponent_deck", decks, "")
            if data.get("opponent_deck") else None,
            "opponent": _choice(data, "opponent", list(cfg.opponents), cfg.default_opponent),
            "difficulty": _choice(data, "difficulty", DIFFICULTIES, DEFAULT_DIFFICULTY), "seat": seat}
        seed = _int(data, "seed", 0, SEED_SPACE - 1)   # None: PlaySession draws one
        return await start_game(request, choices, seed)

    async def list_games(request: Request) -> Response:
        token = player_token(request)
        if token is None:
            raise BadRequest(NO_PLAYER)
        return JSONResponse({"games": [game_summary(k, e) for k, e in games.owned(token)]})

    async def rematch(request: Request) -> Response:
        _, e = game_entry(request)
        if not e.value.over:
            raise BadRequest("a rematch is offered once the game is over; finish or "
                             "surrender first; nothing changed", 409)
        return await start_game(request, e.meta["choices"], None)   # a fresh seed

    async def hint(request: Request) -> Response:
        """The coach's move for the person now and why (``{"hint": null}`` when it is not
        their move); it reads only what their seat may see."""
        _, e = game_entry(request)
        return JSONResponse({"hint": await locked(e, lambda: hint_data(e.value))})

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
                raise BadRequest(f"the page is out of date: it showed the game after "
                                 f"{_count(seen, 'move')}, and the game has had "
                                 f"{_count(s.moves, 'move')}; nothing changed", 409)
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
        """Leave the game and forget it: a game in play is surrendered first (1.2.4)."""
        key, e = game_entry(request)
        await locked(e, e.value.surrender)           # nothing once the game is over
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

    def open_replay(text: str, name: str, client: str, owner: str) -> dict:
        replays.check_room(client)
        try:
            rep = parse_replay(text, name, cfg.db)
        except ReplayError as err:
            raise BadRequest(str(err)) from None
        seat = replay_seat(rep.header)
        setup, steps = replay_story(rep, seat)
        key = replays.add({"rep": rep, "seat": seat, "setup": setup, "steps": steps}, client,
                          owner or "")
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
                                                    _client(request), player_token(request)),
                            status_code=201)

    async def upload_replay(request: Request) -> Response:
        body = await _body(request, MAX_REPLAY, "replay")
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            raise BadRequest("the replay is not UTF-8 text") from None
        name = (request.query_params.get("name") or "uploaded replay")[:100]
        return JSONResponse(await run_in_threadpool(open_replay, text, name,
                                                    _client(request), player_token(request)),
                            status_code=201)

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

    async def no_route(request: Request, exc: HTTPException) -> Response:
        return JSONResponse({"error": f"{exc.detail}: {request.method} {request.url.path}"[:300]},
                            status_code=exc.status_code, headers=exc.headers)

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
        Route("/api/decks/{name}", deck_list),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games", list_games),
        Route("/api/games/{id}", show_game),
        Route("/api/games/{id}", close_game, methods=["DELETE"]),
        Route("/api/games/{id}/hint", hint),
        Route("/api/games/{id}/move", move, methods=["POST"]),
        Route("/api/games/{id}/surrender", surrender, methods=["POST"]),
        Route("/api/games/{id}/rematch", rematch, methods=["POST"]),
        Route("/api/games/{id}/replay", download),
        Route("/api/games/{id}/review", review, methods=["POST"]),
        Route("/api/replays", upload_replay, methods=["POST"]),
        Route("/api/replays/{id}", show_replay),
        Route("/api/replays/{id}", close_replay, methods=["DELETE"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={
        BadRequest: bad_request, HTTPException: no_route, LimitError: too_many,
        Exception: crashed},
        middleware=[Middleware(TrustedHostMiddleware, allowed_hosts=cfg.allowed_hosts),
                    Middleware(_SecurityHeaders), Middleware(_PlayerHeader)])
    app.state.games, app.state.replays, app.state.config = games, replays, cfg
    return app


__all__ = ["LOOPBACK", "PLAYER_HEADER", "ServerConfig", "attachment", "create_app",
           "default_opponents", "player_token"]
