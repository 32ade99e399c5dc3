"""An oracle value for a search's leaves: a network that reads the WHOLE state of a game.

A determinized search (``agents.search``) grows its trees inside sampled worlds, where
every card is known: both hands and the order of both decks.  Today's leaf value
(``agents.value``'s head over the policy's value features) reads only what the player to
act may see; this module's value reads the whole world.  It is only ever given a world
the search drew (``SearchAgent(oracle=...)`` values ``leaf.g``, a determinized copy, never
the real game), so a search that uses it still sees only what its player may see.

The full-state features of (game ``g``, player ``p``), version ``FEATURES``:

* both seats' views, compressed: the policy's value features (the trunk its critic reads,
  ``agents.value.value_features``, ``critic_width`` columns, computed by the search's
  ``agents.leaf_forward``: the same floats) of ``p``'s observation (with
  ``p``'s legal moves when ``p`` is to act) and of the other seat's (no legal moves).  Raw
  observations are 9,519 floats a seat (2 x 9,519 x a million positions does not fit in
  memory); the compact layout's 949 are card indices that need their own embedding -- the
  policy's trunk already is a learned summary of a view, and the baseline head reads it;
* what no observation shows, as card-table rows (``nivel_env.env.card_features``: row
  ``1 + card index``, 0 for no card): each deck's next ``DECK_TOP`` cards in order, top
  first, ``p``'s deck then the other's -- damage moves cards from the top of the deck
  into the damage zone and their triggers fire, so the top is both the next draws and
  what damage would reveal; then the other seat's hand and ``p``'s own hand (each at most
  ``HAND_SLOTS`` cards, sorted by row: a hand has no order).

The network (``OracleNet``) embeds each card row with one shared layer over the card
table's columns (so it reads any card by its features), adds a learned vector per deck
position (the top matters most), sums each hand's embeddings, and puts all of it with the
two views through an MLP to a value in [-1, 1] for ``p``.  With ``residual``, it adds its
output to the shipped value head's value of ``p``'s view (kept inside the file); with
``symmetric``, the value is the difference of the MLP read from both seats' sides (the
two views and the hidden cards swapped), so the two seats' values sum to zero.

``OracleValue`` is what a search loads (``load_oracle``): ``values(games, players)``, one
batched call.  The file records the feature version, the sizes, the policy it reads (its
SHA-256) and the held-out figures; a bad file is refused with an ``OracleFileError``
naming it and the field.

    python -m agents.oracle_fit --games 4000 --seed 0 --out agents/values/nv2-oracle.pt

builds the dataset (``agents.value_fit.self_play``: nv2-ppo self-play on the native core,
every real decision a sample, a tenth of the games held out by game), fits the oracle and
reports its held-out correlation and error beside the shipped head's on the same
positions, by turn, and those of random playouts from the true state (``playout_value``).

What it measured (4,000 games, 440,473 positions, 43,309 held out; the shipped file):
correlation with the outcome 0.575 (mse 0.674) against the shipped head's 0.567 (0.680) on
the same positions -- far from the 0.80 hoped for.  The gain is early (turns 1-3: 0.37
against 0.32; 4-6: 0.41 against 0.35), none from turn 10 on.  The same net without the
hidden cards (both views only) reached 0.562: the deck order and the opponent's hand
barely help, and every variant overfits after one or two epochs (held-out error rises
while training error falls) -- each game is one outcome shared by a hundred positions
with nearly the same hidden cards, so 3,600 training games are 3,600 labels.  Most of
an outcome's spread comes from the moves still to be played (the self-play seats play at
temperature 0, 0.5 or 1), which no value of the position can know: nv2-ppo itself
playing each held-out position on from its true state, 8 times at temperature 1, follows
the outcomes to 0.71 (150 positions, the head 0.62 on the same), so 0.80 looks out of
reach of any value of this target.  Uniformly random playouts from the true state are
weaker and dearer (0.50 for 32 a leaf at 11 ms; ``benchmarks/oracle_playouts.py``).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
import torch as th
from torch import nn

from .value import ValueHead, critic_width, read_saved, sha256

ORACLE_FORMAT = "nivel_env.oracle_value"
ORACLE_VERSION = 1
#: the full-state features' version: changes whenever what ``full_state`` writes does
FEATURES = "views-trunk+deck10+hands16.v1"
DECK_TOP = 10               # cards of each deck's top, in order
HAND_SLOTS = 16             # cards of each hand (a hand holds fewer)
CARD_SLOTS = 2 * DECK_TOP + 2 * HAND_SLOTS
MAX_SIZE = 65536
_MAX_BYTES = 64 << 20
TURN_BUCKETS = ((1, 3), (4, 6), (7, 9), (10, 14), (15, 10 ** 6))


class OracleFileError(ValueError):
    """An oracle file that cannot be used (names the file and the fault)."""


# ------------------------------------------------------------------ features
def hidden_cards(g, p: int) -> np.ndarray:
    """Card-table rows (int16, ``CARD_SLOTS``) of what no observation of ``p`` shows in
    full: ``p``'s deck's top ``DECK_TOP`` cards top first, the other deck's, the other
    seat's hand, ``p``'s hand (hands sorted; 0 pads).  Read by name through the state's
    zone lists (``deck[p]``'s end is its top, ``engine.zones``) and ``defs``."""
    defs = g.defs
    out = np.zeros(CARD_SLOTS, dtype=np.int16)
    o = 1 - p
    for k, seat in enumerate((p, o)):
        top = g.deck[seat][::-1][:DECK_TOP]
        out[k * DECK_TOP:k * DECK_TOP + len(top)] = [defs[i] + 1 for i in top]
    for k, seat in enumerate((o, p)):
        rows = sorted(defs[i] + 1 for i in g.hand[seat])[:HAND_SLOTS]
        a = 2 * DECK_TOP + k * HAND_SLOTS
        out[a:a + len(rows)] = rows
    return out


class _Trunk:
    """A "value head" that hands back the trunk columns it is given, so that
    ``LeafForward`` (the search's forward: the same floats as ``value_features``, for less
    work) gives the views."""

    def __init__(self, width: int):
        self.width = width

    def __call__(self, latent_vf: th.Tensor) -> th.Tensor:
        return latent_vf[:, :self.width]


class Views:
    """Both seats' value features for a batch of (game, player): the policy's trunk over
    each seat's observation, in one forward (``2 x batch`` rows)."""

    def __init__(self, policy):
        from nivel_env.env.encoder import Encoder

        from .leaf_forward import LeafForward
        self.net = getattr(policy, "policy", policy)
        self.n_obs = int(self.net.observation_space.shape[0])
        self.width = critic_width(self.net)
        self._forward = LeafForward(self.net, _Trunk(self.width))
        self._enc: dict = {}
        self._Encoder = Encoder
        self._buf = np.zeros((0, self.n_obs), dtype=np.float32)

    def __call__(self, games, players) -> tuple[np.ndarray, np.ndarray]:
        """(view of ``players[i]``, view of the other seat), float32 ``[n, width]`` each."""
        n = len(games)
        if self._buf.shape[0] < 2 * n:
            self._buf = np.zeros((2 * n, self.n_obs), dtype=np.float32)
        buf = self._buf
        for i, (g, p) in enumerate(zip(games, players)):
            enc = self._enc.get(id(g.db))
            if enc is None or enc.db is not g.db:
                enc = self._enc[id(g.db)] = self._Encoder(g.db)
            legal = g.legal_actions() if g.result is None and g.current_player == p else None
            buf[i] = enc.encode(g, p, legal)[:self.n_obs]
            buf[n + i] = enc.encode(g, 1 - p, None)[:self.n_obs]
        _, latent = self._forward(th.from_numpy(buf[:2 * n]))
        latent = latent.reshape(2 * n, self.width)
        return latent[:n], latent[n:]


def full_state(views: Views, games, players) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The full-state features of each (game, player): (``p``'s view, the other seat's
    view, ``hidden_cards``) -- see the module docstring."""
    mine, theirs = views(games, players)
    cards = np.stack([hidden_cards(g, p) for g, p in zip(games, players)]) if games else \
        np.zeros((0, CARD_SLOTS), dtype=np.int16)
    return mine, theirs, cards


def card_rows(db) -> np.ndarray:
    """The card table the hidden cards' rows point into (float32 ``[rows, columns]``)."""
    from nivel_env.env.card_features import card_table
    return np.array(card_table(db).full, dtype=np.float32)


# ------------------------------------------------------------------ the network
class OracleNet(nn.Module):
    """Full-state features -> a value in [-1, 1] for the player they are about."""

    def __init__(self, width: int, columns: int, embed: int = 32, hidden: int = 256,
                 residual: bool = False, symmetric: bool = False):
        super().__init__()
        self.width, self.columns, self.embed_size = int(width), int(columns), int(embed)
        self.hidden, self.residual = int(hidden), bool(residual)
        self.symmetric = bool(symmetric)
        self.embed = nn.Linear(columns, embed)
        self.position = nn.Parameter(th.zeros(2, DECK_TOP, embed))
        size = 2 * width + 2 * DECK_TOP * embed + 2 * embed
        self.mlp = nn.Sequential(nn.Linear(size, hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden // 2), nn.ReLU(),
                                 nn.Linear(hidden // 2, 1))
        self.base = ValueHead(width) if residual else None
        if residual:
            nn.init.zeros_(self.mlp[-1].weight)       # start at the head's own value
            nn.init.zeros_(self.mlp[-1].bias)

    def forward(self, mine, theirs, cards, table) -> th.Tensor:
        cards = cards.long()
        out = self._side(mine, theirs, cards, table)
        base = self.base(mine) if self.base is not None else None
        if self.symmetric:       # v(p) = -v(other seat): the same net from both sides
            k, h = DECK_TOP, HAND_SLOTS
            swapped = th.cat([cards[:, k:2 * k], cards[:, :k], cards[:, 2 * k + h:],
                              cards[:, 2 * k:2 * k + h]], 1)
            out = (out - self._side(theirs, mine, swapped, table)) / 2
            if base is not None:
                base = (base - self.base(theirs)) / 2
        if base is not None:
            return (base + out).clamp(-1.0, 1.0)
        return th.tanh(out)

    def _side(self, mine, theirs, cards, table) -> th.Tensor:
        present = (cards > 0).unsqueeze(2).float()
        e = th.relu(self.embed(table))[cards] * present                 # [n, slots, E]
        deck = e[:, :2 * DECK_TOP].reshape(-1, 2, DECK_TOP, self.embed_size)
        deck = (deck + self.position * present[:, :2 * DECK_TOP].reshape(-1, 2, DECK_TOP, 1))
        hands = e[:, 2 * DECK_TOP:].reshape(-1, 2, HAND_SLOTS, self.embed_size).sum(2)
        x = th.cat([mine, theirs, deck.flatten(1), hands.flatten(1)], 1)
        return self.mlp(x).squeeze(1)


class OracleValue:
    """The oracle a search reads: ``values(games, players)`` -> float32 ``[n]`` in
    [-1, 1], each the value of ``games[i]`` for ``players[i]``, from the whole state --
    give it only worlds a player may search (determinized copies), never the real game."""

    def __init__(self, net: OracleNet, policy, meta: dict | None = None):
        self.net = net.eval()
        self.views = Views(policy)
        if self.views.width != net.width:
            raise ValueError(f"OracleValue: the network reads {net.width} view columns, the "
                             f"policy gives {self.views.width}")
        self.meta = meta or {}
        self._tables: dict = {}

    def table(self, db) -> th.Tensor:
        t = self._tables.get(id(db))
        if t is None or t[0] is not db:
            rows = card_rows(db)
            if rows.shape[1] != self.net.columns:
                raise ValueError(f"OracleValue: the card table has {rows.shape[1]} columns, "
                                 f"the network reads {self.net.columns}")
            t = self._tables[id(db)] = (db, th.from_numpy(rows))
        return t[1]

    def values(self, games, players) -> np.ndarray:
        if not len(games):
            return np.zeros(0, dtype=np.float32)
        mine, theirs, cards = full_state(self.views, games, players)
        with th.inference_mode():
            v = self.net(th.from_numpy(mine), th.from_numpy(theirs),
                         th.from_numpy(cards.astype(np.int64)), self.table(games[0].db))
        return v.numpy().astype(np.float32)


# ------------------------------------------------------------------ the file
def save_oracle(net: OracleNet, path, policy_path, meta: dict) -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    th.save({"format": ORACLE_FORMAT, "version": ORACLE_VERSION, "features": FEATURES,
             "width": net.width, "columns": net.columns, "embed": net.embed_size,
             "hidden": net.hidden, "residual": net.residual, "symmetric": net.symmetric,
             "policy_sha256": sha256(policy_path),
             "state_dict": {k: v.half() for k, v in net.state_dict().items()},
             "meta": meta}, path)
    return path


def load_oracle(path, policy, policy_path=None) -> OracleValue:
    """The oracle in ``path``, reading ``policy`` (a PolicyAgent or its network: the
    search's own).  With ``policy_path`` the file must have been fit to that policy.  A bad
    file: an ``OracleFileError`` naming it and the field.  (The policy is given, not looked
    up by the name the file records: a search must not import the players' table.)"""
    from .policy import PolicyFileError
    path = Path(path)
    saved = read_saved(path, "oracle file", OracleFileError, ORACLE_FORMAT, ORACLE_VERSION,
                       _MAX_BYTES)
    if saved.get("features") != FEATURES:
        raise OracleFileError(f"{path}: field 'features' is {saved.get('features')!r}; this "
                              f"nivel_env writes {FEATURES!r}")
    sizes = {}
    for field in ("width", "columns", "embed", "hidden"):
        v = saved.get(field)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 < v <= MAX_SIZE:
            raise OracleFileError(f"{path}: field '{field}' must be a size in 1..{MAX_SIZE}, "
                                  f"got {v!r}"[:300])
        sizes[field] = v
    for field in ("residual", "symmetric"):
        if not isinstance(saved.get(field), bool):
            raise OracleFileError(f"{path}: field '{field}' must be true or false")
    net = OracleNet(sizes["width"], sizes["columns"], sizes["embed"], sizes["hidden"],
                    saved["residual"], saved["symmetric"])
    state = saved.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, th.Tensor) and
                                              v.is_floating_point() for v in state.values()):
        raise OracleFileError(f"{path}: field 'state_dict' must map names to float tensors")
    want = {k: tuple(v.shape) for k, v in net.state_dict().items()}
    have = {k: tuple(v.shape) for k, v in state.items()}
    if have != want:
        wrong = [f"{k} {have.get(k, 'missing')}, the declared sizes need {s}"
                 for k, s in want.items() if have.get(k) != s]
        wrong += [f"unexpected {k}" for k in have if k not in want]
        raise OracleFileError(f"{path}: field 'state_dict' does not fit the declared sizes "
                              f"({'; '.join(wrong[:3])})"[:400])
    net.load_state_dict({k: v.float() for k, v in state.items()})
    meta = saved.get("meta") if isinstance(saved.get("meta"), dict) else {}
    if policy_path is not None:
        try:
            digest = sha256(policy_path)
        except PolicyFileError as e:
            raise OracleFileError(str(e)) from None
        if saved.get("policy_sha256") != digest:
            raise OracleFileError(f"{path}: fit to another policy than {policy_path} (its "
                                  f"policy_sha256 does not match)")
    try:
        return OracleValue(net, policy, meta)
    except ValueError as e:
        raise OracleFileError(f"{path}: {e}") from None


# ------------------------------------------------------------------ playouts
def playout_value(g, player: int, m: int, rng: np.random.Generator) -> float:
    """The mean outcome for ``player`` of ``m`` uniformly random playouts from ``g``
    (its true state: a copy is played each time)."""
    total = 0.0
    for _ in range(m):
        h = g.clone()
        while h.result is None:
            legal = h.legal_actions()
            h.apply_action(legal[int(rng.integers(len(legal)))] if len(legal) > 1
                           else legal[0])
        total += h.result[player]
    return total / m


__all__ = ["CARD_SLOTS", "DECK_TOP", "FEATURES", "HAND_SLOTS", "OracleFileError",
           "OracleNet", "OracleValue", "Views", "full_state", "hidden_cards", "load_oracle",
           "playout_value", "save_oracle"]

