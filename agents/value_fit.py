"""A value head for search, fit to how self-play games of a policy end.

PPO's critic estimates the return of the policy *against the training pool* (mostly
weaker opponents), so it is optimistic for whichever seat it is asked about; a search
needs the value of a position when both sides play well.  This fits a small head over the
policy's own value features (the trunk the critic reads) to the outcome of self-play
games of that policy -- the actor is untouched, and a search reads both from one forward.

    python -m agents.value_fit --policy nv2-ppo --games 20000 --out agents/values/nv2-ppo.pt

Games: the policy against itself over the bundled decks, each seat at a temperature drawn
from 0 / 0.5 / 1 per game (varied positions, still the policy's own play).  Every real
decision (more than one legal move) is a sample: the value features of the position seen
by the player to act, and how the game ended for that player (+1, -1, 0).  A tenth of the
games (by game) is held out; training stops when the held-out error stops improving.
The file records the policy it belongs to (its SHA-256) and the held-out figures of the
old critic and the new head.
"""
from __future__ import annotations

import argparse
import copy
import hashlib
import sys
import time
from pathlib import Path

import numpy as np
import torch as th
from torch import nn

VALUE_FORMAT = "nivel_env.value_head"
VALUE_VERSION = 1
TEMPERATURES = (0.0, 0.5, 1.0)
#: the largest width or hidden size a value-head file may declare (a policy's critic
#: features are a few hundred wide)
MAX_SIZE = 65536
_MAX_BYTES = 64 << 20                   # a value head is a few hundred kilobytes


class ValueFileError(ValueError):
    """A value-head file that cannot be used (names the file and the fault)."""


def sha256(path: str | Path) -> str:
    """The SHA-256 of the policy file ``path`` (``PolicyFileError`` for a path that is not
    a regular policy-sized file: ``nivel_env.files``), read in blocks."""
    from .policy import open_policy_file
    h = hashlib.sha256()
    with open_policy_file(path) as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def value_features(policy, obs: th.Tensor):
    """(action logits, the critic's input features) for a batch, from one extractor pass."""
    features = policy.extract_features(obs)
    if policy.share_features_extractor:
        latent_pi, latent_vf = policy.mlp_extractor(features)
    else:
        latent_pi = policy.mlp_extractor.forward_actor(features[0])
        latent_vf = policy.mlp_extractor.forward_critic(features[1])
    return policy.action_net(latent_pi), latent_vf


def critic_width(policy) -> int:
    """How many leading columns of the critic's input carry the value (a pointer network's
    trunk; all of a plain actor-critic's latent)."""
    return int(getattr(policy.value_net, "trunk_dim", 0) or policy.mlp_extractor.latent_dim_vf)


