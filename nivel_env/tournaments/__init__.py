"""Tournaments, ratings, statistics and reports: evaluate.py's commands and train.py's
evaluations, beside the players (``agents``), never inside them.

Players come in as spec strings (``"heuristic"``, ``"nv2-search:simulations=64"``, a
policy file) that ``nivel_env.players.load`` turns into agents, so a worker process or a
Ray node builds its own; nothing here imports a particular agent
(tests/tournaments_tests/test_tournaments_layer.py checks it).  Where the games run is a
``runner.Runner`` passed down to each command (local worker processes, or a Ray cluster
through ``ray_backend``).

* ``games``: one seed of a pairing played twice (duplicate play, duplicate deals), in
  lockstep blocks under a policy; ``runner``: tasks over worker processes or Ray;
  ``specs``: which file a spec names, for shipping it to Ray workers.
* ``agent_commands`` and ``deck_commands`` (``decks``, ``gauntlet``, ``compare``),
  ``deck_tune`` (``tune``), with ``deck_results`` (the raw results file), ``tables``,
  ``deck_report`` and ``card_stats`` (CSV, JSON, PNG and HTML reports).
* ``ratings`` (Wilson and paired intervals, Bradley-Terry), ``sprt`` (sequential tests),
  ``metagame`` (the Nash mix of decks), ``policy_eval`` (a policy against fixed opponents,
  train.py's evaluations).

The modules are imported by name (``from nivel_env.tournaments.sprt import SPRT``): this
package itself loads nothing, so ``import nivel_env`` stays light."""
