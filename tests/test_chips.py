"""Issue 36's arena pieces: games scored by their returns (poker's chips: ``Game.scores_by_returns``,
the tournament's mean return a game with its 95% interval), and agents that read the whole state
refused on games of hidden information unless their spec says ``cheat=1``.

Engine agents run on the plain path (``CONNECTX_NUMBA=0``): Kuhn poker's games are a few moves."""
from __future__ import annotations

import math
import statistics
import time
from fractions import Fraction
from pathlib import Path

import pytest

from agents import registry
from agents.engine.spec import SpecError
from core.games import make_game, names, parse_game
from util.arena import players
from util.arena.ratings import Z95, mean_interval
from util.arena.store import Store
from util.arena.tournament import main, mean_returns

KUHN = make_game("kuhn_poker")


@pytest.fixture(autouse=True)
def plain(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CONNECTX_NUMBA", "0")


# --- scoring by returns ----------------------------------------------------------------------------
def test_only_the_chip_games_say_they_are_scored_by_returns() -> None:
    chips = {n for n in names() if make_game(n).scores_by_returns}
    assert chips == {"kuhn_poker", "leduc_poker"}  # Liar's Dice and the board games: who won is the outcome


def test_mean_interval_is_the_normal_one_with_the_samples_deviation() -> None:
    values = [2.0, -1.0, 1.0, -2.0, 1.0, 1.0, -1.0]
    mean, low, high = mean_interval(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    assert mean == pytest.approx(statistics.fmean(values)) and (low, high) == pytest.approx((mean - half, mean + half))
    assert mean_interval([3.0])[1:] == (-math.inf, math.inf) and math.isnan(mean_interval([])[0])


def exact_value(game, agent, seat: int) -> Fraction:
    """``agent``'s expected return in ``seat`` against the uniform random player, by enumeration
    of every deal (chance's probabilities) and every random choice (each legal action alike)."""
    def value(state) -> Fraction:
        if state.is_terminal():
            return Fraction(state.returns()[seat]).limit_denominator(1000)
        if state.is_chance_node():
            return sum((Fraction(p).limit_denominator(1000) * value(state.apply(a)) for a, p in state.chance_outcomes()),
                       Fraction(0))
        actions = state.legal_actions()
        if state.current_player() == seat:
            return value(state.apply(agent.choose(state, time.perf_counter() + 10)))
        return sum((value(state.apply(a)) for a in actions), Fraction(0)) / len(actions)
    return value(game.initial())


def test_kuhn_tournament_reports_each_agents_mean_return(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """The exact solver, given the whole state by opt-in, against random: the report's mean return
    a game is each agent's over the stored games (recomputed here by replaying their moves with
    the rules), the two sum to zero, the interval is the normal one, and the solver's expected
    return (by enumeration, both seats) lies inside it."""
    db = tmp_path / "k.sqlite"
    assert main(["--game", "kuhn_poker", "--agents", "solver:cheat=1,random", "--games", "60", "--time", "0.5",
                 "--workers", "1", "--db", str(db), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "returns a game" in out and "the first agent's mean return" in out
    with Store(db) as store:
        games = list(store.games(game="kuhn_poker"))
        labels = {i: s for i, (s, _) in store.players().items()}
        rows = {r[0]: r[1:] for r in mean_returns(store, "kuhn_poker")}
    assert len(games) == 60 and set(rows) == {"solver:cheat=1", "random"}
    mine: dict[str, list[float]] = {"solver:cheat=1": [], "random": []}
    for g in games:
        state = KUHN.initial()
        for a in g.moves:
            state = state.apply(a)
        assert state.is_terminal()
        mine[labels[g.first]].append(state.returns()[0])
        mine[labels[g.second]].append(state.returns()[1])
    for label, values in mine.items():
        n, mean, low, high = rows[label]
        half = Z95 * statistics.stdev(values) / math.sqrt(n)
        assert n == 60 and mean == pytest.approx(statistics.fmean(values)) and (low, high) == pytest.approx((mean - half, mean + half))
        assert f"{mean:+.3f}" in out
    assert rows["solver:cheat=1"][1] == pytest.approx(-rows["random"][1])
    solver = registry.make("solver:cheat=1", KUHN)
    expected = float(sum(exact_value(KUHN, solver, seat) for seat in (0, 1)) / 2)  # seats swapped, half each
    n, mean, low, high = rows["solver:cheat=1"]
    assert expected > 0 and low <= expected <= high, (expected, mean, low, high)


def test_games_won_or_lost_print_no_returns_table(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["--game", "liars_dice", "--agents", "random,random:seed=1", "--games", "2", "--time", "0.5",
                 "--workers", "1", "--db", str(tmp_path / "l.sqlite"), "--quiet"]) == 0
    assert "returns a game" not in capsys.readouterr().out


# --- agents that read the whole state on games of hidden information ---------------------------------
@pytest.mark.parametrize("spec", ["alphabeta", "mcts:c=2", "expectimax", "solver", "mcts:cheat=0"])
def test_a_perfect_information_agent_is_refused_on_kuhn(spec: str) -> None:
    with pytest.raises(SpecError, match="reads the whole state.*cheat=1"):
        players.resolve(spec, KUHN)
    with pytest.raises(SpecError, match="reads the whole state"):
        registry.make(spec, KUHN)  # every tool's builder (the web app's too)


@pytest.mark.parametrize("spec", ["random", "ismcts:max_sims=10", "pimc:samples=2", "cfr:iterations=10"])
def test_agents_that_see_only_their_observation_play(spec: str) -> None:
    opted = spec + ("," if ":" in spec else ":") + "cheat=1"
    assert players.resolve(spec, KUHN).text == players.resolve(opted, KUHN).text  # the opt-in changes nothing
    assert "cheat" not in players.resolve(spec, KUHN).text


def test_the_opt_in_is_part_of_the_agents_name_where_it_matters() -> None:
    assert players.resolve("alphabeta:cheat=1,max_depth=3", KUHN).text == "alphabeta:cheat=1,max_depth=3"
    tictactoe = make_game("tictactoe")
    assert players.resolve("alphabeta:cheat=1,max_depth=3", tictactoe).text == players.resolve("alphabeta:max_depth=3", tictactoe).text
    with pytest.raises(SpecError, match="cheat .*true or false"):
        players.resolve("alphabeta:cheat=2", KUHN)
    with pytest.raises(SpecError, match="no parameter 'cheat'"):  # only the top agent takes it
        players.resolve("pimc:search=expectimax:cheat=1", KUHN)


def test_fog_makes_reinforce_tactics_a_game_of_hidden_information() -> None:
    fog, plain = parse_game("reinforce_tactics:fog=1"), parse_game("reinforce_tactics")
    with pytest.raises(SpecError, match="'greedy' reads the whole state"):
        players.resolve("greedy", fog)
    assert players.resolve("greedy:cheat=1", fog).text.startswith("greedy:cheat=1")
    assert "cheat" not in players.resolve("greedy", plain).text
    assert players.resolve("pimc", fog).name == "pimc"  # its search, greedy, sees the samples only


def test_cli_refuses_with_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["--game", "kuhn_poker", "--agents", "alphabeta,random", "--db", str(tmp_path / "x.sqlite")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "Traceback" not in err
    assert err.startswith("error: agent 'alphabeta' reads the whole state") and "alphabeta:cheat=1" in err
    assert "random, ismcts, pimc, cfr" in err  # the agents that play fair there


def test_the_web_app_refuses_it_as_a_bad_request() -> None:
    from util.arena.web.sessions import RequestError, make_agent

    with pytest.raises(RequestError, match="reads the whole state"):
        make_agent("mcts", KUHN)
    assert make_agent("mcts:cheat=1", KUHN) is not None and make_agent("ismcts", KUHN) is not None
