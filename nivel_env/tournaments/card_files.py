"""The designer's own card files on evaluate.py's commands (``--cards FILE``, repeatable).

A run's extra cards are checked once, before any game, by building the pool ``python -m
nivel_env check --cards`` builds (the bundled cards, then the files in order: a broken
file or an id that clashes is named with the same message).  A run records them with
each file's SHA-256 (``record``), and ``--from`` checks them again before it analyses the
run (``recorded``): a file that is gone or changed since is refused, naming it, because
the decks' names and card lists of the report come from the pool.  Where the games run,
``games.use_card_files`` and ``games.WithCardFiles`` carry the files.
"""
from __future__ import annotations

import hashlib
from pathlib import Path

#: the largest card file hashed (a card file is kilobytes; this only bounds a mistake)
MAX_CARD_FILE = 64 << 20


def build_pool(files):
    """The bundled pool plus ``files``, in order (``cli_cards._db``'s pool, built here:
    the tournaments never import a command line module); ``CardDataError`` names what is
    wrong."""
    from nivel_env.cards import load_card_db
    from nivel_env.cards.db import bundled_card_files
    if not files:
        return load_card_db()
    return load_card_db(bundled_card_files() + list(files))


def resolve(files, cmd: str) -> tuple[str, ...]:
    """The ``--cards`` files as absolute paths, after checking that the pool they make
    with the bundled cards loads; ``SystemExit`` naming the file, card and field at
    fault."""
    if not files:
        return ()
    from nivel_env.cards import CardDataError

    from .games import remember_pool
    try:
        db = build_pool(files)
    except CardDataError as e:
        raise SystemExit(f"evaluate.py {cmd}: --cards: {e}") from None
    resolved = tuple(str(Path(f).resolve()) for f in files)
    remember_pool(resolved, db)
    return resolved


def sha256(path: str | Path) -> str:
    """The file's SHA-256 (hex); ``ValueError`` (``FileRefused``) when it cannot be read."""
    from nivel_env.files import read_bytes
    return hashlib.sha256(read_bytes(path, MAX_CARD_FILE, "card file")).hexdigest()


def record(files) -> list[dict]:
    """What a run's outputs say about its card files: each path and its SHA-256."""
    return [{"file": str(f), "sha256": sha256(f)} for f in files]


def recorded(header: dict, given, where: str) -> tuple[str, ...]:
    """The card files to analyse a run with: the ones its ``header`` records, or the
    ``given`` ones (``--cards``, for copies moved elsewhere) when their contents are the
    recorded ones; ``SystemExit`` naming the file that is missing or changed."""
    entries = header.get("card_files") or []
    if not entries:
        if given:
            raise SystemExit(f"{where}: the run used no card files of its own; --cards does "
                             f"not apply")
        return ()
    files = ([e["file"] for e in entries] if not given
             else [str(Path(g).resolve()) for g in given])
    if len(files) != len(entries):
        raise SystemExit(f"{where}: the run used {len(entries)} card file(s) "
                         f"({', '.join(e['file'] for e in entries)}); give as many --cards, "
                         f"in that order")
    for f, e in zip(files, entries):
        try:
            now = sha256(f)
        except (OSError, ValueError) as err:
            raise SystemExit(f"{where}: card file {f}, which the run played with, cannot be "
                             f"read ({err}); give a copy with --cards FILE") from None
        if now != e["sha256"]:
            raise SystemExit(f"{where}: card file {f} changed since the run (SHA-256 "
                             f"{e['sha256'][:12]}... then, {now[:12]}... now); the games "
                             f"were played with the earlier cards: restore that file or "
                             f"give a copy of it with --cards FILE")
    return resolve(files, where.removeprefix("evaluate.py "))


def for_results(args) -> tuple[str, ...]:
    """The card files ``evaluate.py decks --from RESULTS`` (or ``gauntlet``) analyses
    with: the run's (``recorded``); a header that cannot be read is left to the
    analysis to name."""
    from .deck_results import read_header
    header = read_header(args.from_results)
    if header is None:
        return resolve(args.cards, args.command)
    return recorded(header, args.cards, f"evaluate.py {args.command} --from "
                                        f"{args.from_results}")


__all__ = ["build_pool", "for_results", "recorded", "record", "resolve", "sha256"]
