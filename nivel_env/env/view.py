"""Read an observation vector back by name.

Rule-based agents, debugging tools and tests decide from the observation only --
what their seat may see -- and should not index the flat vector by hand.  A view
is a thin set of numpy slices over one vector (no copy); layout in docs/observation.md.

    v = ObservationView(obs)              # a compact observation: (obs, env.card_table())
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
_W, _WA = cf.WIDTH, cf.ADDED_WIDTH


class ObservationView:
    """Named access to one observation vector: the full layout's ``float32[OBS_SIZE]``, or
    the compact one's with the pool's card table (``env.card_table()``), which its card
    indices point into -- the same names read the same values from either.

    ``cards``, ``zones``, ``known`` and their ``*_added`` columns are the full layout's
    blocks (views of a full observation; for a compact one, built from the table when
    first read)."""

    LEADERS, UNITS, ITEMS, HAND = E.ROW_LEADERS, E.ROW_UNITS, E.ROW_ITEMS, E.ROW_HAND
    REFS, CANDIDATES = E.ROW_REFS, E.ROW_CANDS

    def __init__(self, obs, card_table=None):
        obs = np.asarray(obs)
        if obs.shape == (E.OBS_SIZE,):
            lay = E.LAYOUT
        elif obs.shape == (E.L.COMPACT.size,):
            lay = E.L.COMPACT
            if card_table is None:
                raise ValueError("ObservationView: a compact observation needs the pool's "
                                 "card table (env.card_table()), which its indices point into")
        else:
            raise ValueError(f"ObservationView: expected a vector of {E.OBS_SIZE} values "
                             f"(full layout) or {E.L.COMPACT.size} (compact), got shape "
                             f"{obs.shape}")
        self.obs, self.layout, self._table = obs, lay, card_table
        self._O = lay.offsets
        view = lay.view
        if lay is E.LAYOUT:
            self.cards = view(obs, "cards")
            self.zones = view(obs, "zones")
            #: rows of cards known to be in the opponent's hand (column 0 is 1 where one is)
            self.known = view(obs, "opponent_known_hand")
            #: the added columns (card_features.ADDED_COLUMNS) of those three, row for row
            self.cards_added = view(obs, "cards_added")
            self.zones_added = view(obs, "zones_added")
            self.known_added = view(obs, "known_added")
            self._idx = None
        else:
            self._idx = view(obs, "card_index").astype(np.intp)
        self._fv = view(obs, "field_values")
        self._ff = view(obs, "field_flags")
        self._cand = view(obs, "candidate_slots")
        self._hand = view(obs, "hand_slots")

    def __getattr__(self, name):
        """A compact observation's card-row blocks, built from the card table on first
        read (a full observation's are views, set in ``__init__``)."""
        if name.startswith("_") or self.__dict__.get("_idx") is None:
            raise AttributeError(name)
        t, view = self._table, self.layout.view
        if name in ("cards", "cards_added"):
            rows = t[self._idx]
        elif name in ("known", "known_added"):
            rows = t[view(self.obs, "known_index").astype(np.intp)]
        elif name in ("zones", "zones_added"):
            rows = np.concatenate([(t[view(self.obs, k).astype(np.intp)] * np.float32(0.1))
                                   .sum(axis=1) for k in ("trash_index", "damage_index",
                                                          "skill_index")])
        else:
            raise AttributeError(name)
        self.__dict__[name.split("_")[0]] = rows[:, :_W]
        self.__dict__[name.split("_")[0] + "_added"] = rows[:, _W:_W + _WA]
        return self.__dict__[name]

    def _row(self, row: int) -> np.ndarray:
        """Card row ``row``'s features."""
        if self._idx is None:
            return self.cards[row]
        return self._table[self._idx[row]]

    # ----------------------------------------------------------- decision
    def _onehot(self, block: str, names) -> str | None:
        _O = self._O
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
        seg = self.obs[self.layout.slice(block)]
        i = int(np.argmax(seg))
        return i if seg[i] > 0 else -1

    def flag(self, block: str, i: int = 0) -> bool:
        return bool(self.obs[self._O[block] + i] > 0)

    def global_value(self, name: str) -> float:
        return float(self.obs[self._O["global_values"]
                              + [n for n, _ in E.GLOBAL_VALUES].index(name)])

    # ----------------------------------------------------------- players and field
    def player(self, name: str, mine: bool = True) -> float:
        """A player value (``level``, ``damage``, ``hand``, ...), as encoded (scaled)."""
        _O = self._O
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
        return float(self._row(row)[cf.OFFSET[column] + i])

    def card_type(self, row: int) -> str | None:
        seg = self._row(row)[cf.OFFSET["type"]:cf.OFFSET["type"] + 4]
        return ("leader", "unit", "item", "skill")[int(np.argmax(seg))] if seg.any() else None

    def card_verbs(self, row: int, column: str = "verbs_opponent") -> set[str]:
        seg = self._row(row)[cf.OFFSET[column]:cf.OFFSET[column] + len(cf.VERB_NAMES)]
        return {cf.VERB_NAMES[i] for i in np.flatnonzero(seg)}

    def playable(self, hand_slot: int) -> np.ndarray:
        """Legal targets (lane 0-2, skill zone) of a hand slot in the main phase."""
        return self._hand[hand_slot] > 0

    def candidate(self, i: int, name: str) -> float:
        return float(self._cand[i, _CF[name]])

    @property
    def n_candidates(self) -> int:
        return int(round(self.global_value("candidates") * E.CANDIDATE_ROWS))
