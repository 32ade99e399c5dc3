"""What a searching player may assume about the opponent's hidden cards (docs/rulings.md R24).

A search samples worlds consistent with what its player may see
(``nivel_env.engine.hidden.determinize``).  Its own deck holds the cards of its own list
not in view, shuffled.  The opponent's hidden cards (the hand less the cards known to be
there, and the deck) need a *prior*: a rule for drawing them from what is public.  The
rules keep a deck's contents hidden (3.2.2) and disclose no deck list, so the default is

* ``closed`` (``PoolPrior``): the opponent's hidden cards are drawn from the cards their
  leader's oath allows (5.1.2.1), within the deck-building limits counted with the cards
  already seen (three copies of a card, 5.1.2.2; eight trigger cards, 5.1.2.3), the
  oath's "at least N" conditions met first.  Each card is drawn with weight 1, plus
  ``copy_weight`` for each copy of it already seen: decks run copies, so a card seen once
  is likelier than one never seen (a guess any player can make from public cards).

Two other priors are public in some settings:

* ``open``: the opponent's list is public (a tournament with open deck lists), so the
  hidden cards are the list less the cards in view, exactly; ``determinize`` without a
  prior does that.
* ``CandidateDecks``: the opponent plays one of the decks of a known metagame; a world
  picks, at random, one whose leader and cards agree with what is seen, and the hidden
  cards are that list less the cards in view (``closed`` when none agrees).

Every prior reads only ``engine.hidden.opponent_view`` (leader, cards in view, hidden
count), so a world cannot depend on a hidden card.
"""
from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from itertools import accumulate

from nivel_env.cards.deck import MAX_COPIES, MAX_TRIGGERS
from nivel_env.cards.filters import card_matches_static
from nivel_env.engine.rng import next_u64

#: the names ``SearchAgent(deck_lists=...)`` takes besides a list of decks
DECK_LISTS = ("closed", "open")


def _pick(state: int, weights: list) -> tuple[int, int]:
    """(state, index) drawn with probability proportional to the integer ``weights``."""
    state, r = next_u64(state)
    r %= sum(weights)
    for i, w in enumerate(weights):
        if r < w:
            return state, i
        r -= w
    return state, len(weights) - 1                # not reached


class PoolPrior:
    """Closed deck lists: draw the opponent's hidden cards from the cards their leader may
    legally use (see the module docstring).  ``db``: the card pool."""

    def __init__(self, db, copy_weight: int = 2):
        if copy_weight < 0:
            raise ValueError(f"PoolPrior: copy_weight must be 0 or more, got {copy_weight}")
        self.db = db
        self.copy_weight = int(copy_weight)
        self._rules: dict = {}
        self._triggers = [c.has_trigger for c in db.cards]

    def rules(self, leader: int) -> tuple:
        """For a deck led by card ``leader``: (the card indices it may hold -- its oath's
        "every card ..." rules, 5.1.2.1, or the whole pool when none is left -- and its
        "at least" and "at most" rules as (n, set of the legal card indices matching))."""
        if leader not in self._rules:
            oath = self.db.cards[leader].oath
            cards = [c for c in self.db.cards if c.type != "leader"]
            ok = [c for c in cards if all(card_matches_static(c, r.filter)
                                          for r in oath if r.kind == "all")] or cards
            per = {k: [(r.n, frozenset(c.index for c in ok
                                       if card_matches_static(c, r.filter)))
                       for r in oath if r.kind == k] for k in ("at_least", "at_most")}
            self._rules[leader] = ([c.index for c in ok], per["at_least"], per["at_most"])
        return self._rules[leader]

    def __call__(self, view, state: int) -> tuple[int, list]:
        cards = self.db.cards
        trig = self._triggers
        legal, least, most = self.rules(view.leader)
        seen = Counter(view.seen)
        copies = Counter(view.seen)
        triggers = sum(cards[i].has_trigger for i in view.seen)
        matched = [sum(n for i, n in seen.items() if i in match) for _, match in most]
        out: list = []

        def allowed(pool) -> list:
            """The cards of ``pool`` one more copy of which breaks no limit."""
            barred = set()
            for (n, match), m in zip(most, matched):
                if m >= n:
                    barred |= match
            full = triggers >= MAX_TRIGGERS
            return [i for i in pool if copies[i] < MAX_COPIES and i not in barred
                    and not (full and trig[i])]

        def fill(pool, n: int) -> None:
            """Draw ``n`` cards of ``pool`` (fewer if the limits run out), each with
            probability proportional to its weight (``_pick``'s draw, found by bisection
            in the running sums).  A card's weight is fixed (it counts the cards seen), so
            the sums change only when a limit reached drops cards -- the picked card's
            copies, the triggers, an "at most" rule the card matches -- and only then is
            the pool filtered again (limits only tighten: no card comes back)."""
            nonlocal state, triggers
            ok = allowed(pool)
            sums = list(accumulate(1 + self.copy_weight * seen[i] for i in ok))
            for _ in range(n):
                if not ok:
                    return
                state, r = next_u64(state)
                i = ok[bisect_right(sums, r % sums[-1])]
                copies[i] += 1
                trigger = trig[i]
                triggers += trigger
                reached = False
                for j, (limit, match) in enumerate(most):
                    if i in match:
                        matched[j] += 1
                        reached = reached or matched[j] >= limit
                out.append(i)
                if reached or copies[i] >= MAX_COPIES or \
                        (trigger and triggers >= MAX_TRIGGERS):
                    ok = allowed(ok)                    # a limit reached: drop what it bars
                    sums = list(accumulate(1 + self.copy_weight * seen[x] for x in ok))

        for n, match in least:                    # "at least N ..." first (5.1.2.1)
            have = sum(k for i, k in copies.items() if i in match)
            fill(sorted(match), min(n - have, view.hidden - len(out)))
        fill(legal, view.hidden - len(out))
        while len(out) < view.hidden:             # limits spent (a deck outside the rules):
            state, k = _pick(state, [1] * len(legal))        # any legal card
            out.append(legal[k])
        return state, out


