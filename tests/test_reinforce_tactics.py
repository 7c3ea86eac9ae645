"""Reinforce Tactics rules, one area at a time: a small constructed position each, played on our
kernels and on kaggle-environments' engine side by side (``tests/test_reinforce_tactics_oracle.py`` compares the
whole state after every action), with the figures the rule gives written out."""
from __future__ import annotations

import random

import numpy as np
import pytest

pytest.importorskip("pandas")
pytest.importorskip("kaggle_environments.envs.reinforce_tactics.reinforce_tactics")

from core.reinforce_tactics import ReinforceTactics, maps  # noqa: E402
from core.reinforce_tactics import kaggle as KG
from core.reinforce_tactics import kernels as K
from core.reinforce_tactics.layout import (  # noqa: E402
    A_END,
    H_GOLD,
    H_OVER,
    H_WINNER,
    OUT_COUNTER,
    OUT_EVADE,
    S_BASE,
    S_HP,
    S_OWNER,
    S_REGEN,
    SF,
    U_BASE,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_HASTED,
    U_HP,
    U_PARALYZED,
    UF,
    UMAX,
    W,
)
from tests.test_reinforce_tactics_oracle import Oracle  # noqa: E402


def board(**cells: str) -> list[list[str]]:
    """A 20 x 20 grass board with ``cells`` given as ``x_y="code"`` (``x3_4="h_1"``)."""
    rows = [["p"] * 20 for _ in range(20)]
    for key, code in cells.items():
        x, y = (int(v) for v in key[1:].split("_"))
        rows[y][x] = code
    return rows


def unit(o: Oracle, x: int, y: int) -> dict:
    gu = K.unit_at(o.s, y * W + x)
    assert gu >= 0, f"no unit at {x},{y}"
    b = U_BASE + gu * UF
    return {"player": gu // UMAX, "hp": int(o.s[b + U_HP]), "can_move": int(o.s[b + U_CAN_MOVE]),
            "can_act": int(o.s[b + U_CAN_ACT]), "paralyzed": int(o.s[b + U_PARALYZED]),
            "hasted": int(o.s[b + U_HASTED])}


def structure(o: Oracle, x: int, y: int) -> tuple[int, int, int]:
    b = S_BASE + o.g[maps.G_CELL_STRUCT + y * W + x] * SF
    return int(o.s[b + S_OWNER]), int(o.s[b + S_HP]), int(o.s[b + S_REGEN])


def act(o: Oracle, kind: str, *xy: int, legal: bool = True, **extra) -> None:
    """Play one Kaggle action on both sides (``legal``: also offered by get_legal_actions)."""
    if kind in ("seize", "create_unit"):
        d = {"type": kind, "x": xy[0], "y": xy[1], **extra}
    else:
        d = {"type": kind, "from_x": xy[0], "from_y": xy[1], "to_x": xy[2], "to_y": xy[3]}
    a = KG.dict_to_action(o.g, o.s, d)
    assert a is not None, f"{d} not accepted"
    assert (a in o.check_legal()) == legal
    assert o.apply(a)


def rejected(o: Oracle, kind: str, *xy: int, **extra) -> bool:
    if kind in ("seize", "create_unit"):
        d = {"type": kind, "x": xy[0], "y": xy[1], **extra}
    else:
        d = {"type": kind, "from_x": xy[0], "from_y": xy[1], "to_x": xy[2], "to_y": xy[3]}
    o.check_legal()
    return KG.dict_to_action(o.g, o.s, d) is None


def end(o: Oracle) -> None:
    o.check_legal()
    o.apply(A_END)


class Fixed:
    """An rng whose draws say which chance outcome the oracle picks."""

    def __init__(self, value: float) -> None:
        self.value = value

    def random(self) -> float:
        return self.value


# --- economy and recruitment ---------------------------------------------------------------
def test_kaggle_start_income_and_first_turn():
    o = Oracle.kaggle("beginner", 7, 200, random.Random(0))
    assert list(o.s[H_GOLD:H_GOLD + 2]) == [250, 250]  # player 1's first turn: no income
    end(o)
    assert list(o.s[H_GOLD:H_GOLD + 2]) == [250, 250 + 150 + 2 * 100]  # HQ 150, Building 100 each
    end(o)
    assert list(o.s[H_GOLD:H_GOLD + 2]) == [600, 600]


