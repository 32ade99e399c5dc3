"""A search's forward for its leaves: the pointer policy's logits and the value head's
values, the same floats as ``value.value_features`` and the head give, for less work.

A search (``agents.search``) evaluates a few dozen positions per forward, dozens of times a
move, and its moves must not change with how the forward is computed: every float here is
the one the modules give, bit for bit (``tests/players/test_search.py`` compares them).
What is saved:

* the card layer runs on the card rows that hold a card only (about a quarter of the 51):
  the old forward multiplied every row's output by the row's presence flag (column 0:
  0 or 1), so an empty row is 0 whatever was computed for it.  A present row gets the same
  operations in the same order -- the matrix product (``mm``, then the bias added, as
  ``nn.Linear`` does for a strided 3-D input), the row's position embedding, its slot
  facts, the ReLU, the presence flag -- and a matrix product's row does not depend on the
  other rows it is computed with (MKL, one thread; the test holds it to that on real
  batches);
* the row keys (a layer over every row's output) likewise: an empty row's output is 0,
  so its key is the layer's bias (a product with a row of zeros adds nothing to it); a
  present row's is its row of the same ``addmm``;
* the slot facts are gathered for the present rows through a table, not laid out in a
  zero-padded block (a fact-less row still gets the 0 added that the block held);
* the trunk and the row keys go to the pointer head (``PointerHead.forward``'s operations)
  and the value head as they are made, not joined into one tensor and sliced back out;
* the layout's block offsets are looked up once, not at every forward;
* ``torch.inference_mode`` instead of ``no_grad`` (no autograd bookkeeping at all).

Everything else -- the slot facts' layers, the zones, the known hand, the trunk, the
value head -- is the policy's own modules called on the same tensors as before.  Networks
of any other shape (``PointerExtractor`` with separate actor and critic extractors, the
compact or the plain MLP networks) take ``value_features`` unchanged.
"""
from __future__ import annotations

import numpy as np
import torch as th
from torch import nn

from nivel_env.env import layout as E
from nivel_env.env.layout import CARD_ROWS, LAYOUT

from .network import PointerExtractor, PointerHead
from .value import value_features


def _slice(name: str) -> tuple[int, int, tuple]:
    b = LAYOUT.block(name)
    return b.offset, b.offset + b.size, tuple(b.shape)


