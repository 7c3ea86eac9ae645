"""The tree a depth-limited minimax or alpha-beta explores from a position, for people: each node
with its action (the game's text), value, depth, and whether it was cut off; exported as plain
dicts (JSON, for the web app), Graphviz DOT, and SVG when Graphviz's ``dot`` is installed.

Plain Python on :class:`core.game.State` on purpose: it is for pictures of small trees, and a
cap on the nodes recorded stops it with a clear message (:class:`TreeTooLarge`).

Values are for the side to move at each node, in the game's outcome units: a finished game
scores its outcome for the mover; a node at the depth limit scores the heuristic divided by
:data:`agents.engine.negamax.WIN_SCALE` (the engine's heuristics are in search units); a chance
node is such a leaf too (scored for the player who moved into it, as in the kernel). With
alpha-beta a value at or below the node's alpha is an upper bound (``<=``), at or above its
beta a lower bound (``>=``); the siblings after a cut-off are listed, unsearched, as ``cut``.
"""
from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass, field
from typing import Any

from agents.engine.negamax import WIN_SCALE, heuristic_function
from core.game import State

DEFAULT_CAP = 2000  # nodes recorded at most (cut-off siblings included)


class TreeTooLarge(ValueError):
    """The tree would exceed the node cap."""


@dataclass
class Node:
    action: int | None  # the action leading here (None at the root)
    text: str  # that action in the game's notation ("root" at the root)
    depth: int  # plies from the root
    player: int  # side to move here (-1: chance)
    value: float | None = None  # for the side to move here (None: cut off, not searched)
    bound: str = "exact"  # "exact", "upper" (value <=), "lower" (value >=)
    cut: bool = False  # pruned by alpha-beta: never searched
    terminal: bool = False
    leaf: bool = False  # scored by the heuristic (depth limit or chance node)
    children: list[Node] = field(default_factory=list)

    def to_dict(self) -> dict:
        """Plain JSON-able dicts, children nested."""
        return {"action": self.action, "text": self.text, "depth": self.depth, "player": self.player,
                "value": self.value, "bound": self.bound, "cut": self.cut, "terminal": self.terminal,
                "leaf": self.leaf, "children": [c.to_dict() for c in self.children]}

    def count(self) -> int:
        return 1 + sum(c.count() for c in self.children)


class _Builder:
    def __init__(self, game: Any, heuristic: Any, params: Any, prune: bool, cap: int) -> None:
        fn, default = heuristic_function(game, heuristic)
        self.evaluate = fn
        self.params = list(default if params is None else params) or [0.0]
        self.prune = prune
        self.cap = cap
        self.count = 0
        self.game = game

    def make(self, state: State, action: int | None, parent: State | None, depth: int) -> Node:
        self.count += 1
        if self.count > self.cap:
            raise TreeTooLarge(f"the tree has more than {self.cap} nodes: lower the depth (--tree-depth) or "
                               "raise the cap (--tree-cap)")
        text = "root" if parent is None or action is None else parent.action_to_string(action)
        player = -1 if state.is_chance_node() else state.current_player()
        return Node(action, text, depth, player)

    def heuristic(self, state: State) -> float:
        if self.evaluate is None:
            return 0.0
        return float(self.evaluate(self.game.g, state.words, self.params)) / WIN_SCALE

    def value(self, node: Node, state: State, depth: int, alpha: float, beta: float) -> float:
        """Value for ``state``'s side to move within ``(alpha, beta)``; fills ``node``."""
        if state.is_terminal():
            r0 = state.returns()[0]
            node.terminal = True
            node.value = (r0 if state.current_player() == 0 else -r0) + 0.0
            return node.value
        if depth == 0:
            node.leaf = True
            node.value = self.heuristic(state)
            return node.value
        me = state.current_player()
        actions = state.legal_actions()
        best = float("-inf")
        start_alpha = alpha
        for i, a in enumerate(actions):
            child_state = state.apply(a)
            child = self.make(child_state, a, state, node.depth + 1)
            node.children.append(child)
            if child_state.is_chance_node():
                child.leaf = True
                child.value = self.heuristic(child_state)
                v = child.value
            elif child_state.current_player() == me:  # the same player moves again
                v = self.value(child, child_state, depth - 1, alpha, beta)
            else:
                v = -self.value(child, child_state, depth - 1, -beta, -alpha)
            best = max(best, v)
            if self.prune:
                alpha = max(alpha, v)
                if alpha >= beta:
                    for b in actions[i + 1:]:
                        pruned = self.make(state.apply(b), b, state, node.depth + 1)
                        pruned.cut = True
                        node.children.append(pruned)
                    break
        node.value = best + 0.0
        if self.prune:
            node.bound = "upper" if best <= start_alpha else ("lower" if best >= beta else "exact")
        return node.value


