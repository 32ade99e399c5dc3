"""The browser game's server: every answer shows the person's seat only what it may see,
every move is checked by the engine (an illegal or stale one changes nothing), games are
limited per client and in time, and bad requests get clear errors, not a crash."""
import json
import os
import random

import pytest

pytest.importorskip("starlette.testclient", reason="needs the dev extra (starlette, httpx2)")
from starlette.testclient import TestClient  # noqa: E402

from nivel_env.engine.hidden import determinize, relabel, substitute  # noqa: E402
from nivel_env.web.app import PLAYER_HEADER, ServerConfig, create_app  # noqa: E402
from nivel_env.web.store import LimitError, Store  # noqa: E402
from nivel_env.web.view import legal_moves, seat_view  # noqa: E402


@pytest.fixture()
def app():
    return create_app(ServerConfig(per_client=3, total=5))


#: the page's player token: every POST and DELETE carries it (X-Nivel-Player)
ME = {PLAYER_HEADER: "0123456789abcdef0123456789abcdef"}


def _page(app, base_url="http://127.0.0.1", token=ME[PLAYER_HEADER]):
    """A client as the page is one: its requests carry the player token ``token``."""
    return TestClient(app, base_url=base_url, headers={PLAYER_HEADER: token})


@pytest.fixture()
def client(app):
    return _page(app)


def _new(client, **kw):
    r = client.post("/api/games", json={"opponent": "random", **kw})
    assert r.status_code == 201, r.text
    return r.json()


def _move(client, s, action, **kw):
    return client.post(f"/api/games/{s['id']}/move",
                       json={"action": action, "moves": s["moves"], "since": s["log_total"],
                             **kw})


def _worlds(g, seat, k):
    return [determinize(g, seat, k), substitute(g, seat, k), relabel(g, seat, k)]


def test_every_answer_of_a_whole_game_hides_what_the_seat_may_not_see(app, client):
    """The board and the moves sent are the same in every world that differs only in what
    the seat cannot see (the opponent's hand, both decks' order, instance names), and no
    answer carries the opponent's hand or a deck's cards."""
    rng = random.Random(7)
    checked = 0
    for seed in (4, 9):
        s = _new(client, seed=seed, deck="veil-piercers", opponent_deck="tide-scholars")
        session = app.state.games.get(s["id"]).value
        seat = session.human
        while True:
            g = session.g
            body = json.dumps(s)
            assert '"hand"' not in json.dumps(s["board"]["opponent"])
            assert '"deck": [' not in body and "instance" not in body
            q = s["board"]["question"] or ""
            assert not any(h in q for h in ("(e)", "(n)", "(y/n)", "(n: done)")), q
            if not s["over"] and checked % 3 == 0:
                for k, h in enumerate(_worlds(g, seat, checked)):
                    assert seat_view(h, seat) == s["board"], (seed, s["moves"], k)
                    assert legal_moves(h, seat) == s["legal"], (seed, s["moves"], k)
            checked += 1
            if s["over"]:
                break
            r = _move(client, s, rng.choice(s["legal"])["action"])
            assert r.status_code == 200, r.text
            s = r.json()
        assert s["outcome"] in ("win", "loss", "draw")
        assert s["log"][-1].startswith("Game over: ")
    assert checked > 40


def test_the_opponents_hand_is_a_count_and_its_cards_leave_no_trace(app, client):
    s = _new(client, seed=12)
    session = app.state.games.get(s["id"]).value
    opp = 1 - session.human
    hidden = {session.g.card(i).name for i in session.g.hand[opp]}
    public = set()
    for p in (0, 1):
        for zone in (session.g.trash, session.g.damage, session.g.skill, session.g.known):
            public |= {session.g.card(i).name for i in zone[p]}
        public |= {session.g.card(i).name for i in session.g.hand[session.human]}
        public |= {session.g.card(i).name for i in session.g.unit[p * 3:p * 3 + 3] if i >= 0}
    public |= {session.g.leader_face(p).name for p in (0, 1)}
    full = client.get(f"/api/games/{s['id']}").text
    assert s["board"]["opponent"]["hand_count"] == len(session.g.hand[opp])
    for name in hidden - public:
        assert name not in full, name


