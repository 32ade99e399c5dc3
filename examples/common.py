"""What the examples share: the learner's score against the random agent."""
from __future__ import annotations


def win_rate_vs_random(act, games: int, seed: int) -> dict:
    """``games`` games against the random agent, seats alternating; wins, draws, and the
    score's 95% Wilson interval (draws count half)."""
    from scipy.stats import binomtest

    from nivel_env.env.aec import raw_env
    from nivel_env.players import RandomAgent
    env = raw_env()
    points = 0.0
    wins = draws = 0
    for g in range(games):
        env.reset(seed=seed + g)
        rand = RandomAgent(seed + g)
        me = f"player_{g % 2}"
        r = 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, _i = env.last()
            if term or trunc:
                if agent == me:
                    r = reward
                env.step(None)
                continue
            if agent == me:
                env.step(act(obs["observation"], obs["action_mask"]))
            else:
                env.step(rand.act(obs["observation"], obs["action_mask"]))
        wins += r > 0
        draws += r == 0
        points += (r + 1) / 2
    ci = binomtest(int(round(points)), games).proportion_ci(0.95, "wilson")
    return {"games": games, "wins": int(wins), "draws": int(draws), "score": points / games,
            "ci95": [round(ci.low, 3), round(ci.high, 3)]}
