"""Decks: the plain-text deck format, loading and validation (5.1.2).

Format (one entry a line, ``#`` starts a comment)::

    name: Ember Rush            # optional
    plan: Flood the lanes early  # optional, may repeat (lines are joined)
    leader: T-L01
    3 T-001
    2 Blazing Outrider           # a card's name works too (English or Korean, any case)

A card is named by its id or, where no id is spelled so, by its name: case and runs of
spaces do not matter, and a name two cards share, or one no card has, is an error that
names the line and the candidates (the closest names).  ``format_deck`` writes the
canonical file back: ids, each with its name in a comment.
"""
from __future__ import annotations

import difflib
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from . import model as m
from .db import CardDB, load_card_db
from .filters import card_matches_static
from .yamlio import read_text
from ..paths import names_a_path

DECK_DIR = Path(__file__).with_name("decks")
DECK_SUFFIX = ".deck"
DECK_SIZE = 40         # 5.1.2
MAX_COPIES = 3         # 5.1.2.2
MAX_TRIGGERS = 8       # 5.1.2.3


class DeckError(ValueError):
    """A deck file is malformed or the deck is illegal; says file, line and card."""

    def __init__(self, file: str, problems: list[str]):
        self.file, self.problems = file, problems
        super().__init__(f"{file}: " + "; ".join(problems))

    def __reduce__(self):       # picklable, so it crosses to and from worker processes
        return type(self), (self.file, self.problems)


@dataclass(frozen=True)
class Deck:
    name: str
    leader: m.Card
    cards: tuple            # 40 Card objects (main deck), in file order
    plan: str = ""
    source: str = ""
    lines: dict = field(default_factory=dict, compare=False)   # card id -> line number
    #: The pool the deck was read against; new_game uses it when given no CardDB.
    db: CardDB | None = field(default=None, compare=False, repr=False)

    def card_ids(self) -> list[str]:
        return [c.id for c in self.cards]

    def __reduce__(self):
        # with its pool, a deck pickles as card ids (the pool itself goes by reference)
        if self.db is None:
            return (Deck, (self.name, self.leader, self.cards, self.plan, self.source,
                           self.lines, None))
        return (_deck_from_ids, (self.name, self.leader.id, tuple(self.card_ids()), self.plan,
                                 self.source, self.lines, self.db))


def _deck_from_ids(name, leader, ids, plan, source, lines, db) -> "Deck":
    return Deck(name, db.get(leader), tuple(db.get(i) for i in ids), plan, source, lines, db)


#: pool -> its cards' names (English and Korean, folded) -> ids
_NAMES: "weakref.WeakKeyDictionary[CardDB, dict]" = weakref.WeakKeyDictionary()


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _names(db: CardDB) -> dict[str, list[str]]:
    index = _NAMES.get(db)
    if index is None:
        index = {}
        for c in db.cards:
            for name in {_fold(c.name), _fold(c.name_ko)} - {""}:
                index.setdefault(name, []).append(c.id)
        _NAMES[db] = index
    return index


def resolve_card(word: str, db: CardDB) -> tuple[str | None, str | None]:
    """``(card id, None)`` for a card's id or name in ``db``, else ``(None, problem)``:
    a name two cards share (both named), or no card's id or name (the closest named)."""
    if word in db:
        return word, None
    ids = _names(db).get(_fold(word), [])
    if len(ids) == 1:
        return ids[0], None
    show = lambda i: f"{db.get(i).name} ({i})"                          # noqa: E731
    if ids:
        return None, (f"{word!r} names {len(ids)} cards: {', '.join(map(show, ids))}; "
                      f"write the id")
    names, folded = _names(db), _fold(word)
    close = [x for x in names if x.startswith(folded)][:5] + difflib.get_close_matches(
        folded, list(names) + [c.id for c in db.cards], n=3, cutoff=0.6)
    found = list(dict.fromkeys(i for x in close for i in (names.get(x) or [x])))[:5]
    return None, (f"unknown card id {word!r}" + (
        f" (no card has that id or name; closest: {', '.join(map(show, found))})"
        if found else " (no card has that id or name)"))


