"""Run the conformance checks on a card pool and a set of decks, and summarise.

This is what ``python -m nivel_env check`` calls and what the test suite runs on
the bundled pool: the same code, so a card designer's new cards get the checks
our own cards get.
"""
from __future__ import annotations

import multiprocessing
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from .. import players
from ..cards.deck import Deck, parse_deck
from .determinism import deck_text, determinism_errors
from .hidden import agent_hidden_errors, hidden_info_errors, narration_errors
from .soak import GameCheck, play_checked, schedule

CHECKS = ("soak", "mask", "determinism", "hidden", "narration", "agents", "web")
#: the agents that read the game the ``agents`` check holds to hidden information: the
#: shipped search at half its budget (``python -m nivel_env check --agents`` takes others;
#: at 16 simulations the trees rarely reach the opponent's hidden cards, so worlds drawn
#: from the true ones went unseen there, while 64 showed them in every game)
AGENTS = ("nv2-search:simulations=64,worlds=4",)


class CheckInputError(ValueError):
    """A check was asked for something that cannot be (an unknown agent); says what."""


@dataclass
class CheckResult:
    name: str
    games: int = 0
    positions: int = 0
    failures: int = 0
    seconds: float = 0.0
    details: list[str] = field(default_factory=list)     # the first few failures
    #: soak: (policy, what) -> how many times the games did it (attacks, plays, ...)
    coverage: dict = field(default_factory=dict)
    observations: int = 0                                 # soak: observations bound-checked
    comparisons: int = 0                                  # hidden: channel comparisons
    skipped: str = ""                                     # why it did not run (web: extra)

    def fail(self, text: str, keep: int = 3) -> None:
        self.failures += 1
        if len(self.details) < keep:
            self.details.append(text)


