"""Card analytics from benchmark games: which cards pull their weight.

The measures card-game analytics sites give players, per deck and card (by card id: the
copies of a card count as one), over the games that deck played:

* ``in_hand`` (games in hand, GIH): games in which the card was in the hand at some point
  after the mulligan -- in the opening hand or drawn later -- and the deck's win rate in
  them (a draw counts half);
* ``opening`` (OH): games with it in the opening hand, and that win rate;
* ``played`` (GP): games in which the deck played it, and that win rate;
* ``not_in_hand`` (GNS): games it never reached the hand, and that win rate;
* ``drawn`` (GD): games it reached the hand only after the opening hand (drawn, searched
  or returned later, no copy in the opening hand), and that win rate;
* ``mulliganed``: games in which a copy was in the hand the mulligan sent back (5.1.6.1),
  and that win rate -- beside ``opening``, whether the deck does better keeping it;
* ``iwd``, the improvement when drawn: GIH win rate minus GNS win rate.  A card with a
  large positive IWD wins games when it shows up; near zero or negative, the deck does as
  well without it (a candidate to cut).  Like every such measure it is correlation, not
  cause: a card drawn late is drawn in long games, a card played is played when things
  go well.

Each row also splits the rates by the opposing deck (``by_opponent``) and gives the win
rate by the deck's own turn on which it first played the card (``by_turn``,
``TURN_BUCKETS``).

Intervals are 95% percentile intervals of a bootstrap over the run's seeds: a duplicate
deal's two games, in which a deck draws the same cards twice, and every pairing played on
the same seed, in which a deck draws the same cards against each opponent it meets in the
same seat, are resampled together, since they are correlated.  Every rate comes with its
number of games; one resting on fewer than ``min_games`` games is still given but flagged
(``*_few``: the report greys it): a card some leader fetches into hand nearly every game
has no "not drawn" games to compare with, and its IWD would be noise.

Reading thirty IWDs at once, some interval will miss zero by chance.  Each IWD with enough
games on both sides gets a two-sided p-value for "IWD = 0" from its bootstrap standard
error (normal approximation), and the Benjamini-Hochberg adjustment over all of them
(``scipy.stats.false_discovery_control``): ``iwd_q``; ``iwd_significant`` marks the cards
with ``iwd_q`` below ``ALPHA``, a set in which at most that share is expected to be false
discoveries.
"""
from __future__ import annotations

import csv
import html
import json
from pathlib import Path

import numpy as np
from scipy import stats

MEASURES = ("in_hand", "opening", "played", "not_in_hand", "drawn", "mulliganed")
MEASURE_NAMES = {"in_hand": "GIH", "opening": "opening hand", "played": "played",
                 "not_in_hand": "not drawn", "drawn": "drawn later",
                 "mulliganed": "mulliganed"}

MIN_GAMES = 30     # fewer games than this behind a rate: too few to read it (flagged, greyed)
ALPHA = 0.05       # false discovery rate of the cards marked significant

#: the deck's own turn on which it first played a card, bucketed: each number starts a
#: bucket, the last one open ("6+"); heuristic-pilot games last 4 to 10 turns a seat
TURN_BUCKETS = (1, 2, 3, 4, 5, 6)

#: side fields that results recorded before them lack, and the measures that need them
LATER_FIELDS = {"mulliganed": "the mulliganed rates are empty",
                "played_turns": "the by-turn table is empty",
                "seed": "the intervals resample each unit on its own, not a seed's units "
                        "together"}

_NESTED = ("by_opponent", "by_turn")


def turn_labels() -> list[str]:
    """``TURN_BUCKETS`` as the report names them: "1", "2", ..., "6+"."""
    last = len(TURN_BUCKETS) - 1
    return [f"{t}+" if i == last else (f"{t}" if TURN_BUCKETS[i + 1] == t + 1
                                       else f"{t}-{TURN_BUCKETS[i + 1] - 1}")
            for i, t in enumerate(TURN_BUCKETS)]


def unrecorded(units) -> list[str]:
    """The side fields (``LATER_FIELDS``) that some side of ``units`` lacks: games
    recorded before ``arena.CardLog`` kept them."""
    return [f for f in LATER_FIELDS if any(f not in s for unit in units for s in unit)]


def _opponents(unit) -> list:
    """The opposing deck of each side of ``unit``: its ``opponent`` field, else the other
    seat of the same game (a unit lists each game's two seats in turn, as
    ``deck_commands._collect`` builds it)."""
    return [s.get("opponent", unit[i ^ 1]["deck"] if i ^ 1 < len(unit) else None)
            for i, s in enumerate(unit)]


