"""Opponents by name: ``load_opponent("heuristic")``, a shipped policy, a search agent, a
difficulty level, or a policy file -- each optionally with settings.

Names:
  * the players built in code, ``BY_NAME`` (``random``, ``heuristic``): a new one is one
    entry there -- ``load_opponent``, ``bundled_opponents`` and the screens' lists
    (``OpponentLoader.names``, ``nivel_env.players.names``) all read that table;
  * the shipped trained policies in ``agents/policies/`` by file stem (``nv2-ppo``, the
    strongest; ``nv1-ppo``);
  * search agents, ``SEARCHES`` (``nv2-search``: determinized PUCT over ``nv2-ppo`` with
    the value head fit for it, see ``agents.search``; ``nv2-search-deep``, the same with
    four times the simulations; ``nv2-gumbel``, that with the Gumbel root, the ladder's
    expert);
  * the difficulty ladder, ``LEVELS`` (``novice``, ``casual``, ``strong``, ``expert``),
    each an alias for one of the above with settings;
  * a policy file, named by a path (``runs/x/policy.pt``, ``./my.pt``).

Settings follow a colon as ``key=value`` pairs separated by commas:
``heuristic:random_share=0.5``, ``nv2-ppo:temperature=0.5``,
``nv2-search:simulations=64,worlds=4``, ``nv2-search:deck_lists=open`` (a search that knows
the opponent's deck list, for tournaments with open lists; closed by default),
``nv2-search-deep:belief=on`` (worlds weighted by the opponent's moves, ``agents.belief``;
off by default).  A trained
policy given ``simulations`` becomes a search agent over that policy
(``runs/x/policy.pt:simulations=256``).  ``difficulty``
applies to trained policies: ``hard`` (greedy), ``normal`` (samples from the policy),
``easy`` (samples, and 30% of moves are random); see ``agents.policy.DIFFICULTIES``.

Interactive play (a person waiting for the move): ``for_play(agent)`` caps a search
agent's think time at ``PLAY_THINK_SECONDS`` of wall time a move (``cap_think_time``) and
gives this process one torch thread (``play_threads``).  A name loads the same agent as
always, uncapped, so tournaments (``evaluate.py``) stay reproducible; a cap can also be
named, ``expert:max_ms=800``.
"""
from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from nivel_env.paths import names_a_path
from nivel_env.players import PLAY_THINK_SECONDS, RandomAgent, UnknownPlayer

from .heuristic import HeuristicAgent


@dataclass(frozen=True)
class Kind:
    """A player built in code, as ``BY_NAME`` lists it: ``build(seed, **settings)`` makes
    one, ``settings`` maps each setting it takes to its type (``name:key=value`` specs are
    checked against it), ``what`` says what it is in one line (the screens' lists);
    ``needs_torch``: it reads a network, so an install without torch cannot offer it."""

    build: Callable
    settings: dict
    what: str
    needs_torch: bool = False


#: the players built in code, by the bare name ``load_opponent`` takes: the one place a
#: new one is registered (its order is the order every list of names shows)
BY_NAME = {
    "random": Kind(RandomAgent, {}, "moves at random"),
    "heuristic": Kind(HeuristicAgent, {"random_share": float},
                      "the rule-based heuristic, greedy"),
}

POLICY_SUFFIX = ".pt"
POLICY_DIR = Path(__file__).with_name("policies")
VALUE_DIR = Path(__file__).with_name("values")

#: shipped search agents: name -> (policy, settings)
SEARCHES = {
    "nv2-search": ("nv2-ppo", {"simulations": 128, "worlds": 4, "c_puct": 2.5,
                               "prior_temperature": 8.0}),
    # the strongest measured within a second a move: 512 simulations, 64 leaves a forward
    "nv2-search-deep": ("nv2-ppo", {"simulations": 512, "worlds": 4, "c_puct": 2.5,
                                    "prior_temperature": 8.0, "batch": 64}),
    # nv2-search-deep with the Gumbel root (sequential halving over 16 sampled moves):
    # as strong as nv2-search-deep at the same cost; the ladder's expert (docs/opponents.md)
    "nv2-gumbel": ("nv2-ppo", {"simulations": 512, "worlds": 4, "c_puct": 2.5,
                               "prior_temperature": 8.0, "batch": 64, "root": "gumbel"}),
}

#: the difficulty ladder, weakest first: level -> (agent spec, what it is); the ratings
#: are measured in docs/opponents.md
LEVELS = {
    "novice": ("random", "moves at random: any new player can win"),
    "casual": ("heuristic:random_share=0.3",
               "the rule-based heuristic, with 30% of its choices random"),
    "strong": ("nv2-ppo:random_share=0.2",
               "the shipped trained policy, greedy, with 20% of its choices random"),
    "expert": ("nv2-gumbel",
               "search over nv2-ppo with the Gumbel root, 512 simulations: the strongest"),
}

# PLAY_THINK_SECONDS, the think-time cap for a person's opponent, has its one home in
# nivel_env.players (the screens read it there without importing this package)

