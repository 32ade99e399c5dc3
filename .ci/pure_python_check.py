"""CI's check of an install made without a C++ compiler: the native core is absent and says
why, "auto" falls back to the Python engine with one warning, "native" is refused with the
reason, and a whole game plays in pure Python."""
from __future__ import annotations

import warnings

from nivel_env import native
from nivel_env.cards import load_deck
from nivel_env.engine import new_game
from nivel_env.engine.backend import resolve_backend

assert not native.available(), "the native core loads, but the install had no compiler"
why = native.why_unavailable()
assert "not built" in why, why
print("native core:", why)

with warnings.catch_warnings(record=True) as said:
    warnings.simplefilter("always")
    assert resolve_backend("auto") == "python" and resolve_backend("auto") == "python"
assert len(said) == 1 and why in str(said[0].message), [str(w.message) for w in said]

try:
    resolve_backend("native")
except native.NativeCoreUnavailable as err:
    assert why in str(err), err
else:
    raise AssertionError("backend='native' was accepted without the native core")

# no backend named: the default ("auto") plays in Python here
g = new_game(load_deck("ember-rush"), load_deck("stone-bastion"), seed=1)
moves = 0
while not g.is_terminal():
    g.apply_action(g.legal_actions()[0])
    moves += 1
assert g.backend == "python"
print(f"pure Python: a whole game in {moves} moves, returns {g.returns()}")
