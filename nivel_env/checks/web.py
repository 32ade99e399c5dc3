"""Hidden information in the browser game's answers: what the server tells a person's
seat is a function of what that seat may see (3.1.4, 3.1.5, 3.2.2, 3.8.2) and nothing else.

The observation check (``checks/hidden.py``) holds the encoder to this; this one holds
the web server (``nivel_env.web``) to it, answer by answer.  A game is played through the
Starlette app with its ``TestClient``, the person's moves drawn from the seed, against
the random opponent.  At every ``every``-th position of the person's, every answer the
server gives during play -- the game (whole log and the tail), the player's list of games
(``GET /api/games``), the review, replay download and rematch (refused until the game is
over), the errors of an illegal, a stale, a malformed and a counterless move and of a
malformed surrender, unknown games, decks and replays, a refused new game, a request
without a player token, the options and a deck list -- is taken in the real game and
again with the session's game swapped for worlds that differ only in what the seat cannot
see (``engine.hidden``: redrawn, substituted, relabelled).  The server's clock stands
still, so the listing's ages cannot tell two askings apart.  Each
answer (status and body) must be the same in every world, leave the game as it was, and
carry neither the game's seed nor its generator's state: the seed plus the recorded
moves rebuild every hidden card, and an answer built from the replay (not from the
game) would pass the world comparison while giving the whole game away.

Needs starlette and httpx2 (the web extra, also in dev); without them ``missing()`` says what to
install and the check runner skips this check with that line.
"""
from __future__ import annotations

import json

from ..engine.hidden import determinize, relabel, substitute
from ..engine.rng import next_u64, seed_state
from ..install_hints import extra

INSTALL = extra("web")


def missing() -> str | None:
    """None when the check can run; else one line naming what to install."""
    try:
        import starlette.testclient  # noqa: F401
        from ..web.app import create_app  # noqa: F401
    except ImportError as e:
        return f"needs starlette and httpx2, the web extra ({INSTALL}): {e}"
    return None


def web_seed(seed: int) -> int:
    """The seed a checked game is dealt with: ten digits, so that finding it in an answer
    is finding the seed, not a number that happens to share its digits."""
    return 1_000_000_007 + seed * 7919 % 1_000_000_000


#: the checked page's player token (the X-Nivel-Player header every request carries)
PLAYER = "web-check-player-0123456789"


def _client(deck_0, deck_1, config):
    from starlette.testclient import TestClient
    from ..web.app import PLAYER_HEADER, ServerConfig, create_app
    decks = {"deck-0": deck_0, "deck-1": deck_1}
    cfg = ServerConfig(db=deck_0.db, decks=decks, rules=config, per_client=8, total=16,
                       opponents={"random": ("random", "random: moves at random")},
                       clock=lambda: 0.0)
    app = create_app(cfg)
    return app, TestClient(app, base_url="http://127.0.0.1", headers={PLAYER_HEADER: PLAYER})


#: answers that do not read the game: asked once a position (for the seed), not per world;
#: (method, url, JSON body or None, the player header's value when not ``PLAYER``)
CONSTANT = (("GET", "/api/games/no-such-game", None, None),
            ("POST", "/api/games", {"deck": "no-such-deck"}, None),
            ("GET", "/api/options", None, None), ("GET", "/api/decks/deck-1", None, None),
            ("GET", "/api/decks/no-such-deck", None, None),
            ("GET", "/api/replays/no-such-replay", None, None),
            ("DELETE", "/api/replays/no-such-replay", None, None),
            ("GET", "/api/games", None, "another-player-0123"),
            ("POST", "/api/games", {}, ""))


def answers(client, key: str, s: dict, constant: bool = True) -> list[tuple[str, int, str]]:
    """(request, status, body) for every request a client can make during play that
    leaves the game as it is, at the position ``s`` (the game's last answer); the
    ``CONSTANT`` ones too with ``constant``."""
    legal = [m["action"] for m in s["legal"]]
    illegal = next(a for a in range(10 ** 6) if a not in legal)
    moves, total = s["moves"], s["log_total"]
    game = f"/api/games/{key}"
    from ..web.app import PLAYER_HEADER
    asks = [("GET", game, None, None),
            ("GET", f"{game}?since={max(0, total - 3)}", None, None),
            ("GET", f"{game}/hint", None, None),
            ("GET", "/api/games", None, None), ("POST", f"{game}/rematch", None, None),
            ("POST", f"{game}/review", None, None), ("GET", f"{game}/replay", None, None),
            ("POST", f"{game}/move", {"action": illegal, "moves": moves}, None),
            ("POST", f"{game}/move", {"action": legal[0] if legal else 0}, None),
            ("POST", f"{game}/move", {"action": "x", "moves": moves}, None),
            ("POST", f"{game}/surrender", {"since": -1}, None)]
    if moves and legal:
        asks.append(("POST", f"{game}/move", {"action": legal[0], "moves": moves - 1}, None))
    asks += CONSTANT if constant else ()
    out = []
    for method, url, body, player in asks:
        headers = None if player is None else {PLAYER_HEADER: player}
        r = client.request(method, url, json=body, headers=headers)
        out.append((f"{method} {url.replace(key, '{id}')}"
                    + (f" {json.dumps(body)}" if body else "")
                    + ("" if player is None else f" ({PLAYER_HEADER}: {player!r})"),
                    r.status_code, r.text))
    return out


