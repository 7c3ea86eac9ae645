"""One declaration of a parameter (issue 35, point 5): :class:`base.params.Param`.

A game's parameters, a heuristic's weights and an agent's fields are declared with the one
class; these tests hold its rules (bounds refused in one line, text converted to the kind,
defaults within the bounds, a server bound inside the command line's) and that every reader
(the game's constructor, the spec parser, argparse, the tuner, the web app) reads it.
"""
from __future__ import annotations

import argparse
import dataclasses
import math
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents import registry
from agents.engine.params import declared
from agents.engine.spec import AGENT_PARAMS, SpecError, agent_params, convert_params
from base.bounds import INT64
from base.params import KINDS, Param, declarations, declare, from_tuple, table
from core import games
from core.game import Game
from util.arena import tune
from util.arena.web.games_api import _param

INTS = st.integers(-(10 ** 6), 10 ** 6)


# --- the declaration's rules -------------------------------------------------------------------
@settings(max_examples=200, deadline=None)
@given(lo=INTS, width=st.integers(0, 1000), value=st.integers(-(10 ** 7), 10 ** 7), text=st.booleans())
def test_an_int_is_taken_within_its_bounds_or_refused_in_one_line(lo, width, value, text):
    p = Param("n", lo, lo, lo + width, "a count")
    given_ = str(value) if text else value
    if lo <= value <= lo + width:
        assert p.parse(given_) == value and type(p.parse(given_)) is int
        return
    with pytest.raises(ValueError) as exc:
        p.parse(given_)
    message = str(exc.value)
    assert "\n" not in message and message.startswith("n must be") and f"{lo}" in message and f"{lo + width}" in message


@settings(max_examples=200, deadline=None)
@given(lo=st.floats(-1e6, 1e6), width=st.floats(0, 1e6), value=st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                                                                        st.floats(-2e6, 2e6).map(repr)))
def test_a_float_is_taken_finite_within_its_bounds_or_refused_in_one_line(lo, width, value):
    p = Param("w", lo, lo, lo + width, "a weight")
    x = float(value)
    if math.isfinite(x) and lo <= x <= lo + width:
        assert p.parse(value) == x and type(p.parse(value)) is float
        return
    with pytest.raises(ValueError, match=r"^w must be a number from ") as exc:
        p.parse(value)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("kind, text, value", [(int, " 42 ", 42), (int, "-7", -7), (float, "1.5", 1.5), (float, "2", 2.0),
                                               (float, "1e3", 1000.0), (bool, "yes", True), (bool, "0", False),
                                               (bool, True, True), (str, "beginner", "beginner"), (str, 5, "5")])
def test_text_is_converted_to_the_kind(kind, text, value):
    got = Param("x", kind(), kind=kind).parse(text)
    assert got == value and type(got) is kind


@pytest.mark.parametrize("kind, bad", [(int, "1.5"), (int, "\u0663"), (int, True), (int, "0x10"), (float, "nan"),
                                       (float, "inf"), (float, True), (bool, "maybe"), (bool, "")])
def test_a_value_of_another_kind_is_refused_in_one_line(kind, bad):
    with pytest.raises(ValueError, match="^x must be ") as exc:
        Param("x", kind(), kind=kind).parse(bad)
    assert "\n" not in str(exc.value)


def test_the_kind_is_the_defaults_type_and_an_int_without_bounds_is_an_int64():
    assert Param("a", 3).kind is int and Param("b", 0.5).kind is float and Param("c", "").kind is str
    assert Param("d", False).kind is bool
    p = Param("e", 0)
    assert p.parse(INT64[1]) == INT64[1]
    with pytest.raises(ValueError, match="e must be an integer from"):
        p.parse(INT64[1] + 1)


@pytest.mark.parametrize("build", [
    lambda: Param("x", None),  # not set needs a kind
    lambda: Param("x", [1]),  # no kind of a list
    lambda: Param("x", "a", 0, 1),  # text takes no bounds
    lambda: Param("x", 1, 5, 2),  # lo above hi
    lambda: Param("x", 1, 0, 10, server=(0, 11)),  # a server's bound beyond the command line's
    lambda: Param("x", 1, 0, 10, server=(-1, 5)),
    lambda: Param("x", 1, 0, 10, server=(6, 5)),
    lambda: table(Param("x", 1), Param("x", 2)),  # a name twice
])
def test_a_bad_declaration_is_refused_when_it_is_made(build):
    with pytest.raises((TypeError, ValueError)):
        build()


@settings(max_examples=100, deadline=None)
@given(hi=st.integers(10, 10 ** 6), server_hi=st.integers(2, 10 ** 6), value=st.integers(0, 2 * 10 ** 6))
def test_a_server_bound_lies_inside_the_command_lines(hi, server_hi, value):
    if server_hi > hi:
        with pytest.raises(ValueError, match="server bounds"):
            Param("slots", 1, 0, hi, server=(0, server_hi))
        return
    p = Param("slots", 1, 0, hi, server=(0, server_hi))
    if value <= server_hi:
        assert p.parse_server(value) == p.parse(value) == value
    else:
        with pytest.raises(ValueError, match=f"from 0 to {server_hi}"):
            p.parse_server(value)
        if value <= hi:
            assert p.parse(value) == value  # a command line's own bound is wider


def test_every_server_bound_of_the_agents_is_tighter_than_the_command_lines():
    servers = {k: p for k, p in AGENT_PARAMS.items() if p.server is not None}
    assert {"tt_size", "tt_bits", "capacity", "margin", "compile_wait"} <= set(servers)
    for key, p in servers.items():
        assert p.lo <= p.server[0] <= p.server[1] < p.hi, key
        with pytest.raises(ValueError, match=f"^parameter {key} must be"):
            p.parse_server(p.hi, f"parameter {key}")


