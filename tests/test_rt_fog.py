"""Reinforce Tactics under fog of war (``reinforce_tactics:fog=1``, :mod:`core.reinforce_tactics.fog`):
the visibility against the upstream engine's own on recorded games, the rules' fog parts, the
hidden-information contract (the determinizer never samples a state the observations rule out),
both kernel paths agreeing, and the fog-free game unchanged."""
from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.games import parse_game
from core.reinforce_tactics import fog as F
from core.reinforce_tactics import maps
from core.reinforce_tactics.kernels import sb, ub, walkable
from core.reinforce_tactics.layout import (
    A_END,
    A_UNIT,
    COST,
    H_COUNT,
    H_TURN,
    MOVEMENT,
    S_OWNER,
    STATE_LEN,
    SUB_TARGET,
    U_CAN_ACT,
    U_CAN_MOVE,
    U_CELL,
    U_HP,
    U_ORIG,
    U_TYPE,
    UMAX,
    UNIT_CODES,
    UNIT_STRIDE,
    H,
    W,
)

FIXTURE = Path(__file__).parent / "fixtures" / "rt_fog_upstream.json.gz"


def fixture() -> dict:
    with gzip.open(FIXTURE, "rt") as f:
        return json.load(f)


def random_game(game, seed: int, steps: int, end_p: float = 0.15):
    """States of a random game (the end of the turn drawn with ``end_p``)."""
    rng = random.Random(seed)
    s = game.initial()
    out = [s]
    for _ in range(steps):
        if s.is_terminal():
            break
        la = s.legal_actions()
        if s.is_chance_node():
            a = rng.choice(la)
        else:
            a = A_END if rng.random() < end_p else rng.choice(la)
        s = s.apply(a)
        out.append(s)
    return out


# --- against the upstream engine ------------------------------------------------------------------
def board_of(rows: list[list[str]]) -> tuple[list[list[str]], str]:
    """An upstream map at the 20 x 20 board's top left (ocean elsewhere), and its tile codes."""
    cells = [["o"] * W for _ in range(H)]
    for y, row in enumerate(rows):
        for x, code in enumerate(row):
            cells[y][x] = code
    return cells, "".join(code.split("_")[0] for r in cells for code in r)


def frame_state(g, cells, frame, fog_block) -> np.ndarray:
    """Our state with a recorded frame's units, structure owners and turn, and our fog block."""
    s = np.zeros(F.FOG_STATE_LEN, np.int64)
    s[:STATE_LEN] = maps.initial_state(cells, g, 0)
    s[STATE_LEN:] = fog_block
    s[H_TURN] = frame["turn"]
    for p, typ, x, y, hp in frame["units"]:
        u = ub(p * UMAX + s[H_COUNT + p])
        s[u + U_TYPE], s[u + U_CELL], s[u + U_HP] = UNIT_CODES.index(typ) + 1, y * W + x, hp
        s[H_COUNT + p] += 1
    for x, y, owner in frame["structures"]:
        s[sb(g[maps.G_CELL_STRUCT + y * W + x]) + S_OWNER] = owner - 1
    return s


