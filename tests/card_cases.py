"""Per-card scenario tests written as data (tests/cards/*.yaml).

Each case builds a position (the scenario format of docs/scenarios.md), plays
actions by name and checks the board.  A case looks like::

    - card: FI-02                      # or cards: [FI-02, FI-05]
      about: Chain 1 gives +1 power once an attack was declared
      setup:                           # a scenario; players default to
        players:                       #   p0 LD-06 level 6, p1 LD-08 level 6,
          - {units: [FI-02, FI-05]}    #   decks of 10 EA-29 (no trigger),
          - {}                         #   config choose_effect_order false
      steps:
        - expect: {p0: {power: [2, 3, null]}}
        - end main                     # a step: the one legal action whose name
        - attack with Flame Reaver     #   contains the text (or equals it)
        - expect: {p0: {power: [3, 3, null]}}

``expect`` keys per player (``p0``/``p1``): units, power, hit (lists of three,
``null`` for an empty lane or "don't care"), items (per-lane id lists),
keywords (per-lane lists that must be present), hand / deck / trash / damage /
skills (a count, or a list of ids that must all be there), hand_lacks /
trash_lacks, level, size, awake.  Top level: decision (kind), player (who
decides), legal / illegal (action-name fragments), candidates (pick count),
winner (0, 1, "draw", or "none" while the game goes on).
"""
from __future__ import annotations

from pathlib import Path

import yaml

from nivel_env.cards import load_card_db
from nivel_env.engine.scenario import build
from nivel_env.engine.stats import ensure
from nivel_env.engine.view import derived

CASE_DIR = Path(__file__).parent / "cards"
DEFAULT_PLAYERS = ({"leader": "LD-06", "level": 6}, {"leader": "LD-08", "level": 6})
FILLER = "EA-29"


def load_cases() -> list[dict]:
    cases = []
    for path in sorted(CASE_DIR.glob("*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or []
        for i, c in enumerate(data):
            c["_where"] = f"{path.name}[{i}]"
            cases.append(c)
    return cases


def case_cards(case: dict) -> list[str]:
    return [case["card"]] if "card" in case else list(case["cards"])


def scenario(case: dict) -> dict:
    setup = dict(case.get("setup") or {})
    players = list(setup.get("players") or [{}, {}])
    full = []
    for p in (0, 1):
        pd = {**DEFAULT_PLAYERS[p], **(players[p] or {})}
        pd.setdefault("deck", [FILLER] * 10)
        full.append(pd)
    setup["players"] = full
    # simultaneous effects resolve in trigger order unless a case asks to choose (1.3.5)
    setup["config"] = {"choose_effect_order": False, **(setup.get("config") or {})}
    setup.setdefault("check_field_cost", False)     # cases put what they test on the field
    return setup


def mentioned(setup: dict) -> set[str]:
    out = set()
    for pd in setup["players"]:
        out.add(pd["leader"])
        for key in ("hand", "deck", "skills", "damage", "trash"):
            out.update(pd.get(key, []))
        for u in pd.get("units", []):
            if isinstance(u, dict):
                out.add(u["card"])
                out.update(u.get("items", []))
            elif u:
                out.add(u)
    return out


def act(g, text: str) -> None:
    legal = g.legal_actions()
    named = {a: g.action_name(a) for a in legal}
    exact = [a for a, n in named.items() if n == text]
    hits = exact or [a for a, n in named.items() if text in n]
    if len({named[a] for a in hits}) == 1:       # identical choices (two copies): any will do
        hits = hits[:1]
    assert len(hits) == 1, f"step {text!r} matches {[named[a] for a in hits]} of {list(named.values())}"
    g.apply_action(hits[0])


def _ids(g, iids) -> list[str]:
    return [g.card(i).id for i in iids]


def _count_or_has(label: str, got: list[str], want) -> None:
    if isinstance(want, int):
        assert len(got) == want, f"{label}: {len(got)} cards {got}, expected {want}"
    else:
        missing = [w for w in want if w not in got]
        assert not missing, f"{label}: {missing} not in {got}"


def check(g, exp: dict) -> None:
    ensure(g)
    for key, want in exp.items():
        if key in ("p0", "p1"):
            _check_player(g, int(key[1]), want)
        elif key == "decision":
            got = g.decision.kind if g.decision else None
            assert got == want, f"decision is {got}, expected {want}"
        elif key == "player":
            assert g.current_player == want, f"player {g.current_player} decides, expected {want}"
        elif key in ("legal", "illegal"):
            names = [g.action_name(a) for a in g.legal_actions()]
            for frag in want:
                found = any(frag in n for n in names)
                assert found == (key == "legal"), f"{frag!r} {'not ' if key == 'legal' else ''}" \
                                                  f"among legal actions {names}"
        elif key == "candidates":
            got = len(g.decision.context.get("candidates", ()))
            assert got == want, f"{got} candidates, expected {want}"
        elif key == "winner":
            r = g.returns() if g.is_terminal() else None
            got = "none" if r is None else (0 if r[0] > 0 else 1 if r[1] > 0 else "draw")
            assert got == want, f"winner {got}, expected {want}"
        else:
            raise AssertionError(f"unknown expect key {key!r}")


def _check_player(g, p: int, exp: dict) -> None:
    for key, want in exp.items():
        label = f"p{p}.{key}"
        if key in ("units", "power", "hit"):
            for lane, w in enumerate(want):
                iid = g.unit[p * 3 + lane]
                if key == "units":
                    got = g.card(iid).id if iid >= 0 else None
                    assert got == w, f"{label}[{lane}] is {got}, expected {w}"
                elif w is not None:
                    assert iid >= 0, f"{label}[{lane}]: lane is empty"
                    got = (derived(g).power if key == "power" else derived(g).hit)[p * 3 + lane]
                    assert got == w, f"{label}[{lane}] is {got}, expected {w}"
        elif key == "items":
            for lane, w in enumerate(want):
                got = sorted(_ids(g, g.items[p * 3 + lane]))
                assert got == sorted(w or []), f"{label}[{lane}] is {got}, expected {w}"
        elif key == "keywords":
            for lane, w in enumerate(want):
                got = {k.name for k in derived(g).keywords[p * 3 + lane]}
                for kw in w or []:
                    assert kw in got, f"{label}[{lane}]: {kw} not in {got}"
        elif key in ("hand", "deck", "trash", "damage", "skills"):
            zone = {"hand": g.hand, "deck": g.deck, "trash": g.trash, "damage": g.damage,
                    "skills": g.skill}[key][p]
            _count_or_has(label, _ids(g, zone), want)
        elif key in ("hand_lacks", "trash_lacks"):
            zone = (g.hand if key == "hand_lacks" else g.trash)[p]
            got = _ids(g, zone)
            bad = [w for w in want if w in got]
            assert not bad, f"{label}: {bad} should not be in {got}"
        elif key == "level":
            assert g.level[p] == want, f"{label} is {g.level[p]}, expected {want}"
        elif key == "size":
            assert derived(g).size[p] == want, f"{label} is {derived(g).size[p]}, expected {want}"
        elif key == "awake":
            assert g.awake[p] == want, f"{label} is {g.awake[p]}, expected {want}"
        else:
            raise AssertionError(f"unknown expect key {label!r}")


def run_case(case: dict, db=None):
    db = db or load_card_db()
    g = build(scenario(case), db, case["_where"])
    for step in case.get("steps", []):
        if isinstance(step, str):
            act(g, step)
        elif isinstance(step, dict) and set(step) == {"expect"}:
            check(g, step["expect"])
        else:
            raise AssertionError(f"{case['_where']}: bad step {step!r}")
    return g
