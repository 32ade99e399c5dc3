"""Read an observation vector back by name.

Rule-based agents, debugging tools and tests decide from the observation only --
what their seat may see -- and should not index the flat vector by hand.  A view
is a thin set of numpy slices over one vector (no copy); layout in docs/observation.md.

    v = ObservationView(obs)
    v.decision            # "main", "attack", ...
    v.field_value("power", mine=True)     # array of 3 (lane 0-2), current power / 10
    v.card(v.HAND + 2, "cost")            # hand slot 2's printed cost / 10
"""
from __future__ import annotations

import numpy as np

from ..engine import const as K
from . import card_features as cf
from . import encoder as E

_FV = {n: i for i, (n, _) in enumerate(E.FIELD_VALUES)}
_FF = {n: i for i, (n, _) in enumerate(E.FIELD_FLAGS)}
_PV = {n: i for i, (n, _) in enumerate(E.PLAYER_VALUES)}
_PF = {n: i for i, (n, _) in enumerate(E.PLAYER_FLAGS)}
_CF = {n: i for i, (n, _) in enumerate(E.CANDIDATE_FEATURES)}
_O = E.OFFSETS
_S = E.LAYOUT.slice                    # block name -> its slice of the vector


class ObservationView:
    """Named access to one observation vector (a ``float32[OBS_SIZE]``)."""

    LEADERS, UNITS, ITEMS, HAND = E.ROW_LEADERS, E.ROW_UNITS, E.ROW_ITEMS, E.ROW_HAND
    REFS, CANDIDATES = E.ROW_REFS, E.ROW_CANDS

    def __init__(self, obs):
        obs = np.asarray(obs)
        if obs.shape != (E.OBS_SIZE,):
            raise ValueError(f"ObservationView: expected a vector of {E.OBS_SIZE} values, got "
                             f"shape {obs.shape}")
        self.obs = obs
        view = E.LAYOUT.view
        self.cards = view(obs, "cards")
        self.zones = view(obs, "zones")
        #: rows of cards known to be in the opponent's hand (column 0 is 1 where one is)
        self.known = view(obs, "opponent_known_hand")
        #: the added columns (card_features.ADDED_COLUMNS) of those three, row for row
        self.cards_added = view(obs, "cards_added")
        self.zones_added = view(obs, "zones_added")
        self.known_added = view(obs, "known_added")
        self._fv = view(obs, "field_values")
        self._ff = view(obs, "field_flags")
        self._cand = view(obs, "candidate_slots")
        self._hand = view(obs, "hand_slots")

    # ----------------------------------------------------------- decision
    def _onehot(self, block: str, names) -> str | None:
        seg = self.obs[_O[block]:_O[block] + len(names)]
        i = int(np.argmax(seg))
        return names[i] if seg[i] > 0 else None

    @property
    def decision(self) -> str | None:
        return self._onehot("decision", K.DECISION_NAMES)

    @property
    def phase(self) -> str | None:
        return self._onehot("phase", K.PHASE_NAMES)

    @property
    def pick_purpose(self) -> str | None:
        return self._onehot("pick_purpose", K.PICK_PURPOSES)

    @property
    def step_verb(self) -> str | None:
        return self._onehot("effect_step_verb", cf.VERB_NAMES)

    def lane(self, block: str) -> int:
        """The lane a three-wide one-hot block (``attack_lane``, ``defender_lane``) names, or -1."""
        seg = self.obs[_S(block)]
        i = int(np.argmax(seg))
        return i if seg[i] > 0 else -1

    def flag(self, block: str, i: int = 0) -> bool:
        return bool(self.obs[_O[block] + i] > 0)

    def global_value(self, name: str) -> float:
        return float(self.obs[_O["global_values"] + [n for n, _ in E.GLOBAL_VALUES].index(name)])

    # ----------------------------------------------------------- players and field
    def player(self, name: str, mine: bool = True) -> float:
        """A player value (``level``, ``damage``, ``hand``, ...), as encoded (scaled)."""
        if name in _PV:
            return float(self.obs[_O["me_values" if mine else "opponent_values"] + _PV[name]])
        return float(self.obs[_O["me_flags" if mine else "opponent_flags"] + _PF[name]])

    def field_value(self, name: str, mine: bool = True) -> np.ndarray:
        """Per lane 0-2 (scaled as encoded)."""
        rows = self._fv[0:3] if mine else self._fv[3:6]
        return rows[:, _FV[name]]

    def field_flag(self, name: str, mine: bool = True) -> np.ndarray:
        rows = self._ff[0:3] if mine else self._ff[3:6]
        return rows[:, _FF[name]] > 0

    # ----------------------------------------------------------- cards
    def card(self, row: int, column: str, i: int = 0) -> float:
        """Column ``column`` (card_features.COLUMNS) of card row ``row``; ``i`` indexes
        within a multi-valued column."""
        return float(self.cards[row, cf.OFFSET[column] + i])

    def card_type(self, row: int) -> str | None:
        seg = self.cards[row, cf.OFFSET["type"]:cf.OFFSET["type"] + 4]
        return ("leader", "unit", "item", "skill")[int(np.argmax(seg))] if seg.any() else None

    def card_verbs(self, row: int, column: str = "verbs_opponent") -> set[str]:
        seg = self.cards[row, cf.OFFSET[column]:cf.OFFSET[column] + len(cf.VERB_NAMES)]
        return {cf.VERB_NAMES[i] for i in np.flatnonzero(seg)}

    def playable(self, hand_slot: int) -> np.ndarray:
        """Legal targets (lane 0-2, skill zone) of a hand slot in the main phase."""
        return self._hand[hand_slot] > 0

    def candidate(self, i: int, name: str) -> float:
        return float(self._cand[i, _CF[name]])

    @property
    def n_candidates(self) -> int:
        return int(round(self.global_value("candidates") * E.CANDIDATE_ROWS))