def test_recruitment_rules():
    o = Oracle.position(board(x3_3="h_1", x4_3="b_1", x5_3="b_2", x6_3="t_1", x9_9="h_2"),
                        units=[(1, "W", 9, 9, {})], gold=(650, 0))
    assert rejected(o, "create_unit", 5, 3, unit_type="W")  # the opponent's building
    assert rejected(o, "create_unit", 6, 3, unit_type="W")  # a tower recruits nothing
    act(o, "create_unit", 3, 3, unit_type="W")  # Warrior 300 (Kaggle's override)
    assert o.s[H_GOLD] == 350 and unit(o, 3, 3)["can_move"] == 0 and unit(o, 3, 3)["can_act"] == 0
    assert rejected(o, "create_unit", 3, 3, unit_type="C")  # occupied
    assert rejected(o, "create_unit", 4, 3, unit_type="B")  # 400 > 350
    act(o, "create_unit", 4, 3, unit_type="A")
    assert o.s[H_GOLD] == 100


def test_unit_cap_of_fifty():
    units = [(0, "C", x, y, {}) for y in range(10, 15) for x in range(10)]
    o = Oracle.position(board(x3_3="h_1"), units=units + [(1, "W", 19, 19, {})], gold=(5000, 0))
    assert len(units) == 50 and rejected(o, "create_unit", 3, 3, unit_type="C")


# --- movement ------------------------------------------------------------------------------
def test_movement_over_terrain_and_units():
    o = Oracle.position(board(x5_4="w", x6_6="o", x4_5="m", x6_5="f"),
                        units=[(0, "W", 5, 5, {}), (0, "C", 5, 7, {}), (1, "W", 7, 5, {})])
    assert rejected(o, "move", 5, 5, 5, 4)  # water
    assert rejected(o, "move", 5, 5, 5, 7)  # own unit: passed through, not a destination
    act(o, "move", 5, 5, 5, 8)  # through the Cleric
    assert rejected(o, "move", 5, 8, 5, 9)  # one move a turn
    act(o, "move", 5, 7, 7, 6)
    end(o)


def test_enemy_units_block_paths():
    o = Oracle.position(board(x4_4="w", x4_6="w"), units=[(0, "W", 3, 5, {}), (1, "C", 4, 5, {})])
    assert rejected(o, "move", 3, 5, 5, 5)  # the only short way is through the enemy
    act(o, "move", 3, 5, 2, 5)


# --- combat --------------------------------------------------------------------------------
def test_attack_and_counter_attack_scaled_by_hit_points():
    o = Oracle.position(board(), units=[(0, "W", 5, 5, {}), (1, "W", 6, 5, {})])
    act(o, "attack", 5, 5, 6, 5)
    # 10 x 15/15 less 30% (defence 6): 7; counter 10 x 0.8 x 8/15 = 4.27 -> 4, less 30%: 2.8 -> 2
    assert unit(o, 6, 5)["hp"] == 8 and unit(o, 5, 5)["hp"] == 13
    assert unit(o, 5, 5)["can_move"] == 0 and unit(o, 5, 5)["can_act"] == 0


def test_archer_range_restrictions_and_mountain():
    o = Oracle.position(board(x5_5="m"), units=[(0, "A", 5, 5, {}), (0, "A", 9, 9, {}), (1, "W", 5, 9, {}),
                                                (1, "W", 5, 6, {}), (1, "A", 9, 12, {})])
    assert not rejected(o, "attack", 5, 5, 5, 6)  # accepted by the interpreter (minimum 1 damage) ...
    a = KG.dict_to_action(o.g, o.s, {"type": "attack", "from_x": 5, "from_y": 5, "to_x": 5, "to_y": 6})
    assert a not in o.check_legal()  # ... but not offered: an Archer cannot shoot at distance 1
    act(o, "attack", 5, 5, 5, 9)  # distance 4: from a mountain only
    assert unit(o, 5, 9)["hp"] == 15 - 3 and unit(o, 5, 5)["hp"] == 15  # a Warrior cannot answer an Archer
    act(o, "attack", 9, 9, 9, 12)  # an Archer answers an Archer
    assert unit(o, 9, 9)["hp"] < 15


