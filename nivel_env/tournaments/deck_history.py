"""``evaluate.py history MY.deck``: a deck's past runs, its versions and what each scored.

A designer edits a deck and benchmarks it again and again; the outputs of those runs
already sit in folders (``results/...``).  So the runs record the deck's content (leader
and card counts, ``deck_content``) and when they ran, and this module reads them back:
every ``results*.jsonl`` of ``decks``/``gauntlet`` runs, each comparison of a ``compare``
folder (its ``history.jsonl``; ``compare.json`` holds the last), ``tune.json``
and ``cards_value.json`` under a folder.  A run is the deck's when one of its decks is
the same file, or has the deck's name (its ``name:`` line).  Versions are a short hash of
the content, so the table says which cards changed between consecutive versions; a run
written before contents were recorded is listed by name, "contents not recorded".
"""
from __future__ import annotations

import hashlib
import json
import re
import sys
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

NOT_RECORDED = "contents not recorded"


def now() -> str:
    """The time a run records (UTC, ISO 8601, seconds)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def deck_content(deck) -> dict:
    """What a run records about a deck: its name, leader and card counts (by id)."""
    return {"name": deck.name, "leader": deck.leader.id,
            "cards": dict(Counter(deck.card_ids()))}


def deck_contents(specs) -> dict:
    """``deck_content`` of each deck spec of a run (as ``games.cached_deck`` loads it)."""
    from .games import cached_deck
    return {str(s): deck_content(cached_deck(s)) for s in specs}


def run_record(decks) -> dict:
    """What a run's outputs record for ``history`` and ``--from``: when it ran, its own
    card files (``--cards``, with their hashes) and each deck's content."""
    from . import card_files, games
    return {"time": now(), "card_files": card_files.record(games.CARD_FILES),
            "deck_contents": deck_contents(decks)}


def version(content: dict) -> str:
    """A short hash of a deck's leader and cards (not its name or plan)."""
    key = json.dumps({"leader": content["leader"], "cards": sorted(content["cards"].items())})
    return hashlib.sha256(key.encode()).hexdigest()[:8]


def changes(old: dict | None, new: dict) -> str:
    """The cards ``new`` has more (+) and fewer (-) than ``old``, e.g. ``+2 MY-01 -2 FI-04``."""
    if old is None:
        return "first version"
    bits = []
    if old["leader"] != new["leader"]:
        bits.append(f"leader {old['leader']} -> {new['leader']}")
    diff = Counter(new["cards"])
    diff.subtract(old["cards"])
    bits += [f"+{n} {cid}" for cid, n in sorted(diff.items()) if n > 0]
    bits += [f"-{-n} {cid}" for cid, n in sorted(diff.items()) if n < 0]
    return " ".join(bits) or "same"


def text_content(text: str) -> dict | None:
    """A deck file's content read without a card pool, for files written by id (tune's
    ``format_deck`` output); None if a line names a card otherwise."""
    name, leader, cards = "", None, Counter()
    for raw in text.splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, colon, rest = line.partition(":")
        if colon and key.strip().lower() in ("name", "plan", "leader"):
            if key.strip().lower() == "name":
                name = rest.strip()
            elif key.strip().lower() == "leader":
                leader = rest.strip()
            continue
        m = re.fullmatch(r"(\d+)\s+(\S+)", line)
        if not m:
            return None
        cards[m.group(2)] += int(m.group(1))
    return {"name": name, "leader": leader, "cards": dict(cards)} if leader else None


class Target:
    """The deck asked about: its file (if it is one), its name and its content now."""

    def __init__(self, spec: str, cards=None):
        from nivel_env.cards.deck import DeckError, deck_file, is_deck_path
        self.spec, self.path, self.content = spec, None, None
        self.name = spec
        try:
            f = deck_file(spec)
        except DeckError:
            if is_deck_path(spec):
                raise SystemExit(f"evaluate.py history: {spec}: no such deck file") from None
            return                              # a deck's name: matched by name only
        self.path = f.resolve()
        try:
            from nivel_env.cards import load_deck

            from .card_files import build_pool
            self.content = deck_content(load_deck(f, build_pool(cards), validate=False))
        except Exception:                       # cards not given, a broken file: by its text
            self.content = text_content(f.read_text(encoding="utf-8", errors="replace"))
        named = re.search(r"(?im)^\s*name\s*:([^#\n]*)",
                          f.read_text(encoding="utf-8", errors="replace"))
        self.name = (named.group(1).strip() if named else "") or f.stem

    def matches(self, spec: str, content: dict | None, label: str | None = None) -> bool:
        spec = str(spec)
        if spec == self.spec:
            return True
        if self.path is not None and ("/" in spec or spec.endswith(".deck")):
            try:
                if Path(spec).resolve() == self.path:
                    return True
            except OSError:
                pass
        named = (content or {}).get("name") or label
        return bool(named) and named.lower() == self.name.lower()