def _first_turns(s, where: str) -> dict:
    """card id -> the deck's own turn on which side ``s`` first played it."""
    played, turns = s["played"], s["played_turns"]
    if len(turns) != len(played):
        raise ValueError(f"{where}: 'played_turns' has {len(turns)} entries but 'played' "
                         f"has {len(played)}; they go in pairs (arena.CardLog)")
    first: dict = {}
    for card, t in zip(played, turns):
        first.setdefault(card, int(t))
    return first


def _bucket(turn: int) -> int:
    return max(0, int(np.searchsorted(TURN_BUCKETS, turn, side="right")) - 1)


def _rate(a, m):
    """Win rate of measure ``m`` in ``a`` (games and points interleaved, last axis)."""
    n, p = a[..., 2 * m], a[..., 2 * m + 1]
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, p / np.where(n > 0, n, 1), np.nan)


def card_table(units, samples: int = 1000, seed: int = 0, decks=None, names=None,
               deck_lists=None, min_games: int = MIN_GAMES, alpha: float = ALPHA,
               say=print) -> list:
    """Rows per (deck, card) from ``units``: lists of game sides, each a dict with
    ``deck``, ``points`` (1, 0.5, 0) and the card-id lists of ``arena.CardLog.sides()``:
    ``opening``, ``in_hand``, ``played``, and (results recorded since they were added)
    ``mulliganed`` and ``played_turns``; a unit lists each game's two seats in turn (the
    other seat is the opposing deck).  ``decks``: keep only these deck names.  ``names``:
    card id -> display name.  ``deck_lists``: deck name -> its card ids, so that a card
    never drawn still gets a row.

    Each measure (``MEASURES``) gives ``*_games``, ``*_win`` (None with no game),
    ``*_low``/``*_high`` (bootstrap) and ``*_few`` (fewer than ``min_games`` games: read
    with care); ``mulliganed_games`` is None where no side recorded mulligans.  ``iwd``
    (None unless both of its rates exist), its interval, ``iwd_se`` (bootstrap),
    ``iwd_few``, ``iwd_p`` (None where the bootstrap does not vary), ``iwd_q`` and
    ``iwd_significant`` (``mark_significant``: None outside its family).  ``by_opponent``:
    the rates and IWD per opposing deck; ``by_turn``: per ``TURN_BUCKETS`` bucket the
    games in which the deck first played the card on such a turn and its win rate there
    (empty where no side recorded turns).  The bootstrap draws a seed's units together
    (``_weights``).  ``say`` is told once when the results predate some field.  Sorted:
    IWDs with enough games best first, then the flagged, then the cards without one."""
    sides = [(u, s, o) for u, unit in enumerate(units) for s, o in zip(unit, _opponents(unit))
             if decks is None or s["deck"] in decks]
    if not sides:
        return []
    missing = unrecorded([[s for _, s, _ in sides]])
    if missing:
        say(f"note: these results were recorded before each game side kept "
            f"{', '.join(missing)}: {'; '.join(LATER_FIELDS[f] for f in missing)}")
    played_decks = {s["deck"] for _, s, _ in sides}
    keys = sorted({(s["deck"], c) for _, s, _ in sides
                   for c in s["in_hand"] + s["opening"] + s["played"]
                   + list(s.get("mulliganed", ()))}
                  | {(d, c) for d, ids in (deck_lists or {}).items()
                     if d in played_decks for c in ids})
    col = {k: i for i, k in enumerate(keys)}
    n_units, k, n_m = len(units), len(keys), len(MEASURES)
    # per unit and key: games and points of each measure, interleaved
    stat = np.zeros((n_units, k, 2 * n_m))
    versus: dict = {}                 # (deck, card, opponent) -> the same, summed
    games_vs: dict = {}               # (deck, opponent) -> games
    turn_stat: dict = {}              # (deck, card) -> buckets x (games, points)
    deck_games: dict = {}
    recorded = {"mulliganed": set(), "played_turns": set()}     # decks with the field
    by_deck: dict = {}
    for key in keys:
        by_deck.setdefault(key[0], []).append(col[key])
    for u, s, opp in sides:
        deck, pts = s["deck"], float(s["points"])
        deck_games[deck] = deck_games.get(deck, 0) + 1
        games_vs[deck, opp] = games_vs.get((deck, opp), 0) + 1
        held, opened, played = set(s["in_hand"]), set(s["opening"]), set(s["played"])
        mull = set(s["mulliganed"]) if "mulliganed" in s else None
        if mull is not None:
            recorded["mulliganed"].add(deck)
        for j in by_deck[deck]:
            card = keys[j][1]
            hits = (card in held, card in opened, card in played, card not in held,
                    card in held and card not in opened, mull is not None and card in mull)
            row = np.zeros(2 * n_m)
            for m, hit in enumerate(hits):
                if hit:
                    row[2 * m] = 1
                    row[2 * m + 1] = pts
            stat[u, j] += row
            v = versus.setdefault((deck, card, opp), np.zeros(2 * n_m))
            v += row
        if "played_turns" in s:
            recorded["played_turns"].add(deck)
            for card, t in _first_turns(s, f"a game side of deck {deck!r}").items():
                ts = turn_stat.setdefault((deck, card), np.zeros((len(TURN_BUCKETS), 2)))
                ts[_bucket(t)] += (1, pts)
    total = stat.sum(axis=0)                                    # (k, 2 n_m)
    weights = _weights(units, samples, seed)
    boot = (weights.astype(float) @ stat.reshape(n_units, -1)).reshape(samples, k, -1)
    opponents = sorted({o for d, o in games_vs if o is not None})

    rows = []
    for j, (deck, card) in enumerate(keys):
        row = {"deck": deck, "card": card, "name": (names or {}).get(card, card),
               "games": deck_games[deck]}
        row.update(_rates(total[j], boot[:, j], min_games))
        if deck not in recorded["mulliganed"]:
            row.update(mulliganed_games=None, mulliganed_few=True)
        row["by_opponent"] = []
        for o in opponents:
            if (deck, o) not in games_vs:
                continue
            r = {"opponent": o, "games": games_vs[deck, o]}
            r.update(_rates(versus.get((deck, card, o), np.zeros(2 * n_m)), None,
                            min_games))
            if deck not in recorded["mulliganed"]:
                r.update(mulliganed_games=None, mulliganed_few=True)
            row["by_opponent"].append(r)
        row["by_turn"] = []
        if deck in recorded["played_turns"]:
            ts = turn_stat.get((deck, card), np.zeros((len(TURN_BUCKETS), 2)))
            for label, (n, p) in zip(turn_labels(), ts):
                row["by_turn"].append({"turns": label, "games": int(n),
                                       "win": _round(p / n) if n else None,
                                       "few": bool(n < min_games)})
        rows.append(row)
    mark_significant(rows, alpha)
    rows.sort(key=lambda r: (r["iwd"] is None, bool(r["iwd_few"]),
                             -(r["iwd"] if r["iwd"] is not None else 0), r["deck"], r["card"]))
    return rows


