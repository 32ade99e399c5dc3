"""The policy networks, in plain torch: one small encoder shared by every card slot.

The observation has 51 card rows, 6 zone sums and 8 rows of cards known to be in the
opponent's hand, all of the same 135 card features plus 24 added columns
(docs/observation.md).  Encoding each row with the same weights keeps the network small (a
few hundred thousand parameters instead of two million for a plain MLP over 11,097 inputs)
and lets what is learnt about a card in one slot carry to the others.  The compact
observation (``layout.COMPACT``) holds card table indices instead of those rows:
``CompactPointerExtractor`` embeds the pool's card table once per batch and gathers each
slot's row from it (``set_card_table`` gives it the pool's table).

Everything here needs torch alone, so a policy file plays wherever torch is installed (the
``train``, ``rllib`` and ``tianshou`` extras): ``PolicyNetwork`` is the inference copy of
sb3-contrib's actor-critic, module for module, so it reads the weights MaskablePPO
trained.  Training with MaskablePPO uses the same extractors through SB3's
``features_extractor_class`` (they have the ``features_dim`` SB3 reads); the SB3 policy
classes of the pointer networks live in ``agents.sb3_policy`` (``PointerPolicy``,
``CompactPointerPolicy``, also reachable here by name once stable-baselines3 is
installed).
"""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch as th
from gymnasium import spaces
from torch import nn

from nivel_env.env import layout as E
from nivel_env.env.layout import CARD_ROWS, LAYOUT

OBS_SIZE = LAYOUT.size
READABLE_LAYOUTS = LAYOUT.readable()      # layout hash -> the prefix its policies read


def _check_size(who: str, observation_space: spaces.Box) -> int:
    """The observation size a network reads: this layout's or an earlier version's prefix."""
    n_obs = observation_space.shape[0] if len(observation_space.shape) == 1 else -1
    if n_obs not in READABLE_LAYOUTS.values():
        raise ValueError(f"{who}: observation shape {observation_space.shape} is "
                         f"not this layout's ({OBS_SIZE},) nor an earlier one's")
    return n_obs


class Extractor(nn.Module):
    """A feature extractor: observation batch -> ``features_dim`` features (the two
    attributes SB3's ``BaseFeaturesExtractor`` gives, without importing SB3)."""

    def __init__(self, observation_space: spaces.Box, features_dim: int):
        super().__init__()
        if features_dim < 1:
            raise ValueError(f"{type(self).__name__}: features_dim must be positive, got "
                             f"{features_dim}")
        self._observation_space = observation_space
        self._features_dim = int(features_dim)

    @property
    def features_dim(self) -> int:
        return self._features_dim


class FlattenExtractor(Extractor):
    """The observation as it is (SB3's default extractor, by another name)."""

    def __init__(self, observation_space: spaces.Box):
        super().__init__(observation_space, int(np.prod(observation_space.shape)))
        self.flatten = nn.Flatten()

    def forward(self, obs: th.Tensor) -> th.Tensor:
        return self.flatten(obs)


class CardRows:
    """The card rows of an observation batch, each with the columns appended for it that
    the network's layout version has: the added verbs' (``card_features.ADDED_COLUMNS``,
    blocks ``*_added``) and those of vocabulary terms added since
    (``card_features.term_column_groups``, blocks ``*_added_terms_v<N>``), as far as the
    network's layout version reaches (``Layout.card_row_blocks``).  Networks of older
    versions read rows of ``card_features.WIDTH``."""

    def __init__(self, n_obs: int):
        self.blocks = {x: LAYOUT.card_row_blocks(x, n_obs) for x in ("cards", "zones", "known")}
        self.width = sum(LAYOUT.block(n).shape[1] for n in self.blocks["cards"])

    def _rows(self, obs, block: str, short: str):
        parts = [LAYOUT.view(obs, n) for n in self.blocks[short]]
        return parts[0] if len(parts) == 1 else th.cat(parts, dim=2)

    def cards(self, obs):
        return self._rows(obs, "cards", "cards")

    def zones(self, obs):
        return self._rows(obs, "zones", "zones")

    def known(self, obs):
        return self._rows(obs, "opponent_known_hand", "known")


