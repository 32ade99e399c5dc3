"""The pointer network as an sb3-contrib policy, for training with MaskablePPO (the train
extra).  Playing a trained one needs none of this: ``agents.network.PolicyNetwork`` holds
the same modules in plain torch."""
from __future__ import annotations

from functools import partial

from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

from .network import PointerExtractor, PointerHead, TrunkValue


def policy_classes() -> dict:
    """The SB3 policy classes a policy file names (``network.policy``; none given:
    actor_critic)."""
    return {"actor_critic": MaskableActorCriticPolicy, "pointer": PointerPolicy}


class PointerPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy with ``PointerExtractor``, ``PointerHead`` and a value
    from the trunk (net_arch must be empty: the extractor's output feeds both)."""

    def _build(self, lr_schedule) -> None:
        super()._build(lr_schedule)
        fx = self.features_extractor if self.share_features_extractor \
            else self.pi_features_extractor
        if not isinstance(fx, PointerExtractor):
            raise ValueError("PointerPolicy needs features_extractor_class=PointerExtractor")
        self.action_net = PointerHead(fx.trunk_dim, fx.key_dim, self.action_space.n)
        self.value_net = TrunkValue(fx.trunk_dim)
        if self.ortho_init:
            self.action_net.apply(partial(self.init_weights, gain=0.01))
            self.value_net.apply(partial(self.init_weights, gain=1.0))
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1),
                                              **self.optimizer_kwargs)