def test_out_of_range_attack_deals_one():
    o = Oracle.position(board(), units=[(0, "W", 2, 2, {}), (1, "B", 15, 15, {})])
    act(o, "attack", 2, 2, 15, 15, legal=False)
    assert unit(o, 15, 15)["hp"] == 19 and unit(o, 2, 2)["hp"] == 14  # both hit for the minimum 1


def test_knight_charge():
    plain = Oracle.position(board(), units=[(0, "K", 5, 5, {}), (1, "W", 6, 5, {})])
    act(plain, "attack", 5, 5, 6, 5)
    charged = Oracle.position(board(), units=[(0, "K", 2, 5, {}), (1, "W", 6, 5, {})])
    act(charged, "move", 2, 5, 5, 5)
    act(charged, "attack", 5, 5, 6, 5)
    assert unit(plain, 6, 5)["hp"] == 15 - 5 and unit(charged, 6, 5)["hp"] == 15 - 8  # 8 -> 12, less 30%


@pytest.mark.parametrize("terrain,chance", [("p", 0.15), ("f", 0.3)])
@pytest.mark.parametrize("draw,outcome", [(0.0, OUT_EVADE), (0.99, OUT_COUNTER)])
def test_rogue_flank_and_evasion(terrain, chance, draw, outcome):
    o = Oracle.position(board(x5_5=terrain), units=[(0, "R", 5, 5, {}), (0, "C", 6, 4, {}), (1, "B", 6, 5, {})])
    a = KG.dict_to_action(o.g, o.s, {"type": "attack", "from_x": 5, "from_y": 5, "to_x": 6, "to_y": 5})
    nxt = K.play(o.g, o.s, a)
    assert K.to_move(o.g, nxt) == K.CHANCE and K.legal(o.g, nxt, np.zeros(4, np.int64), 0) == 2
    assert K.chance_prob(o.g, nxt, OUT_EVADE) == pytest.approx(chance)
    assert K.chance_prob(o.g, nxt, OUT_COUNTER) == pytest.approx(1 - chance)
    o.rng = Fixed(draw)
    act(o, "attack", 5, 5, 6, 5)
    assert o.chances == 1
    assert unit(o, 6, 5)["hp"] == 20 - 11  # 9 flanked -> 13, less 10%
    assert (unit(o, 5, 5)["hp"] == 12) == (outcome == OUT_EVADE)


def test_rogue_without_counter_has_no_chance_node():
    o = Oracle.position(board(), units=[(0, "R", 5, 5, {}), (1, "C", 6, 5, {"health": 2})])
    act(o, "attack", 5, 5, 6, 5)  # the target dies: nothing to evade
    assert o.chances == 0 and o.s[H_OVER] == 1 and o.s[H_WINNER] == 0


# --- abilities -----------------------------------------------------------------------------
def test_paralysis_blocks_counter_and_two_turns():
    o = Oracle.position(board(), units=[(0, "M", 5, 5, {}), (0, "W", 8, 6, {}), (1, "W", 7, 5, {})])
    act(o, "paralyze", 5, 5, 7, 5)
    act(o, "move", 8, 6, 8, 5)
    act(o, "attack", 8, 5, 7, 5)
    assert unit(o, 8, 5)["hp"] == 15  # no counter from a paralysed unit
    end(o)
    assert unit(o, 7, 5)["paralyzed"] == 2 and unit(o, 7, 5)["can_move"] == 0
    assert o.check_legal() == [A_END]
    end(o)
    assert rejected(o, "paralyze", 5, 5, 7, 5)  # cooldown 2 -> 1
    end(o)
    assert unit(o, 7, 5)["paralyzed"] == 1 and unit(o, 7, 5)["can_act"] == 0  # its second lost turn
    end(o)
    end(o)
    assert unit(o, 7, 5)["paralyzed"] == 0 and unit(o, 7, 5)["can_act"] == 1


def test_cure_frees_a_paralysed_ally():
    o = Oracle.position(board(), units=[(0, "C", 5, 5, {}), (0, "W", 7, 5, {"paralyzed_turns": 2, "can_move": False,
                                                                              "can_attack": False}),
                                        (1, "W", 15, 5, {})])
    act(o, "cure", 5, 5, 7, 5)
    assert unit(o, 7, 5)["paralyzed"] == 0 and unit(o, 7, 5)["can_move"] == 1
    act(o, "move", 7, 5, 8, 5)


