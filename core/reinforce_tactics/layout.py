"""Named layout of a Reinforce Tactics state, of the game's constants ``g`` and of its actions.

A state is one flat int64 array (a list or tuple of ints on the plain path works too for
reading) of :data:`STATE_LEN` words, in three blocks:

- **header** (``H_*``, :data:`HEADER` words): the player to move (0 or 1, Kaggle's player 1
  is our 0), the turn number (Kaggle's ``turnNumber``: both players moved), the number of
  single turns played (Kaggle's step), both players' gold, game over, the winner (0, 1 or -1
  for none or a draw), the Rogue attack waiting for its chance outcome (the attacker's and the
  target's global unit slots, -1 when none), and each player's unit count;
- **structures** (``S_*``, :data:`NSMAX` records of :data:`SF` words, in row-major order of
  their cells as listed in ``g``): owner (-1 neutral), hit points, regenerating (0/1);
- **units** (``U_*``, :data:`UMAX` records of :data:`UF` words per player, player 0 first):
  a player's units fill slots ``0 .. count - 1`` in the order they were recruited (the order
  of Kaggle's observation list), so that equal positions are equal arrays. Fields: type
  (``T_*``, 0 for an empty slot), cell (``y * W + x``), hit points, can move, can act
  (Kaggle's ``canAttack``: attack, seize or an ability), paralysed turns, hasted, distance
  moved this turn (Manhattan, from the turn's start cell), defence and attack buff turns, the
  four ability cooldowns, the turn's start cell and whether the unit moved this turn.

The static map (terrain of every cell, where the structures are) is in ``g``
(``G_*``, built by :func:`core.reinforce_tactics.maps.constants`), not in the state.

Actions, ints in ``[0, NUM_ACTIONS)`` for the player to move:

- ``A_CREATE + 8 * structure + (type - 1)``: recruit a unit at an owned Building or HQ;
- ``A_UNIT + UNIT_STRIDE * slot + sub``: a sub-action of the mover's unit in ``slot``, where
  ``sub`` is a move (``SUB_MOVE + i``, the i-th cell offset of :data:`OFF_DX`/:data:`OFF_DY`:
  every offset of Manhattan length 1..5), a unit-targeted action (``SUB_TARGET + 50 * kind +
  target slot``; ``kind`` in ``K_*``: attack and paralyse target the opponent's slots, the
  others the mover's own) or a seizure (``SUB_SEIZE``);
- ``A_END``: end the turn.

At a chance node (a Rogue's attack whose counter-attack it may evade) the outcomes are
``OUT_COUNTER`` (0) and ``OUT_EVADE`` (1).
"""
from __future__ import annotations

W = 20  # every Kaggle board is padded to 20 x 20
H = 20
CELLS = W * H
NSMAX = 64  # structures on a board (tower_rush has 64)
UMAX = 50  # units a side (the engine's cap)

# --- terrain codes (g) ---------------------------------------------------------------------
TILE_CODES = "pwmfrbhto"  # grass, water, mountain, forest, road, building, HQ, tower, ocean
TR_GRASS, TR_WATER, TR_MOUNTAIN, TR_FOREST, TR_ROAD, TR_BUILDING, TR_HQ, TR_TOWER, TR_OCEAN = range(9)
STRUCT_MAX_HP_BY_CODE = (0, 0, 0, 0, 0, 40, 50, 30, 0)  # Building 40, HQ 50, Tower 30
INCOME = (0, 0, 0, 0, 0, 100, 150, 50, 0)  # by terrain code

# --- unit types: code 1..8 in Kaggle's order W, M, C, A, K, R, S, B --------------------------
UNIT_CODES = "WMCAKRSB"
T_WARRIOR, T_MAGE, T_CLERIC, T_ARCHER, T_KNIGHT, T_ROGUE, T_SORCERER, T_BARBARIAN = range(1, 9)
COST = (0, 300, 300, 200, 250, 350, 350, 350, 400)  # Warrior 300: Kaggle's ENGINE_OVERRIDES
MAX_HP = (0, 15, 10, 10, 15, 18, 12, 12, 20)
ATTACK = (0, 10, 8, 2, 5, 8, 9, 6, 10)  # at distance 1 (Archer: at its range)
ATTACK_FAR = (0, 0, 12, 0, 5, 0, 0, 8, 0)  # Mage and Sorcerer at distance 2
DEFENCE = (0, 6, 4, 4, 1, 5, 3, 3, 2)
MOVEMENT = (0, 3, 2, 3, 3, 4, 4, 2, 5)
# Gold a unit pays to heal 1 or 2 hit points on an owned structure at its turn's start:
# Python's round(cost / max_hp * hp), computed here once (round-half-even, as the engine).
HEAL_COST_1 = tuple(0 if t == 0 else round(COST[t] / MAX_HP[t] * 1) for t in range(9))
HEAL_COST_2 = tuple(0 if t == 0 else round(COST[t] / MAX_HP[t] * 2) for t in range(9))

