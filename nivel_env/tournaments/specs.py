"""How a tournament reads a player or deck spec without loading it: which file, if any, it
names by a path.  The Ray backend ships exactly those files to its workers, and a worker
swaps the name for its own copy (``games._local``).

The grammar is the players' (``agents.opponents``: ``split_spec``, ``is_policy_path``):
settings follow the last colon as ``key=value`` pairs, and a policy file is named by a
path (``nivel_env.paths``: a separator or the ``.pt`` suffix).  It is spelled out here
because the tournament package never imports a player;
tests/tournaments_tests/test_tournaments_layer.py checks the two readings agree."""
from __future__ import annotations

import re

from nivel_env.paths import names_a_path

#: the suffix that makes a bare player name a file: a policy file
PLAYER_FILE_SUFFIX = ".pt"
_SETTINGS = re.compile(r"^[a-z_]+=[^,=:]+(,[a-z_]+=[^,=:]+)*$")


def split_spec(spec: str) -> tuple[str, str]:
    """``"name:key=value,..."`` -> ``("name", ":key=value,...")``; a spec without a tail
    that reads as settings -> ``(spec, "")`` (a path may hold colons)."""
    head, sep, tail = spec.rpartition(":")
    if not sep or not _SETTINGS.match(tail):
        return spec, ""
    return head, sep + tail


def player_file(spec: str) -> str | None:
    """The file a player spec names by a path (its settings aside), or None for a bundled
    name: ``runs/x/policy.pt:simulations=64`` -> ``runs/x/policy.pt``."""
    head = split_spec(spec)[0]
    return head if names_a_path(head, PLAYER_FILE_SUFFIX) else None


def deck_file(spec: str) -> str | None:
    """The file a deck spec names by a path, or None for a bundled deck's name."""
    from nivel_env.cards.deck import is_deck_path
    return spec if is_deck_path(spec) else None


__all__ = ["PLAYER_FILE_SUFFIX", "deck_file", "player_file", "split_spec"]