def parse_deck(text: str, db: CardDB, source: str = "<deck>") -> Deck:
    name, plan, leader, cards, lines, problems = "", [], None, [], {}, []
    leader_lines = 0
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        key, _, rest = line.partition(":")
        if _ and key.strip().lower() in ("name", "plan", "leader"):
            key, rest = key.strip().lower(), rest.strip()
            if key == "name":
                name = rest
            elif key == "plan":
                plan.append(rest)
            else:
                leader_lines += 1
                cid, problem = resolve_card(rest, db)
                if leader is not None:
                    problems.append(f"line {no}: second leader line ({rest})")
                elif problem:
                    problems.append(f"line {no}: {problem}")
                elif db.get(cid).type != m.LEADER:
                    problems.append(f"line {no}: {rest} is a {db.get(cid).type}, not a leader")
                else:
                    leader = db.get(cid)
            continue
        parts = line.split(None, 1)
        if len(parts) != 2 or not (parts[0].isascii() and parts[0].isdigit()):
            problems.append(f"line {no}: expected 'COUNT CARD-ID' or 'COUNT CARD NAME' (COUNT "
                            f"in digits 0-9), got {raw.strip()[:80]!r}")
            continue
        if len(parts[0]) > 3:
            problems.append(f"line {no}: count {parts[0][:10]}... is not between 1 and 40")
            continue
        count, (cid, problem) = int(parts[0]), resolve_card(parts[1].strip(), db)
        if problem:
            problems.append(f"line {no}: {problem}")
            continue
        card = db.get(cid)
        if card.type == m.LEADER:
            problems.append(f"line {no}: {cid} is a leader; write it as 'leader: {cid}'")
            continue
        if count < 1 or count > 40:
            problems.append(f"line {no}: count {count} for {cid} is not between 1 and 40")
            continue
        lines.setdefault(cid, no)
        cards.extend([card] * count)
    if leader is None and not leader_lines:
        problems.append("no 'leader: CARD-ID' line")
    if problems:
        raise DeckError(source, problems)
    return Deck(name=name or Path(source).stem, leader=leader, cards=tuple(cards),
                plan=" ".join(plan), source=source, lines=lines, db=db)


def deck_problems(deck: Deck) -> list[str]:
    """Every deck-building rule the deck breaks (empty when legal)."""
    out = []
    where = lambda cid: f"line {deck.lines[cid]}: " if cid in deck.lines else ""  # noqa: E731
    if len(deck.cards) != DECK_SIZE:
        out.append(f"deck has {len(deck.cards)} cards, must have exactly {DECK_SIZE} (5.1.2)")
    counts: dict[str, int] = {}
    for c in deck.cards:
        counts[c.id] = counts.get(c.id, 0) + 1
    for cid, n in counts.items():
        if n > MAX_COPIES:
            out.append(f"{where(cid)}{n} copies of {cid}, at most {MAX_COPIES} (5.1.2.2)")
    trig = sum(1 for c in deck.cards if c.has_trigger)
    if trig > MAX_TRIGGERS:
        out.append(f"{trig} trigger cards, at most {MAX_TRIGGERS} (5.1.2.3)")
    for rule in deck.leader.oath:                      # 5.1.2.1
        matching = [c for c in deck.cards if card_matches_static(c, rule.filter)]
        desc = rule.text or f"{rule.kind} {rule.n}"
        if rule.kind == "all":
            bad = sorted({c.id for c in deck.cards if c not in matching})
            if bad:
                out.append(f"{where(bad[0])}{', '.join(bad)} break(s) the oath of "
                           f"{deck.leader.id} ({desc}) (5.1.2.1)")
        elif rule.kind == "at_least" and len(matching) < rule.n:
            out.append(f"oath of {deck.leader.id} ({desc}) needs at least {rule.n} matching "
                       f"cards, deck has {len(matching)} (5.1.2.1)")
        elif rule.kind == "at_most" and len(matching) > rule.n:
            out.append(f"oath of {deck.leader.id} ({desc}) allows at most {rule.n} matching "
                       f"cards, deck has {len(matching)} (5.1.2.1)")
    return out


