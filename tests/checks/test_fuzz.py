"""Stateful fuzzing with Hypothesis: random interleavings of legal moves, illegal
attempts, clones and serialisation round trips, with the soak's invariants after
every step.  Hypothesis shrinks a failure to the shortest sequence of steps."""
import pickle

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from nivel_env.cards import list_decks, load_deck
from nivel_env.checks import invariant_errors, play_cost_errors
from nivel_env.checks.invariants import card_count
from nivel_env.engine import N_ACTIONS, Game, IllegalActionError, new_game
import conftest
from conftest import TEST_DATA

DB = conftest.test_db()
DECKS = [load_deck(n, DB) for n in list_decks()] + \
    [load_deck(TEST_DATA / f, DB) for f in ("test-blaze.deck", "test-tide.deck")]


class GameMachine(RuleBasedStateMachine):
    @initialize(seed=st.integers(0, 2**40), a=st.sampled_from(DECKS), b=st.sampled_from(DECKS))
    def start(self, seed, a, b):
        self.g = new_game(a, b, seed=seed)
        self.counts = (card_count(self.g, 0), card_count(self.g, 1))

    def live(self):
        return not self.g.is_terminal()

    @precondition(live)
    @rule(data=st.data())
    def take_a_legal_action(self, data):
        legal = self.g.legal_actions()
        a = data.draw(st.sampled_from(legal), label="action")
        assert play_cost_errors(self.g, a) == []
        self.g.apply_action(a)

    @rule(a=st.one_of(st.integers(0, N_ACTIONS - 1), st.integers(-10**6, 10**6)))
    def try_an_illegal_action(self, a):
        if a in self.g.legal_actions():
            return
        before = self.g.to_dict()
        with pytest.raises(IllegalActionError):
            self.g.apply_action(a)
        assert self.g.to_dict() == before

    @rule(how=st.sampled_from(["clone", "pickle", "dict"]))
    def replace_by_a_copy(self, how):
        g = self.g
        h = {"clone": g.clone, "pickle": lambda: pickle.loads(pickle.dumps(g)),
             "dict": lambda: type(g).from_dict(g.to_dict(), g.db)}[how]()
        assert h == g and h.legal_actions() == g.legal_actions()
        self.g = h

    @invariant()
    def invariants_hold(self):
        if hasattr(self, "g"):
            assert invariant_errors(self.g, self.counts) == []


@pytest.mark.parametrize("examples,steps", [pytest.param(20, 250, marks=pytest.mark.slow),
                                            (3, 120)])
def test_game_machine(examples, steps):
    run_state_machine_as_test(GameMachine, settings=settings(
        max_examples=examples, stateful_step_count=steps, deadline=None, database=None,
        suppress_health_check=[HealthCheck.too_slow]))