class LeafForward:
    """``forward(obs)`` -> (logits, values) as numpy float32 arrays, for a batch of
    observations ``obs`` (a float32 tensor, one row per position; rows may be longer than
    the ``n_obs`` the network reads).  ``value``: the search's value head (called on the
    critic's features), or None for the policy's own critic."""

    def __init__(self, net, value=None):
        self.net, self.value = net, value
        fx = net.features_extractor
        self.fast = (type(fx) is PointerExtractor and net.share_features_extractor
                     and isinstance(net.action_net, PointerHead)
                     and isinstance(net.mlp_extractor.policy_net, nn.Sequential)
                     and len(net.mlp_extractor.policy_net) == 0
                     and isinstance(net.mlp_extractor.value_net, nn.Sequential)
                     and len(net.mlp_extractor.value_net) == 0
                     and fx.rows.blocks["cards"] == ("cards",)
                     and fx.rows.blocks["zones"] == ("zones",)
                     and fx.rows.blocks["known"] == ("opponent_known_hand",))
        self.n_obs = int(net.observation_space.shape[0])
        if not self.fast:
            return
        self.fx = fx
        self.cards = _slice("cards")
        self.zones = _slice("zones")
        self.known = _slice("opponent_known_hand")
        self.hand = _slice("hand_slots")
        self.cand = _slice("candidate_slots")
        self.lane_values = _slice("field_values")
        self.lane_flags = _slice("field_flags")
        self._facts: dict = {}                    # batch size -> _facts_of's table

    def __call__(self, obs: th.Tensor):
        net = self.net
        device = net.device
        fast = self.fast and device.type == "cpu"       # the tables live on the CPU
        with th.inference_mode():
            if fast:
                trunk, keys = self._features(obs)
                logits = self._pointer(trunk, keys)
                latent_vf = trunk if self._value_reads(trunk.shape[1]) else \
                    th.cat([trunk, keys.reshape(trunk.shape[0], -1)], dim=1)
            else:
                logits, latent_vf = value_features(
                    net, obs[:, :self.n_obs].contiguous().to(device))
            head = self.value if self.value is not None else net.value_net
            values = head(latent_vf.float().cpu() if self.value is not None else latent_vf)
        return logits.float().cpu().numpy(), values.float().cpu().numpy().reshape(-1)

    def _value_reads(self, width: int) -> bool:
        """Whether the value reads only the trunk's ``width`` columns of the features
        (the value head's ``width``, the policy critic's trunk)."""
        head = self.value if self.value is not None else self.net.value_net
        reads = getattr(head, "width", getattr(head, "trunk_dim", None))
        return isinstance(reads, int) and reads <= width

    def _pointer(self, trunk: th.Tensor, keys: th.Tensor) -> th.Tensor:
        """``PointerHead.forward`` from the trunk and the row keys as they are made (the
        head sliced them back out of one features tensor)."""
        h = self.net.action_net
        b = trunk.shape[0]
        q = h.query(trunk).reshape(b, h.n_types, h.key_dim)
        s = th.bmm(q, keys.transpose(1, 2)).reshape(b, -1) / h.key_dim ** 0.5
        s = th.cat([s, s.new_zeros(b, 1)], dim=1)
        return h.base(trunk) + s.index_select(1, h.index[0]) + s.index_select(1, h.index[1])

    def _facts_of(self, b: int) -> th.Tensor:
        """For a batch of ``b``: each (image, row)'s row in ``_features``' slot facts --
        0 for a row without any (a zero row), else its row of the lane, hand or candidate
        layer's output (images one after the other within each)."""
        if b not in self._facts:
            out = np.zeros((b, CARD_ROWS), dtype=np.int64)
            i = np.arange(b)[:, None]
            start = 1
            for first, n in ((E.ROW_UNITS, E.ROW_ITEMS - E.ROW_UNITS),
                             (E.ROW_HAND, E.HAND_ROWS), (E.ROW_CANDS, E.CANDIDATE_ROWS)):
                out[:, first:first + n] = start + i * n + np.arange(n)
                start += b * n
            self._facts[b] = th.from_numpy(out.reshape(-1))
        return self._facts[b]

    @staticmethod
    def _view(obs, part):
        lo, hi, shape = part
        return obs[:, lo:hi].reshape((obs.shape[0],) + shape)

    def _features(self, obs: th.Tensor) -> tuple:
        """``PointerExtractor.forward`` with the card layer on the present rows only: its
        trunk and row keys, (b, trunk) and (b, rows, key)."""
        fx, view = self.fx, self._view
        b = obs.shape[0]
        d = fx.card.out_features
        cards = view(obs, self.cards)                       # (b, rows, width), strided
        at = (cards[:, :, 0] != 0).nonzero()                # the present rows: (image, row)
        image, row = at[:, 0], at[:, 1]
        flat = image * CARD_ROWS + row
        present = cards[image, row]                         # their card rows, contiguous
        # their slot facts: 0 (added as the old forward added its zero blocks) or a row of
        # the lane / hand / candidate layers, gathered through a table made once per size
        facts = th.cat([obs.new_zeros((1, d)),
                        fx.lane_extra(th.cat([view(obs, self.lane_values),
                                              view(obs, self.lane_flags)], dim=2)
                                      ).reshape(-1, d),
                        fx.hand_extra(view(obs, self.hand)).reshape(-1, d),
                        fx.cand_extra(view(obs, self.cand)).reshape(-1, d)])
        # the present rows: mm, bias, position, slot facts, ReLU, presence -- in that order
        x = th.mm(present, fx.card.weight.t())
        x.add_(fx.card.bias)
        x = x + fx.position[fx.place].index_select(0, row)
        x = th.relu(x + facts.index_select(0, self._facts_of(b).index_select(0, flat))) \
            * present[:, :1]
        e = obs.new_zeros((b * CARD_ROWS, d)).index_copy_(0, flat, x).view(b, CARD_ROWS, d)
        fixed = th.cat([e[:, :E.ROW_ITEMS], e[:, E.ROW_REFS:E.ROW_CANDS]], dim=1)
        half = E.ITEM_ROWS * 3
        sets = [e[:, E.ROW_ITEMS:E.ROW_ITEMS + half], e[:, E.ROW_ITEMS + half:E.ROW_HAND],
                e[:, E.ROW_HAND:E.ROW_REFS], e[:, E.ROW_CANDS:]]
        parts = [obs[:, :fx.glob], fixed.reshape(b, -1)]
        for s in sets:
            parts += [s.sum(dim=1), s.amax(dim=1)]
        parts.append(fx.zone(view(obs, self.zones)).reshape(b, -1))
        if fx.reads_known:
            known = view(obs, self.known)
            k = th.relu(fx.card(known)) * known[:, :, :1]
            parts.append(k.sum(dim=1))
        trunk = fx.trunk(th.cat(parts, dim=1))
        # the row keys: an empty row's is the bias (a product with a row of zeros adds
        # nothing to it), a present row's its own row of the product
        rows = fx.key_rows.bias.expand(b * CARD_ROWS, -1).clone().index_copy_(
            0, flat, th.addmm(fx.key_rows.bias, x, fx.key_rows.weight.t()))
        keys = th.relu(rows.view(b, CARD_ROWS, -1) + fx.key_context(trunk).unsqueeze(1))
        return trunk, keys


def reference_forward(net, value, obs: np.ndarray):
    """The forward a search made before ``LeafForward``: ``value_features`` and the head
    under ``no_grad`` on a contiguous copy of the network's prefix (for comparisons)."""
    with th.no_grad():
        logits, latent_vf = value_features(net, th.as_tensor(
            np.ascontiguousarray(obs[:, :int(net.observation_space.shape[0])])))
        head = value if value is not None else net.value_net
        values = head(latent_vf.float().cpu() if value is not None else latent_vf)
    return logits.float().cpu().numpy(), values.float().cpu().numpy().reshape(-1)


__all__ = ["LeafForward", "reference_forward"]
