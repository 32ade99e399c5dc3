"""Filters on printed card data: deck-building oaths (5.1.2.1) and cards outside play.

The engine's ``match.matches`` uses the same two parts, with current stats for units in
play; this half lives with the cards so deck checks need nothing from the engine.
"""
from __future__ import annotations

from . import model as m


def printed_part(card: m.Card, f: m.Filter) -> bool:
    """The tests that only read printed information."""
    if f.types and card.type not in f.types:
        return False
    if f.attributes and card.attribute not in f.attributes:
        return False
    if f.affiliations and not any(a in card.affiliations for a in f.affiliations):
        return False
    if f.cost_min is not None and card.cost < f.cost_min:
        return False
    if f.cost_max is not None and card.cost > f.cost_max:
        return False
    if f.has_trigger is not None and card.has_trigger != f.has_trigger:
        return False
    if f.ids and card.id not in f.ids:
        return False
    return True


def state_part(f: m.Filter, is_unit: bool, pw: int, ht: int, names, has_item: bool) -> bool:
    """The tests of values that effects change (power, hit, keywords, items)."""
    if (f.power_min is not None or f.power_max is not None or f.hit_min is not None
            or f.hit_max is not None) and not is_unit:
        return False
    if f.power_min is not None and pw < f.power_min:
        return False
    if f.power_max is not None and pw > f.power_max:
        return False
    if f.hit_min is not None and ht < f.hit_min:
        return False
    if f.hit_max is not None and ht > f.hit_max:
        return False
    if f.keyword is not None and f.keyword not in names:
        return False
    if f.has_item is not None and has_item != f.has_item:
        return False
    return True


def card_matches_static(card: m.Card, f: m.Filter) -> bool:
    """Filter test on printed values only (deck building, cards outside play)."""
    return printed_part(card, f) and state_part(
        f, card.type == m.UNIT, card.power, card.hit, card.keywords, False)
