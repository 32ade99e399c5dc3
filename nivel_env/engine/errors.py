class IllegalActionError(ValueError):
    """An action id that is not legal now; the game state is left unchanged."""


class ScenarioError(ValueError):
    """A scenario (position description) is malformed; says which field."""
