"""The card database: every card file compiled once into immutable ``Card`` objects.

Cards get a dense ``index`` (what the engine stores in its state) and every
printed ability a global ``key`` (what effect frames store), so game state never
holds references to card objects and stays cheap to copy and serialise.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import weakref
from pathlib import Path
from typing import Iterable

import yaml

from . import model as m, vocab, yamlio
from .schema import CardDataError, compile_card
from .text import keyword_set, render_card_text

DATA_DIR = Path(__file__).with_name("data")


class CardDB:
    """All cards of a pool, by index and by id; ``version`` hashes their data.

    A pool built from card files (``load_card_db``) pickles *by reference*: its files
    and version, not its cards.  Unpickling finds the live pool of that version in this
    process, or reads the files again and refuses them if they changed since.  So a game
    state pickles in a few KB and well under a millisecond, and a copy shares its pool
    with the original.
    """

    #: the YAML files this pool was read from, in order (empty when built from objects)
    files: tuple[str, ...] = ()

    def __init__(self, cards: Iterable[m.Card]):
        abilities: list[m.Ability] = []
        keywords: list[m.Keyword] = []

        def kw(k: m.Keyword) -> m.Keyword:
            k = dataclasses.replace(k, key=len(keywords))
            keywords.append(k)
            return k

        def act(a: m.Action) -> m.Action:
            return a if a.keyword is None else dataclasses.replace(a, keyword=kw(a.keyword))

        def keyed(ab: m.Ability) -> m.Ability:
            actions = tuple(map(act, ab.actions))
            if ab.when == m.ESCAPE and not any(
                    a.verb == "to_deck_bottom" and a.target.ref == "self" for a in actions):
                # 10.1.13.3: Escape includes putting the unit on the bottom of its owner's deck
                actions += (m.Action("to_deck_bottom", target=m.Selector(ref="self", mode="all")),)
            ab = dataclasses.replace(ab, key=len(abilities), actions=actions)
            abilities.append(ab)
            return ab

        built = []
        for i, c in enumerate(cards):
            back = c.back
            if back is not None:
                back = dataclasses.replace(back, abilities=tuple(map(keyed, back.abilities)),
                                           subkeywords=tuple(map(kw, back.subkeywords)))
            trig = keyed(m.Ability(when="trigger", actions=c.trigger)) if c.trigger else None
            c = _evolve(c, index=i, abilities=tuple(map(keyed, c.abilities)),
                        subkeywords=tuple(map(kw, c.subkeywords)), trigger_ability=trig,
                        effect=keyed(c.effect) if c.effect is not None else None, back=back,
                        activated=(), passives=())
            # derived from the keyed card (an Escape's added action shows in its text);
            # set on this new object before anyone else can see it
            for name, value in (("keywords", keyword_set(c)), ("text", render_card_text(c)),
                                ("text_ko", render_card_text(c, "ko")),
                                ("activated", tuple(a for a in c.abilities
                                                    if a.when in m.ACTIVATED)),
                                ("passives", tuple(a for a in c.abilities
                                                   if a.when == m.PASSIVE))):
                object.__setattr__(c, name, value)
            built.append(c)
        self.cards: tuple[m.Card, ...] = tuple(built)
        self.abilities: tuple[m.Ability, ...] = tuple(abilities)
        self.keywords: tuple[m.Keyword, ...] = tuple(keywords)
        self.by_id: dict[str, m.Card] = {c.id: c for c in self.cards}
        blob = json.dumps([c.raw for c in self.cards], sort_keys=True, ensure_ascii=False)
        self.version: str = hashlib.sha256(blob.encode()).hexdigest()[:16]
        self._prefixes: dict | None = None

    def extends(self, version: str) -> int:
        """How many cards of an earlier pool of version ``version`` this pool starts with,
        unchanged and in order (0: none, or another pool).  Cards appended to a pool keep
        every earlier card's index, ability keys and keyword keys, so policies trained on it
        and games recorded with it still hold."""
        if version == self.version:
            return len(self.cards)
        if self._prefixes is None:
            items = [json.dumps(c.raw, sort_keys=True, ensure_ascii=False) for c in self.cards]
            self._prefixes = {hashlib.sha256(("[" + ", ".join(items[:k]) + "]").encode())
                              .hexdigest()[:16]: k for k in range(1, len(items))}
        return self._prefixes.get(version, 0)

    def __reduce_ex__(self, protocol):
        if self.files:
            _LIVE.setdefault(self.version, self)
            return (_pool_by_reference, (self.files, self.version))
        return super().__reduce_ex__(protocol)

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self):
        return iter(self.cards)

    def __contains__(self, card_id: str) -> bool:
        return card_id in self.by_id

    def get(self, card_id: str) -> m.Card:
        try:
            return self.by_id[card_id]
        except KeyError:
            raise KeyError(f"unknown card id {card_id!r}") from None

    def search(self, query: str = "") -> list[m.Card]:
        """Cards whose id, names, type, attribute, affiliations, keywords (English or
        Korean) or text contain every word of ``query``."""
        words = query.lower().split()
        return [c for c in self.cards if all(w in _haystack(c) for w in words)]


_CARD_FIELDS = tuple(f.name for f in dataclasses.fields(m.Card))


def _evolve(c: m.Card, **changes) -> m.Card:
    """``dataclasses.replace(c, **changes)`` at a third of the cost (a pool builds one
    new card per card; replace's checks were a tenth of loading a large pool)."""
    kw = {name: getattr(c, name) for name in _CARD_FIELDS}
    kw.update(changes)
    return m.Card(**kw)


def _haystack(c: m.Card) -> str:
    return " ".join([c.id, c.name, c.name_ko, c.type, c.attribute or "", *c.affiliations,
                     *c.keywords, *(vocab.korean(k) for k in c.keywords),
                     c.text, c.text_ko]).lower()


#: version -> a live pool read from files (what unpickling a reference returns)
_LIVE: "weakref.WeakValueDictionary[str, CardDB]" = weakref.WeakValueDictionary()


def _pool_by_reference(files: tuple[str, ...], version: str) -> CardDB:
    db = _LIVE.get(version)
    if db is not None:
        return db
    db = build_db(files)
    if db.version != version:
        raise CardDataError(", ".join(files), None, None,
                            f"these card files changed since the game was saved (pool version "
                            f"{db.version}, saved with {version}); load it with the same cards")
    _LIVE.setdefault(version, db)
    return db


def bundled_card_files() -> list[Path]:
    """The YAML files of the bundled pool, in load order."""
    return sorted(DATA_DIR.glob("*.yaml"))


def read_card_file(path: str | Path) -> list[m.Card]:
    """Parse and compile one YAML card file (a mapping with a ``cards`` list)."""
    path = Path(path)
    name = str(path)
    try:
        text = yamlio.read_text(path)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise CardDataError(name, None, None, f"cannot read file: {e}") from None
    try:
        data = yamlio.parse(text)
    except yaml.YAMLError as e:
        raise CardDataError(name, None, None, f"not valid YAML: {e}") from None
    if not isinstance(data, dict) or "cards" not in data:
        raise CardDataError(name, None, "cards", "the file must be a mapping with a 'cards' list")
    extra = set(data) - {"cards", "version"}
    if extra:
        raise CardDataError(name, None, sorted(extra)[0], "unknown top-level field")
    if not isinstance(data["cards"], list):
        raise CardDataError(name, None, "cards", "expected a list of cards")
    return [compile_card(raw, name, i) for i, raw in enumerate(data["cards"])]


def build_db(paths: Iterable[str | Path]) -> CardDB:
    cards: list[m.Card] = []
    seen: dict[str, str] = {}
    for p in paths:
        for c in read_card_file(p):
            if c.id in seen:
                raise CardDataError(str(p), c.id, "id",
                                    f"duplicate card id (already defined in {seen[c.id]})")
            seen[c.id] = str(p)
            cards.append(c)
    if not cards:
        raise CardDataError(", ".join(map(str, paths)) or "<none>", None, None, "no cards found")
    db = CardDB(cards)
    db.files = tuple(str(Path(p).resolve()) for p in paths)
    _LIVE.setdefault(db.version, db)
    return db


_DEFAULT: CardDB | None = None


def load_card_db(paths: Iterable[str | Path] | None = None) -> CardDB:
    """The bundled card pool (cached), or a pool built from the given YAML files."""
    global _DEFAULT
    if paths is None:
        if _DEFAULT is None:
            _DEFAULT = build_db(bundled_card_files())
        return _DEFAULT
    return build_db(list(paths))