def test_an_illegal_or_stale_move_changes_nothing(app, client):
    s = _new(client, seed=3)
    session = app.state.games.get(s["id"]).value
    before = session.g.to_dict(), session.moves, len(session.log)
    legal = {m["action"] for m in s["legal"]}
    bad = next(a for a in range(337) if a not in legal)
    r = _move(client, s, bad)
    assert r.status_code == 409 and "not legal" in r.json()["error"] \
        and "nothing changed" in r.json()["error"]
    assert (session.g.to_dict(), session.moves, len(session.log)) == before
    ok = _move(client, s, s["legal"][0]["action"])
    assert ok.status_code == 200
    after = session.g.to_dict()
    r = _move(client, s, s["legal"][0]["action"])       # sent from the old page
    assert r.status_code == 409 and "out of date" in r.json()["error"]
    assert session.g.to_dict() == after
    for body in ({"action": "x"}, {"action": -1}, {"action": True}, {},
                 {"action": 2, "moves": "many"}):
        r = client.post(f"/api/games/{s['id']}/move", json=body)
        assert r.status_code == 400 and "action" in r.json()["error"] or \
            "moves" in r.json()["error"], body
    assert session.g.to_dict() == after


def test_bad_requests_get_clear_errors_and_the_server_stays_up(client):
    cases = [
        (client.post("/api/games", content=b"{not json"), 400, "not JSON"),
        (client.post("/api/games", content=b"[1, 2]"), 400, "JSON object"),
        (client.post("/api/games", json={"deck": "no-such-deck"}), 400, "no-such-deck"),
        (client.post("/api/games", json={"opponent": "../../etc/passwd"}), 400,
         "unknown opponent"),
        (client.post("/api/games", json={"opponent": "nv2-search:simulations=99999"}), 400,
         "unknown opponent"),
        (client.post("/api/games", json={"seed": -4}), 400, "seed"),
        (client.post("/api/games", json={"seat": 7}), 400, "seat"),
        (client.post("/api/games", json={"seat": True}), 400, "seat"),     # JSON true == 1
        (client.post("/api/games", json={"seat": 1.0}), 400, "seat"),
        (client.post("/api/games", content=b"x" * 20000), 413, "at most"),
        (client.get("/api/games/nope"), 404, "no such game"),
        (client.post("/api/games/nope/move", json={"action": 2}), 404, "no such game"),
        (client.get("/api/replays/nope"), 404, "no such replay"),
        (client.post("/api/replays", content=b"not a replay"), 400, "line 1"),
        (client.post("/api/replays", content=b"\xff\xfe"), 400, "UTF-8"),
    ]
    for r, status, words in cases:
        assert r.status_code == status, (r.status_code, r.text)
        assert words in r.json()["error"], r.json()
    assert client.get("/api/options").status_code == 200


def test_games_are_limited_per_client_and_in_time(client):
    ids = [_new(client, seed=i)["id"] for i in range(3)]
    r = client.post("/api/games", json={"opponent": "random"})
    assert r.status_code == 429 and "at most 3" in r.json()["error"]
    assert client.delete(f"/api/games/{ids[0]}").status_code == 200
    _new(client, seed=5)
    # a finished game counts for nobody: a player can go on playing game after game
    assert client.post(f"/api/games/{ids[1]}/surrender").json()["over"]
    fourth = _new(client, seed=6)
    assert client.post("/api/games", json={"opponent": "random"}).status_code == 429
    assert not fourth["over"]
    # a full server drops finished games first, and refuses when all are in play
    full = Store("games", per_client=1, total=2, done=lambda v: v == "over")
    over = full.add("over", "a")
    full.add("playing", "b")
    full.add("new", "c")
    assert full.get(over) is None and len(full) == 2
    with pytest.raises(LimitError, match="maximum of 2"):
        full.add("one more", "d")
    with pytest.raises(LimitError, match="at most 1"):
        full.add("second", "b")
    now = [0.0]
    store = Store("games", per_client=2, total=3, idle_s=10, lifetime_s=100,
                  clock=lambda: now[0])
    a = store.add("a", "x")
    now[0] = 5
    assert store.get(a).value == "a"                   # touched at 5
    now[0] = 14
    assert store.get(a) is not None                    # idle 9 < 10
    now[0] = 30
    assert store.get(a) is None and len(store) == 0    # idle too long
    b = store.add("b", "x")
    for t in range(35, 140, 5):                        # used often, but too old at last
        now[0] = t
        if store.get(b) is None:
            break
    assert now[0] >= 130 and store.get(b) is None