def plan(games: int) -> dict[str, int]:
    """How many games each check plays for ``--games N``: N for the soak, a tenth for
    the costly every-action mask check and the hidden-information check, a
    fiftieth (at least 2) for determinism, which replays each game six ways, and a
    hundredth for the web answers' hidden-information check (checks/web.py), which asks
    the server a dozen questions in four worlds at every third position, and for the
    narration's, which plays the next moves again in two worlds for both viewers; a
    five-hundredth for the agents', which runs a search four times a position."""
    return {"soak": games, "mask": max(1, games // 10), "hidden": max(1, games // 10),
            "determinism": max(2, games // 50), "web": max(1, games // 100),
            "narration": max(1, games // 100), "agents": max(1, games // 500)}


# ------------------------------------------------------------ worker side
_W: dict = {}


def _init(card_files, texts, config):
    from ..cards import load_card_db
    from ..cards.db import bundled_card_files
    db = load_card_db(bundled_card_files() + list(card_files)) if card_files else load_card_db()
    _W["decks"] = [parse_deck(t, db, f"<deck {i}>") for i, t in enumerate(texts)]
    _W["config"] = config


def _game(task) -> GameCheck:
    seed, (a, b), policies, mask = task
    d = _W["decks"]
    return play_checked(d[a], d[b], seed, policies, _W["config"], check_mask=mask,
                        check_observations=not mask)


# ------------------------------------------------------------ the runner
def run_checks(decks: list[Deck], games: int = 1000, seed: int = 0, config=None,
               card_files=(), checks=CHECKS, workers: int = 1, progress: bool = True,
               counts: dict | None = None, agents=AGENTS) -> list[CheckResult]:
    """Run ``checks`` and return one result each; ``counts`` overrides plan(games);
    ``agents``: the agents (``load_opponent`` names) the ``agents`` check plays.

    Worker processes (``workers`` > 1) and the determinism check's subprocesses rebuild
    the decks from their card ids over the bundled pool plus ``card_files``, so decks
    from other pools need those files named."""
    from tqdm import tqdm
    n = {**plan(games), **(counts or {})}
    texts = [deck_text(d) for d in decks]
    card_files = [str(Path(f)) for f in card_files]
    results = []
    _W["decks"], _W["config"] = list(decks), config         # this process plays them as given
    local = _W["decks"]
    pool = None
    if workers > 1 and any(c in checks for c in ("soak", "mask")):
        # not fork: a parent that loaded torch can deadlock forked children
        ctx = multiprocessing.get_context("forkserver")
        pool = ProcessPoolExecutor(workers, mp_context=ctx, initializer=_init,
                                   initargs=(card_files, texts, config))
    try:
        for name in checks:
            r = CheckResult(name)
            t0 = time.perf_counter()
            if name == "web":
                from .web import missing
                r.skipped = missing() or ""
                if r.skipped:
                    results.append(r)
                    continue
            if name == "agents":
                readers, r.skipped = _game_readers(agents, seed)
                if r.skipped:
                    results.append(r)
                    continue
            bar = tqdm(total=n[name], desc=f"{name:<11}", unit="game", disable=not progress,
                       leave=False)
            if name in ("soak", "mask"):
                mask = name == "mask"
                tasks = [(s, pair, pol, mask) for s, pair, pol in
                         schedule(decks, n[name], seed + (10**6 if mask else 0))]
                it = (pool.map(_game, tasks, chunksize=max(1, len(tasks) // (workers * 16)))
                      if pool else map(_game, tasks))
                for g in it:
                    r.games += 1
                    r.positions += g.masks_checked if mask else g.decisions
                    r.observations += g.observations_checked
                    for k, v in g.coverage.items():
                        r.coverage[k] = r.coverage.get(k, 0) + v
                    if not g.ok:
                        r.fail(g.describe())
                    bar.update()
            else:
                for s, (a, b), _ in schedule(decks, n[name], seed + 2 * 10**6):
                    d0, d1 = local[a], local[b]
                    if name in ("hidden", "web", "narration", "agents"):
                        st: dict = {}
                        if name == "web":
                            from .web import web_hidden_errors
                            errs, k = web_hidden_errors(d0, d1, s, config, stats=st)
                        elif name == "narration":
                            errs, k = narration_errors(d0, d1, s, config, stats=st)
                        elif name == "agents":
                            errs, k = [], 0
                            for label, agent in readers:
                                e, j = agent_hidden_errors(agent, d0, d1, s, config,
                                                           label=label, stats=st)
                                errs, k = errs + e, k + j
                        else:               # both observation layouts
                            errs, k = hidden_info_errors(d0, d1, s, config, stats=st)
                            e2, k2 = hidden_info_errors(d0, d1, s, config, stats=st,
                                                        obs="compact")
                            errs, k = errs + [f"compact layout: {x}" for x in e2], k + k2
                        r.comparisons += st.get("comparisons", 0)
                    else:                   # subprocesses cost a second each: two games
                        errs, k = determinism_errors(d0, d1, s, config, card_files,
                                                     subprocess_check=r.games < 2)
                    r.positions += k
                    r.games += 1
                    if errs:
                        r.fail(f"seed {s}, decks {d0.name} vs {d1.name}:" +
                               "".join(f"\n  - {e}" for e in errs[:5]))
                    bar.update()
            bar.close()
            r.seconds = time.perf_counter() - t0
            results.append(r)
    finally:
        if pool:
            pool.shutdown()
    return results


def run_differential(games: int = 1000, seed: int = 0, backends=("python", "native"),
                     obs_every: int = 1, progress: bool = True, config=None,
                     workers: int = 1):
    """The differential check (checks/differential.py) over ``games`` games of the default
    pools on ``backends``, with a progress bar: a ``DifferentialResult`` (its ``errors``
    hold the first difference, replayable)."""
    from tqdm import tqdm
    from .differential import differential_errors
    with tqdm(total=games, desc="differential", unit="game", disable=not progress,
              leave=False) as bar:
        return differential_errors(games, seed, backends, obs_every=obs_every, config=config,
                                   progress=lambda i: bar.update(i - bar.n),
                                   workers=min(workers, games))


def use_backend(backend: str | None) -> str | None:
    """Make ``backend`` ("python" or "native") the one the checks' games run on -- they
    call ``new_game`` without a backend, which takes ``NIVEL_BACKEND`` -- here, in worker
    processes and in subprocesses; None leaves the default.  Returns why it cannot be
    (the native core missing), or None."""
    import os
    if backend is None:
        return None
    if backend != "python":
        from .differential import native_missing
        why = native_missing()
        if why:
            return why
    os.environ["NIVEL_BACKEND"] = backend
    return None


def _game_readers(specs, seed: int) -> tuple[list, str]:
    """([(name, agent)] for the agents named by ``specs`` that read the game
    (``needs_state``), or why none can run: torch missing, or none of them reads it (an
    agent reading the observation is held to hidden information by the ``hidden``
    check, which checks the observation itself)."""
    try:
        loaded = [(spec, players.load(spec, seed=seed)) for spec in specs]
    except ImportError as e:                          # agents.policy says what to install
        return [], str(e)
    except (ValueError, TypeError) as e:              # an unknown name, a bad policy file
        raise CheckInputError(f"--agents: {e}") from None
    readers = [(spec, a) for spec, a in loaded if players.reads_game(a)]
    if not readers:
        return [], (f"{', '.join(specs)} read(s) the observation, not the game: the hidden "
                    f"check covers that")
    return readers, ""


def summary(results: list[CheckResult]) -> str:
    lines = [f"{'check':<12} {'games':>7} {'positions':>10} {'failures':>9} {'seconds':>8}"]
    for r in results:
        if r.skipped:
            lines.append(f"{r.name:<12} skipped: {r.skipped}")
            continue
        lines.append(f"{r.name:<12} {r.games:>7,} {r.positions:>10,} {r.failures:>9,} "
                     f"{r.seconds:>8.1f}")
    for r in results:
        if r.comparisons and r.name == "narration":
            lines.append(f"\n{r.name}: {r.comparisons:,} comparisons of the lines told to a "
                         f"seat and the events it may read, next moves replayed in "
                         f"substituted and relabelled worlds")
        elif r.comparisons and r.name == "agents":
            lines.append(f"\n{r.name}: {r.comparisons:,} comparisons of the move an agent "
                         f"that reads the game chooses (and a search's visit counts), across "
                         f"redrawn, substituted and relabelled worlds")
        elif r.comparisons and r.name == "web":
            lines.append(f"\n{r.name}: {r.comparisons:,} comparisons of the browser game's "
                         f"answers during play (game, review, replay, errors) across redrawn, "
                         f"substituted and relabelled worlds, none carrying the seed")
        elif r.comparisons:
            lines.append(f"\n{r.name}: {r.comparisons:,} comparisons of observation, mask, "
                         f"infos and action names across redrawn, substituted and relabelled "
                         f"worlds")
    for r in results:
        if r.coverage and r.name == "soak":
            lines.append("")
            lines += coverage_lines(r)
    for r in results:
        for d in r.details:
            lines.append(f"\n{r.name} FAILED: {d}")
    return "\n".join(lines)


def coverage_lines(r: CheckResult) -> list[str]:
    """What the soak exercised, in total and by each player (biased players must do
    what they are named for: the 'attack' player attacks, the 'play' player plays)."""
    from .soak import COVERED
    whats = list(COVERED.values()) + ["triggers"]
    pols = sorted({p for p, _ in r.coverage})
    total = {w: sum(r.coverage.get((p, w), 0) for p in pols) for w in whats}
    out = [f"{r.name} covered ({r.observations:,} observations bound-checked):",
           f"  {'player':<11}" + "".join(f"{w:>{len(w) + 2}}" for w in whats)]
    for p in pols:
        out.append(f"  {p:<11}" + "".join(f"{r.coverage.get((p, w), 0):>{len(w) + 2},}"
                                          for w in whats))
    out.append(f"  {'all':<11}" + "".join(f"{total[w]:>{len(w) + 2},}" for w in whats))
    return out


__all__ = ["AGENTS", "CHECKS", "CheckInputError", "CheckResult", "plan", "run_checks",
           "run_differential", "summary", "use_backend"]