def test_heal_range_and_cap():
    o = Oracle.position(board(), units=[(0, "C", 5, 5, {}), (0, "W", 8, 5, {"health": 10}),
                                        (0, "K", 5, 9, {"health": 3}), (1, "W", 15, 5, {})])
    assert rejected(o, "heal", 5, 5, 5, 9)  # distance 4
    act(o, "heal", 5, 5, 8, 5)
    assert unit(o, 8, 5)["hp"] == 15  # 10 + 7, capped at 15


def test_haste_refreshes_and_cooldown():
    o = Oracle.position(board(), units=[(0, "S", 5, 5, {}), (0, "W", 6, 5, {}), (1, "W", 15, 5, {})])
    act(o, "move", 6, 5, 7, 5)
    act(o, "haste", 5, 5, 7, 5)
    assert unit(o, 7, 5)["hasted"] == 1 and unit(o, 7, 5)["can_move"] == 1
    act(o, "move", 7, 5, 9, 5)
    end(o)
    end(o)
    assert rejected(o, "haste", 5, 5, 9, 5)  # out of range and cooling down


def test_hasted_paralysed_unit_may_move_though_not_offered():
    o = Oracle.position(board(), units=[(0, "S", 5, 5, {}), (0, "W", 6, 5, {"paralyzed_turns": 2, "can_move": False,
                                                                              "can_attack": False}),
                                        (1, "W", 15, 5, {})])
    act(o, "haste", 5, 5, 6, 5)
    act(o, "move", 6, 5, 6, 7, legal=False)


def test_buffs_durations_and_cooldowns():
    o = Oracle.position(board(), units=[(0, "S", 5, 5, {}), (0, "W", 6, 5, {}), (1, "W", 7, 5, {}),
                                        (1, "C", 15, 15, {})])
    act(o, "attack_buff", 5, 5, 6, 5)
    act(o, "attack", 6, 5, 7, 5)
    assert unit(o, 7, 5)["hp"] == 15 - 10  # 10 -> 15, less 30%: 10
    end(o)
    act(o, "attack", 7, 5, 6, 5)  # the buffed Warrior's counter (x1.5) kills the attacker
    assert K.unit_at(o.s, 7 + 5 * W) < 0
    end(o)
    assert rejected(o, "attack_buff", 5, 5, 5, 5)  # cooling down: 2 -> 1
    act(o, "defence_buff", 5, 5, 5, 5)  # on itself: its own cooldown
    end(o)
    hp = unit(o, 5, 5)["hp"]
    act(o, "attack", 15, 15, 5, 5, legal=False)  # out of range: 1, halved but at least 1
    assert unit(o, 5, 5)["hp"] == hp - 1


# --- structures ----------------------------------------------------------------------------
def test_seize_capture_and_hq_win():
    o = Oracle.position(board(x5_5="t", x9_9="h_2"), units=[(0, "B", 5, 5, {}), (0, "B", 9, 9, {}),
                                                            (1, "W", 15, 15, {})])
    act(o, "seize", 5, 5)
    assert structure(o, 5, 5) == (-1, 10, 0)  # 30 - 20
    act(o, "seize", 9, 9)
    assert structure(o, 9, 9) == (1, 30, 0) and not o.s[H_OVER]
    end(o)
    end(o)
    act(o, "seize", 5, 5)
    assert structure(o, 5, 5) == (0, 30, 0)  # captured: full hit points, ours
    act(o, "seize", 9, 9)
    assert structure(o, 9, 9) == (1, 10, 0)
    end(o)
    end(o)
    act(o, "seize", 9, 9)
    assert o.s[H_OVER] == 1 and o.s[H_WINNER] == 0


def test_vacated_structure_resets_and_death_regenerates():
    o = Oracle.position(board(x5_5="t_2", x8_5="b_2"), units=[(0, "W", 5, 5, {}), (0, "C", 8, 5, {"health": 1}),
                                                              (1, "B", 9, 5, {})])
    act(o, "seize", 5, 5)
    act(o, "seize", 8, 5)
    end(o)
    assert structure(o, 8, 5)[1] == 39
    act(o, "attack", 9, 5, 8, 5)  # the Cleric dies on the damaged building: it regenerates
    assert structure(o, 8, 5)[2] == 1
    end(o)
    assert structure(o, 8, 5) == (1, 40, 0)  # 39 + 20, capped
    act(o, "move", 5, 5, 5, 6)
    end(o)
    assert structure(o, 5, 5) == (1, 30, 0)  # left behind: back to full


