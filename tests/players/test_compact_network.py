"""The compact pointer network (agents.network.CompactPointerExtractor): it reads the
compact observation's card indices against a card table, alone or in a batch, ignores
table rows no card points at, trains under MaskablePPO, and round-trips through a policy
file with its table; a policy agent switches to the pool it plays."""
import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.network import (CompactPointerExtractor, PolicyNetwork,  # noqa: E402
                            card_table_of, set_card_table, set_max)
from agents.policy import (PolicyAgent, actor_logits, build_policy, export_policy,  # noqa: E402
                           frozen_copy)
from nivel_env.cards import load_card_db, load_deck  # noqa: E402
from nivel_env.cards.db import bundled_card_files  # noqa: E402
from nivel_env.engine import N_ACTIONS, new_game  # noqa: E402
from nivel_env.env.encoder import card_table, make_encoder  # noqa: E402
from nivel_env.env.layout import COMPACT, LAYOUT  # noqa: E402

from conftest import TEST_POOL  # noqa: E402

DECKS = ("ember-rush", "stone-bastion")


def positions(db, n: int, seed: int = 0):
    """(compact observations, masks) of the first ``n`` positions of random play of
    ``DECKS`` with pool ``db``, both seats."""
    g = new_game(load_deck(DECKS[0], db), load_deck(DECKS[1], db), seed=seed, db=db)
    enc, rng = make_encoder(db, "compact"), random.Random(seed)
    obs, masks = [], []
    while not g.is_terminal() and len(obs) < n:
        legal = g.legal_actions()
        for p in (0, 1):
            obs.append(enc.encode(g, p, legal if p == g.current_player else None).copy())
            m = np.zeros(N_ACTIONS, bool)
            m[legal] = True
            masks.append(m)
        g.apply_action(legal[rng.randrange(len(legal))])
    return np.stack(obs[:n]), np.stack(masks[:n])


def network(seed: int = 0, **kw) -> PolicyNetwork:
    """A compact pointer network with random weights (its position embeddings too) and
    the bundled pool's table."""
    torch.manual_seed(seed)
    net = build_policy({"policy": "compact_pointer", "obs_size": COMPACT.size,
                        "n_actions": N_ACTIONS, "net_arch": {"pi": [], "vf": []},
                        "activation": "tanh", "features_extractor": "compact_pointer",
                        "features_extractor_kwargs": {"card_dim": 16, "key_dim": 8,
                                                      "trunk_dim": 32, **kw},
                        "share_features_extractor": True, "ortho_init": True})
    assert isinstance(net, PolicyNetwork)
    assert isinstance(net.features_extractor, CompactPointerExtractor)
    with torch.no_grad():
        for p in net.parameters():
            p.normal_(0, 0.3)
    set_card_table(net, card_table(load_card_db()))
    return net


@pytest.fixture(scope="module")
def batch():
    obs, masks = positions(load_card_db(), 48)
    return torch.as_tensor(obs), masks


def logits_values(net, obs):
    with torch.no_grad():
        return net.action_logits(obs), net.predict_values(obs)


def test_a_batch_reads_as_each_observation_alone(batch):
    obs, _ = batch
    net = network()
    la, va = logits_values(net, obs)
    alone = [logits_values(net, obs[i:i + 1]) for i in range(len(obs))]
    assert torch.allclose(la, torch.cat([a for a, _ in alone]), rtol=1e-4, atol=1e-4)
    assert torch.allclose(va, torch.cat([v for _, v in alone]), rtol=1e-4, atol=1e-4)
    assert la.std(0).max() > 1e-3              # the positions do read differently


def test_table_rows_no_card_points_at_change_nothing(batch):
    obs, _ = batch
    net = network()
    before = logits_values(net, obs)
    table = card_table(load_card_db()).copy()
    index = np.concatenate([COMPACT.view(obs.numpy(), n).reshape(len(obs), -1) for n in (
        "card_index", "known_index", "trash_index", "damage_index", "skill_index")], axis=1)
    used = set(index.astype(int).ravel().tolist())
    unused = [r for r in range(1, len(table)) if r not in used]
    assert 0 in used and unused                 # empty slots, and cards never seen here
    rng = np.random.default_rng(0)
    changed = table.copy()
    changed[[0] + unused] = rng.normal(size=(1 + len(unused), table.shape[1]))
    set_card_table(net, changed)
    after = logits_values(net, obs)
    assert all(torch.allclose(a, b, atol=1e-5) for a, b in zip(before, after))
    # a card that is there does count
    seen = sorted(used - {0})[0]
    changed[seen] = rng.normal(size=table.shape[1])
    set_card_table(net, changed)
    assert not torch.allclose(before[0], logits_values(net, obs)[0], atol=1e-3)


def test_a_table_of_another_width(batch):
    obs, _ = batch
    net = network()
    table = card_table(load_card_db())
    wider = np.concatenate([table, np.ones((len(table), 7), np.float32)], axis=1)
    before = logits_values(net, obs)[0]
    set_card_table(net, wider)                 # a later version's columns: read up to 159
    assert torch.equal(logits_values(net, obs)[0], before)
    with pytest.raises(ValueError, match=f"has {table.shape[1] - 1} columns, the network "
                                         f"reads {table.shape[1]}"):
        set_card_table(net, table[:, :-1])