class CardSetExtractor(Extractor):
    def __init__(self, observation_space: spaces.Box, card_dim: int = 32, zone_dim: int = 16,
                 features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        n_obs = _check_size("CardSetExtractor", observation_space)
        self.head = LAYOUT.offset("cards")           # every block before the card rows
        # networks made for earlier layouts read without the blocks appended since
        self.reads_known = LAYOUT.in_prefix("opponent_known_hand", n_obs)
        self.rows = CardRows(n_obs)
        self.card = nn.Sequential(nn.Linear(self.rows.width, card_dim), nn.ReLU())
        self.zone = nn.Sequential(nn.Linear(self.rows.width, zone_dim), nn.ReLU())
        n = self.head + CARD_ROWS * card_dim + len(E.ZONES) * zone_dim
        if self.reads_known:                 # the same card encoder, summed over the rows
            n += card_dim
        self.mix = nn.Sequential(nn.Linear(n, features_dim), nn.ReLU())

    def forward(self, obs: th.Tensor) -> th.Tensor:
        b = obs.shape[0]
        cards = self.rows.cards(obs)
        zones = self.rows.zones(obs)
        parts = [obs[:, :self.head], self.card(cards).reshape(b, -1),
                 self.zone(zones).reshape(b, -1)]
        if self.reads_known:
            known = self.rows.known(obs)
            present = known[:, :, :1]                        # column 0: a card is there
            parts.append((self.card(known) * present).sum(dim=1))
        return self.mix(th.cat(parts, dim=1))


def policy_kwargs() -> dict:
    return {"features_extractor_class": CardSetExtractor,
            "net_arch": {"pi": [128], "vf": [128]}}


# ---------------------------------------------------------------------------- pointer
# Which card row each action names (the rows of the ``cards`` block), and the action
# "type" whose query scores it.  An action may name a second row (the unit it would meet,
# the attacker it answers) scored by a second type; -1: no row.
def _pointer_tables():
    from nivel_env.engine import actions as A
    n = A.N_ACTIONS
    rows = np.full((2, n), -1, dtype=np.int64)
    types = np.zeros((2, n), dtype=np.int64)
    names: list = []

    def kind(name: str) -> int:
        if name not in names:
            names.append(name)
        return names.index(name)

    for h in range(E.HAND_ROWS):                       # play hand card h to target t
        for t in range(A.PLAY_TARGETS):
            a = A.play_id(h, t)
            rows[0, a], types[0, a] = E.ROW_HAND + h, kind(f"play_{t}")
    for src in range(A.ACTIVATE_SOURCES):              # leader, then my units' lanes
        for s in range(A.ACTIVATE_SLOTS):
            a = A.activate_id(src, s)
            rows[0, a] = E.ROW_LEADERS if src == 0 else E.ROW_UNITS + src - 1
            types[0, a] = kind(f"activate_{s}")
    attacker = E.ROW_REFS
    for lane in range(3):
        mine, theirs = E.ROW_UNITS + lane, E.ROW_UNITS + 3 + lane
        for base, name, second in ((A.ATTACK, "attack", theirs), (A.DEFEND, "defend", attacker),
                                   (A.GUARDIAN, "guardian", attacker)):
            rows[0, base + lane], types[0, base + lane] = mine, kind(name)
            rows[1, base + lane], types[1, base + lane] = second, kind(name + "_against")
    for i in range(E.CANDIDATE_ROWS):
        rows[0, A.PICK + i], types[0, A.PICK + i] = E.ROW_CANDS + i, kind("pick")
    return rows, types, names


class PointerExtractor(Extractor):
    """Card rows read as a set; features for a pointer-style action head.

    Every card row (with the slot facts that belong to it: a hand slot's playable targets,
    a candidate's facts, a lane's values and flags) goes through one shared row encoder
    plus a learnt embedding of its position.  The trunk reads the global values, the
    leaders, units and battle references in place, and the items, hand, candidates and
    known opponent cards as pooled sets (sum and max over the cards there).  Its output is
    the trunk's features followed by one key per card row, which ``PointerHead`` scores
    actions against.
    """

    def __init__(self, observation_space: spaces.Box, card_dim: int = 64, key_dim: int = 32,
                 trunk_dim: int = 256, zone_dim: int = 16):
        n_obs = _check_size("PointerExtractor", observation_space)
        super().__init__(observation_space, trunk_dim + CARD_ROWS * key_dim)
        self.trunk_dim, self.key_dim = trunk_dim, key_dim
        self.glob = LAYOUT.offset("hand_slots")             # values and flags before slots
        self.reads_known = LAYOUT.in_prefix("opponent_known_hand", n_obs)
        self.n_hand = LAYOUT.block("hand_slots").shape[1]
        self.n_cand = LAYOUT.block("candidate_slots").shape[1]
        self.lane_values = LAYOUT.block("field_values").shape[1]
        self.lane_flags = LAYOUT.block("field_flags").shape[1]
        self.layout = {k: getattr(E, k) for k in (
            "ROW_UNITS", "ROW_ITEMS", "ROW_HAND", "ROW_REFS", "ROW_CANDS", "ITEM_ROWS",
            "HAND_ROWS", "CANDIDATE_ROWS")}
        self.rows = CardRows(n_obs)
        self.card = nn.Linear(self.rows.width, card_dim)
        self.hand_extra = nn.Linear(self.n_hand, card_dim, bias=False)
        self.cand_extra = nn.Linear(self.n_cand, card_dim, bias=False)
        self.lane_extra = nn.Linear(self.lane_values + self.lane_flags, card_dim, bias=False)
        # where a row is: each leader, lane and battle reference its own place; the cards
        # of one set (a side's items, the hand, the candidates) share one, so the set reads
        # the same in any order
        place = list(range(E.ROW_ITEMS)) + [E.ROW_ITEMS] * (3 * E.ITEM_ROWS) \
            + [E.ROW_ITEMS + 1] * (3 * E.ITEM_ROWS) + [E.ROW_ITEMS + 2] * E.HAND_ROWS \
            + list(range(E.ROW_ITEMS + 3, E.ROW_ITEMS + 6)) \
            + [E.ROW_ITEMS + 6] * E.CANDIDATE_ROWS
        assert len(place) == CARD_ROWS
        self.register_buffer("place", th.as_tensor(place), persistent=False)
        self.position = nn.Parameter(th.zeros(E.ROW_ITEMS + 7, card_dim))
        self.zone = nn.Sequential(nn.Linear(self.rows.width, zone_dim), nn.ReLU())
        n_in = (self.glob + 11 * card_dim + 4 * 2 * card_dim + len(E.ZONES) * zone_dim
                + (card_dim if self.reads_known else 0))
        self.trunk = nn.Sequential(nn.Linear(n_in, trunk_dim), nn.ReLU())
        self.key_rows = nn.Linear(card_dim, key_dim)
        self.key_context = nn.Linear(trunk_dim, key_dim)

    def forward(self, obs: th.Tensor) -> th.Tensor:
        E = SimpleNamespace(**self.layout)
        b = obs.shape[0]
        cards = self.rows.cards(obs)
        e = self.card(cards) + self.position[self.place]
        # slot facts joined to their rows
        hand = LAYOUT.view(obs, "hand_slots")
        cand = LAYOUT.view(obs, "candidate_slots")
        lanes = th.cat([LAYOUT.view(obs, "field_values"), LAYOUT.view(obs, "field_flags")],
                       dim=2)
        extra = th.cat([th.zeros_like(e[:, :E.ROW_UNITS]), self.lane_extra(lanes),
                        th.zeros_like(e[:, E.ROW_ITEMS:E.ROW_HAND]), self.hand_extra(hand),
                        th.zeros_like(e[:, E.ROW_REFS:E.ROW_CANDS]), self.cand_extra(cand)],
                       dim=1)
        present = cards[:, :, :1]                           # column 0: a card is there
        e = th.relu(e + extra) * present
        fixed = th.cat([e[:, :E.ROW_ITEMS], e[:, E.ROW_REFS:E.ROW_CANDS]], dim=1)
        half = E.ITEM_ROWS * 3
        sets = [e[:, E.ROW_ITEMS:E.ROW_ITEMS + half], e[:, E.ROW_ITEMS + half:E.ROW_HAND],
                e[:, E.ROW_HAND:E.ROW_REFS], e[:, E.ROW_CANDS:]]
        parts = [obs[:, :self.glob], fixed.reshape(b, -1)]
        for s in sets:
            parts += [s.sum(dim=1), s.amax(dim=1)]
        parts.append(self.zone(self.rows.zones(obs)).reshape(b, -1))
        if self.reads_known:
            known = self.rows.known(obs)
            k = th.relu(self.card(known)) * known[:, :, :1]
            parts.append(k.sum(dim=1))
        trunk = self.trunk(th.cat(parts, dim=1))
        keys = th.relu(self.key_rows(e) + self.key_context(trunk).unsqueeze(1))
        return th.cat([trunk, keys.reshape(b, -1)], dim=1)


class CompactPointerExtractor(Extractor):
    """``PointerExtractor``'s reading of the compact observation (``layout.COMPACT``),
    whose card rows are indices into the pool's card table.

    The table (``set_card_table``: float32 ``(rows, columns)``, row 0 "no card"; a
    non-persistent buffer that moves with ``.to()``, so the weights never hold a pool) is
    embedded once per forward by a small MLP, and every card slot gathers its row of that
    embedding: a batch costs one MLP over the pool's ~200 cards instead of one layer over
    159 features for each of ~60 slots of every observation.  Then the same joins as
    ``PointerExtractor``: a lane's values and flags to its unit row, a hand slot's facts to
    its hand row, a candidate's facts to its candidate row, a learnt embedding of where a
    row is (the cards of one set share one), presence from the index (0: no card, whose
    embedding lies so far below zero that the row is 0 after the ReLU, as
    ``PointerExtractor``'s presence mask makes it).  The trunk reads the values and flags
    before the slots (and the counts and added effect verbs after them), the leaders,
    units and battle references in place, and the items of each side, the hand, the
    candidates and the known opponent cards as sets (sum and max).  A zone is read as the
    full layout's zone row is -- one layer over the sum of its cards' rows / 10, which by
    linearity is its card counts times the table's projection -- plus a second
    projection of which cards are there at all (so one card stands out of a big pile):
    two small matrix products, no per-card gather.  The output is the trunk's features
    and one key per card row, as ``PointerExtractor``'s, for ``PointerHead``.

    For speed on a CPU (benchmarks/network_cost.py): the slot groups are gathered, and
    their keys made, one by one (slicing them out of one tensor would cost its backward a
    whole zero tensor per slice), the observation's own values get their own trunk layer
    (no gradient computed for them), and max pooling has a cheaper backward
    (``set_max``).
    """

    #: the card-index groups in ``card_index`` order: (name, first row, rows, position
    #: embedding of each row); a set's cards share one place
    GROUPS = (("leaders", E.ROW_LEADERS, 2, (0, 1)),
              ("units", E.ROW_UNITS, 6, tuple(range(2, 8))),
              ("items", E.ROW_ITEMS, 6 * E.ITEM_ROWS,
               (8,) * (3 * E.ITEM_ROWS) + (9,) * (3 * E.ITEM_ROWS)),
              ("hand", E.ROW_HAND, E.HAND_ROWS, (10,) * E.HAND_ROWS),
              ("refs", E.ROW_REFS, 3, (11, 12, 13)),
              ("candidates", E.ROW_CANDS, E.CANDIDATE_ROWS, (14,) * E.CANDIDATE_ROWS))
    ZONE_BLOCKS = ("trash_index", "damage_index", "skill_index")

    def __init__(self, observation_space: spaces.Box, card_dim: int = 32, key_dim: int = 16,
                 trunk_dim: int = 128, zone_dim: int = 16, table_width: int | None = None):
        from nivel_env.env.layout import COMPACT
        n_obs = observation_space.shape[0] if len(observation_space.shape) == 1 else -1
        if n_obs not in COMPACT.readable().values():
            raise ValueError(f"CompactPointerExtractor: observation shape "
                             f"{observation_space.shape} is not the compact layout's "
                             f"({COMPACT.size},)")
        super().__init__(observation_space, trunk_dim + CARD_ROWS * key_dim)
        lay = self.lay = COMPACT
        assert sum(g[2] for g in self.GROUPS) == CARD_ROWS == lay.block("card_index").size
        self.trunk_dim, self.key_dim, self.card_dim = trunk_dim, key_dim, card_dim
        #: the card table columns the network reads (a wider table's first ones)
        self.table_width = int(table_width or CardRows(OBS_SIZE).width)
        self.glob = lay.offset("hand_slots")            # values and flags before the slots
        self.after = [b for b in ("count", "effect_added_verbs", "effect_step_added_verb")
                      if b in lay]
        n_after = sum(lay.block(b).size for b in self.after)
        n_lane = lay.block("field_values").shape[1] + lay.block("field_flags").shape[1]
        self.static = nn.Sequential(nn.Linear(self.table_width, card_dim), nn.ReLU(),
                                    nn.Linear(card_dim, card_dim))
        self.hand_extra = nn.Linear(lay.block("hand_slots").shape[1], card_dim, bias=False)
        self.cand_extra = nn.Linear(lay.block("candidate_slots").shape[1], card_dim,
                                    bias=False)
        self.lane_extra = nn.Linear(n_lane, card_dim, bias=False)
        self.position = nn.Parameter(th.zeros(max(p for g in self.GROUPS for p in g[3]) + 1,
                                              card_dim))
        self.register_buffer("place", th.as_tensor([p for g in self.GROUPS for p in g[3]]),
                             persistent=False)
        # zones: the table's projections for the sum of a zone's rows and for which cards
        # are there (bias-free, so "no card" projects to 0)
        self.zone_sum = nn.Linear(self.table_width, zone_dim, bias=False)
        self.zone_any = nn.Linear(self.table_width, zone_dim, bias=False)
        self.zone_bias = nn.Parameter(th.zeros(zone_dim))
        self.n_zones = sum(lay.block(n).shape[0] for n in self.ZONE_BLOCKS)
        zone_of = [z for z, n in enumerate(self.ZONE_BLOCKS) for _ in range(
            lay.block(n).shape[0] * lay.block(n).shape[1])]
        # zone of each listed card: 0..5 (mine, theirs per block), in the blocks' order
        side = [s for n in self.ZONE_BLOCKS for s in range(lay.block(n).shape[0])
                for _ in range(lay.block(n).shape[1])]
        self.register_buffer("zone_slot", th.as_tensor(
            [2 * z + s for z, s in zip(zone_of, side)]), persistent=False)
        self.register_buffer("table", th.zeros(1, self.table_width), persistent=False)
        # the trunk: one layer over the observation's values as given (no gradient to
        # them) plus one over what the network made of the cards
        self.trunk_given = nn.Linear(self.glob + n_after, trunk_dim)
        self.trunk = nn.Linear(11 * card_dim + 5 * 2 * card_dim + self.n_zones * zone_dim,
                               trunk_dim, bias=False)
        self.key_rows = nn.Linear(card_dim, key_dim)
        self.key_context = nn.Linear(trunk_dim, key_dim)

    def set_card_table(self, table) -> None:
        """Read card indices against ``table`` (the pool's ``encoder.card_table(db)``): any
        number of rows, at least ``table_width`` columns (a later layout version's wider
        table is read through its first ones)."""
        t = table.detach() if isinstance(table, th.Tensor) else \
            th.from_numpy(np.array(table, dtype=np.float32))
        if t.ndim != 2 or t.shape[0] < 1:
            raise ValueError(f"CompactPointerExtractor: a card table is (rows, columns) with "
                             f"row 0 for no card, got shape {tuple(t.shape)}")
        if t.shape[1] < self.table_width:
            raise ValueError(f"CompactPointerExtractor: the card table has {t.shape[1]} "
                             f"columns, the network reads {self.table_width}")
        self.table = t[:, :self.table_width].float().to(self.table.device).contiguous()

    def forward(self, obs: th.Tensor) -> th.Tensor:
        lay, b, table = self.lay, obs.shape[0], self.table
        n_rows = table.shape[0]
        # the pool's cards, once per batch; row 0 ("no card") far below zero, so a slot
        # without a card is 0 after the ReLU whatever is added to it (its presence mask)
        emb = th.cat([table.new_full((1, self.card_dim), _ABSENT),
                      self.static(table[1:])])
        idx = lay.view(obs, "card_index").long()
        extra = {"units": self.lane_extra(th.cat([lay.view(obs, "field_values"),
                                                  lay.view(obs, "field_flags")], dim=2)),
                 "hand": self.hand_extra(lay.view(obs, "hand_slots")),
                 "candidates": self.cand_extra(lay.view(obs, "candidate_slots"))}
        position = self.position[self.place]
        rows = {}
        for name, first, n, _ in self.GROUPS:
            x = nn.functional.embedding(idx[:, first:first + n], emb) \
                + position[first:first + n]
            rows[name] = th.relu(x + extra[name] if name in extra else x)
        known = th.relu(nn.functional.embedding(lay.view(obs, "known_index").long(), emb))
        items = rows["items"].reshape(b, 2, -1, self.card_dim)       # mine, then theirs
        fixed = th.cat([rows["leaders"], rows["units"], rows["refs"]], dim=1)
        sets = [rows["hand"], rows["candidates"], known]
        # zone card counts (row 0, no card, dropped): their sums / 10 and which are there
        zi = th.cat([lay.view(obs, n).reshape(b, -1) for n in self.ZONE_BLOCKS], dim=1).long()
        counts = th.zeros(b, self.n_zones * n_rows, device=obs.device).scatter_add_(
            1, self.zone_slot * n_rows + zi, th.ones_like(zi, dtype=th.float32))
        counts = counts.reshape(b * self.n_zones, n_rows)
        counts[:, 0] = 0.0
        z = counts @ (self.zone_sum(table) * 0.1) + counts.clamp(max=1.0) @ self.zone_any(table)
        z = th.relu(z + self.zone_bias).reshape(b, -1)
        learnt = [fixed.reshape(b, -1), items.sum(dim=2).reshape(b, -1),
                  set_max(items, 2).reshape(b, -1)] + [s.sum(dim=1) for s in sets] \
            + [set_max(s, 1) for s in sets] + [z]
        given = th.cat([obs[:, :self.glob]] + [lay.view(obs, n) for n in self.after], dim=1)
        trunk = th.relu(self.trunk_given(given) + self.trunk(th.cat(learnt, dim=1)))
        # keys group by group (one tensor of all the rows would cost a copy, and its
        # gradient a copy back)
        keys = th.relu(th.cat([self.key_rows(rows[g[0]]) for g in self.GROUPS], dim=1)
                       + self.key_context(trunk).unsqueeze(1))
        return th.cat([trunk, keys.reshape(b, -1)], dim=1)


class _SetMax(th.autograd.Function):
    """``x.amax(dim)`` with a cheaper backward on a CPU: the gradient goes to every
    element equal to the max (torch's splits it among ties, with a comparison and a
    division that cost it several times the forward here).  Ties among ReLU outputs are
    zeros, whose gradient the ReLU drops anyway."""

    @staticmethod
    def forward(ctx, x, dim: int):
        m = x.amax(dim, keepdim=True)
        ctx.save_for_backward(x, m)
        ctx.dim = dim
        return m.squeeze(dim)

    @staticmethod
    def backward(ctx, grad):
        x, m = ctx.saved_tensors
        at_max = th.sign(x - m).add_(1.0)                # 1 where x is the max, else 0
        return at_max.mul_(grad.unsqueeze(ctx.dim)), None


def set_max(x: th.Tensor, dim: int) -> th.Tensor:
    """The max over ``dim`` (a set's max pooling), as ``x.amax(dim)``."""
    return _SetMax.apply(x, dim)


#: the embedding of "no card": far enough below zero that nothing a slot adds lifts it
#: above the ReLU's zero
_ABSENT = -1e30


#: the extractors whose output ``PointerHead`` and ``TrunkValue`` read
POINTER_EXTRACTORS = (PointerExtractor, CompactPointerExtractor)


def set_card_table(module: nn.Module, table) -> int:
    """Give every ``CompactPointerExtractor`` in ``module`` (a policy, SB3's or a
    ``PolicyNetwork``) the card table ``table``; how many there were."""
    found = [m for m in module.modules() if isinstance(m, CompactPointerExtractor)]
    for m in found:
        m.set_card_table(table)
    return len(found)


def card_table_of(module: nn.Module):
    """The card table ``module``'s compact extractor reads (a tensor), or None."""
    for m in module.modules():
        if isinstance(m, CompactPointerExtractor):
            return m.table
    return None


class PointerHead(nn.Module):
    """Action logits: a plain layer over the trunk, plus, for each action that names a
    card row, that row's key scored by the action type's query ("play hand card i to lane
    t" from hand row i's key and the play-to-t query)."""

    def __init__(self, trunk_dim: int, key_dim: int, n_actions: int):
        super().__init__()
        rows, types, names = _pointer_tables()
        self.trunk_dim, self.key_dim = trunk_dim, key_dim
        self.n_types = len(names)
        self.base = nn.Linear(trunk_dim, n_actions)
        self.query = nn.Linear(trunk_dim, self.n_types * key_dim)
        # flat index into (type, row) scores; the extra last column is a zero
        none = self.n_types * CARD_ROWS
        flat = np.where(rows >= 0, types * CARD_ROWS + rows, none)
        self.register_buffer("index", th.as_tensor(flat), persistent=False)

    def forward(self, features: th.Tensor) -> th.Tensor:
        b = features.shape[0]
        trunk = features[:, :self.trunk_dim]
        keys = features[:, self.trunk_dim:].reshape(b, CARD_ROWS, self.key_dim)
        q = self.query(trunk).reshape(b, self.n_types, self.key_dim)
        s = th.bmm(q, keys.transpose(1, 2)).reshape(b, -1) / self.key_dim ** 0.5
        s = th.cat([s, s.new_zeros(b, 1)], dim=1)
        # index_select: its backward adds into place (advanced indexing's sorts first)
        return self.base(trunk) + s.index_select(1, self.index[0]) \
            + s.index_select(1, self.index[1])


class TrunkValue(nn.Module):
    """The value from the trunk's features (the row keys are for the action head)."""

    def __init__(self, trunk_dim: int, hidden: int = 128):
        super().__init__()
        self.trunk_dim = trunk_dim
        self.net = nn.Sequential(nn.Linear(trunk_dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, features: th.Tensor) -> th.Tensor:
        return self.net(features[:, :self.trunk_dim])


def pointer_policy(card_dim: int = 64, key_dim: int = 32, trunk_dim: int = 256):
    """(policy class, policy_kwargs) for MaskablePPO with the pointer network (needs the
    train extra: the class is an sb3-contrib policy)."""
    from .sb3_policy import PointerPolicy
    return (PointerPolicy,
            {"features_extractor_class": PointerExtractor,
             "features_extractor_kwargs": {"card_dim": card_dim, "key_dim": key_dim,
                                           "trunk_dim": trunk_dim},
             "net_arch": {"pi": [], "vf": []}})


def compact_pointer_policy(card_table, card_dim: int = 32, key_dim: int = 16,
                           trunk_dim: int = 128, zone_dim: int = 16, fused_adam: bool = True):
    """(policy class, policy_kwargs) for MaskablePPO with the compact pointer network over
    the compact observation (``layout.COMPACT.box()``), reading ``card_table`` (the
    training pool's ``nivel_env.env.encoder.card_table(db)``; needs the train extra).

    ``fused_adam``: torch's fused Adam (SB3's eps), the same updates in one kernel per
    step -- a few microseconds a sample less on a CPU (benchmarks/network_cost.py)."""
    from .sb3_policy import CompactPointerPolicy
    return (CompactPointerPolicy,
            {"features_extractor_class": CompactPointerExtractor,
             "features_extractor_kwargs": {"card_dim": card_dim, "key_dim": key_dim,
                                           "trunk_dim": trunk_dim, "zone_dim": zone_dim},
             "net_arch": {"pi": [], "vf": []},
             **({"optimizer_kwargs": {"eps": 1e-5, "fused": True}} if fused_adam else {}),
             "card_table": np.array(card_table, dtype=np.float32)})


# ---------------------------------------------------------------------- for playing
class MlpHeads(nn.Module):
    """The actor's and the critic's layers over the features (SB3's ``MlpExtractor``:
    the same modules under the same names, so its weights load here)."""

    def __init__(self, features_dim: int, net_arch, activation: type[nn.Module]):
        super().__init__()
        pi, vf = ((net_arch.get("pi", []), net_arch.get("vf", []))
                  if isinstance(net_arch, dict) else (net_arch, net_arch))

        def stack(sizes):
            layers, last = [], features_dim
            for n in sizes:
                layers += [nn.Linear(last, n), activation()]
                last = n
            return nn.Sequential(*layers), last

        self.policy_net, self.latent_dim_pi = stack(pi)
        self.value_net, self.latent_dim_vf = stack(vf)

    def forward(self, features: th.Tensor):
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class PolicyNetwork(nn.Module):
    """A trained actor-critic, for playing: the modules of sb3-contrib's
    ``MaskableActorCriticPolicy`` (or of ``PointerPolicy`` with ``pointer=True``) under
    the same names -- ``features_extractor`` (also ``pi_``/``vf_features_extractor``),
    ``mlp_extractor``, ``action_net``, ``value_net`` -- and the methods that read them,
    without the optimizer, distributions or SB3 itself.

    ``spec`` is the policy file's ``network`` field it was built from."""

    def __init__(self, obs_size: int, n_actions: int, net_arch, activation: type[nn.Module],
                 extractor: type[nn.Module], extractor_kwargs: dict, share: bool = True,
                 pointer: bool = False, spec: dict | None = None):
        super().__init__()
        from nivel_env.env import OBS_HIGH, OBS_LOW
        self.spec = dict(spec or {})
        self.observation_space = spaces.Box(OBS_LOW, OBS_HIGH, (obs_size,), np.float32)
        self.action_space = spaces.Discrete(n_actions)
        self.share_features_extractor = bool(share)
        self.features_extractor = extractor(self.observation_space, **extractor_kwargs)
        self.pi_features_extractor = self.features_extractor
        self.vf_features_extractor = (self.features_extractor if share else
                                      extractor(self.observation_space, **extractor_kwargs))
        dim = self.features_extractor.features_dim
        self.mlp_extractor = MlpHeads(dim, net_arch, activation)
        if pointer:
            if not isinstance(self.features_extractor, POINTER_EXTRACTORS):
                raise ValueError("the pointer policy needs a pointer feature extractor")
            fx = self.features_extractor
            self.action_net = PointerHead(fx.trunk_dim, fx.key_dim, n_actions)
            self.value_net = TrunkValue(fx.trunk_dim)
        else:
            self.action_net = nn.Linear(self.mlp_extractor.latent_dim_pi, n_actions)
            self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        self.eval()

    @property
    def device(self) -> th.device:
        for p in self.parameters():
            return p.device
        return th.device("cpu")

    def set_training_mode(self, mode: bool) -> None:
        self.train(mode)

    def extract_features(self, obs: th.Tensor, features_extractor: nn.Module | None = None):
        """Features of an observation batch (SB3's semantics: with separate extractors,
        the actor's and the critic's as a pair)."""
        obs = obs.float()
        if self.share_features_extractor:
            return (features_extractor or self.features_extractor)(obs)
        return self.pi_features_extractor(obs), self.vf_features_extractor(obs)

    def action_logits(self, obs: th.Tensor) -> th.Tensor:
        """Unmasked action logits of an observation batch."""
        latent = self.mlp_extractor.forward_actor(self.pi_features_extractor(obs.float()))
        return self.action_net(latent)

    def predict_values(self, obs: th.Tensor) -> th.Tensor:
        """The critic's value of an observation batch, shape (batch, 1)."""
        latent = self.mlp_extractor.forward_critic(self.vf_features_extractor(obs.float()))
        return self.value_net(latent)

    def forward(self, obs: th.Tensor):
        return self.action_logits(obs), self.predict_values(obs)


def __getattr__(name):                  # the SB3 classes, where the train extra is installed
    if name in ("PointerPolicy", "CompactPointerPolicy"):
        from . import sb3_policy
        return getattr(sb3_policy, name)
    raise AttributeError(f"module 'agents.network' has no attribute {name!r}")
