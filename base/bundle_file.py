"""Write the text of a submission file from bundled modules (see :mod:`base.bundle`).

The file, top to bottom: a docstring saying what was built; ``_LOAD_STARTED`` (Kaggle's timer
for the first move already runs while the file loads, so the adapter counts from here); the
agent's class, parameters, clock policy, packed data and the game's own literals (``literals``:
Reinforce Tactics' ``_WORKER``); every module's source; the bundle loader (the rendered part of
:mod:`base.bundle_loader`: a meta-path finder serving ``<prefix>.<module>`` from those
sources); and the game's tail (the rendered part of the module its submission hooks name,
e.g. :mod:`agents.connectx.file_tail`), which ends with ``def agent(observation,
configuration)``, the last callable, which Kaggle plays. The loader and the tail are real
modules, linted and type-checked; :func:`base.bundle_loader.rendered_source` reads the part
that goes into the file, each under a ``# --- from <module>`` line.

The agent's own module is imported lazily, inside the adapter's first call, so an import error
there (a missing optional package on Kaggle) is caught and answered by the tail's last resort
instead of breaking the file.
"""
from __future__ import annotations

import ast
from typing import Any

from base import codec
from base.bundle import ModuleSource, rewrite_imports
from base.bundle_loader import rendered_source

_HEADER = '''"""{title} submission for Kaggle, built by build_submission.py: do not edit, rebuild.

Agent: {label} ({target}), parameters {params}
Clock: {clock}
Built {built} from commit {commit}; {count} project modules under the private package
{prefix}; embedded data: {data}.
Kaggle plays the last callable, agent(observation, configuration). numba is used when present.
"""
'''


def literal(value: Any, what: str) -> str:
    """``repr(value)`` when it reads back as the same Python literal, else ValueError."""
    text = repr(value)
    try:
        same = ast.literal_eval(text) == value
    except (ValueError, SyntaxError):
        same = False
    if not same:
        raise ValueError(f"{what} = {value!r} cannot be written as a Python literal")
    return text


def _source_literal(source: str) -> str:
    if not source:
        return '""'
    body = "".join(f"        {line!r}\n" for line in source.splitlines(keepends=True))
    return "(\n" + body + "    )"


def rendered(module_name: str) -> str:
    """Module ``module_name``'s rendered part as the file holds it, under a line naming it."""
    return f"\n\n# --- from {module_name} (its source below the mark; base.bundle_loader.rendered_source)\n\n" + rendered_source(module_name)


LOADER = "base.bundle_loader"  # the module whose rendered part installs the bundle in the file


def render(
    modules: dict[str, ModuleSource],
    prefix: str,
    agent_module: str,
    agent_class: str,
    params: dict[str, Any],
    clock: dict[str, Any],
    packed_data: str | None,
    meta: dict[str, str],
    tail: str,
    literals: dict[str, Any] | None = None,
) -> str:
    """The submission's text. ``meta``: label, built, commit, title (the game's name; shown in
    the docstring). ``tail``: the module whose rendered part ends the file, defining ``agent``
    last. ``literals``: more names the tail reads (``{"_WORKER": spec}``), written as literals."""
    tops = {name.split(".")[0] for name in modules}
    header = _HEADER.format(
        title=meta.get("title", "Kaggle"),
        label=meta.get("label", agent_class),
        target=f"{agent_module}:{agent_class}",
        params=codec.brief(params) or "(defaults)",
        clock=clock or "(defaults)",
        built=meta.get("built", "?"),
        commit=meta.get("commit", "?"),
        count=len(modules),
        prefix=prefix,
        data="none" if packed_data is None else f"{len(packed_data)} characters (base.codec, checksum verified on load)",
    )
    parts = [
        header,
        "import time as _time\n\n_LOAD_STARTED = _time.perf_counter()  # Kaggle's first-move timer covers loading\n\nimport sys as _sys\n\n",
        f"_PREFIX = {prefix!r}\n",
        f"_AGENT_MODULE = {agent_module!r}\n",
        f"_AGENT_CLASS = {agent_class!r}\n",
        f"_PARAMS = {literal(params, 'agent parameters')}\n",
        f"_CLOCK = {literal(clock, 'clock policy')}\n",
        f"_DATA = {packed_data!r}\n",
        *(f"{name} = {literal(value, name)}\n" for name, value in (literals or {}).items()),
        "_SOURCES = {  # module name -> (is a package, source with project imports under _PREFIX)\n",
    ]
    for name, mod in modules.items():
        text = rewrite_imports(mod.source, prefix, tops)
        parts.append(f"    {name!r}: ({mod.is_package}, {_source_literal(text)}),\n")
    parts.append("}\n")
    parts.append(rendered(LOADER) + rendered(tail))
    return "".join(parts)