def format_deck(deck: Deck, comment: str = "", lang: str = "en", note=None) -> str:
    """The deck as a deck file (``parse_deck`` reads it back to the same deck): name,
    plan, leader, then one ``COUNT CARD-ID  # Name`` line per card in first-appearance
    order (``lang`` "ko": the Korean names; ``note(card)``: another comment instead)."""
    import textwrap
    counts: dict[str, int] = {}
    for c in deck.cards:
        counts[c.id] = counts.get(c.id, 0) + 1
    label = note or (lambda c: c.name_ko if lang == "ko" and c.name_ko else c.name)
    by_id = {c.id: c for c in deck.cards}
    lines = [f"# {line}" for line in comment.splitlines()]
    lines.append(f"name: {deck.name}")
    if deck.plan:
        wrapped = textwrap.wrap(deck.plan, 84, break_long_words=False, break_on_hyphens=False)
        lines += [f"plan: {p}" for p in (wrapped if " ".join(wrapped) == deck.plan
                                         else [deck.plan])]
    lines.append(f"leader: {deck.leader.id:<8} # {label(deck.leader)}")
    width = max((len(cid) for cid in counts), default=0)
    lines += [f"{n} {cid:<{width}}  # {label(by_id[cid])}" for cid, n in counts.items()]
    return "\n".join(lines) + "\n"


def list_decks() -> list[str]:
    """Names of the bundled decks."""
    return sorted(p.stem for p in DECK_DIR.glob("*.deck"))


#: how a command line names a deck (the --help texts)
DECK_HELP = ("a bundled deck's name (ember-rush, ...) or a deck file's path (./my-deck, or any "
             "name ending in .deck)")


def is_deck_path(spec: str | Path) -> bool:
    """A deck *file* is named with a path (``nivel_env.paths``): a ``Path``, or a name
    holding a directory separator or ending in ``.deck``.  Anything else is a bundled
    deck's name, so a file or folder in the working directory called ``ember-rush`` can
    never stand in for the bundled Ember Rush (write ``./ember-rush`` for the file)."""
    return names_a_path(spec, DECK_SUFFIX)                # the project's one rule


def deck_file(name_or_path: str | Path) -> Path:
    """The file a deck name or path stands for (see ``is_deck_path``); ``DeckError`` for
    a name no bundled deck has or a path where there is no file."""
    if not is_deck_path(name_or_path):
        path = DECK_DIR / f"{name_or_path}.deck"
        if not str(name_or_path) or not path.is_file():
            raise DeckError(str(name_or_path), [
                f"no bundled deck of that name (bundled: {', '.join(list_decks())}); a deck "
                f"file is named with a path: ./{name_or_path} or a name ending in .deck"])
        return path
    path = Path(name_or_path)
    if not path.exists():
        hint = ""
        if path.suffix == ".deck" and path.stem in list_decks() and path.parent == Path("."):
            hint = f" (the bundled deck is named {path.stem}, without .deck)"
        raise DeckError(str(path), [f"no such deck file{hint}"])
    if not path.is_file():                    # a folder or a FIFO: said now, never opened
        from ..files import kind_of
        raise DeckError(str(path), [f"not a regular file but {kind_of(path.stat().st_mode)}"])
    return path


def load_deck(name_or_path: str | Path, db: CardDB | None = None, validate: bool = True) -> Deck:
    """A bundled deck by name, or a deck file by path (``is_deck_path``: a separator or
    ``.deck`` makes it a path); refuses illegal decks unless ``validate=False``."""
    db = db or load_card_db()
    p = deck_file(name_or_path)
    try:
        text = read_text(p, limit=2**20)          # a deck file is about a kilobyte
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise DeckError(str(p), [f"cannot read file: {e}"]) from None
    deck = parse_deck(text, db, str(p))
    if validate:
        problems = deck_problems(deck)
        if problems:
            raise DeckError(str(p), problems)
    return deck
