"""Agent names, their parameters, and agent specs such as ``alphabeta:heuristic=bitsquares,max_depth=6``.

Each name maps to ``module:Class`` (a dataclass implementing :class:`agents.base.Agent`). A name
whose module is not importable (not written yet, or a missing optional dependency) is left out
of :func:`names` with the reason kept for error messages.
"""
from __future__ import annotations

import dataclasses
import importlib
import typing
from typing import Any

# Strongest first: the first importable name is build_submission.py's default.
AGENT_CLASSES: dict[str, str] = {
    "perfect": "agents.perfect:PerfectAgent",
    "alphabeta": "agents.alphabeta:AlphaBetaAgent",
    "negamax": "agents.alphabeta:NegamaxAgent",
    "mcts": "agents.mcts:MCTSAgent",
    "ant_colony": "agents.ant_colony:AntColonyAgent",
    "rules": "agents.rules:RulesAgent",
    "random": "agents.random_agent:RandomAgent",
}

STRENGTH_ORDER: tuple[str, ...] = tuple(AGENT_CLASSES)


class SpecError(ValueError):
    """A bad agent name, parameter or value: the message says which and lists the valid ones."""


def agent_class(name: str) -> type:
    if name not in AGENT_CLASSES:
        raise SpecError(f"unknown agent {name!r}; valid agents: {', '.join(names())}")
    module_name, cls_name = AGENT_CLASSES[name].split(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpecError(f"agent {name!r} is not available ({exc}); valid agents: {', '.join(names())}") from None
    return getattr(module, cls_name)


def names() -> list[str]:
    """Names of the agents that can be built here, strongest first."""
    out = []
    for name, target in AGENT_CLASSES.items():
        try:
            module = importlib.import_module(target.split(":")[0])
        except ImportError:
            continue
        if hasattr(module, target.split(":")[1]):
            out.append(name)
    return out


def parameters(name: str) -> dict[str, Any]:
    """Parameter names of agent ``name`` with their defaults."""
    cls = agent_class(name)
    return {f.name: _default(f) for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")}


def _default(f: dataclasses.Field) -> Any:
    if f.default is not dataclasses.MISSING:
        return f.default
    if f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return f.default_factory()  # type: ignore[misc]
    return None


def _convert(name: str, key: str, value: Any, annotation: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return value
    text = value.strip()
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    if len(args) == 1 and len(typing.get_args(annotation)) == 2:  # Optional[X], e.g. ``int | None``
        if text.lower() == "none":
            return None
        annotation = args[0]
    target = annotation if isinstance(annotation, type) else type(default) if default is not None else str
    try:
        if target is bool:
            if text.lower() in ("1", "true", "yes", "on"):
                return True
            if text.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError
        if target is int:
            return int(text)
        if target is float:
            return float(text)
        if text.lower() == "none" and default is None:
            return None
        return text
    except ValueError:
        raise SpecError(f"parameter {key}={value!r} of agent {name!r} must be a {target.__name__}") from None


def convert_params(cls: type, label: str, params: dict[str, Any]) -> dict[str, Any]:
    """``params`` checked against the dataclass ``cls``'s fields, strings converted to each
    field's type. ``label`` names the agent in error messages."""
    fields = {f.name: f for f in dataclasses.fields(cls) if f.init and not f.name.startswith("_")}
    hints = typing.get_type_hints(cls)
    kwargs = {}
    for key, value in params.items():
        if key not in fields:
            valid = ", ".join(sorted(fields)) or "(none)"
            raise SpecError(f"agent {label!r} has no parameter {key!r}; valid parameters: {valid}")
        kwargs[key] = _convert(label, key, value, hints.get(key), _default(fields[key]))
    return kwargs


def make(name: str, **params: Any) -> Any:
    """Build agent ``name`` with ``params`` (strings are converted to the field's type)."""
    cls = agent_class(name)
    kwargs = convert_params(cls, name, params)
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:
        raise SpecError(f"agent {name!r}: {exc}") from None


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"alphabeta:heuristic=bitsquares,max_depth=6"`` -> ``("alphabeta", {"heuristic": ..., "max_depth": "6"})``."""
    name, _, rest = spec.strip().partition(":")
    params: dict[str, str] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise SpecError(f"bad parameter {item!r} in agent spec {spec!r}; write key=value, comma-separated")
        params[key.strip()] = value.strip()
    return name.strip(), params


def make_from_spec(spec: str) -> Any:
    name, params = parse_spec(spec)
    return make(name, **params)