HEAL_AMOUNT = 7
CLERIC_RANGE = 3
PARALYZE_TURNS = 3
COOLDOWN = 2  # paralyse, haste and both buffs
BUFF_TURNS = 3
CHARGE_DISTANCE = 3
EVADE = 0.15
EVADE_FOREST = 0.3  # the engine's 0.15 + 0.15
NO_HQ_DISTANCE = 1 << 30  # structure healing's order when the opponent has no HQ

# --- header --------------------------------------------------------------------------------
H_PLAYER = 0
H_TURN = 1
H_STEP = 2
H_GOLD = 3  # and 4
H_OVER = 5
H_WINNER = 6
H_PEND_ATT = 7  # global slot (player * UMAX + slot) of the Rogue awaiting its chance outcome
H_PEND_TGT = 8
H_COUNT = 9  # and 10
HEADER = 12

# --- structures ----------------------------------------------------------------------------
S_BASE = HEADER
S_OWNER = 0
S_HP = 1
S_REGEN = 2
SF = 3

# --- units ---------------------------------------------------------------------------------
U_BASE = S_BASE + NSMAX * SF
U_TYPE = 0
U_CELL = 1
U_HP = 2
U_CAN_MOVE = 3
U_CAN_ACT = 4
U_PARALYZED = 5
U_HASTED = 6
U_DIST = 7
U_DEF_TURNS = 8
U_ATK_TURNS = 9
U_PARA_CD = 10
U_HASTE_CD = 11
U_DEF_CD = 12
U_ATK_CD = 13
U_ORIG = 14
U_MOVED = 15
UF = 16
STATE_LEN = U_BASE + 2 * UMAX * UF

# --- g (the static map) --------------------------------------------------------------------
G_NS = 0  # number of structures
G_EPISODE = 1  # Kaggle's episodeSteps: the game is drawn after episodeSteps - 1 single turns
G_TERRAIN = 2  # CELLS terrain codes
G_CELL_STRUCT = G_TERRAIN + CELLS  # CELLS: structure index of a cell, -1 for none
G_STRUCT_CELL = G_CELL_STRUCT + CELLS  # NSMAX cells
G_LEN = G_STRUCT_CELL + NSMAX

# --- actions -------------------------------------------------------------------------------
MAX_MOVE = 5  # the Barbarian's movement, the longest
OFFSETS = tuple((dx, dy) for d in range(1, MAX_MOVE + 1) for dy in range(-d, d + 1)
                for dx in sorted({abs(d - abs(dy)), -abs(d - abs(dy))}))  # by length, then dy, then dx
N_OFFSETS = len(OFFSETS)
OFF_DX = tuple(o[0] for o in OFFSETS)
OFF_DY = tuple(o[1] for o in OFFSETS)
OFF_SIDE = 2 * MAX_MOVE + 1
OFF_INDEX = tuple(OFFSETS.index((dx, dy)) if (dx, dy) in OFFSETS else -1
                  for dy in range(-MAX_MOVE, MAX_MOVE + 1) for dx in range(-MAX_MOVE, MAX_MOVE + 1))

K_ATTACK, K_PARALYZE, K_HEAL, K_CURE, K_HASTE, K_DEF_BUFF, K_ATK_BUFF = range(7)
N_KINDS = 7
KIND_NAMES = ("attack", "paralyze", "heal", "cure", "haste", "defence_buff", "attack_buff")
SUB_MOVE = 0
SUB_TARGET = N_OFFSETS
SUB_SEIZE = SUB_TARGET + N_KINDS * UMAX
UNIT_STRIDE = SUB_SEIZE + 1
A_CREATE = 0
A_UNIT = A_CREATE + 8 * NSMAX
A_END = A_UNIT + UMAX * UNIT_STRIDE
NUM_ACTIONS = A_END + 1
OUT_COUNTER = 0
OUT_EVADE = 1

assert N_OFFSETS == 60
