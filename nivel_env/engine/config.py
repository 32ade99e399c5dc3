"""Rule options: the judgement calls of docs/rulings.md made switchable.

Defaults are the readings in docs/rulings.md; change them only to study a variant.
"""
from __future__ import annotations

import numbers
from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class RuleConfig:
    #: docs/rulings.md B4 / 4.6.2.1: leader level at setup (the first level-up phase raises it).
    starting_level: int = 1
    #: docs/rulings.md C5: the first player may attack on the first turn.
    first_turn_attack: bool = True
    #: docs/rulings.md G: a game reaching this many turns ends as a draw (truncation).
    max_turns: int = 200
    #: 6.6.1.4: hand size kept at the end phase (discard down to it at hand_limit+1 or more).
    hand_limit: int = 7
    #: 5.1.6: each player may redraw the opening hand once.
    mulligan: bool = True
    #: 1.3.5: a player orders their own simultaneous automatic effects. When False the
    #: engine resolves them in the order they triggered (fewer decisions, same rules
    #: otherwise) -- useful for training.
    choose_effect_order: bool = True
    #: 1.2.4: surrender as an action id in every decision (off: use Game.surrender()).
    surrender_action: bool = False
    #: docs/rulings.md R2 / 7.4.2: a defender that left the field before the battle
    #: step means there is no defending unit, so the attack deals its hit as damage.
    damage_if_defender_gone: bool = True
    #: docs/rulings.md R16, R25 / 8.4.4, 1.2.3: an action an effect does to each player
    #: ("each player takes 3 damage", "each player draws 2", "each player discards a card")
    #: is one simultaneous action: both parts are done (the turn player's first, 1.3.5.1)
    #: before either loses or a unit at 0 power is trashed, so both reaching a loss
    #: condition in it is a draw.  False: the turn player's part is settled first, and a
    #: loss there ends the game before the other's part.
    simultaneous_each_player: bool = True
    #: docs/rulings.md R12 / 11.2.1, 8.3.3, 8.3.4: an effect that chooses cards in the
    #: opponent's hand ("trash one of your opponent's skill cards in hand") is chosen by
    #: the player whose effect it is, who looks at that hand while choosing (11.2.1).
    #: True: the hand's owner chooses instead (the project's earlier reading of 3.8.3).
    hand_owner_chooses: bool = False

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "RuleConfig":
        if not isinstance(d, dict):
            raise TypeError(f"RuleConfig: expected a mapping of options, got {type(d).__name__}")
        known = {f.name for f in fields(cls)}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"RuleConfig: unknown option(s) "
                             f"{', '.join(sorted(map(str, unknown)))}; known: "
                             f"{', '.join(sorted(known))}")
        return cls(**d)

    def __post_init__(self):
        # 'no' for a bool or 2.5 for a turn count would silently mean something else
        for f in fields(self):
            v = getattr(self, f.name)
            want = bool if f.type in (bool, "bool") else int
            if want is int and isinstance(v, numbers.Integral) and not isinstance(v, bool):
                object.__setattr__(self, f.name, int(v))           # numpy ints are fine
                continue
            if not isinstance(v, want) or (want is int and isinstance(v, bool)):
                raise TypeError(f"RuleConfig.{f.name} must be {want.__name__} "
                                f"({'true or false' if want is bool else 'a whole number'}), "
                                f"got {type(v).__name__} {v!r}"[:200])
        if not 1 <= self.starting_level <= 10:
            raise ValueError(f"RuleConfig.starting_level must be 1..10, got {self.starting_level}")
        if self.max_turns < 1:
            raise ValueError(f"RuleConfig.max_turns must be at least 1, got {self.max_turns}")
        if self.hand_limit < 0:
            raise ValueError(f"RuleConfig.hand_limit must be >= 0, got {self.hand_limit}")
