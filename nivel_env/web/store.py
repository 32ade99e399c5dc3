"""The server's memory: games and loaded replays, by id, with limits.

A browser game is a ``PlaySession`` kept in memory under a random id (the id is the
only key to it: whoever holds it plays that seat).  So that one page cannot fill the
server, each client (by address) may have ``per_client`` games in play and replays open
at once, the server ``total`` of each (a finished game counts for nobody and is the first
dropped when the server is full); a game or replay untouched for ``idle_s`` seconds, or older
than ``lifetime_s``, is dropped.  Each entry has a lock: the AI's moves run in a worker
thread, and two requests for one game are taken one after the other.

An entry also keeps its ``owner`` (the player token the page sent when it made the game,
``X-Nivel-Player``: ``owned`` lists a player's games by it, never by address, since an
address is shared by everyone behind it) and ``meta`` (what the app wants to remember
with it: a game's choices, for a rematch).  The limits stay per address: a token is the
page's own word and costs nothing to change.
"""
from __future__ import annotations

import secrets
import threading
import time
from dataclasses import dataclass, field


class LimitError(Exception):
    """Too many games or replays for this client or this server."""


@dataclass
class Entry:
    value: object
    client: str
    owner: str = ""
    meta: dict = field(default_factory=dict)
    created: float = field(default_factory=time.monotonic)
    used: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)


class Store:
    """Entries of one kind (games, or replays) by id."""

    def __init__(self, kind: str, per_client: int = 4, total: int = 64,
                 idle_s: float = 1800.0, lifetime_s: float = 4 * 3600.0,
                 clock=time.monotonic, done=lambda value: False, close_hint: str = ""):
        self.kind, self.per_client, self.total = kind, per_client, total
        self.close_hint = close_hint or "finish or close one first"
        self.done = done                  # a finished entry (a game over) counts for nobody
        self.idle_s, self.lifetime_s, self.clock = idle_s, lifetime_s, clock
        self._entries: dict[str, Entry] = {}
        self._lock = threading.Lock()

    def _expire(self) -> None:
        now = self.clock()
        for k, e in list(self._entries.items()):
            if now - e.used > self.idle_s or now - e.created > self.lifetime_s:
                del self._entries[k]

    def check_room(self, client: str) -> None:
        """Raise ``LimitError`` if ``client`` may not add another entry now.  Finished
        entries do not count, and are the first to go when the server is full."""
        with self._lock:
            self._make_room(client)

    def _make_room(self, client: str) -> None:        # under the lock
        self._expire()
        mine = sum(e.client == client and not self.done(e.value)
                   for e in self._entries.values())
        if mine >= self.per_client:
            raise LimitError(f"you already have {mine} {self.kind} open from this address "
                             f"(at most {self.per_client}); {self.close_hint}")
        finished = sorted((e.used, k) for k, e in self._entries.items()
                          if self.done(e.value))
        while len(self._entries) >= self.total and finished:
            del self._entries[finished.pop(0)[1]]
        if len(self._entries) >= self.total:
            raise LimitError(f"the server holds its maximum of {self.total} {self.kind}; "
                             f"try again later")

    def add(self, value, client: str, owner: str = "", meta: dict | None = None) -> str:
        """Keep ``value`` for ``client`` (an address) and ``owner`` (a player token) under
        a new id (the room checked in the same step, so two requests at once cannot both
        take the last place)."""
        key = secrets.token_urlsafe(12)
        with self._lock:
            self._make_room(client)
            now = self.clock()
            self._entries[key] = Entry(value, client, owner, dict(meta or {}), created=now,
                                       used=now)
        return key

    def owned(self, owner: str) -> list[tuple[str, Entry]]:
        """(id, entry) of every entry made with the token ``owner``, oldest first; an
        empty token owns nothing.  Listing does not count as using an entry."""
        if not owner:
            return []
        with self._lock:
            self._expire()
            return sorted(((k, e) for k, e in self._entries.items() if e.owner == owner),
                          key=lambda ke: ke[1].created)

    def ages(self, e: Entry) -> tuple[float, float]:
        """(seconds since ``e`` was made, seconds since it was last used), by the store's
        clock."""
        now = self.clock()
        return now - e.created, now - e.used

    def get(self, key: str) -> Entry | None:
        with self._lock:
            self._expire()
            e = self._entries.get(key)
            if e is not None:
                e.used = self.clock()
            return e

    def remove(self, key: str) -> bool:
        with self._lock:
            return self._entries.pop(key, None) is not None

    def __len__(self) -> int:
        with self._lock:
            self._expire()
            return len(self._entries)


__all__ = ["Entry", "LimitError", "Store"]