def test_a_game_saves_as_a_replay_that_loads_and_steps(client):
    s = _new(client, seed=8)
    rng = random.Random(1)
    while not s["over"]:
        s = _move(client, s, rng.choice(s["legal"])["action"]).json()
    r = client.get(f"/api/games/{s['id']}/replay")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    first = json.loads(r.text.splitlines()[0])
    assert first["kind"] == "header" and first["players"][s["seat"]] == "you"
    v = client.post("/api/replays?name=mine.jsonl", content=r.content)
    assert v.status_code == 201, v.text
    rep = v.json()
    assert rep["steps"] == s["moves"] and rep["step"] == 0 and rep["seat"] == s["seat"]
    assert "hand" in rep["board"]["opponent"]            # a replay shows both hands
    mid = client.get(f"/api/replays/{rep['id']}?step=5").json()
    assert mid["step"] == 5 and mid["lines"] and mid["next"]["name"]
    end = client.get(f"/api/replays/{rep['id']}?step=99999").json()
    assert end["step"] == end["steps"] and end["next"] is None and end["result"]
    assert any(line.startswith("Game over") for line in end["lines"])


def test_the_page_and_its_options(client):
    page = client.get("/")
    assert page.status_code == 200 and "Nivel Arena" in page.text
    assert client.get("/static/app.js").status_code == 200
    o = client.get("/api/options").json()
    names = [x["name"] for x in o["opponents"]]
    assert names[:4] == ["novice", "casual", "strong", "expert"] and "random" in names
    assert {"ember-rush", "stone-bastion"} <= {d["name"] for d in o["decks"]}
    from nivel_env.web.app import needs_torch
    assert [needs_torch(x) for x in ("novice", "casual", "heuristic:random_share=0.5",
                                     "strong", "expert", "nv2-ppo", "runs/x/policy.pt")] \
        == [False, False, False, True, True, True, True]
    import importlib.util
    torch = importlib.util.find_spec("torch") is not None
    assert [x["available"] for x in o["opponents"]][:4] == [True, True, torch, torch]
    rules = client.get("/api/rules").json()
    assert any(k.startswith("Pierce N (10.2.3.2)") for k in rules["keywords"])
    assert rules["glossary"]["Guardian"].startswith("Guardian (10.2.6.3)")


def test_serve_refuses_a_missing_policy_file_and_offers_given_ones(tmp_path, capsys):
    from nivel_env.__main__ import main
    assert main(["serve", "--policy", str(tmp_path / "nope.pt")]) == 2
    assert "nope.pt: no such policy file" in capsys.readouterr().err
    os.mkfifo(tmp_path / "pipe.pt")                           # refused by its type, not read
    assert main(["serve", "--policy", str(tmp_path / "pipe.pt")]) == 2
    assert "pipe.pt: not a regular file but a FIFO" in capsys.readouterr().err
    for flag, name in (("--policy", "nv2-ppo.pt"), ("--decks", "ember-rush.deck")):
        (tmp_path / name).write_text("mine")                  # would replace the bundled one
        assert main(["serve", flag, str(tmp_path / name)]) == 2
        assert f"named like the bundled '{name.split('.')[0]}'" in capsys.readouterr().err
    assert main(["serve", "--opponent", "grandmaster"]) == 2
    assert "unknown opponent 'grandmaster'" in capsys.readouterr().err
    assert main(["serve", "--decks", str(tmp_path / "no.deck")]) == 2
    assert "no.deck" in capsys.readouterr().err
    cfg = ServerConfig(opponents={"mine": ("heuristic", "mine: a test opponent")},
                       default_opponent="absent")
    c = _page(create_app(cfg), base_url="http://localhost:8000")
    o = c.get("/api/options").json()
    assert [x["name"] for x in o["opponents"]] == ["mine"] and o["default_opponent"] == "mine"
    assert c.post("/api/games", json={"opponent": "heuristic"}).status_code == 400
    assert c.post("/api/games", json={}).status_code == 201       # the default: mine


def test_a_local_server_answers_only_to_local_names_and_sends_safe_headers(app):
    other = TestClient(app, base_url="http://evil.example")
    assert other.get("/api/options").status_code == 400         # DNS rebinding: refused
    r = TestClient(app, base_url="http://localhost:8000").get("/")
    assert r.status_code == 200
    assert "default-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["x-content-type-options"] == "nosniff"


