"""Integer codes shared by the engine modules (state holds ints, not objects)."""
from ..cards.vocab import SUBKEYWORD_BY_KEY

# Card instances: player p owns ids p*PER .. p*PER+40; id p*PER is the leader.
PER = 41

# Zones (``Game.where[iid] = zone * 4 + lane``; lane 3 when the zone has none).
Z_DECK, Z_HAND, Z_UNIT, Z_ITEM, Z_SKILL, Z_TRASH, Z_DAMAGE, Z_LEVEL = range(8)
ZONE_NAMES = ("deck", "hand", "unit", "item", "skill", "trash", "damage", "level")

# Phases (6.1.2).
SETUP, LEVEL_UP, DRAW, MAIN, ATTACK, END, OVER = range(7)
PHASE_NAMES = ("setup", "level_up", "draw", "main", "attack", "end", "over")

# Tasks on the work stack (first element of each tuple).
T_TURN, T_MAIN_START, T_MAIN, T_ATTACK, T_END, T_BATTLE, T_FRAME, T_BATCH, T_DAMAGE, \
    T_DAMAGE_CHECK, T_DISCARD, T_GUARD, T_MULLIGAN, T_LOSS_CHECK, T_ORDER = range(15)
# Tasks at which waiting automatic effects may resolve (8.4.1.1, 8.4.3): game
# procedures, not an effect or damage processing in progress.
CHECKPOINT_TASKS = frozenset((T_TURN, T_MAIN_START, T_MAIN, T_ATTACK, T_END, T_BATTLE))

# Decisions (first element of ``Game.dec``).
D_MULLIGAN, D_MAIN, D_ATTACK, D_GUARDIAN, D_DEFENSE, D_YESNO, D_PICK = range(7)
DECISION_NAMES = ("mulligan", "main", "attack", "guardian", "defense", "may", "pick")

# What a PICK decision is for (element 2 of a D_PICK tuple).  P_ORDER orders waiting
# effects (its candidates index them); P_CARD_ORDER orders cards put into a deck at once
# (3.1.6; its candidates are those cards).  The observation one-hots these eight, so a new
# purpose reuses a slot: "card order" took slot 7, "which effect", which no decision had
# ever used.
P_TARGET, P_ORDER, P_HAND_LIMIT, P_CREDIT, P_BARRIER, P_SACRIFICE, P_OFFSET, \
    P_CARD_ORDER = range(8)
PICK_PURPOSES = ("effect target", "effect order", "hand limit discard", "credit discard",
                 "barrier discard", "sacrifice", "offset item", "card order")

# Pending automatic / continuous effects: (cls, player, kind, self_iid, stamp, arg, arg2).
CONT, AUTO = 0, 1
K_ABILITY, K_PIERCE, K_PLUNDER, K_INFILTRATE, K_FINALE, K_MUTUAL, K_RETURN, K_CREDIT_DRAW, \
    K_CREDIT_DISCARD, K_RETURN_HAND = range(10)
#: Each kind's sub-keyword (its vocabulary key, ``cards/vocab.py``; None: a card's own
#: ability) and which of its effects it is, when the keyword has more than one.
PENDING_TERMS = ((None, "ability"), ("pierce", ""), ("plunder", ""), ("infiltrate", ""),
                 ("finale", ""), ("mutual_destruction", ""), ("return", ""),
                 ("credit", " draw"), ("credit", " discard"), ("return", " to hand"))
#: The kinds by name ("Pierce", "Credit draw", ...): the keyword's name as the vocabulary
#: prints it; the observation's "effect_*" columns are named from these.
KIND_NAMES = tuple(part if term is None else SUBKEYWORD_BY_KEY[term].en + part
                   for term, part in PENDING_TERMS)

# Modifiers: (kind, target, amount, until, applied_by).  Target is a card id, or
# the player for M_SIZE.  Amount is a keyword key for M_GRANT, a PROHIBIT_* bit
# for M_PROHIBIT, the factor in percent for M_SCALE_* (1.3.7.2); M_COST changes a unit's
# cost while it is on the field.
M_POWER, M_HIT, M_ATTACKS, M_SIZE, M_GRANT, M_PROHIBIT, M_SCALE_POWER, M_SCALE_HIT, \
    M_COST = range(9)
U_TURN, U_BATTLE, U_LEAVES = range(3)
UNTIL_CODES = {"turn": U_TURN, "battle": U_BATTLE, "leaves": U_LEAVES}
PROHIBIT_ATTACK, PROHIBIT_DEFEND = 1, 2

# Battle record (``Game.battle`` list indices).
B_ATK, B_LANE, B_DEF, B_STEP, B_BREAK, B_DUEL, B_ATK_STAMP, B_DEF_STAMP = range(8)
BS_GUARD, BS_DEFENSE, BS_BATTLE, BS_RESOLVE, BS_END = range(5)
