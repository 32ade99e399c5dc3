"""The pointer networks as sb3-contrib policies, for training with MaskablePPO (the train
extra).  Playing a trained one needs none of this: ``agents.network.PolicyNetwork`` holds
the same modules in plain torch."""
from __future__ import annotations

from functools import partial

import numpy as np
import torch as th
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from .network import (POINTER_EXTRACTORS, CompactPointerExtractor, PointerHead, TrunkValue,
                      card_table_of, set_card_table)


def policy_classes() -> dict:
    """The SB3 policy classes a policy file names (``network.policy``; none given:
    actor_critic)."""
    return {"actor_critic": MaskableActorCriticPolicy, "pointer": PointerPolicy,
            "compact_pointer": CompactPointerPolicy}


class PointerPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy with ``PointerExtractor``, ``PointerHead`` and a value
    from the trunk (net_arch must be empty: the extractor's output feeds both)."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor if self.share_features_extractor \
            else self.pi_features_extractor
        if not isinstance(fx, POINTER_EXTRACTORS):
            raise ValueError(f"{type(self).__name__} needs features_extractor_class="
                             f"PointerExtractor or CompactPointerExtractor")
        self.action_net = PointerHead(fx.trunk_dim, fx.key_dim, self.action_space.n)
        self.value_net = TrunkValue(fx.trunk_dim)
        if self.ortho_init:
            self.action_net.apply(partial(self.init_weights, gain=0.01))
            self.value_net.apply(partial(self.init_weights, gain=1.0))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)


    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor, action_masks=None):
        """MaskableActorCriticPolicy's ``evaluate_actions`` (values, log-probabilities of
        ``actions``, entropies), computed straight from the masked logits: the same
        numbers as its ``MaskableCategorical`` (masked logits -1e8, masked actions adding
        nothing to the entropy) without building one, which cost a PPO minibatch about a
        third of this network's forward on a CPU."""
        if action_masks is None:
            return super().evaluate_actions(obs, actions, action_masks)
        features = self.extract_features(obs)
        if self.share_features_extractor:
            latent_pi, latent_vf = self.mlp_extractor(features)
        else:
            pi_features, vf_features = features
            latent_pi = self.mlp_extractor.forward_actor(pi_features)
            latent_vf = self.mlp_extractor.forward_critic(vf_features)
        logits = self.action_net(latent_pi)
        masks = th.as_tensor(action_masks, dtype=th.bool,
                             device=logits.device).reshape(logits.shape)
        log_p = th.where(masks, logits, logits.new_tensor(_MASKED)).log_softmax(dim=-1)
        log_prob = log_p.gather(-1, actions.long().reshape(-1, 1)).squeeze(-1)
        entropy = -th.where(masks, log_p * log_p.exp(), logits.new_tensor(0.0)).sum(-1)
        return self.value_net(latent_vf), log_prob, entropy


#: the logit of a masked action (sb3-contrib's MaskableCategorical's)
_MASKED = -1e8


class CompactPointerPolicy(PointerPolicy):
    """``PointerPolicy`` over the compact observation: ``CompactPointerExtractor``, which
    reads card indices against ``card_table`` (the training pool's
    ``encoder.card_table(db)``, a policy keyword: MaskablePPO's ``save`` keeps it with
    the other policy keywords; the weights never hold it)."""

    def __init__(self, *args, card_table=None, **kwargs):
        if card_table is None:
            raise ValueError("CompactPointerPolicy needs card_table= (the training pool's "
                             "nivel_env.env.encoder.card_table(db)); see "
                             "agents.network.compact_pointer_policy")
        # set before nn.Module's own __init__ runs (which _build needs): a plain attribute
        object.__setattr__(self, "_first_card_table", np.array(card_table, dtype=np.float32))
        super().__init__(*args, **kwargs)

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor if self.share_features_extractor \
            else self.pi_features_extractor
        if not isinstance(fx, CompactPointerExtractor):
            raise ValueError("CompactPointerPolicy needs features_extractor_class="
                             "CompactPointerExtractor")
        set_card_table(self, self._first_card_table)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["card_table"] = card_table_of(self).cpu().numpy()
        return data