class ValueHead(nn.Module):
    """An MLP over the first ``width`` columns of the critic's input."""

    def __init__(self, width: int, hidden: int = 128):
        super().__init__()
        self.width, self.hidden = int(width), int(hidden)
        self.net = nn.Sequential(nn.Linear(width, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, latent_vf: th.Tensor) -> th.Tensor:
        return self.net(latent_vf[:, :self.width]).squeeze(1)


def load_value_head(path: str | Path, policy_path: str | Path | None = None) -> ValueHead:
    """A value head from ``path``; with ``policy_path``, refuse a head fit to another
    policy (the features would mean something else).

    Only regular files are opened (a named pipe would block forever), and the sizes the
    file declares are checked against bounds and against its own tensors' shapes before
    the head is built: a bad file gets a ``ValueFileError`` naming it and the field."""
    from .policy import PolicyFileError, open_policy_file
    path = Path(path)
    f = open_policy_file(path, "value-head file", ValueFileError, _MAX_BYTES)
    try:
        with f:
            saved = th.load(f, map_location="cpu", weights_only=True)
    except Exception as e:                          # noqa: BLE001 -- any unreadable file
        raise ValueFileError(f"{path}: not a readable value-head file ({type(e).__name__}: "
                             f"{str(e)[:200]})") from None
    if not isinstance(saved, dict) or saved.get("format") != VALUE_FORMAT:
        raise ValueFileError(f"{path}: not a nivel_env value-head file")
    if saved.get("version") != VALUE_VERSION:
        raise ValueFileError(f"{path}: value-head version {saved.get('version')!r}; this "
                             f"nivel_env reads {VALUE_VERSION}")
    width, hidden = _declared_shape(path, saved)
    if policy_path is not None:
        try:
            digest = sha256(policy_path)
        except PolicyFileError as e:
            raise ValueFileError(str(e)) from None
        if saved.get("policy_sha256") != digest:
            raise ValueFileError(f"{path}: fit to another policy than {policy_path} (its "
                                 f"policy_sha256 does not match)")
    head = ValueHead(width, hidden)
    head.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
    meta = saved.get("meta", {})
    head.meta = meta if isinstance(meta, dict) else {}
    return head.eval()


def _declared_shape(path: Path, saved: dict) -> tuple[int, int]:
    """(width, hidden) a value-head file declares, once both are sizes within
    ``MAX_SIZE`` and its ``state_dict`` holds exactly the tensors of that head."""
    sizes = {}
    for field in ("width", "hidden"):
        v = saved.get(field)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 < v <= MAX_SIZE:
            raise ValueFileError(f"{path}: field '{field}' must be a size in 1..{MAX_SIZE}, "
                                 f"got {v!r}"[:300])
        sizes[field] = v
    w, h = sizes["width"], sizes["hidden"]
    want = {"net.0.weight": (h, w), "net.0.bias": (h,), "net.2.weight": (1, h),
            "net.2.bias": (1,)}
    state = saved.get("state_dict")
    if not isinstance(state, dict) or not all(isinstance(v, th.Tensor) and
                                              v.is_floating_point() for v in state.values()):
        raise ValueFileError(f"{path}: field 'state_dict' must map names to float tensors")
    have = {k: tuple(v.shape) for k, v in state.items()}
    if have != want:
        wrong = [f"{k} {have.get(k, 'missing')}, width {w} and hidden {h} need {s}"
                 for k, s in want.items() if have.get(k) != s]
        wrong += [f"unexpected {k}" for k in have if k not in want]
        raise ValueFileError(f"{path}: field 'state_dict' does not fit the declared width "
                             f"and hidden sizes ({'; '.join(wrong[:3])})"[:400])
    return w, h


# ------------------------------------------------------------------ self-play data
def self_play(agent, games: int, seed: int, batch: int = 64, progress: bool = False):
    """``games`` self-play games of ``agent`` (a PolicyAgent), ``batch`` at a time, one
    forward per step.  Returns (features float16 [n, width], outcome [n], game id [n],
    turn [n], old critic value [n])."""
    from tqdm import tqdm

    from nivel_env.cards import list_decks, load_deck
    from nivel_env.engine import N_ACTIONS, new_game
    from nivel_env.env.encoder import Encoder
    net = agent.policy
    width = critic_width(net)
    decks = [load_deck(d) for d in list_decks()]
    enc = Encoder(decks[0].db)
    rng = np.random.default_rng(seed)
    feats, who, gid, turns, old = [], [], [], [], []
    results: dict = {}
    live: list = []
    started = 0
    bar = tqdm(total=games, unit="game", disable=not progress)

    def start():
        nonlocal started
        d0, d1 = decks[rng.integers(len(decks))], decks[rng.integers(len(decks))]
        g = new_game(d0, d1, seed=int(rng.integers(1 << 31)))
        live.append((started, g, rng.choice(TEMPERATURES, size=2)))
        started += 1

    while started < min(batch, games):
        start()
    obs = np.zeros((batch, agent.n_obs), dtype=np.float32)
    masks = np.zeros((batch, N_ACTIONS), dtype=bool)
    while live:
        k = len(live)
        masks[:k] = False
        legals = []
        for i, (_, g, _) in enumerate(live):
            legal = g.legal_actions()
            legals.append(legal)
            obs[i] = enc.encode(g, g.current_player, legal)[:agent.n_obs]
            masks[i, legal] = True
        with th.no_grad():
            logits, latent = value_features(net, th.as_tensor(obs[:k]).to(net.device))
            v = net.value_net(latent).reshape(-1).float().cpu().numpy()
            logits = logits.float().cpu().numpy()
            latent = latent[:, :width].float().cpu().numpy().astype(np.float16)
        z = np.where(masks[:k], logits, -np.inf)
        nxt = []
        for i, (n, g, temps) in enumerate(live):
            p = g.current_player
            if len(legals[i]) > 1:
                feats.append(latent[i])
                who.append(p)
                gid.append(n)
                turns.append(g.turn)
                old.append(v[i])
            t = temps[p]
            a = int(np.argmax(z[i] / t - np.log(-np.log(rng.random(N_ACTIONS)))) if t > 0
                    else np.argmax(z[i]))
            g.apply_action(a)
            if g.result is None:
                nxt.append((n, g, temps))
            else:
                results[n] = g.result
                bar.update()
        live[:] = nxt
        while len(live) < batch and started < games:
            start()
    bar.close()
    outcome = np.array([results[n][p] for n, p in zip(gid, who)], dtype=np.float32)
    return (np.array(feats, dtype=np.float16), outcome, np.array(gid), np.array(turns),
            np.array(old, dtype=np.float32))


def scores(v: np.ndarray, z: np.ndarray) -> dict:
    """Correlation and mean squared error of values (clipped to [-1, 1]) with outcomes."""
    v = np.clip(v, -1.0, 1.0)
    return {"corr": round(float(np.corrcoef(v, z)[0, 1]), 4),
            "mse": round(float(np.mean((v - z) ** 2)), 4), "positions": int(len(z))}


def fit(features, outcome, games, init: nn.Module | None = None, epochs: int = 20,
        seed: int = 0, log=print) -> tuple[ValueHead, np.ndarray]:
    """Fit a ValueHead by mean squared error; a tenth of the games held out, the best
    held-out epoch kept.  Returns the head and the held-out mask."""
    th.manual_seed(seed)
    held = (games % 10) == 0
    width = features.shape[1]
    head = ValueHead(width)
    if init is not None:                              # start from the policy's critic
        try:
            head.net.load_state_dict(copy.deepcopy(init.net).float().state_dict())
        except (AttributeError, RuntimeError):
            pass
    x = th.as_tensor(features[~held].astype(np.float32))
    y = th.as_tensor(outcome[~held])
    xv = th.as_tensor(features[held].astype(np.float32))
    opt = th.optim.Adam(head.parameters(), lr=1e-3)
    best, best_state, worse = np.inf, copy.deepcopy(head.state_dict()), 0
    for epoch in range(epochs):
        perm = th.randperm(len(y))
        for i in range(0, len(perm), 512):
            j = perm[i:i + 512]
            loss = ((head(x[j]) - y[j]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        with th.no_grad():
            s = scores(head(xv).numpy(), outcome[held])
        log(f"epoch {epoch + 1}: held-out corr {s['corr']:.3f}, mse {s['mse']:.3f}")
        if s["mse"] < best - 1e-4:
            best, best_state, worse = s["mse"], copy.deepcopy(head.state_dict()), 0
        else:
            worse += 1
            if worse >= 3:
                break
    head.load_state_dict(best_state)
    return head.eval(), held


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m agents.value_fit",
                                 description=__doc__.splitlines()[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.splitlines()[2:]))
    ap.add_argument("--policy", default="nv2-ppo", help="bundled policy name or policy file")
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--epochs", type=int, default=20)
    ap.add_argument("--threads", type=int, default=None, help="torch threads")
    ap.add_argument("--out", required=True, help="where to write the value head")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    if args.games < 20:
        ap.error("--games must be at least 20 (a tenth is held out)")
    if args.threads:
        th.set_num_threads(args.threads)
    from .opponents import policy_file
    try:
        path = policy_file(args.policy)
    except ValueError as e:
        ap.error(str(e))
    from .policy import PolicyAgent
    agent = PolicyAgent(path)
    t0 = time.time()
    feats, z, gid, turns, old = self_play(agent, args.games, args.seed,
                                          progress=not args.no_progress)
    print(f"{args.games} self-play games, {len(z)} positions in {time.time() - t0:.0f} s")
    head, held = fit(feats, z, gid, init=agent.policy.value_net, epochs=args.epochs,
                     seed=args.seed)
    with th.no_grad():
        new = head(th.as_tensor(feats[held].astype(np.float32))).numpy()
    before, after = scores(old[held], z[held]), scores(new, z[held])
    late = turns[held] >= 10
    after_late = scores(new[late], z[held][late])
    print(f"held out: the policy's critic corr {before['corr']:.3f} mse {before['mse']:.3f}; "
          f"this head corr {after['corr']:.3f} mse {after['mse']:.3f} "
          f"(turn 10 on: corr {after_late['corr']:.3f})")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    th.save({"format": VALUE_FORMAT, "version": VALUE_VERSION, "width": head.width,
             "hidden": head.hidden, "policy_sha256": sha256(path),
             "state_dict": {k: v.half() for k, v in head.state_dict().items()},
             "meta": {"policy": str(args.policy), "games": args.games, "seed": args.seed,
                      "positions": int(len(z)), "held_out_critic": before,
                      "held_out_head": after, "held_out_head_turn10": after_late,
                      "command": "python -m agents.value_fit " + " ".join(
                          sys.argv[1:] if argv is None else argv)}}, out)
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