def _when(stamp, path: Path) -> str:
    """The run's time: the one it recorded, else its file's modification time (UTC)."""
    try:
        if stamp:
            t = datetime.fromisoformat(stamp)
        else:
            t = datetime.fromtimestamp(path.stat().st_mtime, timezone.utc)
        return t.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    except (OSError, ValueError, TypeError):
        return "?"


def _interval(score, low, high) -> str:
    if score is None:
        return "-"
    return f"{score:.3f} [{low:.3f}, {high:.3f}]" if low is not None else f"{score:.3f}"


def _from_results(path: Path, target: Target) -> list[dict]:
    """The deck's rows in a decks/gauntlet results file: its score over every seed it
    played (each seed's duplicate pair one unit, as the report's overall score)."""
    from .deck_results import ResultsFileError, read_header, read_results
    from .ratings import paired_score
    header = read_header(path)
    if header is None:
        return []
    contents = header.get("deck_contents") or {}
    idx = [i for i, d in enumerate(header.get("decks") or [])
           if target.matches(d, contents.get(d))]
    if not idx:
        return []
    try:
        _, records = read_results(path)
    except ResultsFileError as e:
        print(f"history: skipped {e}", file=sys.stderr)
        return []
    rows = []
    for i in idx:
        spec = header["decks"][i]
        pts = [sum(g["points"] for g in r["games"]) if r["pair"][0] == i else
               2 - sum(g["points"] for g in r["games"])
               for r in records if i in r["pair"] and r["pair"][0] != r["pair"][1]]
        st = paired_score(pts) if pts else None
        rows.append({"when": _when(header.get("time"), path), "command": header.get("kind"),
                     "pilot": header.get("pilot"),
                     "deck": spec, "content": contents.get(spec), "file": path,
                     "score": _interval(st["score"], st["low"], st["high"]) if st else "-",
                     "games": 2 * len(pts), "what": "vs its opponents"})
    return rows


def _from_compare(path: Path, data: dict, target: Target) -> list[dict]:
    contents = data.get("deck_contents") or {}
    specs = data.get("deck_specs") or [None, None]
    last = (data.get("history") or [{}])[-1]
    rows = []
    for side, other in (("a", "b"), ("b", "a")):
        spec = specs[0 if side == "a" else 1]
        label = data.get(f"deck_{side}")
        if not target.matches(spec or "", contents.get(spec) if spec else None, label):
            continue
        sign = 1 if side == "a" else -1
        elo = last.get("elo_diff")
        score = (f"Elo vs {data.get(f'deck_{other}')} {sign * elo:+.1f} "
                 f"[{min(sign * last['low'], sign * last['high']):+.1f}, "
                 f"{max(sign * last['low'], sign * last['high']):+.1f}]"
                 if elo is not None else "-")
        rows.append({"when": _when(data.get("time"), path), "command": "compare",
                     "pilot": data.get("pilot"),
                     "deck": spec or label, "content": contents.get(spec) if spec else None,
                     "file": path, "score": score, "games": data.get("games", 0),
                     "what": data.get("status") or "undecided"})
    return rows


def _from_tune(path: Path, data: dict, target: Target) -> list[dict]:
    """A tune run: the tuned deck (its file beside tune.json) and its held-out score
    against the original."""
    tuned = path.parent / "tuned.deck"
    content = None
    if tuned.is_file():
        content = text_content(tuned.read_text(encoding="utf-8", errors="replace"))
    if not (target.matches(data.get("deck", ""), None)
            or target.matches(str(tuned), content)):
        return []
    h = data.get("holdout") or {}
    return [{"when": _when(data.get("time"), path), "command": "tune",
             "pilot": data.get("pilot"), "deck": str(tuned),
             "content": content, "file": path,
             "score": (_interval(h.get("score"), h.get("low"), h.get("high")) + " vs original"
                       if h else "-"),
             "games": h.get("games", 0), "what": f"{len(data.get('path') or [])} swap(s)"}]


