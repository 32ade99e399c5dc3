"""A rule-based player that decides from its observation only (what its seat may see).

It is the yardstick for trained policies and a sensible default opponent: it plays
its strongest affordable cards into good lanes, attacks open lanes and favourable
trades, defends when the block wins or the hit would be lethal, takes removal to the
opponent's best unit and discards its least valuable cards.  Ties are broken by a
seeded generator, so a run can be repeated.
"""
from __future__ import annotations

import numpy as np

from nivel_env.engine import actions as A
from nivel_env.env.encoder import card_table
from nivel_env.env.view import ObservationView

HARMFUL = {"trash", "return_to_hand", "to_deck_bottom", "prohibit", "discard", "mill", "damage"}


class HeuristicAgent:
    """Greedy one-decision-at-a-time rules over the observation vector.

    ``random_share`` plays that share of its real choices uniformly at random instead (a
    weaker opponent for new players; 0 is the full heuristic).
    """

    needs_observation = True
    #: it reads either layout (``ObservationView``); a compact one with the pool's card
    #: table, which ``use_card_pool`` gives it
    observation_layouts = ("full", "compact")

    def __init__(self, seed: int | None = None, random_share: float = 0.0):
        if not 0.0 <= random_share <= 1.0:
            raise ValueError(f"HeuristicAgent: random_share must be in [0, 1], got "
                             f"{random_share!r}")
        self.rng = np.random.default_rng(seed)
        self.random_share = float(random_share)
        self.card_table = None

    def reset(self) -> None:
        pass

    def use_card_pool(self, db) -> None:
        """The card table of the pool played, for reading compact observations."""
        self.card_table = card_table(db)

    def act(self, observation, action_mask) -> int:
        legal = np.flatnonzero(np.asarray(action_mask))
        if legal.size == 0:
            raise ValueError("HeuristicAgent.act: the action mask has no legal action")
        if legal.size == 1:
            return int(legal[0])
        if self.random_share and self.rng.random() < self.random_share:
            return int(legal[self.rng.integers(legal.size)])
        if observation is None:
            raise ValueError("HeuristicAgent.act needs the observation (it decides from it)")
        v = ObservationView(observation, self.card_table)
        kind = v.decision
        scores = {int(a): 0.0 for a in legal}
        handler = getattr(self, "_" + (kind or "main"), None)
        if handler is not None:
            handler(v, scores)
        best = max(scores.values())
        top = [a for a, s in scores.items() if s >= best - 1e-9]
        return int(top[self.rng.integers(len(top))]) if len(top) > 1 else top[0]

    # ------------------------------------------------------------ decisions
    def _mulligan(self, v, s):
        cheap_units = sum(1 for h in range(12) if v.card_type(v.HAND + h) == "unit"
                          and v.card(v.HAND + h, "cost") <= 0.3 + 1e-6)
        s[A.KEEP] = 1.0 if cheap_units >= 2 else 0.0
        s[A.MULLIGAN] = 0.5

    def _main(self, v, s):
        my_pw = v.field_value("power", True) * 10
        my_occ = v.field_flag("occupied", True)
        op_pw = v.field_value("power", False) * 10
        op_occ = v.field_flag("occupied", False)
        for a in s:
            mv = A.decode(a)
            if mv.kind == "PLAY":
                s[a] = self._play_score(v, mv.hand_slot, mv.target, my_pw, my_occ, op_pw, op_occ)
            elif mv.kind == "ACTIVATE":
                s[a] = 2.5
        if A.END_MAIN in s:
            s[A.END_MAIN] = 0.0

    def _play_score(self, v, h, t, my_pw, my_occ, op_pw, op_occ) -> float:
        if h >= 12:                                       # not shown in the observation
            return 0.5
        row = v.HAND + h
        kind = v.card_type(row)
        power, hit = v.card(row, "power") * 10, v.card(row, "hit") * 5
        if kind == "unit":
            if t < 3 and my_occ[t]:                       # upgrade (3.5.5)
                gain = power - my_pw[t]
                return gain - 1.0 if gain >= 2 else -1.0
            lane = 1.0 if not op_occ[t] else (1.5 if power > op_pw[t] else 0.0)
            return 2.0 + power + 2 * hit + lane
        if kind == "item":
            return 2.0 + 0.3 * my_pw[t] + v.card(row, "power_bonus") * 10
        if kind == "skill":
            opp = v.card_verbs(row, "verbs_opponent")
            mine = v.card_verbs(row, "verbs_self")
            if opp & {"trash", "return_to_hand", "to_deck_bottom"} and op_occ.any():
                return 6.0
            if "draw" in mine or "search" in mine or "salvage" in mine:
                return 3.0
            if "level" in mine or "size" in mine or "heal" in mine:
                return 2.5
            return 1.0
        return 0.5

    def _attack(self, v, s):
        my_pw = v.field_value("power", True) * 10
        my_hit = v.field_value("hit", True) * 5
        op_pw = v.field_value("power", False) * 10
        op_occ = v.field_flag("occupied", False)
        op_damage = v.player("damage", False) * 10
        for a in s:
            mv = A.decode(a)
            if mv.kind == "ATTACK":
                lane = mv.lane
                if not op_occ[lane]:
                    s[a] = 3.0 + my_hit[lane] + (2.0 if op_damage + my_hit[lane] >= 10 else 0)
                elif my_pw[lane] > op_pw[lane]:
                    s[a] = 2.0
                else:
                    s[a] = -1.0
            elif mv.kind == "ACTIVATE":
                s[a] = 2.0
        if A.END_ATTACK in s:
            s[A.END_ATTACK] = 0.0

    def _attacker(self, v):
        lane = max(0, v.lane("attack_lane"))
        mine = v.flag("attacker_mine")
        return lane, (v.field_value("power", mine)[lane] * 10, v.field_value("hit", mine)[lane] * 5)

    def _defense(self, v, s):
        lane, (atk_pw, atk_hit) = self._attacker(v)
        dl = max(0, v.lane("defender_lane"))
        my = v.field_value("power", True)[dl] * 10
        lethal = v.player("damage", True) * 10 + max(1, atk_hit) >= 10
        for a in s:
            if A.decode(a).kind == "DEFEND":
                s[a] = 2.0 if my >= atk_pw or lethal else -1.0
        if A.PASS in s:
            s[A.PASS] = 0.0

    def _guardian(self, v, s):
        _lane, (atk_pw, atk_hit) = self._attacker(v)
        danger = v.player("damage", True) * 10 + max(1, atk_hit) >= 8
        for a in s:
            if A.decode(a).kind == "GUARDIAN":
                s[a] = 1.0 if danger else -1.0
        if A.PASS in s:
            s[A.PASS] = 0.0

    def _may(self, v, s):
        if A.YES in s:
            s[A.YES] = 1.0

    def _pick(self, v, s):
        purpose = v.pick_purpose
        n = v.n_candidates
        picks = [a for a in s if (i := A.decode(a).pick) is not None and i < 16]
        if purpose == "effect order" or not picks:
            for a in picks:
                s[a] = 1.0 if A.decode(a).pick == 0 else 0.5
            return
        verb = v.step_verb
        source_bonus = v.card(v.REFS + 2, "power_bonus")
        harmful = verb in HARMFUL or (verb == "modify" and source_bonus < 0)
        discarding = purpose in ("hand limit discard", "credit discard", "barrier discard",
                                 "sacrifice", "offset item")
        for a in picks:
            i = A.decode(a).pick
            if i >= n:
                continue
            row = v.CANDIDATES + i
            value = (v.card(row, "cost") + v.card(row, "power")) * 10 \
                + v.candidate(i, "power") * 10
            mine = v.candidate(i, "mine") > 0
            if v.candidate(i, "is_lane") > 0:
                s[a] = 1.0 - 0.1 * i
            elif discarding:
                s[a] = 10.0 - value
            elif harmful:
                s[a] = (5.0 + value) if not mine else (-5.0 - value)
            else:
                s[a] = (5.0 + value) if mine else (-5.0 - value)
        if A.PASS in s:
            s[A.PASS] = 0.0 if not discarding else -100.0