def _weights(units, samples: int, seed: int) -> np.ndarray:
    """Bootstrap weights, (samples, units): how often each unit is drawn.  Units whose
    sides name the same ``seed`` are drawn together: the deck runs play every pair on
    the same seeds, so a deck draws the same cards against each opponent it met in the
    same seat, and those units are not independent.  Without seeds (older results) each
    unit is drawn on its own."""
    rng = np.random.default_rng(seed)
    seeds = [{s.get("seed") for s in unit} for unit in units]
    if all(len(x) == 1 and None not in x for x in seeds):
        labels = [next(iter(x)) for x in seeds]
        index = {v: i for i, v in enumerate(dict.fromkeys(labels))}
        of = np.array([index[v] for v in labels])
    else:
        of = np.arange(len(units))
    n = int(of.max()) + 1
    return rng.multinomial(n, np.full(n, 1 / n), size=samples)[:, of]


def _rates(tot, boot, min_games: int) -> dict:
    """Each measure's games, win rate, interval (with ``boot``: bootstrap sums, samples
    first) and few-games flag; then the IWD and, with ``boot``, its interval, standard
    error and p-value."""
    out: dict = {}
    few = {}
    for m, measure in enumerate(MEASURES):
        n = int(tot[2 * m])
        few[measure] = n < min_games
        out[f"{measure}_games"] = n
        out[f"{measure}_win"] = _round(_rate(tot, m))
        if boot is not None:
            b = _rate(boot, m)
            b = b[~np.isnan(b)]
            lo, hi = np.percentile(b, [2.5, 97.5]) if len(b) else (np.nan, np.nan)
            out[f"{measure}_low"], out[f"{measure}_high"] = _round(lo), _round(hi)
        out[f"{measure}_few"] = few[measure]
    iwd = _rate(tot, 0) - _rate(tot, 3)
    out["iwd"] = _round(iwd)
    if boot is not None:
        b = _rate(boot, 0) - _rate(boot, 3)
        b = b[~np.isnan(b)] if out["iwd"] is not None else b[:0]
        lo, hi = np.percentile(b, [2.5, 97.5]) if len(b) else (np.nan, np.nan)
        se = float(np.std(b, ddof=1)) if len(b) > 1 else np.nan
        out["iwd_low"], out["iwd_high"], out["iwd_se"] = _round(lo), _round(hi), _round(se)
        # two-sided, normal approximation with the bootstrap's standard error
        out["iwd_p"] = (float(2 * stats.norm.sf(abs(float(iwd)) / se))
                        if out["iwd"] is not None and se > 0 else None)
    out["iwd_few"] = bool(few["in_hand"] or few["not_in_hand"])
    return out


