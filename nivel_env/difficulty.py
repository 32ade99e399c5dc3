"""How greedily a trained policy opponent picks its moves: the difficulty names.

One home for the plain data, so that the policy loader (``agents/policy.py``), the web
server's setup form (``web/app.py``, which the page's select is filled from) and the
terminal game's ``--difficulty`` list the same names without importing the agents
package (a core install has none).  The ladder of opponents (novice ... expert) is a
different list: ``agents/opponents.py`` LEVELS.
"""
from __future__ import annotations

#: difficulty name -> (sampling temperature, share of uniformly random moves); the first
#: is the default
DIFFICULTIES = {"hard": (0.0, 0.0), "normal": (1.0, 0.0), "easy": (1.0, 0.3)}
DEFAULT_DIFFICULTY = next(iter(DIFFICULTIES))

__all__ = ["DEFAULT_DIFFICULTY", "DIFFICULTIES"]