def test_visibility_matches_the_upstream_engine():
    data = fixture()
    assert data["provenance"]["repo"] == "github.com/kuds/reinforce-tactics"
    checked = remembered = 0
    for rec in data["games"]:
        cells, codes = board_of(rec["rows"])
        game = parse_game("reinforce_tactics")
        game = type(game)(board=codes, fog=1)
        g = np.asarray(game.g, np.int64)
        block = np.zeros(F.FOG_STATE_LEN - STATE_LEN, np.int64)
        height, width = len(rec["rows"]), len(rec["rows"][0])
        for i, frame in enumerate(rec["frames"]):
            s = frame_state(game.g, cells, frame, block)
            if i == 0:
                for p in (0, 1):
                    for si in range(g[maps.G_NS]):
                        s[F.fb(p) + F.FB_STRUCT + si] = F.struct_word(s[sb(si) + S_OWNER], 0, 0)
            for p in frame["updated"]:
                F.update(game.g, s, p)
            block = s[STATE_LEN:].copy()
            for p, up in enumerate(frame["players"]):
                ours = ["".join(str(F.cell_state(s, p, y * W + x)) for x in range(width)) for y in range(height)]
                assert ours == up["state"], (rec["map"], i, p)
                seen = sorted([c % W, c // W, 1 - p, UNIT_CODES[w % 16 - 1], (w // 16) % 64, w // 1024 - 1]
                              for c in range(W * H) if (w := int(s[F.fb(p) + F.FB_MEMORY + c])))
                assert seen == up["seen_units"], (rec["map"], i, p)
                remembered += len(seen)
                ours_s = sorted([c % W, c // W, (w % 4 - 2) + 1] for si in range(g[maps.G_NS])
                                if (w := int(s[F.fb(p) + F.FB_STRUCT + si])) >= 256
                                for c in [int(g[maps.G_STRUCT_CELL + si])])
                assert ours_s == sorted(v[:3] for v in up["seen_structures"]), (rec["map"], i, p)
                checked += 1
    assert checked > 300 and remembered > 100  # the fixture holds fog and memory, not an empty board


# --- the rule --------------------------------------------------------------------------------------
def test_fog_free_game_is_unchanged():
    plain, fog = parse_game("reinforce_tactics"), parse_game("reinforce_tactics:fog=1")
    assert plain.words == STATE_LEN and plain.perfect_information and plain.kernels == "core.reinforce_tactics.kernels"
    assert fog.words == F.FOG_STATE_LEN and not fog.perfect_information
    assert type(plain).words == STATE_LEN  # the class keeps the fog-free numbers
    assert fog.initial().words[:STATE_LEN] == plain.initial().words


def test_fog_game_follows_the_fog_free_rules_but_for_attacks():
    """Each action of a fog game is legal in the fog-free game and gives its state there; the
    fog-free game's attacks left out are those of enemies unseen now or at the unit's start."""
    plain, fog = parse_game("reinforce_tactics"), parse_game("reinforce_tactics:fog=1")
    for seed in range(3):
        for s in random_game(fog, seed, 250):
            base = plain.new_state(s.words[:STATE_LEN])
            fog_legal, base_legal = set(s.legal_actions()), set(base.legal_actions())
            assert fog_legal <= base_legal
            for a in base_legal - fog_legal:
                sub = (a - A_UNIT) % UNIT_STRIDE
                assert A_UNIT <= a < A_END and SUB_TARGET <= sub < SUB_TARGET + 2 * UMAX
            if not s.is_terminal():
                a = sorted(fog_legal)[len(fog_legal) // 2]
                assert s.apply(a).words[:STATE_LEN] == base.apply(a).words
    # (random games meet the restriction rarely: the next test sets it up)


def test_views_are_recomputed_after_a_move_and_at_a_turns_start_only():
    """Upstream's calls: the mover's view after each move of its units, the new mover's at its
    turn's start; a recruit, an attack or a seizure leaves both views as they were."""
    fog = parse_game("reinforce_tactics:fog=1")
    plane = np.zeros(F.NPW, np.int64)
    kinds = set()
    for seed in range(2):
        states = random_game(fog, seed, 200)
        for s, t in zip(states, states[1:]):
            a = t.history[-1]
            p = s.words[0]
            moved = not s.is_chance_node() and A_UNIT <= a < A_END and (a - A_UNIT) % UNIT_STRIDE < SUB_TARGET
            ended = not s.is_chance_node() and a == A_END and not t.is_terminal()
            for q in (0, 1):
                b = F.fb(q) + F.FB_VISIBLE
                if (moved and q == p) or (ended and q == 1 - p):
                    F.vision(fog.g, t.words, q, plane, 0)
                    assert tuple(plane) == t.words[b:b + F.NPW]
                    kinds.add("moved" if moved else "ended")
                else:
                    assert t.words[b:b + F.NPW] == s.words[b:b + F.NPW]
    assert kinds == {"moved", "ended"}


def grass_state(fog, units, hp: int = 15) -> np.ndarray:
    """The open-grass fog game's first state with ``units`` (player, type code, x, y) added in
    slot order, each with ``hp`` hit points and ready to act, and both views looked."""
    s = np.array(fog.initial().words, np.int64)
    for p, typ, x, y in units:
        u = ub(p * UMAX + s[H_COUNT + p])
        s[u + U_TYPE], s[u + U_CELL], s[u + U_HP] = typ, y * W + x, hp
        s[u + U_CAN_MOVE] = s[u + U_CAN_ACT] = 1
        s[u + U_ORIG] = y * W + x
        s[H_COUNT + p] += 1
    for p in (0, 1):
        F.update(fog.g, s, p)
    return s


def test_a_unit_may_not_attack_what_its_move_discovered():
    """On open grass: player 0's Barbarian (sight 2) moves next to an enemy it did not see and may
    not attack it (the fog-free game lets it); its Knight, which had not moved while the enemy
    came into sight, moves next to it and may."""
    fog = parse_game("reinforce_tactics:fog=1,board=" + "p" * (W * H))
    plain = parse_game("reinforce_tactics:board=" + "p" * (W * H))
    s = grass_state(fog, ((0, 8, 5, 5), (0, 5, 10, 1), (1, 1, 10, 5)))
    state = fog.new_state(s)
    assert F.cell_state(s, 0, 5 * W + 10) == F.UNEXPLORED

    def texts(st_):
        return {st_.action_to_string(a): a for a in st_.legal_actions()}

    after = state.apply(texts(state)["move 5,5 9,5"])
    assert F.cell_state(after.words, 0, 5 * W + 10) == F.VISIBLE
    assert "attack 9,5 10,5" not in texts(after)
    assert "attack 9,5 10,5" in texts(plain.new_state(after.words[:STATE_LEN]))
    knight = after.apply(texts(after)["move 10,1 10,4"])
    assert "attack 10,4 10,5" in texts(knight)


def occupant(w, c: int):
    """(owner, type, hit points) of the unit on cell ``c`` of words ``w``, None for none."""
    for q in (0, 1):
        for k in range(w[H_COUNT + q]):
            u = ub(q * UMAX + k)
            if w[u + U_CELL] == c:
                return q, w[u + U_TYPE], w[u + U_HP]
    return None


def assert_consistent(fog, s, d, p: int) -> None:
    """What ``p``'s observations rule out is not in the sample ``d`` of ``s``: every cell ``p``
    sees holds the same unit (or none); the enemy units stand on walkable cells, at least as
    many as its highest seen slot says, cost no more than the gold it can have had (its starting
    gold and the income ``p`` counted, or the cheapest units where even that is short) and its
    gold is not negative; every unit ``p`` remembers out of sight is a unit of its own in the
    sample, of its type, within its movement times the enemy's turns since it was seen (a step a
    cell): one out of sight with the hit points it had, or one in sight."""
    q, w, x = 1 - p, s.words, d.words
    for c in range(W * H):
        if F.plane_has(w, F.fb(p) + F.FB_VISIBLE, c):
            assert occupant(x, c) == occupant(w, c)
    seen = [k for k in range(w[H_COUNT + q]) if F.seen_enemy(w, p, k)]
    assert x[H_COUNT + q] >= (max(seen) + 1 if seen else 0)
    enemy = [x[ub(q * UMAX + k):ub(q * UMAX + k) + 3] for k in range(x[H_COUNT + q])]
    assert all(typ != 0 and walkable(fog.g, c) for typ, c, _ in enemy)
    assert x[3 + q] >= 0
    hidden = [c for c in range(W * H)
              if w[F.fb(p) + F.FB_MEMORY + c] and not F.plane_has(w, F.fb(p) + F.FB_VISIBLE, c)]
    known = sum(COST[w[ub(q * UMAX + k)]] for k in seen) + sum(COST[w[F.fb(p) + F.FB_MEMORY + c] % 16] for c in hidden)
    spent = sum(COST[typ] for typ, _, _ in enemy)
    assert spent <= max(w[F.fb(p) + F.FB_INCOME], known + 200 * (len(enemy) - len(seen) - len(hidden)))
    elapsed = w[H_TURN] + (0 if w[0] == p else 1)

    def may_be(c: int, k: int) -> bool:  # the sample's enemy unit k may be the one remembered on c
        m, (typ, e, hp) = w[F.fb(p) + F.FB_MEMORY + c], enemy[k]
        reach = MOVEMENT[m % 16] * (elapsed - (m // 1024 - 1))
        return typ == m % 16 and (k in seen or hp == (m // 16) % 64) and \
            abs(e % W - c % W) + abs(e // W - c // W) <= reach

    assert one_each(hidden, range(len(enemy)), may_be)


def one_each(left, right, fits) -> bool:
    """Each of ``left`` gets one of ``right`` of its own that ``fits`` it (augmenting paths)."""
    owner: dict = {}

    def take(a, tried: set) -> bool:
        for b in right:
            if b not in tried and fits(a, b):
                tried.add(b)
                if b not in owner or take(owner[b], tried):
                    owner[b] = a
                    return True
        return False

    return all(take(a, set()) for a in left)


# --- the hidden-information contract ----------------------------------------------------------------
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_seed=st.integers(0, 10 ** 6), seeds=st.lists(st.integers(0, 2 ** 31 - 1), min_size=2, max_size=3),
       steps=st.integers(20, 220))
def test_determinizer_never_samples_what_the_observations_rule_out(game_seed, seeds, steps):
    fog = parse_game("reinforce_tactics:fog=1")
    states = random_game(fog, game_seed, steps)
    for s in states[::7] + states[-1:]:
        if s.is_terminal():
            continue
        for p in (0, 1):
            info = fog.information_state(s, p)
            for seed in seeds:
                d = fog.determinize(s, p, seed)
                assert fog.information_state(d, p) == info  # the observer cannot tell it from the true state
                assert fog.observation(d, p) == fog.observation(s, p)
                again = fog.determinize(d, p, seed)  # reads only what p knows: d looks alike, samples alike
                assert again.words == d.words
                cells = [d.words[ub(q * UMAX + k) + U_CELL] for q in (0, 1) for k in range(d.words[H_COUNT + q])]
                assert len(cells) == len(set(cells))  # one unit a cell
                assert_consistent(fog, s, d, p)
                if not d.is_chance_node() and d.current_player() == p:
                    d.legal_actions()  # a state the rules run on
                    d.apply(A_END)


def test_determinizer_draws_differ_and_move_what_is_remembered():
    """Late in a game the samples differ, and remembered units out of sight are drawn within their
    reach of where they were seen: not always on that cell (they had turns to move)."""
    fog = fog_game = parse_game("reinforce_tactics:fog=1")
    moved = placed = 0
    for seed_game in (11, 12):
        s = random_game(fog_game, seed_game, 300, end_p=0.08)[-1]
        for p in (0, 1):
            samples = {fog.determinize(s, p, seed).words for seed in range(8)}
            for d in samples:
                assert_consistent(fog, s, fog.new_state(d), p)
                for c in range(W * H):
                    m = d[F.fb(p) + F.FB_MEMORY + c]
                    if m and not F.plane_has(d, F.fb(p) + F.FB_VISIBLE, c):
                        placed += 1
                        moved += occupant(d, c) != (1 - p, m % 16, (m // 16) % 64)
    assert placed > 0 and 0 < moved


def test_determinizer_draws_what_a_short_budget_can_have_bought():
    """Player 0 (a Warrior at 2,2) sees the enemy's slot 2 (a Knight, 350, at 4,2) and nothing of
    slots 0 and 1 (far off): the two drawn units must fit the enemy's budget (its starting gold
    and the income counted, less the Knight), 200 kept back for the second draw; where even two
    Clerics do not fit, two Clerics; the enemy's gold that budget less the units, never below 0."""
    fog = parse_game("reinforce_tactics:fog=1,board=" + "p" * (W * H))
    s = grass_state(fog, ((0, 1, 2, 2), (1, 3, 18, 18), (1, 3, 17, 18), (1, 5, 4, 2)))
    knight, cleric = COST[5], COST[3]
    assert [F.seen_enemy(s, 0, k) for k in range(3)] == [False, False, True]
    for spare, allowed in ((2 * cleric + 50, {(3, 3), (3, 4), (4, 3)}), (cleric + 100, {(3, 3)})):
        s[F.fb(0) + F.FB_INCOME] = knight + spare
        types = set()
        for seed in range(40):
            d = fog.determinize(fog.new_state(s), 0, seed).words
            assert d[H_COUNT + 1] == 3 and d[ub(UMAX + 2) + U_TYPE] == 5
            drawn = (d[ub(UMAX) + U_TYPE], d[ub(UMAX + 1) + U_TYPE])
            assert drawn in allowed, (spare, seed, drawn)
            assert d[3 + 1] == max(0, spare - COST[drawn[0]] - COST[drawn[1]])  # the enemy's gold
            types.add(drawn)
        assert types == allowed  # each affordable choice is drawn (40 seeds)


def test_a_remembered_unit_that_may_be_one_in_sight_is_not_placed_again():
    """Player 0 (a Warrior at 2,2, turn 2) sees an enemy Knight at 5,2 and remembers, from turn 1
    (one enemy turn: a Knight walks 4, a Warrior 3), Knights at 9,2 and 6,5 (either may be the one
    in sight, not both), a Warrior at 8,2 (in reach, another type) and a Knight at 15,0 (out of
    reach): the sample has the Knight in sight and three more units, one of them a near Knight."""
    fog = parse_game("reinforce_tactics:fog=1,board=" + "p" * (W * H))
    s = grass_state(fog, ((0, 1, 2, 2), (1, 5, 5, 2)))
    s[H_TURN] = 2
    for typ, hp, x, y in ((5, 9, 9, 2), (5, 7, 6, 5), (1, 11, 8, 2), (5, 13, 15, 0)):
        assert not F.plane_has(s, F.fb(0) + F.FB_VISIBLE, y * W + x)
        s[F.fb(0) + F.FB_MEMORY + y * W + x] = F.memory_word(typ, hp, 1)
    for seed in range(6):
        d = fog.determinize(fog.new_state(s), 0, seed)
        assert_consistent(fog, fog.new_state(s), d, 0)
        x = d.words
        assert x[H_COUNT + 1] == 4 and (x[ub(UMAX) + U_TYPE], x[ub(UMAX) + U_CELL]) == (5, 2 * W + 5)
        hidden = sorted((x[ub(UMAX + k) + U_TYPE], x[ub(UMAX + k) + U_HP]) for k in (1, 2, 3))
        assert hidden in ([(1, 11), (5, 7), (5, 13)], [(1, 11), (5, 9), (5, 13)]), (seed, hidden)


@pytest.mark.slow  # compiling the fog kernels: 147 s at load 4+ on this project's VM
def test_compiled_fog_kernels_agree_with_plain():
    from base.jit import compiled, numba_available

    if not numba_available():
        pytest.skip("numba not available")
    C = compiled("core.reinforce_tactics.fog")
    fog = parse_game("reinforce_tactics:fog=1")
    g = np.asarray(fog.g, np.int64)
    out_c, out_p = np.empty(fog.num_actions, np.int64), [0] * fog.num_actions
    for seed in range(2):
        for s in random_game(fog, seed, 200)[::3]:
            arr = np.asarray(s.words, np.int64)
            n = C.legal(g, arr, out_c, 0)
            assert list(out_c[:n]) == s.legal_actions()[:n] and n == F.legal(fog.g, s.words, out_p, 0)
            if n:
                a = int(out_c[n // 2])
                assert tuple(C.play(g, arr, a).tolist()) == tuple(F.play(fog.g, s.words, a).tolist())
            for p in (0, 1):
                assert list(C.info_key(g, arr, p)) == list(F.info_key(fog.g, s.words, p))
                assert list(C.determinize(g, arr, p, 77)) == list(F.determinize(fog.g, s.words, p, 77))


def test_seen_state_holds_only_what_the_player_sees():
    fog = parse_game("reinforce_tactics:fog=1")
    s = random_game(fog, 5, 260, end_p=0.08)[-1]
    for p in (0, 1):
        v = fog.seen_state(s, p)
        q = 1 - p
        assert v.words[H_COUNT + p] == s.words[H_COUNT + p] and v.words[3 + q] == 0  # the enemy's gold: none seen
        seen = [s.words[ub(q * UMAX + k) + U_CELL] for k in range(s.words[H_COUNT + q])
                if F.plane_has(s.words, F.fb(p) + F.FB_VISIBLE, s.words[ub(q * UMAX + k) + U_CELL])]
        assert [v.words[ub(q * UMAX + k) + U_CELL] for k in range(v.words[H_COUNT + q])] == seen
        assert fog.observation(v, p)[:F.O_ENEMY] == fog.observation(s, p)[:F.O_ENEMY]
    plain = parse_game("reinforce_tactics")
    assert plain.seen_state(plain.initial(), 0) == plain.initial()  # a game without fog: the state itself


def test_pimc_and_its_baseline_play_the_fog_game_through_the_registry():
    """``pimc`` (greedy on determinizations) and ``pimc:view=seen`` choose legal actions of the
    true state (a sample's plan may name what the fog forbids there: it is not voted for)."""
    from agents.registry import make

    fog = parse_game("reinforce_tactics:fog=1")
    agents = [make("pimc:samples=3", fog), make("pimc:view=seen", fog)]
    for a in agents:
        a.warm_up()
    s, rng, n = fog.initial(), random.Random(3), 0
    while not s.is_terminal() and n < 60:
        if s.is_chance_node():
            s = s.apply(rng.choice(s.legal_actions()))
            continue
        agent = agents[s.current_player()]
        act = agent.choose(s, float("inf"))
        assert act in s.legal_actions()
        info = agent.info()
        assert info.extra["view"] == ("sample" if agent is agents[0] else "seen")
        assert sum(info.action_values.values()) <= 1.0 + 1e-9
        s, n = s.apply(act), n + 1
    assert n == 60 or s.is_terminal()


def test_the_picture_of_a_fog_game_has_each_players_view():
    fog = parse_game("reinforce_tactics:fog=1")
    s = random_game(fog, 2, 200, end_p=0.08)[-1]
    pic = fog.picture(s)
    assert "fog" not in parse_game("reinforce_tactics").picture(parse_game("reinforce_tactics").initial())
    r0, c0 = pic["origin"]
    for p, view in enumerate(pic["fog"]):
        assert len(view["cells"]) == pic["rows"] and all(len(row) == pic["columns"] for row in view["cells"])
        for u in pic["units"]:
            if u["p"] == p:  # its own units stand in its sight
                assert view["cells"][u["r"]][u["c"]] == "2"
        for m in view["remembered"]:
            assert view["cells"][m["r"]][m["c"]] != "2"
            assert s.words[F.fb(p) + F.FB_MEMORY + (m["r"] + r0) * W + m["c"] + c0] != 0
