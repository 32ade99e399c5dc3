"""The ``check`` command: the conformance checks on the bundled or the user's own
cards and decks.

With ``--cards`` and no ``--decks``, every bundled deck is also played with its
last cards replaced by the new cards (three copies each, spread over the decks,
new leaders leading in turn), so each new card is drawn, played and fought in
many games -- a card designer does not need to build decks first.  Those mixed
decks ignore deck-building rules on purpose; the engine does not need them.
"""
from __future__ import annotations

import os
import sys
from dataclasses import replace

from .cards import CardDataError, DeckError, list_decks, load_deck
from .cards import model as m
from .cli_cards import _db, add_cards_option


def decks_with_cards(base: list, new_cards: list) -> list:
    """Variants of ``base`` decks that carry ``new_cards`` (see the module docstring)."""
    playable = [c for c in new_cards if c.type != m.LEADER]
    leaders = [c for c in new_cards if c.type == m.LEADER]
    if not playable and not leaders:
        return []
    per_deck = max(1, -(-len(playable) // len(base))) if playable else 0
    out = []
    for i, d in enumerate(base):
        mine = [playable[(i * per_deck + k) % len(playable)] for k in range(per_deck)] \
            if playable else []
        extra = [c for c in mine for _ in range(3)][:len(d.cards) // 2]
        cards = d.cards[:len(d.cards) - len(extra)] + tuple(extra)
        leader = leaders[i % len(leaders)] if leaders else d.leader
        out.append(replace(d, name=f"{d.name}+new", leader=leader, cards=cards,
                           source=f"<{d.name} with new cards>"))
    return out


def cmd_differential(args) -> int:
    """``check --backend both``: the differential check, Python against the native core."""
    from .checks.differential import native_missing
    from .checks.runner import run_differential
    why = native_missing()
    if why:
        print(f"check: --backend both cannot run the native side: {why}; --backend python "
              f"runs the checks on the Python engine", file=sys.stderr)
        return 2
    if args.obs_every < 1:
        print(f"check: --obs-every must be 1 or more, got {args.obs_every}", file=sys.stderr)
        return 2
    if args.checks or args.decks or args.cards:
        print("check: --backend both runs the differential check alone, on its own pools "
              "(bundled, test, every card); run the other checks with --backend python and "
              "--backend native", file=sys.stderr)
        return 2
    print(f"differential check: {args.games:,} games on python and native, seed {args.seed}",
          flush=True)
    from .engine import RuleConfig
    config = RuleConfig(max_turns=args.max_turns) if args.max_turns else None
    r = run_differential(args.games, args.seed, obs_every=args.obs_every,
                         progress=not args.no_progress, config=config,
                         workers=args.workers)
    print(r.summary())
    for e in r.errors:
        print(f"\nFIRST DIFFERENCE: {e}")
    if r.errors:
        print("\nreplay it: nivel_env.checks.differential.replay(spec, actions, backend) on "
              "each backend (docs/checks.md)")
    return 1 if r.errors else 0


def cmd_check(args) -> int:
    from .checks import CHECKS, run_checks, summary
    from .checks.runner import use_backend
    from .engine import RuleConfig
    if args.backend == "both":
        return cmd_differential(args)
    why = use_backend(args.backend)
    if why:
        print(f"check: --backend {args.backend} cannot run: {why}", file=sys.stderr)
        return 2
    try:
        db = _db(args.cards)
        decks = [load_deck(d, db, validate=not args.any_deck)
                 for d in (args.decks or list_decks())]
    except (CardDataError, DeckError) as e:
        print(f"check: {e}", file=sys.stderr)
        return 2
    if len(decks) < 1:
        print("check: no decks", file=sys.stderr)
        return 2
    if args.cards and not args.decks:
        from .cards.db import read_card_file
        new = [db.get(c.id) for f in args.cards for c in read_card_file(f)]
        decks += decks_with_cards(decks, new)
    checks = args.checks or list(CHECKS)
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        print(f"check: unknown check {unknown[0]!r} (choose from {', '.join(CHECKS)})",
              file=sys.stderr)
        return 2
    config = RuleConfig(max_turns=args.max_turns) if args.max_turns else None
    print(f"checking {len(decks)} decks ({', '.join(d.name for d in decks)}) over "
          f"{len(db)} cards, seed {args.seed}", flush=True)
    from .checks.runner import AGENTS, CheckInputError
    try:
        results = run_checks(decks, games=args.games, seed=args.seed, config=config,
                             card_files=args.cards or (), checks=checks,
                             workers=args.workers, progress=not args.no_progress,
                             agents=args.agents or AGENTS)
    except CheckInputError as e:
        print(f"check: {e}", file=sys.stderr)
        return 2
    print(summary(results))
    bad = sum(r.failures for r in results)
    print("\nall checks passed" if not bad else f"\n{bad} failing games; each is replayable "
          f"from its seed, decks and actions (nivel_env.checks.replay_game)")
    return 1 if bad else 0


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="play many seeded games checking rules invariants, the "
                                     "action mask, determinism and hidden information")
    p.add_argument("--games", type=int, default=1000,
                   help="soak games; the mask and hidden checks play a tenth as many, "
                        "determinism a fiftieth, narration and web a hundredth, agents a "
                        "five-hundredth (default 1000)")
    p.add_argument("--decks", nargs="+", metavar="DECK",
                   help="bundled deck names or deck files (default: every bundled deck)")
    add_cards_option(p, "your card file, added to the bundled pool; without --decks the "
                        "bundled decks are also played with your cards mixed in")
    p.add_argument("--checks", nargs="+", metavar="CHECK",
                   help="soak, mask, determinism, hidden, narration (what a seat is "
                        "told), agents (agents that read the game; skipped, saying so, "
                        "without torch), web (the browser game's answers; skipped, saying "
                        "so, without the web extra) (default: all)")
    p.add_argument("--agents", nargs="+", metavar="AGENT",
                   help="agents that read the game for the agents check, as play "
                        "--opponent names them (default: "
                        "nv2-search:simulations=64,worlds=4)")
    p.add_argument("--backend", choices=("python", "native", "both"),
                   help="the engine the checks' games run on (default: NIVEL_BACKEND, else "
                        "python); both: the differential check alone, --games games played "
                        "on both in lockstep and compared at every decision")
    p.add_argument("--obs-every", type=int, default=1, metavar="N",
                   help="--backend both: compare observations and masks at every N-th "
                        "decision (state, legal actions and results at every one; default 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    p.add_argument("--max-turns", type=int, help="turn cap (default: RuleConfig's)")
    p.add_argument("--any-deck", action="store_true",
                   help="accept decks that break deck-building rules")
    p.add_argument("--no-progress", action="store_true")
    p.set_defaults(func=cmd_check)
