"""The observation encoders of the native core, fed from the Python encoders' own tables.

``native_spec(encoder)`` turns a Python ``Encoder`` / ``CompactEncoder``
(nivel_env/env/encoder.py) into the dict the core's ``_core.Encoder`` is built from: the
layout's offsets and the pool's tables (card rows, ability verbs, keyword columns), each
computed once in Python, so card features and offsets have one home
(env/card_features.py, env/layout.py) and the core only gathers and counts.
``NativeEncoder`` writes a ``NativeGame``'s observation in C++, bit for bit the Python
encoder's vector; ``Encoder.encode`` uses it for native games (the env's code is the same
for both backends).
"""
from __future__ import annotations

import numpy as np

from ..engine import const as K
from ..env import encoder as E


def _core():
    from . import core
    return core()                     # the module, or an error saying why it is missing


def native_spec(enc: E.Encoder) -> dict:
    """The ``_core.Encoder`` spec of Python encoder ``enc`` (its layout and pool)."""
    lay, O, tb, db = enc.layout, enc._off, enc.table, enc.db
    compact = isinstance(enc, E.CompactEncoder)
    cleared = []
    for blk in lay.blocks:
        if blk.cached:
            continue
        if cleared and cleared[-1][1] == blk.offset:
            cleared[-1][1] = blk.stop
        else:
            cleared.append([blk.offset, blk.stop])
    names = ("seat", "first_player", "my_turn", "phase", "decision", "acting", "pick_purpose",
             "can_pass", "count", "guardian_lanes", "defender_lane", "must_defend",
             "effect_mine", "in_battle", "attacker_mine", "attack_lane", "battle_step",
             "breakthrough", "duelist", "has_defender", "me_flags", "opponent_flags",
             "field_flags", "hand_slots", "candidate_slots")
    cf = E._CF
    spec = {n: O[n] for n in names}
    nkw = len(db.keywords)
    kwinfo = np.array([[info[:4] for info in lane] for lane in enc._kwinfo],
                      dtype=np.int64).reshape(6 * nkw * 4)
    spec.update(
        compact=compact, size=lay.size, nvalues=enc._nvalues, nfv=enc._nfv, nff=enc._nff,
        nkv=enc._nkv, cleared=[tuple(r) for r in cleared],
        ncf=E._NCF, cf_is_card=cf["is_card"], cf_is_lane=cf["is_lane"],
        cf_is_effect=cf["is_effect"], cf_mine=cf["mine"], cf_in_deck=cf["in_deck"],
        cf_lane_0=cf["lane_0"], cf_power=cf["power"],
        cf_effect_0=cf["effect_" + K.KIND_NAMES[0].lower().replace(" ", "_")],
        ab_verbs=[list(v) for v in enc._ab_verbs], ab_steps=[list(v) for v in enc._ab_steps],
        nkw=nkw, kwinfo=kwinfo.tolist(),
        kw_n5=[lane[4] for lane in enc._kwinfo[0]] if nkw else [],
        cost=[c.cost for c in db.cards], power=[c.power for c in db.cards],
        hit=[c.hit for c in db.cards], back_row=list(tb.back_row),
        full=tb.full, tenth=tb.tenth, zone_safe=getattr(enc, "_zone_safe", 0),
        cards_parts=[], zones_parts=[], known_parts=[],
        card_index=0, known_index=0, zone_index=[0] * 6, zone_rows=[0] * 6)
    # the effect kinds' candidate columns follow one another in KIND_NAMES order
    for i, n in enumerate(K.KIND_NAMES):
        if cf["effect_" + n.lower().replace(" ", "_")] != spec["cf_effect_0"] + i:
            raise ValueError("native encoder: the candidate effect-kind columns are not "
                             "consecutive in KIND_NAMES order")
    if compact:
        spec["card_index"] = lay.offset("card_index")
        spec["known_index"] = lay.offset("known_index")
        zi, zr = [], []
        for n in ("trash_index", "damage_index", "skill_index"):
            b = lay.block(n)
            for side in (0, 1):
                zi.append(b.offset + side * b.shape[1])
                zr.append(b.shape[1])
        spec["zone_index"], spec["zone_rows"] = zi, zr
    else:
        bounds, o = [], 0                     # each matrix's columns in the full row
        for m in (tb.matrix, tb.added) + tuple(tb.term_groups):
            bounds.append((o, o + m.shape[1]))
            o += m.shape[1]
        for x, key in (("cards", "cards_parts"), ("zones", "zones_parts"),
                       ("known", "known_parts")):
            spec[key] = [(lay.offset(n), lo, hi)
                         for n, (lo, hi) in zip(lay.card_row_blocks(x), bounds)]
    return spec


class NativeEncoder:
    """The native core's encoder of ``enc``'s layout and pool: ``encode(g, p, out, legal)``
    writes native game ``g``'s observation for seat ``p`` into ``out`` (float32, the
    layout's size); ``mask(g, out)`` its legal actions into a bool / int8 / uint8 vector."""

    def __init__(self, enc: E.Encoder):
        self.size = enc.layout.size
        self._enc = _core().Encoder(native_spec(enc))

    def encode(self, g, p: int, out: np.ndarray, legal=None) -> np.ndarray:
        self._enc.encode(g._core, p, out, legal)
        return out

    @staticmethod
    def mask(g, out: np.ndarray) -> np.ndarray:
        _core().Encoder.mask(g._core, out)
        return out