def mark_significant(rows, alpha: float = ALPHA) -> list:
    """Benjamini-Hochberg over ``rows``' IWDs that are not flagged few and have a p-value
    (``iwd_p``): sets ``iwd_q`` (the adjusted p-value) and ``iwd_significant``
    (``iwd_q < alpha``); None for the rows outside that family.  Returns the family."""
    family = [r for r in rows if r.get("iwd_p") is not None and not r["iwd_few"]]
    for r in rows:
        r["iwd_q"] = r["iwd_significant"] = None
    if family:
        q = stats.false_discovery_control([r["iwd_p"] for r in family], method="bh")
        for r, x in zip(family, q):
            r["iwd_q"] = _sig(x)
            r["iwd_significant"] = bool(x < alpha)
    for r in rows:
        if r.get("iwd_p") is not None:
            r["iwd_p"] = _sig(r["iwd_p"])
    return family


def _sig(x) -> float:
    """``x`` to 4 significant digits (a p-value may be tiny)."""
    return float(f"{float(x):.4g}")


def _round(x):
    x = float(x)
    return None if x != x else round(x, 4)


def _flat(rows, nested: str) -> list:
    """The rows of ``rows``' nested table ``nested``, each with its deck and card."""
    return [{"deck": r["deck"], "card": r["card"], "name": r["name"], **x}
            for r in rows for x in r[nested]]


def _write_csv(path: Path, rows, fallback) -> None:
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else fallback)
        w.writeheader()
        w.writerows(rows)


def write_card_report(rows, out: Path, stem: str = "cards", top: int = 30) -> list[Path]:
    """CSV (one row per deck and card; the per-opponent and by-turn tables in
    ``STEM_by_opponent.csv`` and ``STEM_by_turn.csv``) and JSON (everything) of ``rows``,
    and a plot of the IWD with its interval for the ``top`` cards by how often they were
    in hand (a star: significant after the correction)."""
    out.mkdir(parents=True, exist_ok=True)
    files = [out / f"{stem}.csv", out / f"{stem}.json", out / f"{stem}.png",
             out / f"{stem}_by_opponent.csv", out / f"{stem}_by_turn.csv"]
    _write_csv(files[0], [{k: v for k, v in r.items() if k not in _NESTED} for r in rows],
               ["deck", "card"])
    files[1].write_text(json.dumps(rows, indent=1, ensure_ascii=False))
    _write_csv(files[3], _flat(rows, "by_opponent"), ["deck", "card", "opponent"])
    _write_csv(files[4], _flat(rows, "by_turn"), ["deck", "card", "turns"])
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    shown = [r for r in rows if r["iwd"] is not None and not r["iwd_few"]]
    shown = sorted(sorted(shown, key=lambda r: -r["in_hand_games"])[:top],
                   key=lambda r: r["iwd"])
    fig, ax = plt.subplots(figsize=(7.5, 1.2 + 0.28 * max(1, len(shown))))
    y = np.arange(len(shown))
    iwd = np.array([r["iwd"] for r in shown])
    lo = np.array([r["iwd_low"] if r["iwd_low"] is not None else r["iwd"] for r in shown])
    hi = np.array([r["iwd_high"] if r["iwd_high"] is not None else r["iwd"] for r in shown])
    ax.barh(y, iwd, xerr=[iwd - lo, hi - iwd], color=np.where(iwd >= 0, "#4c9a5a", "#c0504d"),
            capsize=2)
    multi = len({r["deck"] for r in shown}) > 1
    ax.set_yticks(y, [f"{'* ' if r.get('iwd_significant') else ''}{r['name']} "
                      f"({r['card']}{', ' + r['deck'] if multi else ''})"
                      for r in shown], fontsize=7)
    ax.axvline(0, color="grey", lw=0.8)
    ax.set_xlabel("improvement when drawn: win rate in hand minus never in hand (95%)")
    ax.set_title(f"Card impact ({len(shown)} cards most often in hand; "
                 f"* significant, BH FDR {ALPHA})")
    fig.tight_layout()
    fig.savefig(files[2], dpi=110)
    plt.close(fig)
    return files