#: torch intra-op threads for interactive play: with more, OpenMP's waiting threads spin
#: on cores other work holds and one move took 12.7 s (docs/opponents.md)
PLAY_THREADS = 1

#: the settings a trained policy and a search take (BY_NAME's players: their ``settings``)
_SETTINGS = {
    "policy": {"temperature": float, "random_share": float, "difficulty": str},
    "search": {"simulations": int, "worlds": int, "max_ms": float, "c_puct": float,
               "temperature": float, "batch": int, "prior_temperature": float,
               "deck_lists": str,                  # closed | open (docs/rulings.md R24)
               "threads": int, "root": str,            # puct | gumbel
               "considered": int, "c_visit": float, "c_scale": float,
               "oracle": str,                      # agents.oracle: oracle_file names it
               "belief": str},                     # on | tempered | off (agents.belief)
}
_SETTING = re.compile(r"^[a-z_]+=[^,=:]+(,[a-z_]+=[^,=:]+)*$")


def bundled_opponents() -> list[str]:
    """Every name ``load_opponent`` takes without a path."""
    return (list(BY_NAME) + sorted(p.stem for p in POLICY_DIR.glob("*.pt"))
            + sorted(SEARCHES) + list(LEVELS))


def is_policy_path(spec: str | Path) -> bool:
    """A policy *file* is named with a path (``nivel_env.paths``; settings after a colon
    aside): it holds a directory separator or ends in ``.pt``.  Anything else is a
    bundled opponent's name, so a file in the working directory called ``nv1-ppo`` can
    never stand in for the shipped ``nv1-ppo``."""
    return names_a_path(spec if isinstance(spec, Path) else split_spec(str(spec))[0],
                        POLICY_SUFFIX)                # nivel_env.paths: the project's one rule


def split_spec(spec: str) -> tuple[str, dict]:
    """``"name:key=value,..."`` -> ``("name", {"key": "value", ...})``.  Only a tail after
    the last colon that reads as settings is split off (a path may hold colons)."""
    head, sep, tail = spec.rpartition(":")
    if not sep or not _SETTING.match(tail):
        return spec, {}
    return head, dict(kv.split("=", 1) for kv in tail.split(","))


def policy_file(name: str | Path) -> Path:
    """The file of a bundled policy name, or the path given."""
    if is_policy_path(name):
        return Path(name)
    path = POLICY_DIR / f"{name}.pt"
    if not path.is_file():
        raise ValueError(f"no bundled policy {str(name)!r}; known: "
                         f"{', '.join(p.stem for p in sorted(POLICY_DIR.glob('*.pt')))} (a "
                         f"policy file needs a path: ./{name}.pt or a name ending in .pt)")
    return path


def oracle_file(name: str) -> Path:
    """A search's ``oracle`` setting -> its file: a bundled name (``nv2`` is
    ``agents/values/nv2-oracle.pt``, ``agents.oracle``) or a path."""
    if names_a_path(name, POLICY_SUFFIX):
        return Path(name)
    path = VALUE_DIR / f"{name}-oracle.pt"
    if not path.is_file():
        known = sorted(p.name[:-len("-oracle.pt")] for p in VALUE_DIR.glob("*-oracle.pt"))
        raise ValueError(f"no bundled oracle {name!r}; known: {', '.join(known) or 'none'} "
                         f"(an oracle file needs a path: ./{name}.pt)")
    return path


def _typed(kind: str, settings: dict, spec: str) -> dict:
    allowed = BY_NAME[kind].settings if kind in BY_NAME else _SETTINGS[kind]
    out = {}
    for k, v in settings.items():
        if k not in allowed:
            raise ValueError(f"load_opponent: {spec!r}: {kind} opponents take "
                             f"{', '.join(allowed) or 'no settings'}, not {k!r}")
        try:
            out[k] = allowed[k](v)
        except ValueError:
            raise ValueError(f"load_opponent: {spec!r}: {k} must be "
                             f"{allowed[k].__name__}, got {v!r}") from None
    return out


def load_opponent(name_or_path: str | Path, difficulty: str = "hard", seed: int | None = None):
    """An agent by name (see the module docstring), policy file path, or either with
    settings.  Agents that read the observation have ``act(observation, action_mask)``;
    search agents have ``act_state(game)`` (``needs_state``), which the arena, the
    environments' opponents, ``play`` and ``evaluate.py`` call.

    Raises ``nivel_env.players.UnknownPlayer`` (a ``ValueError``) naming the known
    opponents for an unknown name, ``ValueError`` naming the settings a kind takes, and
    ``PolicyFileError`` for a file that is not a usable policy (nothing is loaded from
    it).
    """
    if not isinstance(name_or_path, (str, Path)):
        raise TypeError(f"load_opponent: give a name or a path, got "
                        f"{type(name_or_path).__name__}")
    spec = str(name_or_path)
    name, settings = (spec, {}) if isinstance(name_or_path, Path) else split_spec(spec)
    if name in LEVELS:
        base, base_settings = split_spec(LEVELS[name][0])
        name, settings = base, {**base_settings, **settings}
    if name in BY_NAME:
        return BY_NAME[name].build(seed, **_typed(name, settings, spec))
    value = None
    if name in SEARCHES:
        name, preset = SEARCHES[name]
        settings = {**{k: str(v) for k, v in preset.items()}, **settings}
        bundled_value = VALUE_DIR / f"{name}.pt"
        value = bundled_value if bundled_value.is_file() else None
    try:
        path = policy_file(name)
    except ValueError:
        raise UnknownPlayer(f"load_opponent: no bundled opponent {name!r}; known: "
                         f"{', '.join(bundled_opponents())} (a policy file needs a path: "
                         f"./{name}.pt or a name ending in .pt)") from None
    from .policy import PolicyAgent
    if "simulations" in settings:                   # a search over this policy
        from .search import SearchAgent
        s = _typed("search", settings, spec)
        if "oracle" in s:
            s["oracle"] = oracle_file(s["oracle"])
        return SearchAgent(PolicyAgent(path), value=value, policy_path=path, seed=seed, **s)
    s = _typed("policy", settings, spec)
    if "difficulty" in s or not ({"temperature", "random_share"} & set(s)):
        s["difficulty"] = s.get("difficulty", difficulty)
    return PolicyAgent(path, seed=seed, **s)


