"""The ``cards`` and ``deck`` commands: browse the pool, check a deck by hand.

Card designers and deck builders use these without writing Python, so output is
plain text, errors go to stderr with exit status 1, and every option that reads
a file also accepts the user's own card files (``--cards``).
"""
from __future__ import annotations

import sys
from collections import Counter

from .cards import CardDataError, CardDB, DeckError, list_decks, load_card_db, load_deck
from .cards import model as m
from .cards.db import bundled_card_files
from .cards.deck import DECK_HELP, format_deck


def add_cards_option(parser, help: str = "an extra card file to load") -> None:
    """``--cards FILE``, one file per ``--cards``, repeatable: a list of files would
    swallow the positional arguments after it (``cards --cards my.yaml MY-01`` searched
    for nothing and read ``MY-01`` as a card file)."""
    parser.add_argument("--cards", action="append", metavar="FILE",
                        help=f"{help} (repeat for more: --cards a.yaml --cards b.yaml)")


def _db(paths: list[str] | None) -> CardDB:
    """The bundled pool plus any extra card files."""
    if not paths:
        return load_card_db()
    return load_card_db(bundled_card_files() + list(paths))


def card_header(c: m.Card, lang: str = "en") -> str:
    name = c.name_ko if lang == "ko" else c.name
    other = c.name if lang == "ko" else c.name_ko
    bits = [c.type]
    if c.type != m.LEADER:
        bits.append(f"cost {c.cost}")
    if c.type == m.UNIT:
        bits.append(f"power {c.power} hit {c.hit}")
    if c.attribute:
        bits.append(c.attribute)
    if c.affiliations:
        bits.append("/".join(c.affiliations))
    if c.trigger:
        bits.append("TRIGGER")
    if c.type == m.LEADER and c.awakening:
        bits.append(f"awakens at level {c.awakening}")
    return f"{c.id:7} {name} ({other}) — {', '.join(bits)}"


def format_card(c: m.Card, lang: str = "en") -> str:
    text = c.text_ko if lang == "ko" else c.text
    body = "\n".join("        " + line for line in text.splitlines()) if text else \
        "        (no text)"
    return f"{card_header(c, lang)}\n{body}"


def cmd_cards(args) -> int:
    try:
        db = _db(args.cards)
    except CardDataError as e:
        print(f"cards: {e}", file=sys.stderr)
        return 1
    files = [w for w in args.query if w.lower().endswith((".yaml", ".yml"))]
    if files:                                # `--cards a.yaml b.yaml`, the old spelling
        print(f"cards: searching for {' '.join(files)} as words; to load card files write "
              f"--cards before each one", file=sys.stderr)
    found = [c for c in db.search(" ".join(args.query))
             if (not args.type or c.type == args.type)
             and (not args.attribute or c.attribute == args.attribute)
             and (not args.keyword or any(k.lower() == args.keyword.lower() for k in c.keywords))]
    for c in found:
        print(card_header(c, args.lang) if args.brief else format_card(c, args.lang))
        if not args.brief:
            print()
    print(f"{len(found)} card(s)" + (f" matching {' '.join(args.query)!r}" if args.query else ""),
          file=sys.stderr)
    return 0 if found else 1


def deck_summary(deck) -> str:
    types = Counter(c.type for c in deck.cards)
    curve = Counter(c.cost for c in deck.cards)
    trig = sum(1 for c in deck.cards if c.trigger)
    lines = [f"{deck.name}: leader {deck.leader.id} {deck.leader.name}, {len(deck.cards)} cards "
             f"({', '.join(f'{n} {t}s' for t, n in sorted(types.items()))}), {trig} triggers",
             "  cost curve: " + "  ".join(f"{k}:{curve[k]}" for k in sorted(curve))]
    if deck.plan:
        lines.append(f"  plan: {deck.plan}")
    return "\n".join(lines)


def cmd_deck(args) -> int:
    if args.deck_command == "list":
        for name in list_decks():
            d = load_deck(name)
            print(f"{name:15} {d.leader.id} {d.leader.name} — {d.name}")
        return 0
    try:
        db = _db(args.cards)
    except CardDataError as e:
        print(f"deck: {e}", file=sys.stderr)
        return 1
    try:
        deck = load_deck(args.file, db)
    except DeckError as e:
        print(f"{e.file}: illegal deck", file=sys.stderr)
        for p in e.problems:
            print(f"  - {p}", file=sys.stderr)
        return 1
    if args.deck_command == "show":            # a deck file again: ids, names in comments
        summary = [f"{deck.source}: legal deck"] + [
            x for x in deck_summary(deck).splitlines() if not x.startswith("  plan:")]
        print(format_deck(deck, "\n".join(summary), note=lambda c: card_header(
            c, args.lang).split(" ", 1)[1].strip()), end="")
        return 0
    print(f"{deck.source}: legal deck")
    print(deck_summary(deck))
    return 0


def add_parsers(sub) -> None:
    p = sub.add_parser("cards", help="list or search the card pool with rendered text")
    p.add_argument("query", nargs="*", help="words that must all appear (id, name, Korean name, "
                                            "type, attribute, affiliation, keyword or text)")
    p.add_argument("--type", choices=m.CARD_TYPES)
    p.add_argument("--attribute", choices=m.ATTRIBUTES)
    p.add_argument("--keyword", help="a section-10 keyword, e.g. Pierce or Guardian")
    p.add_argument("--lang", choices=("en", "ko"), default="en", help="text language")
    p.add_argument("--brief", action="store_true", help="one line per card")
    add_cards_option(p)
    p.set_defaults(func=cmd_cards)

    d = sub.add_parser("deck", help="check, show or list decks")
    dsub = d.add_subparsers(dest="deck_command", required=True)
    for name, helptext in (("validate", "check a deck file and say why it is illegal"),
                           ("show", "validate a deck and print it back as a deck file: "
                                    "card ids, each with its name in a comment")):
        x = dsub.add_parser(name, help=helptext)
        x.add_argument("file", metavar="DECK", help=DECK_HELP)
        add_cards_option(x)
        x.add_argument("--lang", choices=("en", "ko"), default="en")
    dsub.add_parser("list", help="the bundled decks")
    d.set_defaults(func=cmd_deck)