def test_any_order_of_rows_reads_the_same(batch):
    """Indices are only pointers: the table's rows shuffled and more appended, with the
    observations' indices moved to match, give the same logits."""
    obs, _ = batch
    net = network()
    before = logits_values(net, obs)[0]
    table = card_table(load_card_db())
    rng = np.random.default_rng(1)
    n = len(table)
    new_row = np.concatenate([[0], 1 + rng.permutation(n + 30 - 1)[:n - 1]])  # old -> new
    bigger = rng.normal(size=(n + 30, table.shape[1])).astype(np.float32)
    bigger[new_row] = table
    moved = obs.clone().numpy()
    for name in ("card_index", "known_index", "trash_index", "damage_index", "skill_index"):
        view = COMPACT.view(moved, name)
        view[...] = new_row[view.astype(int)]
    set_card_table(net, bigger)
    assert torch.allclose(logits_values(net, torch.as_tensor(moved))[0], before, rtol=1e-4,
                          atol=1e-4)


def test_every_tensor_follows_the_network_to_its_device(batch):
    """Moved with .to(), the table and every tensor a step makes are on the network's
    device: on torch's meta device (shapes only) a tensor left on the CPU would fail."""
    obs, _ = batch
    net = network().to("meta")
    net.train()
    assert card_table_of(net).device.type == "meta"
    x = obs[:5].to("meta")
    logits, value = net(x)
    (logits.sum() + value.sum()).backward()
    assert logits.shape == (5, N_ACTIONS) and logits.device.type == "meta"
    assert all(p.grad is not None and p.grad.device.type == "meta" for p in net.parameters())
    set_card_table(net, card_table(load_card_db()))    # a new table goes where the net is
    assert card_table_of(net).device.type == "meta"


def test_set_max_is_amax_with_its_gradient():
    x = torch.randn(4, 6, 5, dtype=torch.double, requires_grad=True)
    assert torch.equal(set_max(x, 1), x.amax(1))
    assert torch.autograd.gradcheck(lambda t: set_max(t, 1), (x,))
    assert torch.autograd.gradcheck(lambda t: set_max(t, 2), (x,))


def compact_env():
    """NivelArenaGymEnv observing the compact layout (until the environments take obs=)."""
    from nivel_env import NivelArenaGymEnv

    class CompactGymEnv(NivelArenaGymEnv):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.observation_space = COMPACT.box()
            self._compact = None

        def _observe(self):
            super()._observe()
            g = self.game
            if self._compact is None or self._compact[0] is not g.db:
                self._compact = (g.db, make_encoder(g.db, "compact"))
            legal = None if g.result is not None else np.flatnonzero(self._mask).tolist()
            return self._compact[1].encode(g, self.seat, legal).copy()

    return CompactGymEnv(decks=DECKS)


def test_maskable_ppo_trains_it_and_its_policy_file_plays_the_same(tmp_path):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from agents.network import compact_pointer_policy
    env = compact_env()
    cls, kw = compact_pointer_policy(card_table(load_card_db()), 16, 8, 32)
    model = MaskablePPO(cls, env, n_steps=32, batch_size=16, n_epochs=1, policy_kwargs=kw,
                        seed=0, device="cpu")
    weights = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(32)
    assert any(not torch.equal(a, b) for a, b in zip(weights, model.policy.parameters()))
    model.save(tmp_path / "model.zip")           # SB3's own checkpoint keeps the table
    again = MaskablePPO.load(tmp_path / "model.zip", device="cpu")
    assert torch.equal(card_table_of(again.policy), card_table_of(model.policy))
    path = export_policy(model, tmp_path / "c.pt", {"command": "test"})
    saved = torch.load(path, weights_only=True)
    assert saved["meta"]["observation_layout"] == "compact"
    assert saved["meta"]["layout_version"] == COMPACT.hash
    assert saved["card_table"].dtype == torch.float32
    assert np.array_equal(saved["card_table"].numpy(), card_table(load_card_db()))
    agent = PolicyAgent(path)
    assert agent.observation_layout == "compact" and agent.n_obs == COMPACT.size
    obs, masks = positions(load_card_db(), 12, seed=3)
    x = torch.as_tensor(obs)
    with torch.no_grad():
        la = model.policy.get_distribution(x, action_masks=masks).distribution.logits
        va = model.policy.predict_values(x)
    lb = torch.as_tensor(agent.logits(obs, masks)).masked_fill(~torch.as_tensor(masks), -1e8)
    assert torch.allclose(la.log_softmax(1)[torch.as_tensor(masks)],
                          lb.log_softmax(1)[torch.as_tensor(masks)], atol=2e-2)
    assert torch.allclose(va, agent.policy.predict_values(x).detach(), atol=2e-2)
    for net in (agent.policy, model.policy):    # a self-play snapshot keeps the table
        copy = frozen_copy(net)
        assert torch.equal(card_table_of(copy), card_table_of(net))
        with torch.no_grad():
            assert torch.allclose(actor_logits(copy, x), actor_logits(net, x), atol=1e-5)