def web_hidden_errors(deck_0, deck_1, seed: int, config=None, every: int = 3,
                      stats: dict | None = None) -> tuple[list[str], int]:
    """(errors, positions checked) for one game through the web app, the person at seat
    ``seed % 2`` moving at random from ``seed``; see the module docstring."""
    app, client = _client(deck_0, deck_1, config)
    with client:                     # one event loop for the game, not one a request
        return _play(app, client, seed, every,
                     stats if stats is not None else {})


def _play(app, client, seed, every, stats) -> tuple[list[str], int]:
    dealt = web_seed(seed)
    r = client.post("/api/games", json={"deck": "deck-0", "opponent_deck": "deck-1",
                                        "opponent": "random", "seat": seed % 2,
                                        "seed": dealt})
    if r.status_code != 201:
        return [f"a new game was refused: {r.status_code} {r.text[:200]}"], 0
    s = r.json()
    key = s["id"]
    session = app.state.games.get(key).value
    seat = session.human
    state, step, checked, out = seed_state(seed ^ 0x3EB), 0, 0, []

    def check_answer(what: str, text: str) -> None:
        """Neither the seed (by value or as a field) nor the generator's state."""
        secret = {"seed": str(dealt) in text or '"seed"' in text,
                  "generator state": str(session.g.rng) in text}
        for name in (k for k, v in secret.items() if v):
            out.append(f"move {session.moves}: {what} carries the game's {name} during play")

    check_answer("POST /api/games", r.text)
    while not s["over"]:
        if step % every == 0:
            checked += 1
            g = session.g
            before = (g.to_dict(), session.moves, len(session.log), len(app.state.replays))
            base = answers(client, key, s)
            for what, _status, text in base:
                check_answer(what, text)
            worlds = [("redrawn", determinize(g, seat, seed * 7919 + step)),
                      ("substituted", substitute(g, seat, seed * 7919 + step + 1)),
                      ("relabelled", relabel(g, seat, seed * 7919 + step + 2))]
            for how, h in worlds:
                session.g = h
                try:
                    other = answers(client, key, s, constant=False)
                finally:
                    session.g = g
                stats["comparisons"] = stats.get("comparisons", 0) + len(other)
                for (what, st0, t0), (_, st1, t1) in zip(base, other):
                    if (st0, t0) != (st1, t1):
                        out.append(f"move {session.moves}: {what} differs in a {how} world "
                                   f"of what seat {seat} cannot see ({st0} {t0[:160]!r} -> "
                                   f"{st1} {t1[:160]!r})")
                        break
            after = (g.to_dict(), session.moves, len(session.log), len(app.state.replays))
            if after != before:
                out.append(f"move {session.moves}: an answer during play changed the game "
                           f"or opened a replay")
            if out:
                return out, checked
        state, pick = next_u64(state)
        action = s["legal"][pick % len(s["legal"])]["action"]
        r = client.post(f"/api/games/{key}/move", json={"action": action, "moves": s["moves"],
                                                        "since": s["log_total"]})
        if r.status_code != 200:
            return out + [f"move {s['moves']}: the legal move {action} was refused: "
                          f"{r.status_code} {r.text[:200]}"], checked
        s = r.json()
        if not s["over"]:
            check_answer(f"POST /api/games/{{id}}/move (move {s['moves']})", r.text)
        step += 1
    # once the game is over the replay is the person's to keep and review
    done = [client.get(f"/api/games/{key}/replay"), client.post(f"/api/games/{key}/review")]
    if [x.status_code for x in done] != [200, 201] or str(dealt) not in done[0].text:
        out.append(f"after the game: replay and review answer "
                   f"{[x.status_code for x in done]}, not the replay and its viewer")
    return out, checked


__all__ = ["CONSTANT", "INSTALL", "PLAYER", "answers", "missing", "web_hidden_errors",
           "web_seed"]
