"""The PettingZoo AEC environment: API conformance, seeding, rendering, masks and
what each player may see."""
import random
import subprocess
import sys
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from nivel_env import env, nivel_arena_v0, raw_env
from nivel_env.cards import DeckError, list_decks, load_deck
from nivel_env.cards.deck import DECK_DIR
from nivel_env.engine import N_ACTIONS, IllegalActionError, RuleConfig
from nivel_env.engine import const as K
from nivel_env.engine.hidden import determinize
from nivel_env.env.encoder import OBS_SIZE, Encoder


def play_random(e, seed, steps=None, check=None):
    """Random masked play through the AEC API; ``check(e, agent, obs)`` on live steps."""
    r = random.Random(seed)
    e.reset(seed=seed)
    n = 0
    for agent in e.agent_iter():
        obs, _rew, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[r.randrange(len(legal))]))
        n += 1
        if steps is not None and n >= steps:
            break
    return n


# ------------------------------------------------------------------ PettingZoo tests

def test_api_test_with_mask_warnings_as_failures():
    e = env()
    bad = []
    base = e.unwrapped

    def show(message, category, filename, lineno, file=None, line=None):
        text = str(message)
        # a finished game has no legal action: an all-zero mask is right then
        if "mask" in text.lower() and not (base.game is not None and base.game.is_terminal()):
            bad.append(text)

    with warnings.catch_warnings():
        warnings.simplefilter("always")
        warnings.showwarning = show
        api_test(e, num_cycles=1500)
    assert not bad, bad


def test_seed_test():
    seed_test(lambda: env(), num_cycles=300)
    seed_test(lambda: env(decks=("ember-rush", "tide-scholars")), num_cycles=300)


def test_render_test():
    render_test(lambda render_mode=None: env(render_mode=render_mode))
    e = env(render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert "Turn" in text and "P0" in text and "P1" in text


def test_human_render_prints(capsys):
    e = env(render_mode="human")
    e.reset(seed=1)
    e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    assert "Decision" in capsys.readouterr().out


def test_different_seeds_give_different_games():
    def trace(seed):
        e = raw_env(decks=("ember-rush", "stone-bastion"))
        out = []
        play_random(e, seed, steps=60,
                    check=lambda e, a, o: out.append(o["observation"].tobytes()))
        return out
    assert trace(1) == trace(1)
    assert trace(1) != trace(2)
    # the deck pair is drawn from the seed too when no decks are given
    pairs = set()
    for s in range(12):
        e = raw_env()
        e.reset(seed=s)
        pairs.add(tuple(d.name for d in e.decks))
    assert len(pairs) > 3


def test_reset_without_seed_continues_the_stream():
    e = raw_env()
    e.reset(seed=5)
    a = e.game.to_dict()
    e.reset()
    b = e.game.to_dict()
    e.reset(seed=5)
    assert e.game.to_dict() == a and a != b


def test_versioned_module_and_lazy_import():
    assert nivel_arena_v0.env is not None and nivel_arena_v0.raw_env is raw_env
    e = nivel_arena_v0.env()
    e.reset(seed=0)
    assert e.unwrapped.metadata["name"] == "nivel_arena_v0"
    # the engine alone does not load gymnasium or pettingzoo
    code = ("import sys, nivel_env.engine, nivel_env.cards; "
            "print(any(m.split('.')[0] in ('gymnasium', 'pettingzoo') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "False"


# ------------------------------------------------------------------ the adapter

def test_mask_is_exactly_the_engines_legal_actions():
    def check(e, agent, obs):
        g = e.unwrapped.game
        p = int(agent[-1])
        assert g.current_player == p
        assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(g.legal_actions())
        other = e.unwrapped.observe(f"player_{1 - p}")
        assert not other["action_mask"].any()
        o = obs["observation"]
        assert o.shape == (OBS_SIZE,) and o.dtype == np.float32
        assert np.isfinite(o).all() and o.min() >= -10 and o.max() <= 10
        assert e.unwrapped.infos[agent]["decision"] == g.decision.kind
    for seed in range(6):
        play_random(raw_env(), seed, check=check)
    play_random(raw_env(config=RuleConfig(choose_effect_order=False)), 9, check=check)


def test_agent_selection_follows_the_engine_into_the_opponents_turn():
    """The defending player acts mid-turn (guardian, defense)."""
    seen = set()

    def check(e, agent, obs):
        g = e.unwrapped.game
        seen.add((g.decision.kind, g.decision.player == g.tp))
    for seed in range(4):
        play_random(raw_env(decks=("ember-rush", "stone-bastion")), seed, check=check)
    assert ("defense", False) in seen
    assert ("main", True) in seen and ("attack", True) in seen


def test_rewards_at_the_end_and_zero_before():
    e = raw_env()
    r = random.Random(0)
    e.reset(seed=11)
    totals = {"player_0": 0, "player_1": 0}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        totals[agent] += rew
        if term or trunc:
            assert info["decision"] is None and "returns" in info
            e.step(None)
            continue
        assert rew == 0
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[r.randrange(len(legal))]))
    assert sorted(totals.values()) == [-1, 1]