def _from_card_values(path: Path, data: dict, target: Target) -> list[dict]:
    spec = data.get("deck_spec") or data.get("deck")
    if not isinstance(spec, str):
        return []
    content = (data.get("deck_contents") or {}).get(spec)
    if not target.matches(spec, content):
        return []
    return [{"when": _when(data.get("time"), path), "command": "cards",
             "pilot": data.get("pilot"), "deck": spec,
             "content": content, "file": path, "score": "-",
             "games": data.get("games", 0) or 0, "what": "card values"}]


READERS = {"compare.json": _from_compare, "tune.json": _from_tune,
           "cards_value.json": _from_card_values}


def _from_compare_history(path: Path, target: Target) -> list[dict]:
    """Every comparison a compare folder's ``history.jsonl`` lists (compare.json holds
    only the last one); lines from before runs recorded deck contents match by name."""
    from .compare_report import HISTORY, read_history
    rows = []
    for line in read_history(path.parent):
        data = {**line, "history": [{k: line.get(k) for k in ("elo_diff", "low", "high")}]}
        if line.get("elo_diff") is None:
            data["history"] = [{}]
        rows += _from_compare(path.parent / HISTORY, data, target)
    return rows


def runs(folder: str | Path, target: Target) -> list[dict]:
    """Every run under ``folder`` that played the deck, oldest first."""
    from .compare_report import HISTORY
    folder = Path(folder)
    rows: list[dict] = []
    for path in sorted(folder.rglob("results*.jsonl")):
        rows += _from_results(path, target)
    for path in sorted(folder.rglob(HISTORY)):
        rows += _from_compare_history(path, target)
    for name, read in READERS.items():
        for path in sorted(folder.rglob(name)):
            if name == "compare.json" and (path.parent / HISTORY).is_file():
                continue                       # its history.jsonl lists this run too
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError) as e:
                print(f"history: skipped {path} ({e})", file=sys.stderr)
                continue
            if isinstance(data, dict):
                rows += read(path, data, target)
    return sorted(rows, key=lambda r: (r["when"], str(r["file"])))


def table(rows: list[dict], folder: Path) -> list[str]:
    """The history as text lines: when, command, pilot, version, cards changed, score,
    games, the run's file.  Scores compare only under one pilot and field."""
    out, prev = [], None
    head = ("when (UTC)", "command", "pilot", "version", "changed vs previous version",
            "score [95% interval]", "games", "run")
    lines = []
    for r in rows:
        c = r["content"]
        if c is None:
            ver, diff = "-", f"{Path(str(r['deck'])).name}: {NOT_RECORDED}"
        else:
            ver, diff = version(c), changes(prev, c)
            prev = c
        try:
            where = str(Path(r["file"]).relative_to(folder))
        except ValueError:
            where = str(r["file"])
        lines.append((r["when"], str(r["command"]), str(r.get("pilot") or "-"), ver, diff,
                      r["score"], str(r["games"]), where))
    widths = [max(len(x[k]) for x in [head] + lines) for k in range(len(head))]
    for x in [head] + lines:
        out.append("  ".join(v.ljust(w) for v, w in zip(x, widths)).rstrip())
    return out


def history(spec: str, folder: str | Path = "results", say=print, cards=None) -> int:
    """``evaluate.py history``: print the deck's runs under ``folder``; 1 when none.
    ``cards``: card files the deck's own cards are in (to read its content now)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise SystemExit(f"evaluate.py history: --in {folder}: no such folder")
    target = Target(spec, cards)
    rows = runs(folder, target)
    if not rows:
        say(f"no run of {target.name} under {folder}")
        return 1
    say(f"{target.name}: {len(rows)} run(s) under {folder}")
    for line in table(rows, folder):
        say(line)
    if target.content is not None:
        last = next((r["content"] for r in reversed(rows) if r["content"]), None)
        say(f"now: version {version(target.content)}"
            + (f" ({changes(last, target.content)} vs the last run's)" if last else ""))
    return 0


__all__ = ["changes", "deck_content", "deck_contents", "history", "now", "run_record", "runs",
           "text_content", "version"]