class CandidateDecks:
    """A known metagame: the opponent plays one of ``decks`` (``Deck`` objects); see the
    module docstring.  ``fallback`` (default ``PoolPrior``) when no deck agrees."""

    def __init__(self, decks, db, fallback=None):
        decks = list(decks)
        if not decks:
            raise ValueError("CandidateDecks: give at least one deck")
        index = lambda c: db.get(c.id).index          # noqa: E731  (decks of any load)
        self.lists = [(index(d.leader), Counter(index(c) for c in d.cards), d.name)
                      for d in decks]
        self.fallback = fallback or PoolPrior(db)

    def __call__(self, view, state: int) -> tuple[int, list]:
        seen = Counter(view.seen)
        fit = [(cards, name) for lead, cards, name in self.lists
               if lead == view.leader and not seen - cards and
               sum((cards - seen).values()) == view.hidden]
        if not fit:
            return self.fallback(view, state)
        state, k = _pick(state, [1] * len(fit))
        return state, sorted((fit[k][0] - seen).elements())


def check_deck_lists(deck_lists):
    """``deck_lists`` as ``SearchAgent`` keeps it, checked when the agent is made (not at
    its first move, deep inside a game): ``"closed"``, ``"open"`` or a tuple of decks --
    ``Deck`` objects, or names and paths ``load_deck`` takes, each of which must name a
    bundled deck or an existing file (``deck_file``).  ``ValueError`` naming the fault:
    the setting, or the deck.  A named deck's cards are read when the prior is built, from
    the game's own card pool."""
    if isinstance(deck_lists, str):
        if deck_lists in DECK_LISTS:
            return deck_lists
        raise ValueError(f"deck_lists: expected {' or '.join(DECK_LISTS)} or a list of decks, "
                         f"got {deck_lists!r}")
    if not isinstance(deck_lists, (list, tuple)) or not deck_lists:
        raise ValueError(f"deck_lists: expected {' or '.join(DECK_LISTS)} or a non-empty "
                         f"list of decks, got {deck_lists!r}")
    from pathlib import Path

    from nivel_env.cards import Deck
    from nivel_env.cards.deck import deck_file
    for k, d in enumerate(deck_lists):
        if isinstance(d, Deck):
            continue
        if not isinstance(d, (str, Path)):
            raise ValueError(f"deck_lists[{k}]: a deck, a deck's name or a deck file's path, "
                             f"got {d!r} ({type(d).__name__})")
        try:
            deck_file(d)
        except ValueError as e:                   # DeckError: no such bundled deck or file
            raise ValueError(f"deck_lists[{k}]: {e}") from None
    return tuple(deck_lists)


def deck_prior(deck_lists, db):
    """The prior for ``SearchAgent(deck_lists=...)``: None for ``"open"`` (the true list),
    ``PoolPrior`` for ``"closed"``, ``CandidateDecks`` for a list of decks (``Deck``
    objects or names ``load_deck`` takes)."""
    if isinstance(deck_lists, str):
        if deck_lists == "open":
            return None
        if deck_lists == "closed":
            return PoolPrior(db)
        raise ValueError(f"deck_lists: expected {' or '.join(DECK_LISTS)} or a list of decks, "
                         f"got {deck_lists!r}")
    from nivel_env.cards import Deck, load_deck
    try:
        decks = [d if isinstance(d, Deck) else load_deck(d, db) for d in deck_lists]
    except TypeError:
        raise ValueError(f"deck_lists: expected {' or '.join(DECK_LISTS)} or a list of "
                         f"decks, got {type(deck_lists).__name__}") from None
    except ValueError as e:                       # DeckError: an unknown deck, a bad file
        raise ValueError(f"deck_lists: {e}") from None
    return CandidateDecks(decks, db)


__all__ = ["DECK_LISTS", "CandidateDecks", "PoolPrior", "check_deck_lists", "deck_prior"]
