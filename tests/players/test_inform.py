"""The drivers tell a player that defines ``inform_action`` every move of its game, by
either seat, before the move is played (``nivel_env.players.inform``)."""
import numpy as np

from nivel_env import players
from nivel_env.cards import load_deck
from nivel_env.engine import new_game
from nivel_env.players import RandomAgent


class Told(RandomAgent):
    """A random player that keeps what it is told: (player, action) per move, checking
    that it is told before the move (the move is legal in the game it is given, for the
    player to act there)."""

    def __init__(self, seed=0):
        super().__init__(seed)
        self.heard = []

    def inform_action(self, game, player, action):
        assert game.current_player == player and action in game.legal_actions()
        self.heard.append((player, action))


def moves_of(record, seed, decks=("ember-rush", "stone-bastion")):
    """(player, action) of each move of ``record`` replayed from the seeded deal."""
    g = new_game(load_deck(decks[0]), load_deck(decks[1]), seed=seed)
    out = []
    for a in record:
        out.append((g.current_player, a))
        g.apply_action(a)
    return out


def test_informed_lists_each_teller_once_and_none_for_plain_players():
    t = Told()
    assert players.informed([RandomAgent(), RandomAgent()]) == ()
    assert players.informed([t, t]) == (t.inform_action,)     # one object, both seats
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1)
    players.inform(players.informed([t, RandomAgent()]), g, g.current_player,
                   g.legal_actions()[0])
    assert t.heard == [(g.current_player, g.legal_actions()[0])]


def test_the_arena_tells_both_seats_moves():
    from nivel_env.tournaments.arena import play_game
    t, record = Told(1), []
    play_game(load_deck("ember-rush"), load_deck("stone-bastion"), 3, [RandomAgent(2), t],
              record=record)
    assert t.heard == moves_of(record, 3)


def test_the_gym_env_tells_its_opponent_the_learners_moves_too():
    from nivel_env.env.single import NivelArenaGymEnv
    t = Told(1)
    env = NivelArenaGymEnv(opponent=t, seat=0, decks=("ember-rush", "stone-bastion"))
    env.reset(seed=5)
    heard_before, mine = len(t.heard), []
    r = np.random.default_rng(0)
    for _ in range(40):
        a = int(r.choice(np.flatnonzero(env.action_masks())))
        mine.append(a)
        *_, done, truncated, _ = env.step(a)
        if done or truncated:
            break
    assert [a for p, a in t.heard if p == 0] == mine
    assert len(t.heard) > heard_before + len(mine)             # and its own moves


class FirstLegal:
    """A stand-in for a policy in lockstep games (``logits`` and ``choose``): plays the
    first legal move."""
    temperature = random_share = 0
    n_obs = 8

    def logits(self, obs, masks):
        return np.where(masks, 0.0, -np.inf)

    def choose(self, logits, masks):
        return np.argmax(masks, axis=1)


def test_lockstep_games_tell_the_fixed_opponent_every_move():
    from nivel_env.tournaments.lockstep import play_lockstep
    t = Told(1)
    games = [(load_deck("ember-rush"), load_deck("stone-bastion"), 4, False)]
    rngs = [[np.random.default_rng(8), np.random.default_rng(9)]]
    (_, record, _), = play_lockstep(FirstLegal(), games, rngs, record=True, seats=[0],
                                    opponent=t)
    assert t.heard == moves_of(record, 4)


def test_a_play_session_tells_its_opponent_both_seats_moves():
    from nivel_env.session import PlaySession
    made = []

    def loader(spec, **kw):
        if spec != "told-random":
            return None
        made.append(Told(kw.get("seed") or 0))
        return made[-1]
    players.register(loader)
    try:
        s = PlaySession(deck="ember-rush", opponent_deck="stone-bastion",
                        opponent="told-random", seat=0, seed=7)
        r = np.random.default_rng(1)
        for _ in range(30):
            if s.over:
                break
            s.play(int(r.choice(s.legal())))
    finally:
        players.unregister(loader)
    t = made[0]
    assert {p for p, _ in t.heard} == {0, 1}
    g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=7)
    for p, a in t.heard:                        # the session's game, move for move
        assert g.current_player == p
        g.apply_action(a)
    assert g.to_dict() == s.g.to_dict()