def test_units_heal_on_own_structures_for_gold():
    o = Oracle.position(board(x5_5="t_2", x8_5="h_2", x10_10="h_1"),
                        units=[(1, "W", 5, 5, {"health": 5}), (1, "K", 8, 5, {"health": 5}), (0, "W", 0, 0, {})],
                        gold=(0, 50), player=0)
    end(o)  # player 2's turn: income 150 + 50, then healing nearest our HQ first
    assert unit(o, 8, 5)["hp"] == 7 and unit(o, 5, 5)["hp"] == 6
    assert o.s[H_GOLD + 1] == 50 + 200 - 39 - 20


# --- endings -------------------------------------------------------------------------------
def test_elimination_and_step_limit():
    o = Oracle.position(board(), units=[(0, "B", 5, 5, {}), (1, "C", 6, 5, {"health": 1})])
    act(o, "attack", 5, 5, 6, 5)
    assert o.s[H_OVER] == 1 and o.s[H_WINNER] == 0 and K.outcome(o.g, o.s) == 1.0
    short = Oracle.kaggle("starter", 1, 5, random.Random(0))
    for _ in range(4):
        assert not short.s[H_OVER]
        end(short)
    assert short.s[H_OVER] == 1 and short.s[H_WINNER] == -1 and K.outcome(short.g, short.s) == 0.0


# --- maps, glue, compiled path -------------------------------------------------------------
def test_every_map_and_seed_flips_match_kaggle():
    for i, name in enumerate(maps.map_names()):
        for seed in (i, 1000 + 7 * i):
            Oracle.kaggle(name, seed, 200, random.Random(0))  # compares board and first state
    assert maps.pick("", 3) == maps.map_names()[3]


def test_game_class_notation_and_params():
    game = ReinforceTactics(map="skirmish", seed=4)
    s = game.initial()
    for a in s.legal_actions():
        assert s.string_to_action(s.action_to_string(a)) == a
    with pytest.raises(ValueError, match="not built in"):
        ReinforceTactics(map="nowhere")
    with pytest.raises(ValueError, match="board must be"):
        ReinforceTactics(board="p" * 10)


def replay_kaggle_episode(map_name: str, seed: int, steps: int | None, agents: list[str]) -> np.ndarray:
    """Run a real Kaggle episode (``env.run``) and replay it from its action logs, checking our
    state against every observation; returns the final state."""
    from kaggle_environments import make

    config = {"mapName": map_name, "seed": seed, **({"episodeSteps": steps} if steps else {})}
    env = make("reinforce_tactics", configuration=config)
    frames = env.run(agents)
    game = ReinforceTactics(map=map_name, seed=seed, episode_steps=steps or 200)
    s = np.array(game.initial().words, np.int64)
    for before, after in zip(frames, frames[1:]):
        mover = 0 if before[0].status == "ACTIVE" else 1
        seen = KG.state_from_observation(game.g, {**before[0].observation, "player": mover})
        assert np.array_equal(seen, s)
        for a in KG.log_to_actions(game.g, s, after[0].observation.actionLog):
            s = K.play(game.g, s, a)
    assert s[H_OVER] == 1
    rewards = [frames[-1][i].reward for i in range(2)]
    assert rewards == ([0, 0] if s[H_WINNER] < 0 else [1, -1] if s[H_WINNER] == 0 else [-1, 1])
    return s


def test_replay_a_kaggle_episode_from_its_action_logs():
    replay_kaggle_episode("beginner", 11, 60, ["aggressive", "aggressive"])


@pytest.mark.slow
@pytest.mark.parametrize("map_name,seed", [("beginner", 1), ("starter", 2), ("skirmish", 3), ("tower_rush", 4),
                                           ("", 5), ("", 16)])
def test_replay_full_kaggle_episodes(map_name, seed):
    replay_kaggle_episode(map_name, seed, None, ["aggressive", "random"])