def test_argparse_reads_a_declaration_in_one_line(capsys):
    parser = argparse.ArgumentParser(prog="t")
    parser.add_argument("--tt-bits", type=AGENT_PARAMS["tt_bits"].arg_type())
    assert parser.parse_args(["--tt-bits", "20"]).tt_bits == 20
    with pytest.raises(SystemExit) as exc:
        parser.parse_args(["--tt-bits", "30"])
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err == "t: error: argument --tt-bits: value must be an integer from 4 to 26, got 30"


def test_a_dataclass_declares_its_fields_and_the_readers_name_them_after_the_field():
    @dataclasses.dataclass
    class Mixin:
        w_gold: float = declare(1.0, -10.0, 10.0, "value of a coin")
        plain: int = 3

    (p,) = declarations(Mixin)
    assert (p.name, p.default, p.lo, p.hi, p.doc, p.kind) == ("w_gold", 1.0, -10.0, 10.0, "value of a coin", float)
    assert Mixin().w_gold == 1.0


def test_the_older_bounds_metadata_of_a_field_reads_into_a_declaration():
    @dataclasses.dataclass
    class Old:
        threads: int = dataclasses.field(default=2, metadata={"bounds": (1, 64)})
        share: float = dataclasses.field(default=0.5, metadata={"bounds": (0, 1.0)})

    threads, share = declarations(Old)
    assert (threads.name, threads.default, threads.bounds, threads.kind) == ("threads", 2, (1, 64), int)
    assert (share.default, share.bounds, share.kind) == (0.5, (0, 1.0), float)
    with pytest.raises(SpecError, match="threads of agent 'old' must be an integer from 1 to 64, got 65"):
        convert_params(Old, "old", {"threads": "65"})


def test_the_older_tuple_form_of_a_game_parameter_reads_into_a_declaration():
    assert from_tuple("rows", (int, 6, "board rows", (1, 20))) == Param("rows", 6, 1, 20, "board rows", int)
    assert from_tuple("map", (str, "", "a map")) == Param("map", "", doc="a map")

    class Toy(Game):
        name = "toy"
        PARAMS = {"n": (int, 10, "stones", (1, 60)), "label": (str, "a", "a name")}  # type: ignore[dict-item]

    assert Toy.PARAMS == table(Param("n", 10, 1, 60, "stones"), Param("label", "a", doc="a name"))


# --- every declaration of the repository ---------------------------------------------------------
def agent_classes() -> list[tuple[str, str, type]]:
    out = []
    for game in games.names():
        for name in registry.names(game):
            try:
                out.append((game, name, registry.agent_class(game, name)))
            except (ImportError, ValueError, KeyError):  # an agent of an optional backend
                continue
    return out


AGENTS = agent_classes()


@pytest.mark.parametrize("name", games.names())
def test_every_game_parameter_is_declared_and_its_default_within_its_bounds(name):
    cls = games.game_class(name)
    for key, p in cls.PARAMS.items():
        assert isinstance(p, Param) and p.name == key and p.doc.strip(), (name, key)
        assert p.parse(p.default) == p.default, (name, key)
        assert _param(key, p) == {"name": key, "type": p.kind.__name__, "default": p.default, "help": p.doc,
                                  "min": p.lo, "max": p.hi}


def test_every_heuristic_weight_is_a_float_declaration_whose_default_parses_to_itself():
    for name in games.names():
        for heuristic, params in declared(games.make_game(name)).items():
            for p in params:
                assert p.kind is float and p.check(p.default, heuristic) == p.default, (name, heuristic, p.name)


def test_every_agent_field_has_one_declaration_of_its_own_kind_with_its_default_within_bounds():
    assert AGENTS
    for game, name, cls in AGENTS:
        hints = typing.get_type_hints(cls)
        for key, p in agent_params(cls).items():
            assert p.name == key and p.kind in KINDS, (game, name, key)
            annotation = hints.get(key)
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            kind = args[0] if len(args) == 1 else annotation
            if key in AGENT_PARAMS or p.bounds is not None:  # a declared field: its annotation says the same kind
                assert kind is p.kind, (game, name, key, kind, p.kind)
            if p.default is not None and p.kind in (bool, int, float):
                assert p.parse(p.default) == p.default, (game, name, key, p.default)


def test_the_spec_parser_the_tuner_and_the_server_read_one_declaration():
    quixo = games.make_game("quixo")
    cls = registry.agent_class("quixo", "alphabeta")
    p = tune.spec_parameters("alphabeta", quixo)["tt_bits"]
    assert (p.lo, p.hi, p.server) == (AGENT_PARAMS["tt_bits"].lo, AGENT_PARAMS["tt_bits"].hi, AGENT_PARAMS["tt_bits"].server)
    assert p.default == agent_params(cls)["tt_bits"].default == cls().tt_bits
    assert convert_params(cls, "alphabeta", {"tt_bits": "24"}) == {"tt_bits": 24}
    with pytest.raises(SpecError, match=r"^parameter tt_bits of agent 'alphabeta' must be an integer from 4 to 22, "
                                        r"got 24 on this server$"):
        convert_params(cls, "alphabeta", {"tt_bits": "24"}, server=True)
    with pytest.raises(SpecError, match=r"^parameter tt_bits of agent 'alphabeta' must be an integer from 4 to 26, got 27$"):
        convert_params(cls, "alphabeta", {"tt_bits": "27"})