# ------------------------------------------------------------------ the report's section

_GREY = ' style="color:#aaa"'


def _cell(rate, n=None, few: bool = False) -> str:
    """A table cell: the rate (3 places) and, given, its games; grey when ``few``."""
    text = "" if rate is None else f"{rate:.3f}"
    if n is not None:
        text = f"{text} ({n})" if text else f"({n})"
    return f"<td{_GREY if few else ''}>{html.escape(text)}</td>"


def _table(head, body) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in head)
    return f"<table><tr>{cells}</tr>{''.join(body)}</table>"


def _label(r) -> str:
    return (f"<td>{html.escape(r['deck'])}</td>"
            f"<td style=\"text-align:left\">{html.escape(r['name'])}</td>")


SHOWN = ("in_hand", "opening", "drawn", "mulliganed", "played", "not_in_hand")


def cards_html(rows, limit: int = 40, top: int = 10, min_games: int = MIN_GAMES) -> str:
    """The report's card tables: the main one (first ``limit`` rows), then per opposing
    deck and by turn played for the ``top`` cards most often in hand (all rows are in the
    CSV and JSON files).  Each rate is followed by its games; grey where fewer than
    ``min_games``."""
    main = []
    for r in rows[:limit]:
        cells = [_label(r)]
        for m in SHOWN:
            cells.append(_cell(r[f"{m}_win"], r[f"{m}_games"], r[f"{m}_few"]))
        few = r["iwd_few"]
        iwd = "" if r["iwd"] is None else f"{r['iwd']:+.3f}"
        if r.get("iwd_low") is not None:
            iwd += f" [{r['iwd_low']:+.3f}, {r['iwd_high']:+.3f}]"
        cells.append(f"<td{_GREY if few else ''}>{html.escape(iwd)}</td>")
        q = r["iwd_q"]
        q = "" if q is None else "<0.001" if q < 0.001 else f"{q:.3f}"
        cells.append(f"<td{_GREY if few else ''}>{html.escape(q)}</td>")
        cells.append(f"<td>{'yes' if r['iwd_significant'] else ''}</td>")
        main.append("<tr>" + "".join(cells) + "</tr>")
    head = (["deck", "card"] + [f"{MEASURE_NAMES[m]} win (games)" for m in SHOWN]
            + ["IWD [95%]", "q (BH)", f"significant (q < {ALPHA})"])
    parts = [_table(head, main)]
    if any(r["mulliganed_games"] is None or not r["by_turn"] for r in rows):
        parts.insert(0, "<p class='note'>Some of these games were recorded before the card "
                        "logs kept the mulligan and the turn each card was played: for "
                        "their decks those columns and tables are empty.</p>")
    chosen = sorted(rows, key=lambda r: -r["in_hand_games"])[:top]
    opp = []
    for r in chosen:
        for x in r["by_opponent"]:
            cells = [_label(r), f"<td>{html.escape(str(x['opponent']))}</td>",
                     f"<td>{x['games']}</td>"]
            for m in ("in_hand", "opening", "drawn", "not_in_hand"):
                cells.append(_cell(x[f"{m}_win"], x[f"{m}_games"], x[f"{m}_few"]))
            cells.append(_cell(x["iwd"], None, x["iwd_few"]))
            opp.append("<tr>" + "".join(cells) + "</tr>")
    if opp:
        parts.append(f"<h3>Against each deck ({len(chosen)} cards most often in hand)</h3>")
        parts.append(_table(["deck", "card", "opponent", "games"]
                            + [f"{MEASURE_NAMES[m]} win (games)"
                               for m in ("in_hand", "opening", "drawn", "not_in_hand")]
                            + ["IWD"], opp))
    turn = []
    for r in chosen:
        if r["by_turn"]:
            turn.append("<tr>" + _label(r) + "".join(_cell(x["win"], x["games"], x["few"])
                                                     for x in r["by_turn"]) + "</tr>")
    if turn:
        parts.append(f"<h3>By the turn it was first played ({len(chosen)} cards most "
                     f"often in hand)</h3>")
        parts.append(_table(["deck", "card"] + [f"turn {t} win (games)"
                                                for t in turn_labels()], turn))
    return "".join(parts)


__all__ = ["card_table", "cards_html", "mark_significant", "write_card_report",
           "turn_labels", "unrecorded", "MEASURES", "MIN_GAMES", "ALPHA", "TURN_BUCKETS"]