def test_truncation_at_the_turn_cap():
    e = raw_env(config=RuleConfig(max_turns=3))
    r = random.Random(0)
    e.reset(seed=2)
    ends = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            ends[agent] = (rew, term, trunc)
            e.step(None)
            continue
        legal = [a for a in np.flatnonzero(obs["action_mask"]) if a != 200 and a != 201
                 and a != 202]   # never attack: nobody can lose by turn 3
        e.step(int(legal[r.randrange(len(legal))]))
    assert ends == {"player_0": (0, False, True), "player_1": (0, False, True)}


def test_illegal_action_raises_and_changes_nothing():
    e = env()
    e.reset(seed=4)
    g = e.unwrapped.game
    before = g.to_dict()
    agent = e.agent_selection
    mask = e.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(illegal)
    with pytest.raises(IllegalActionError, match="integer id 0..336 .* got str 'attack'"):
        e.unwrapped.step("attack")
    with pytest.raises(IllegalActionError, match="out of range"):
        e.step(N_ACTIONS)
    with pytest.raises(IllegalActionError, match="got float 2.5"):
        e.step(2.5)
    fresh = env(render_mode="ansi")
    for call in (lambda: fresh.step(0), lambda: fresh.observe("player_0"), fresh.render,
                 fresh.last):
        with pytest.raises(RuntimeError, match="reset"):
            call()
    assert e.unwrapped.game.to_dict() == before and e.agent_selection == agent


def test_action_names():
    e = raw_env(decks=("ember-rush", "stone-bastion"))
    e.reset(seed=0)
    assert e.action_name(0) == "keep opening hand"
    names = e.legal_action_names()
    assert set(names) == set(e.game.legal_actions())
    assert "out of range" in e.action_name(N_ACTIONS + 3)


def test_deck_options():
    path = DECK_DIR / "gale-runners.deck"
    e = raw_env(decks=(str(path), load_deck("dawn-ascent")))
    e.reset(seed=0)
    assert [d.name for d in e.decks] == [load_deck("gale-runners").name,
                                         load_deck("dawn-ascent").name]
    e.reset(seed=0, options={"decks": ("veil-piercers", "anvil-guild")})
    assert [d.source.split("/")[-1] for d in e.decks] == ["veil-piercers.deck", "anvil-guild.deck"]
    e = raw_env(deck_pool=["ember-rush", "tide-scholars"])
    for s in range(5):
        e.reset(seed=s)
        assert {d.name for d in e.decks} <= {load_deck("ember-rush").name,
                                             load_deck("tide-scholars").name}
    with pytest.raises(DeckError, match="no-such-deck"):
        raw_env(decks=("no-such-deck", "ember-rush"))
    with pytest.raises(ValueError, match="pair"):
        raw_env(decks="ember-rush")
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="rgba")
    with pytest.warns(UserWarning, match="unknown option"):
        raw_env().reset(seed=0, options={"deck": 1})
    assert len(list_decks()) >= 2