def explore(state: State, depth: int, method: str = "alphabeta", heuristic: Any = None, params: Any = None,
            cap: int = DEFAULT_CAP) -> Node:
    """The tree ``method`` ("alphabeta" or "minimax") explores from ``state`` to ``depth`` plies;
    raises :class:`TreeTooLarge` past ``cap`` nodes."""
    if method not in ("alphabeta", "minimax"):
        raise ValueError(f"unknown tree method {method!r}; valid: alphabeta, minimax")
    if depth < 0:
        raise ValueError("the tree depth must be >= 0")
    b = _Builder(state.game, heuristic, params, method == "alphabeta", cap)
    root = b.make(state, None, None, 0)
    if state.is_chance_node():
        raise ValueError("the position is a chance node: trees start where a player moves")
    b.value(root, state, depth, float("-inf"), float("inf"))
    return root


# --- export -------------------------------------------------------------------------------------
def _fmt(v: float) -> str:
    return f"{v:.4g}"


def to_dot(root: Node, title: str = "") -> str:
    """Graphviz DOT text of the tree: a box per node (action, value with its bound), cut-off
    nodes dashed grey, terminal nodes double-bordered, heuristic leaves italic."""
    lines = ["digraph search {", '  node [shape=box, fontname="Helvetica", fontsize=10];', "  edge [arrowsize=0.5];"]
    if title:
        lines.append(f'  labelloc="t"; label="{_escape(title)}";')
    counter = [0]

    def walk(n: Node) -> str:
        name = f"n{counter[0]}"
        counter[0] += 1
        if n.cut:
            label = f"{n.text}\\ncut off"
            style = 'style=dashed, color=gray, fontcolor=gray'
        else:
            sign = {"exact": "", "upper": "<=", "lower": ">="}[n.bound]
            who = "chance" if n.player < 0 else f"P{n.player}"
            label = f"{n.text}\\n{who} {sign}{_fmt(n.value if n.value is not None else 0.0)}"
            style = "peripheries=2" if n.terminal else ('fontname="Helvetica-Oblique"' if n.leaf else "")
        lines.append(f'  {name} [label="{_escape(label, keep_newlines=True)}"{", " + style if style else ""}];')
        for c in n.children:
            child = walk(c)
            lines.append(f"  {name} -> {child}{' [style=dashed, color=gray]' if c.cut else ''};")
        return name

    walk(root)
    lines.append("}")
    return "\n".join(lines) + "\n"


def _escape(text: str, keep_newlines: bool = False) -> str:
    out = text.replace("\\", "\\\\").replace('"', '\\"')
    return out.replace("\\\\n", "\\n") if keep_newlines else out


def dot_available() -> bool:
    """Whether Graphviz's ``dot`` binary is on the PATH (SVG export needs it)."""
    return shutil.which("dot") is not None


def to_svg(dot_text: str) -> str:
    """SVG of DOT text through Graphviz's ``dot``; raises RuntimeError when it is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError("SVG needs Graphviz's dot (e.g. apt-get install graphviz); write a .dot or .json file instead")
    done = subprocess.run([exe, "-Tsvg"], input=dot_text.encode(), capture_output=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode(errors='replace').strip()[:200]}")
    return done.stdout.decode()


def write(root: Node, path: str, title: str = "") -> str:
    """Write the tree to ``path`` atomically: ``.json`` dicts, ``.svg`` (needs ``dot``), else DOT.
    Returns the format written."""
    from base.atomic import write_text

    if path.endswith(".json"):
        write_text(path, json.dumps(root.to_dict()) + "\n")
        return "json"
    dot = to_dot(root, title)
    if path.endswith(".svg"):
        write_text(path, to_svg(dot))
        return "svg"
    write_text(path, dot)
    return "dot"


__all__ = ["Node", "explore", "to_dot", "to_svg", "write", "dot_available", "TreeTooLarge", "DEFAULT_CAP"]
