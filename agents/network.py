"""The policy network's feature extractor: one small encoder shared by every card slot.

The observation has 51 card rows, 6 zone sums and 8 rows of cards known to be in the
opponent's hand, all of the same 135 card features (docs/observation.md).  Encoding each row with the same weights keeps the network
small (a few hundred thousand parameters instead of two million for a plain MLP over
9,519 inputs) and lets what is learnt about a card in one slot carry to the others.
"""
from __future__ import annotations

import torch as th
from gymnasium import spaces
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from nivel_env.env import card_features as cf
from nivel_env.env.encoder import (CARD_ROWS, KNOWN_ROWS, OBS_SIZE, OFFSETS,
                                   READABLE_LAYOUTS, ZONES)


class CardSetExtractor(BaseFeaturesExtractor):
    def __init__(self, observation_space: spaces.Box, card_dim: int = 32, zone_dim: int = 16,
                 features_dim: int = 256):
        super().__init__(observation_space, features_dim)
        n_obs = observation_space.shape[0] if len(observation_space.shape) == 1 else -1
        if n_obs not in READABLE_LAYOUTS.values():
            raise ValueError(f"CardSetExtractor: observation shape {observation_space.shape} is "
                             f"not this layout's ({OBS_SIZE},) nor an earlier one's")
        self.head = OFFSETS["cards"]
        self.zones_at = OFFSETS["zones"]
        self.known_at = OFFSETS["opponent_known_hand"]
        # networks made for the layout before the known-hand block read without it
        self.reads_known = n_obs > self.known_at
        self.card = nn.Sequential(nn.Linear(cf.WIDTH, card_dim), nn.ReLU())
        self.zone = nn.Sequential(nn.Linear(cf.WIDTH, zone_dim), nn.ReLU())
        n = self.head + CARD_ROWS * card_dim + len(ZONES) * zone_dim
        if self.reads_known:                 # the same card encoder, summed over the rows
            n += card_dim
        self.mix = nn.Sequential(nn.Linear(n, features_dim), nn.ReLU())

    def forward(self, obs: th.Tensor) -> th.Tensor:
        b = obs.shape[0]
        cards = obs[:, self.head:self.zones_at].reshape(b, CARD_ROWS, cf.WIDTH)
        zones = obs[:, self.zones_at:self.known_at].reshape(b, len(ZONES), cf.WIDTH)
        parts = [obs[:, :self.head], self.card(cards).reshape(b, -1),
                 self.zone(zones).reshape(b, -1)]
        if self.reads_known:
            known = obs[:, self.known_at:].reshape(b, KNOWN_ROWS, cf.WIDTH)
            present = known[:, :, :1]                        # column 0: a card is there
            parts.append((self.card(known) * present).sum(dim=1))
        return self.mix(th.cat(parts, dim=1))


def policy_kwargs() -> dict:
    return {"features_extractor_class": CardSetExtractor,
            "net_arch": {"pi": [128], "vf": [128]}}