# ------------------------------------------------------------------ hidden information

def _positions(n_games=8, per_game=25):
    """Seeded positions from random games, with the player to act."""
    from nivel_env.cards import load_deck as ld
    from nivel_env.engine import new_game
    names = list_decks()
    out = []
    for s in range(n_games):
        r = random.Random(s)
        g = new_game(ld(names[s % len(names)]), ld(names[(3 * s + 1) % len(names)]), seed=s)
        steps = 0
        while not g.is_terminal():
            if steps % max(1, 200 // per_game) == 0:
                out.append(g.clone())
            legal = g.legal_actions()
            g.apply_action(legal[r.randrange(len(legal))])
            steps += 1
    return out


def test_opponent_hand_cards_never_appear_as_card_rows():
    """When the opponent chooses from their own hand, the observer sees how many
    candidates there are and where, not which cards."""
    from nivel_env.env import card_features as cf
    from nivel_env.env.encoder import CANDIDATE_ROWS, OFFSETS, ROW_CANDS
    enc = Encoder(_positions(2, 5)[0].db)
    hits = 0
    for g in _positions(12, 60):
        d = g.dec
        if g.result is not None or d[0] != K.D_PICK:
            continue
        p = 1 - d[1]
        obs = enc.encode(g, p, None)
        cards = obs[OFFSETS["cards"]:OFFSETS["zones"]].reshape(-1, cf.WIDTH)
        for i, v in enumerate(d[3][:CANDIDATE_ROWS]):
            if d[2] != K.P_ORDER and v >= 0 and g.zone(v) in (K.Z_HAND, K.Z_DECK):
                assert not cards[ROW_CANDS + i].any()
                hits += 1
    assert hits > 0


def test_determinize_keeps_what_the_player_sees():
    from collections import Counter
    g = _positions(1, 4)[-1]
    for p in (0, 1):
        o = 1 - p
        worlds = [determinize(g, p, seed=s) for s in range(5)]
        for h in worlds:
            assert [h.defs[i] for i in h.hand[p]] == [g.defs[i] for i in g.hand[p]]
            for z in ("trash", "damage", "skill"):
                for q in (0, 1):
                    assert [h.defs[i] for i in getattr(h, z)[q]] == \
                        [g.defs[i] for i in getattr(g, z)[q]]
            assert [h.defs[i] if i >= 0 else -1 for i in h.unit] == \
                [g.defs[i] if i >= 0 else -1 for i in g.unit]
            assert len(h.hand[o]) == len(g.hand[o]) and h.where == g.where
            assert Counter(h.defs[i] for i in h.hand[o] + h.deck[o]) == \
                Counter(g.defs[i] for i in g.hand[o] + g.deck[o])
            assert Counter(h.defs[i] for i in h.deck[p]) == Counter(g.defs[i] for i in g.deck[p])
        hidden = {tuple(h.defs[i] for i in h.hand[o] + h.deck[o] + h.deck[p]) for h in worlds}
        assert len(hidden) > 1
        h = worlds[0]                                  # a redrawn world plays on
        r = random.Random(0)
        while not h.is_terminal():
            legal = h.legal_actions()
            h.apply_action(legal[r.randrange(len(legal))])


# ------------------------------------------------------------------ after the end, illegal moves

def play_out(e, seed, each=None):
    """Masked random play to the end, every agent stepped out; ``each()`` is called
    before every step."""
    r = random.Random(seed)
    for agent in e.agent_iter():
        if each is not None:
            each()
        obs, _rew, term, trunc, _info = e.last()
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[r.randrange(len(legal))]))


