"""Cards as data: card files, the compiled card pool and decks."""
from .db import CardDB, load_card_db, read_card_file
from .deck import (Deck, DeckError, deck_problems, format_deck, list_decks, load_deck,
                   parse_deck)
from .model import Card
from .schema import CardDataError

__all__ = ["Card", "CardDB", "CardDataError", "Deck", "DeckError", "deck_problems", "format_deck",
           "list_decks", "load_card_db", "load_deck", "parse_deck", "read_card_file"]