def test_a_trained_policy_and_the_search_agent_play_in_the_browser(client):
    pytest.importorskip("torch")
    for opponent in ("strong", "nv2-search"):
        s = _new(client, opponent=opponent, seed=6)
        for _ in range(6):
            if s["over"]:
                break
            s = _move(client, s, s["legal"][0]["action"]).json()
        assert s["board"]["turn"] >= 1 and s["opponent"] == opponent


# ---------------------------------------------------------------- issue 28, section 3
def _finish(client, s):
    """Surrender the game ``s``: the quickest way to a game that is over."""
    r = client.post(f"/api/games/{s['id']}/surrender", json={})
    assert r.status_code == 200 and r.json()["over"], r.text
    return r.json()


def test_review_and_the_replay_wait_for_the_end_of_the_game(app, client):
    """The replay holds the seed, and the seed with the moves deals every hidden card:
    no answer during play carries either."""
    s = _new(client, seed=1234567891, deck="veil-piercers", opponent_deck="tide-scholars")
    assert "seed" not in s and "1234567891" not in json.dumps(s)
    s = _move(client, s, s["legal"][0]["action"]).json()
    for r in (client.post(f"/api/games/{s['id']}/review"),
              client.get(f"/api/games/{s['id']}/replay"),
              client.get(f"/api/games/{s['id']}")):
        assert "1234567891" not in r.text and '"hand"' not in json.dumps(
            r.json().get("board", {}).get("opponent", {})), r.text[:300]
        if "/api/games/" in str(r.url) and str(r.url).endswith(s["id"]):
            assert r.status_code == 200 and "seed" not in r.json()
        else:
            assert r.status_code == 409, r.text
            assert "once the game is over" in r.json()["error"] \
                and "nothing changed" in r.json()["error"]
    assert len(app.state.replays) == 0                  # the refused review opened nothing
    end = _finish(client, s)
    assert end["seed"] == 1234567891                    # over: the seed is the player's
    assert client.get(f"/api/games/{s['id']}/replay").status_code == 200
    rev = client.post(f"/api/games/{s['id']}/review")
    assert rev.status_code == 201 and "hand" in rev.json()["board"]["opponent"]


def test_every_answer_during_play_is_the_same_in_every_world_the_seat_cannot_tell_apart():
    """Whole games through the API, both seats: every answer during play (game, log tail,
    review, replay, listing, each kind of error) unchanged when what the seat cannot see
    is redrawn, substituted or relabelled, and none carries the seed (checks/web.py)."""
    from nivel_env.cards import load_deck
    from nivel_env.checks.web import web_hidden_errors
    d0, d1 = load_deck("veil-piercers"), load_deck("tide-scholars")
    stats: dict = {}
    for seed in (4, 9):
        errs, checked = web_hidden_errors(d0, d1, seed, every=4, stats=stats)
        assert not errs, errs
        assert checked >= 8
    assert stats["comparisons"] > 500


def test_the_web_check_catches_a_leaked_hand_and_a_leaked_seed(monkeypatch):
    """The check is not blind: an answer showing the opponent's hand differs between
    worlds, and one carrying the generator's state (as the seed would) is caught."""
    import nivel_env.web.app as web_app
    from nivel_env.cards import load_deck
    from nivel_env.checks.web import web_hidden_errors
    d0, d1 = load_deck("ember-rush"), load_deck("stone-bastion")
    real = web_app.seat_view
    monkeypatch.setattr(web_app, "seat_view",
                        lambda g, seat, reveal=False: real(g, seat, reveal=True))
    errs, _ = web_hidden_errors(d0, d1, 2, every=1)
    assert errs and "differs in a redrawn world" in errs[0], errs
    monkeypatch.setattr(web_app, "seat_view",
                        lambda g, seat, reveal=False: {**real(g, seat, reveal),
                                                       "note": f"rng {g.rng}"})
    errs, _ = web_hidden_errors(d0, d1, 2, every=1)
    assert errs and "generator state" in " ".join(errs), errs
    monkeypatch.setattr(web_app, "seat_view", real)
    # the player's list of games is asked too: a seed planted in it is caught
    from nivel_env.web.store import Store
    monkeypatch.setattr(Store, "ages", lambda self, e: (float(getattr(e.value, "seed", 0)), 0.0))
    errs, _ = web_hidden_errors(d0, d1, 2, every=1)
    assert errs and "GET /api/games carries the game's seed" in errs[0], errs