def test_last_and_action_name_after_every_agent_stepped_out():
    """PettingZoo's loop ends when every agent has stepped out; ``last()`` after that is
    a clear RuntimeError (it was a KeyError), ``action_name`` names ids by the action
    table before reset and after the end (it raised, or named cards of a finished game)."""
    e = env(decks=("ember-rush", "stone-bastion"))
    assert e.action_name(17) == "play hand slot 2 -> lane 1"        # before reset
    e.reset(seed=4)
    play_out(e, 4)
    assert e.agents == []
    with pytest.raises(RuntimeError, match=r"every agent has stepped out.*call reset"):
        e.last()
    with pytest.raises(RuntimeError, match="call reset"):
        e.step(None)
    assert e.action_name(8) == "play hand slot 0 -> lane 0"
    assert e.action_name(170) == "activate leader effect 2"
    assert e.action_name(210) == "pick candidate 1"
    assert e.legal_action_names() == {}
    e.reset(seed=5)                                                   # and it goes on
    obs, *_ = e.last()
    assert obs["action_mask"].any()


def test_illegal_action_lose_ends_the_game_as_pettingzoo_classic_does():
    e = env(illegal_action="lose")
    e.reset(seed=2)
    for _ in range(6):                                  # into the game a little
        e.step(int(np.flatnonzero(e.last()[0]["action_mask"])[0]))
    offender = e.agent_selection
    other = next(a for a in e.agents if a != offender)
    before = e.unwrapped.game.to_dict()
    mask = e.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[-1])
    e.step(illegal)
    assert e.unwrapped.game.to_dict() == before                     # the game as it was
    obs, reward, term, trunc, info = e.last()
    assert e.agent_selection == offender and (reward, term, trunc) == (-1.0, True, False)
    assert str(illegal) in info["illegal_action"] and offender in info["illegal_action"]
    assert e.rewards == {offender: -1.0, other: 0.0}
    assert all(e.terminations.values()) and not obs["action_mask"].any()
    assert not e.observe(other)["action_mask"].any()
    assert e.legal_action_names() == {}
    with pytest.raises(IllegalActionError, match=r"step\(None\)"):
        e.step(int(np.flatnonzero(mask)[0]))
    seen = {}
    for agent in e.agent_iter():
        _, reward, term, _, info = e.last()
        seen[agent] = reward
        assert term and "illegal_action" in info
        e.step(None)
    assert seen == {offender: -1.0, other: 0.0} and e.agents == []
    # ids outside the action space raise in this mode too, changing nothing
    e.reset(seed=2)
    before = e.unwrapped.game.to_dict()
    for bad in (N_ACTIONS, -1, 2.5, "3"):
        with pytest.raises(IllegalActionError):
            e.step(bad)
    assert e.unwrapped.game.to_dict() == before and not any(e.terminations.values())
    with pytest.raises(ValueError, match="illegal_action must be 'raise' or 'lose'"):
        env(illegal_action=None)


def test_api_test_passes_with_illegal_action_lose():
    api_test(env(illegal_action="lose"), num_cycles=300)
    # and unmasked random play: every game ends, by the rules or by an illegal move
    e = env(illegal_action="lose")
    rng = random.Random(0)
    endings = set()
    for seed in range(6):
        e.reset(seed=seed)
        wild = 0.02 if seed % 2 else 0.0                # odd seeds: some unmasked moves
        for agent in e.agent_iter():
            _, _, term, trunc, info = e.last()
            if term or trunc:
                endings.add("illegal" if "illegal_action" in info else "rules")
                e.step(None)
                continue
            legal = np.flatnonzero(e.last()[0]["action_mask"])
            e.step(rng.randrange(N_ACTIONS) if rng.random() < wild else
                   int(legal[rng.randrange(len(legal))]))
    assert endings == {"illegal", "rules"}


def test_rgb_array_frames_have_one_size_over_a_whole_game():
    e = env(render_mode="rgb_array")
    e.reset(seed=6)
    shapes = set()
    play_out(e, 6, each=lambda: shapes.add(e.render().shape))
    assert len(shapes) == 1
    from nivel_env.env.image import FRAME_SIZE
    assert shapes == {FRAME_SIZE + (3,)}