@pytest.mark.parametrize("kind", ["pointer", "compact_pointer", "separate"])
def test_evaluate_actions_gives_what_maskable_categorical_gives(kind):
    """The pointer policies' own evaluate_actions: the values, log-probabilities and
    entropies sb3-contrib's would give, and the same gradients."""
    pytest.importorskip("sb3_contrib")
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.network import compact_pointer_policy, pointer_policy
    from nivel_env.env.encoder import observation_box
    torch.manual_seed(0)
    db = load_card_db()
    if kind == "pointer":
        (cls, kw), box, layout = pointer_policy(16, 8, 32), observation_box(), "full"
    else:
        (cls, kw), box, layout = compact_pointer_policy(card_table(db), 16, 8, 32), \
            COMPACT.box(), "compact"
        kw["share_features_extractor"] = kind != "separate"
    policy = cls(box, spaces.Discrete(N_ACTIONS), lambda _: 1e-3, **kw)
    g = new_game(load_deck(DECKS[0]), load_deck(DECKS[1]), seed=2)
    enc, rng, obs, masks = make_encoder(db, layout), random.Random(2), [], []
    while len(obs) < 24:
        legal = g.legal_actions()
        obs.append(enc.encode(g, g.current_player, legal).copy())
        masks.append(np.isin(np.arange(N_ACTIONS), legal))
        g.apply_action(legal[rng.randrange(len(legal))])
    x, masks = torch.as_tensor(np.stack(obs)), np.stack(masks)
    actions = torch.as_tensor([rng.choice(np.flatnonzero(m).tolist()) for m in masks])
    out = []
    for evaluate in (policy.evaluate_actions,
                     lambda *a, **k: MaskableActorCriticPolicy.evaluate_actions(policy, *a, **k)):
        policy.zero_grad()
        v, lp, ent = evaluate(x, actions, action_masks=masks)
        (v.sum() + lp.sum() + ent.sum()).backward()
        out.append([t.detach().clone() for t in (v, lp, ent)]
                   + [p.grad.clone() for p in policy.parameters()])
    assert all(torch.allclose(a, b, rtol=1e-4, atol=1e-5) for a, b in zip(*out))
    assert out[0][2].abs().sum() > 0


def test_use_card_pool_reads_a_bigger_pool(tmp_path):
    net = network()
    path = export_policy(net, tmp_path / "c.pt")
    agent = PolicyAgent(path)
    small = load_card_db()
    big = load_card_db(bundled_card_files() + [TEST_POOL])
    assert len(card_table(big)) > len(card_table(small))
    obs_small, masks = positions(small, 24, seed=5)
    obs_big, masks_big = positions(big, 24, seed=5)
    assert np.array_equal(masks, masks_big)
    before = agent.logits(obs_small, masks)
    agent.use_card_pool(big)
    table = card_table_of(agent.policy)
    assert table.shape[0] == len(card_table(big))
    agent.use_card_pool(big)                    # the same pool again: nothing rebuilt
    assert card_table_of(agent.policy) is table
    assert np.allclose(agent.logits(obs_big, masks), before, atol=1e-5)
    agent.use_card_pool(small)
    assert np.allclose(agent.logits(obs_small, masks), before, atol=1e-5)
    full = make_encoder(small, "full").encode(new_game(load_deck(DECKS[0]),
                                                       load_deck(DECKS[1])), 0)
    with pytest.raises(ValueError, match="reads the compact observation"):
        agent.logits(full[None], masks[:1])


@pytest.mark.parametrize("change, error", [
    (lambda f: f.pop("card_table"), "needs field 'card_table'"),
    (lambda f: f.update(card_table=f["card_table"][:, :100]), "has 100 columns, the network"),
    (lambda f: f["card_table"].__setitem__((1, 1), float("nan")), "finite values"),
    (lambda f: f["meta"].pop("observation_layout"), "made for full observation layout"),
    (lambda f: f["meta"].update(observation_layout="tiny"), "is not one of full, compact"),
    (lambda f: f["meta"].update(observation_layout="full", layout_version=LAYOUT.hash),
     "the compact observation is read by"),
])
def test_a_broken_compact_policy_file_is_refused_by_name(tmp_path, change, error):
    from agents.policy import PolicyFileError
    path = export_policy(network(), tmp_path / "c.pt")
    saved = torch.load(path, weights_only=True)
    change(saved)
    torch.save(saved, path)
    with pytest.raises(PolicyFileError, match=error):
        PolicyAgent(path)


def test_full_policies_ignore_the_card_pool():
    from pathlib import Path
    agent = PolicyAgent(Path(__file__).parents[2] / "agents" / "policies" / "nv2-ppo.pt")
    assert agent.observation_layout == "full"
    agent.use_card_pool(load_card_db(bundled_card_files() + [TEST_POOL]))
    assert card_table_of(agent.policy) is None