def cap_think_time(agent, seconds: float | None):
    """Cap ``agent``'s wall time a move at ``seconds`` (None: no cap) if it searches
    (``agents.search.SearchAgent``: it stops there with the best move found so far and
    otherwise plays as uncapped); any other agent is left as it is.  Returns ``agent``."""
    if seconds is not None and (isinstance(seconds, bool)
                                or not (isinstance(seconds, (int, float)) and seconds > 0)):
        raise ValueError(f"cap_think_time: seconds must be positive or None, got "
                         f"{seconds!r}")
    from .search import SearchAgent
    if isinstance(agent, SearchAgent):
        agent.max_ms = None if seconds is None else float(seconds) * 1000
    return agent


def play_threads(threads: int = PLAY_THREADS) -> None:
    """Give torch ``threads`` intra-op threads in this process, for interactive play: a
    screen calls it once at start-up, before the first game, or through ``for_play``
    (calling it again costs nothing).  Torch keeps a count per OS thread: the calling
    thread and every thread that first uses torch afterwards get ``threads``, a thread
    that used torch before keeps its own -- which is why ``for_play`` also gives a search
    agent ``threads``, set in whichever thread it searches in.  Without torch loaded
    (only rule-based opponents so far) it does nothing; a call after a policy is loaded
    (``for_play`` makes one each game) sets it."""
    if isinstance(threads, bool) or not (isinstance(threads, int) and threads >= 1):
        raise ValueError(f"play_threads: threads must be a positive int, got {threads!r}")
    torch = sys.modules.get("torch")
    if torch is not None and torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


def for_play(agent, seconds: float | None = PLAY_THINK_SECONDS,
             threads: int = PLAY_THREADS):
    """``agent`` made ready to play a waiting person: its think time capped at
    ``seconds`` (``cap_think_time``; a no-op for agents that do not search), torch at
    ``threads`` threads in this process (``play_threads``) and in the thread a search
    runs in.  Returns ``agent``."""
    from .search import SearchAgent
    play_threads(threads)
    if isinstance(agent, SearchAgent):
        agent.threads = threads
    return cap_think_time(agent, seconds)


class OpponentLoader:
    """This package's player loader for ``nivel_env.players.load`` (the entry point
    ``nivel_env.players: agents`` in pyproject.toml points at ``PLAYERS``): a spec loads as
    ``load_opponent`` loads it, made ready for a waiting person with ``think_seconds``
    (``for_play``; a spec's own ``max_ms`` wins).  ``levels()`` and ``names()`` are the
    ladder and the bundled names the screens list without importing this package."""

    __name__ = "agents.opponents"

    def __call__(self, spec, difficulty: str = "hard", seed: int | None = None,
                 think_seconds: float | None = None):
        agent = load_opponent(spec, difficulty=difficulty, seed=seed)
        if think_seconds is not None:
            named = getattr(agent, "max_ms", None)
            agent = for_play(agent, think_seconds if named is None else named / 1000)
        return agent

    @staticmethod
    def levels() -> dict:
        """``LEVELS``: ``{level: (spec, what it is)}``, weakest first."""
        return dict(LEVELS)

    @staticmethod
    def names() -> dict:
        """``{name: what it is}`` for every bundled name, the levels first."""
        words = {**{name: kind.what for name, kind in BY_NAME.items()},
                 **{s: f"search over {p}" for s, (p, _) in SEARCHES.items()},
                 **{name: what for name, (_spec, what) in LEVELS.items()}}
        return {name: words.get(name, "a shipped trained policy")
                for name in list(LEVELS) + [n for n in bundled_opponents() if n not in LEVELS]}

    @staticmethod
    def torch_free() -> list:
        """The bare names that play without torch: the players built in code that read no
        network (every policy and search does)."""
        return [name for name, kind in BY_NAME.items() if not kind.needs_torch]


#: the loader ``nivel_env.players`` finds (entry point group ``nivel_env.players``)
PLAYERS = OpponentLoader()