CHUNK = 1 << 16


def _stream_post(app, path: str, chunks, headers=()) -> tuple[int, bytes, int]:
    """POST ``chunks`` to the app as a server hands a streamed body over (one ASGI
    ``http.request`` message a chunk, as uvicorn does; starlette's TestClient joins a body
    before sending it); (status, answer, chunks the app read)."""
    import anyio
    it, read, sent = iter(chunks), [0], []

    async def receive():
        for chunk in it:
            read[0] += 1
            return {"type": "http.request", "body": chunk, "more_body": True}
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": "POST", "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "client": ("127.0.0.1", 50000),
             "server": ("127.0.0.1", 8000), "state": {},
             "headers": [(b"host", b"127.0.0.1:8000"),
                         (PLAYER_HEADER.lower().encode(), ME[PLAYER_HEADER].encode()),
                         *headers]}
    anyio.run(app, scope, receive, send)
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    return status, b"".join(m.get("body", b"") for m in sent
                            if m["type"] == "http.response.body"), read[0]


def test_a_large_body_is_refused_as_it_streams_never_read_whole(app, client):
    """A body over the cap is refused (413) after reading about the cap, not the body:
    the chunks a streamed 300 MB body gave up are counted (it is never made whole)."""
    from nivel_env.web.app import MAX_BODY, MAX_REPLAY
    s = _new(client, seed=2)
    for path, cap in (("/api/games", MAX_BODY), ("/api/replays", MAX_REPLAY),
                      (f"/api/games/{s['id']}/move", MAX_BODY),
                      (f"/api/games/{s['id']}/surrender", MAX_BODY)):
        body = (b"7" * CHUNK for _ in range((300 << 20) // CHUNK))
        status, answer, read = _stream_post(app, path, body)
        assert status == 413 and b"at most" in answer, (path, status, answer)
        assert read * CHUNK <= cap + CHUNK, (path, read)
    assert not client.get(f"/api/games/{s['id']}").json()["over"]   # nothing changed
    # a declared length over the cap is refused before a byte is read
    status, answer, read = _stream_post(app, "/api/replays", iter([b"x"] * 10),
                                        [(b"content-length", b"300000000")])
    assert status == 413 and b"300,000,000 bytes" in answer and read == 0


def test_a_loaded_replay_can_be_closed_so_a_player_is_never_locked_out(client):
    s = _finish(client, _new(client, seed=8))
    text = client.get(f"/api/games/{s['id']}/replay").content
    ids = [client.post("/api/replays", content=text).json()["id"] for _ in range(3)]
    assert client.post("/api/replays", content=text).status_code == 429
    r = client.delete(f"/api/replays/{ids[0]}")
    assert r.status_code == 200 and r.json() == {"closed": ids[0]}
    assert client.get(f"/api/replays/{ids[0]}").status_code == 404
    assert client.delete(f"/api/replays/{ids[0]}").status_code == 404
    assert client.post("/api/replays", content=text).status_code == 201


def test_a_move_without_the_move_count_is_refused_not_played(app, client):
    s = _new(client, seed=3)
    session = app.state.games.get(s["id"]).value
    before = session.g.to_dict(), session.moves
    r = client.post(f"/api/games/{s['id']}/move", json={"action": s["legal"][0]["action"]})
    assert r.status_code == 400 and "'moves' is required" in r.json()["error"]
    assert (session.g.to_dict(), session.moves) == before
    # the stale page's message reads well for any counts: "1 move", never "-4 moves ago"
    assert s["moves"] == 1
    for seen, words in ((5, "after 5 moves, and the game has had 1 move;"),
                        (0, "after 0 moves, and the game has had 1 move;")):
        r = client.post(f"/api/games/{s['id']}/move",
                        json={"action": s["legal"][0]["action"], "moves": seen})
        assert r.status_code == 409 and words in r.json()["error"], r.text
        assert "ago" not in r.json()["error"] and "-" not in r.json()["error"]
    s = _move(client, s, s["legal"][0]["action"]).json()
    r = _move(client, {**s, "moves": 1}, s["legal"][0]["action"])
    assert f"after 1 move, and the game has had {s['moves']} moves;" in r.json()["error"]


def test_a_replay_of_a_deck_named_in_hangul_downloads(tmp_path):
    from urllib.parse import unquote
    from nivel_env.cards.deck import DECK_DIR
    text = (DECK_DIR / "ember-rush.deck").read_text(encoding="utf-8")
    lines = ["name: 불꽃 돌격" if ln.startswith("name:") else ln for ln in text.splitlines()]
    (tmp_path / "bul.deck").write_text("\n".join(lines) + "\n", encoding="utf-8")
    app = create_app(ServerConfig(decks={"bul": str(tmp_path / "bul.deck"),
                                         "stone-bastion": "stone-bastion"}))
    c = _page(app)
    s = _finish(c, _new(c, deck="bul", opponent_deck="stone-bastion", seed=5))
    r = c.get(f"/api/games/{s['id']}/replay")
    assert r.status_code == 200, r.text
    cd = r.headers["content-disposition"]
    assert cd.isascii() and cd.startswith('attachment; filename="nivel-')
    plain = cd.split('filename="')[1].split('"')[0]
    assert plain.endswith("-seed5.jsonl") and all(ch.isalnum() or ch in "-._" for ch in plain)
    encoded = cd.split("filename*=UTF-8''")[1]
    assert unquote(encoded) == "nivel-불꽃-돌격-vs-Stone-Bastion-seed5.jsonl"
    assert json.loads(r.text.splitlines()[0])["decks"][s["seat"]]["name"] == "불꽃 돌격"


def test_a_seed_the_server_draws_cannot_be_picked_out_from_the_opening_hand(app, client):
    """The person sees their opening hand; from a million seeds it would name the seed
    (and every hidden card). A drawn seed comes from 2^63."""
    seeds = [app.state.games.get(_new(client)["id"]).value.seed for _ in range(3)]
    assert min(seeds) >= 2 ** 32, seeds


def _serve_app(monkeypatch, *args):
    """The app ``python -m nivel_env serve ARGS`` would run, and what it printed."""
    import uvicorn
    from nivel_env.__main__ import main
    got = {}
    monkeypatch.setattr(uvicorn, "run", lambda app, **kw: got.update(app=app, **kw))
    assert main(["serve", *args]) == 0
    return got


def test_serving_a_network_still_answers_only_to_the_allowed_host_names(monkeypatch, capsys):
    got = _serve_app(monkeypatch, "--host", "0.0.0.0")
    assert got["host"] == "0.0.0.0"

    def status(app, host):
        return TestClient(app, base_url=f"http://{host}").get("/api/options").status_code
    assert status(got["app"], "evil.example") == 400
    assert status(got["app"], "127.0.0.1:8000") == 200
    assert status(got["app"], "localhost:8000") == 200
    out = capsys.readouterr().out
    assert "--allow-host" in out and "localhost" in out
    got = _serve_app(monkeypatch, "--host", "0.0.0.0", "--allow-host", "game.lan",
                     "--allow-host", "192.168.1.5")
    assert [status(got["app"], h) for h in ("game.lan:8000", "192.168.1.5", "evil.example",
                                            "localhost")] == [200, 200, 400, 200]
    got = _serve_app(monkeypatch, "--host", "192.168.1.5")
    assert [status(got["app"], h) for h in ("192.168.1.5:8000", "evil.example")] == [200, 400]
    got = _serve_app(monkeypatch, "--host", "myhost.lan")
    assert [status(got["app"], h) for h in ("myhost.lan", "evil.example")] == [200, 400]
    from nivel_env.__main__ import main
    for bad in ("http://game.lan", "game.lan:8000", "game lan"):
        assert main(["serve", "--allow-host", bad]) == 2
        assert f"--allow-host {bad!r} is not a host name" in capsys.readouterr().err
    assert main(["serve", "--host", "http://0.0.0.0"]) == 2
    assert "--host 'http://0.0.0.0' is not a host name" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--allow-host" in capsys.readouterr().out


def test_the_check_command_covers_the_web_answers(capsys):
    from nivel_env.__main__ import main
    assert main(["check", "--checks", "web", "--games", "100", "--no-progress",
                 "--decks", "ember-rush", "gale-runners"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("web "))
    games, positions, failures = row.split()[1:4]
    assert games == "1" and failures == "0" and int(positions) > 3, row
    assert "comparisons of the browser game's answers" in out and "all checks passed" in out


def test_the_web_check_is_skipped_in_one_line_without_the_web_extra(monkeypatch, capsys):
    import sys
    from nivel_env.__main__ import main
    monkeypatch.setitem(sys.modules, "starlette.testclient", None)   # as if not installed
    assert main(["check", "--checks", "hidden", "web", "--games", "10", "--no-progress",
                 "--decks", "ember-rush"]) == 0
    out = capsys.readouterr().out
    skipped = [line for line in out.splitlines() if "skipped" in line]
    assert len(skipped) == 1 and skipped[0].startswith("web ") \
        and 'pip install -e ".[web]"' in skipped[0], out
    assert "all checks passed" in out


# ---------------------------------------------------------------- issue 29
def test_a_players_games_are_listed_by_their_token_never_by_address(app):
    """Two browsers behind one address (the TestClient's) see only their own games: the
    id is the only key to a game, so listing by address would hand each one's games to
    the other.  Without a token the listing, and every POST and DELETE, is refused."""
    me, other = _page(app), _page(app, token="f" * 32)
    a, b = _new(me, seed=1), _new(me, seed=2)
    c = _new(other, seed=3)
    mine = me.get("/api/games").json()["games"]
    assert [g["id"] for g in mine] == [a["id"], b["id"]]
    assert [g["id"] for g in other.get("/api/games").json()["games"]] == [c["id"]]
    row = mine[0]
    assert set(row) == {"id", "deck", "opponent_deck", "opponent", "difficulty", "turn",
                        "over", "outcome", "your_move", "started_s", "idle_s"}
    assert (row["deck"], row["opponent_deck"], row["opponent"], row["turn"]) == \
        (a["deck"], a["opponent_deck"], "random", a["board"]["turn"])
    assert row["your_move"] and not row["over"] and row["outcome"] is None
    assert "seed" not in json.dumps(mine)
    bare = TestClient(app, base_url="http://127.0.0.1")
    before = len(app.state.games)
    for r in (bare.get("/api/games"), bare.post("/api/games", json={}),
              bare.post(f"/api/games/{a['id']}/surrender"), bare.delete(f"/api/games/{a['id']}"),
              bare.post(f"/api/games/{a['id']}/move", json={"action": 0, "moves": a["moves"]}),
              _page(app, token="short").get("/api/games"),
              _page(app, token="a" * 20 + "/../").post("/api/games", json={})):
        assert r.status_code == 400 and "X-Nivel-Player" in r.json()["error"], r.text
    assert len(app.state.games) == before and not me.get(f"/api/games/{a['id']}").json()["over"]
    # reading a game and downloading needs no token: the id is the key, a link can fetch it
    assert bare.get(f"/api/games/{a['id']}").status_code == 200


def test_a_full_client_is_pointed_at_its_list_and_closing_a_game_frees_its_place(app, client):
    ids = [_new(client, seed=i)["id"] for i in range(3)]
    r = client.post("/api/games", json={"opponent": "random"})
    assert r.status_code == 429 and "at most 3" in r.json()["error"]
    assert "'Your games' on the New game panel" in r.json()["error"]
    session = app.state.games.get(ids[0]).value
    r = client.delete(f"/api/games/{ids[0]}")            # close: surrender (1.2.4) and forget
    assert r.status_code == 200 and r.json() == {"closed": ids[0]}
    assert session.over and session.outcome() == "loss"
    assert session.log[-1].startswith("Game over: you ") and "surrender" in session.log[-1]
    assert [g["id"] for g in client.get("/api/games").json()["games"]] == ids[1:]
    assert client.get(f"/api/games/{ids[0]}").status_code == 404
    _new(client, seed=7)


def test_a_rematch_has_the_finished_games_choices_and_a_fresh_seed(app, client):
    s = _new(client, seed=77, deck="ember-rush", opponent_deck="stone-bastion", seat=1,
             difficulty="easy")
    before = len(app.state.games)
    r = client.post(f"/api/games/{s['id']}/rematch")
    assert r.status_code == 409 and "once the game is over" in r.json()["error"]
    assert len(app.state.games) == before
    _finish(client, s)
    other = _page(app, token="e" * 32)               # whoever holds the id; theirs to list
    r = other.post(f"/api/games/{s['id']}/rematch")
    assert r.status_code == 201, r.text
    new = r.json()
    assert (new["deck"], new["opponent_deck"], new["seat"], new["opponent"]) == \
        (s["deck"], s["opponent_deck"], 1, "random")
    assert not new["over"] and "seed" not in new and new["id"] != s["id"]
    session = app.state.games.get(new["id"]).value
    assert session.difficulty == "easy" and session.seed != 77 and session.seed >= 2 ** 32
    assert [g["id"] for g in other.get("/api/games").json()["games"]] == [new["id"]]
    # decks the seed dealt are the decks of the rematch too; the seat drawn again
    dealt = _finish(client, _new(client, seed=5))
    again = client.post(f"/api/games/{dealt['id']}/rematch").json()
    assert (again["deck"], again["opponent_deck"]) == (dealt["deck"], dealt["opponent_deck"])
    assert app.state.games.get(again["id"]).meta["choices"]["seat"] is None


def test_the_deck_lists_are_the_offered_decks_by_their_menu_names_only(client):
    from collections import Counter
    from nivel_env.cards import load_deck
    d = client.get("/api/decks/ember-rush").json()
    deck = load_deck("ember-rush")
    assert d["title"] == deck.name and d["leader"]["name"] == deck.leader.name
    assert d["size"] == 40 == sum(x["count"] for x in d["cards"])
    assert {x["card"]["id"]: x["count"] for x in d["cards"]} == Counter(deck.card_ids())
    assert all(x["card"]["text"] and x["card"]["line"] for x in d["cards"])
    for name in ("no-such-deck", "ember-rush.deck", "ember-rush%00", "EMBER-RUSH"):
        r = client.get(f"/api/decks/{name}")
        assert r.status_code == 404 and "on offer" in r.json()["error"], (name, r.text)
    for path in ("..", "..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "..%2Fdecks%2Fember-rush"):
        r = client.get(f"/api/decks/{path}")                  # a path is no deck's name
        assert r.status_code == 404 and "Not Found" in r.json()["error"], (path, r.text)


def test_the_battle_in_progress_is_shown_by_lanes_and_sides():
    """seat_view's battle names the attacker's and, once declared, the blocker's side and
    lane as each seat sees them, and never a card instance."""
    from nivel_env.engine.view import battle_info
    from nivel_env.session import PlaySession
    from nivel_env.engine.const import Z_UNIT
    seen = {"attacker": 0, "defender": 0}
    for decks, seed in ((("anvil-guild", "dawn-ascent"), 1), (("anvil-guild", "dawn-ascent"), 2),
                        (("ember-rush", "stone-bastion"), 1)):
        g = PlaySession(*decks, "random", seed=seed).g       # both seats moved at random
        rng = random.Random(seed)
        while g.result is None:
            b = battle_info(g)
            for seat in (0, 1):
                shown = seat_view(g, seat)["battle"]
                if b is None or g.result is not None:
                    assert shown is None
                    continue
                side = "you" if g.owner(b.attacker) == seat else "opponent"
                assert shown["attacker"] == {"side": side, "lane": b.lane}
                if b.defender >= 0 and g.zone(b.defender) == Z_UNIT:
                    mine = g.owner(b.defender) == seat
                    assert shown["defender"] == {"side": "you" if mine else "opponent",
                                                 "lane": g.lane(b.defender)}
                    assert shown["defender"]["side"] != side
                    seen["defender"] += 1
                else:
                    assert shown["defender"] is None
                assert set(shown) == {"attacker", "defender"}
                seen["attacker"] += 1
            g.apply_action(rng.choice(g.legal_actions()))
        assert seat_view(g, 0)["battle"] is None                  # over: no battle shown
    assert seen["attacker"] > 10 and seen["defender"] > 0, seen


def test_each_legal_move_says_its_kind(client):
    s = _new(client, seed=3)
    assert {(m["kind"], m["key"]) for m in s["legal"]} == {("keep", "k"), ("mulligan", "m")}
    s = _move(client, s, 0).json()
    from nivel_env.engine.actions import range_of
    assert all(m["kind"] == range_of(m["action"]).lower() for m in s["legal"])
    assert any(m["kind"] == "end_main" for m in s["legal"])
