"""Write the text of a submission file from bundled modules (see :mod:`base.bundle`).

The file, top to bottom: a docstring saying what was built; ``_LOAD_STARTED`` (Kaggle's timer
for the first move already runs while the file loads, so the adapter counts from here); the
agent's class, parameters, clock policy and packed data as literals; every module's source; a
small meta-path finder serving ``<prefix>.<module>`` from those sources; the adapter; and last,
``def agent(observation, configuration)``, the last callable, which Kaggle plays.

The agent's own module is imported lazily, inside the adapter's first call, so an import error
there (a missing optional package on Kaggle) is caught and answered by the fast rule instead
of breaking the file.
"""
from __future__ import annotations

import ast
from typing import Any

from base.bundle import ModuleSource, rewrite_imports

_HEADER = '''"""{title} submission for Kaggle, built by build_submission.py: do not edit, rebuild.

Agent: {label} ({target}), parameters {params}
Clock: {clock}
Built {built} from commit {commit}; {count} project modules under the private package
{prefix}; embedded data: {data}.
Kaggle plays the last callable, agent(observation, configuration). numba is used when present.
"""
'''

_INSTALLER = '''

def _install_bundle(prefix, sources):
    """Serve each embedded module as <prefix>.<name> (its own module, its own namespace) through a
    meta-path finder. Idempotent: loading this file again reuses the modules already imported."""
    import importlib.abc
    import importlib.util
    import linecache

    if any(getattr(f, "connectx_prefix", None) == prefix for f in _sys.meta_path):
        return

    class BundleFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
        connectx_prefix = prefix

        def find_spec(self, fullname, path=None, target=None):
            rel = fullname[len(prefix) + 1:] if fullname.startswith(prefix + ".") else None
            if fullname == prefix or rel in sources:
                return importlib.util.spec_from_loader(fullname, self, is_package=rel is None or sources[rel][0])
            return None

        def create_module(self, spec):
            return None

        def exec_module(self, module):
            if module.__name__ == prefix:
                return
            rel = module.__name__[len(prefix) + 1:]
            is_package, source = sources[rel]
            filename = "<connectx-bundle>/" + rel.replace(".", "/") + ("/__init__.py" if is_package else ".py")
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            module.__file__ = filename
            exec(compile(source, filename, "exec"), module.__dict__)

    _sys.meta_path.append(BundleFinder())

'''

_CONNECTX_ADAPTER = '''

def _make_agent():
    import importlib

    cls = getattr(importlib.import_module(_PREFIX + "." + _AGENT_MODULE), _AGENT_CLASS)
    return cls(**_PARAMS)


def _make_adapter():
    import importlib

    _install_bundle(_PREFIX, _SOURCES)
    kaggle = importlib.import_module(_PREFIX + ".agents.connectx.kaggle")
    clock = importlib.import_module(_PREFIX + ".base.clock")
    return kaggle.KaggleAdapter(_make_agent, policy=clock.ClockPolicy(**_CLOCK), packed_data=_DATA, started_at=_LOAD_STARTED)


def _last_resort(observation, configuration):
    """Used only if the bundle itself cannot load: the most central column whose top cell is
    empty (Kaggle's legality test), else 0. Never raises."""
    try:
        get = lambda obj, key: obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)
        board, columns = list(get(observation, "board")), int(get(configuration, "columns"))
        order = sorted(range(min(columns, len(board))), key=lambda c: (abs(c - (columns - 1) / 2), c))
        return next((c for c in order if board[c] == 0), 0)
    except Exception:
        return 0


try:
    _ADAPTER = _make_adapter()
except Exception as _exc:  # a broken bundle: still answer, and say so in Kaggle's logs
    _sys.stderr.write("[connectx] ERROR the bundled modules failed to load (%s: %s)\\n" % (type(_exc).__name__, _exc))
    _ADAPTER = _last_resort


def agent(observation, configuration):
    """Kaggle's entry point: always a plain int, a legal column whenever one exists."""
    return _ADAPTER(observation, configuration)
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


def render(
    modules: dict[str, ModuleSource],
    prefix: str,
    agent_module: str,
    agent_class: str,
    params: dict[str, Any],
    clock: dict[str, Any],
    packed_data: str | None,
    meta: dict[str, str],
    adapter: str = "",
) -> str:
    """The submission's text. ``meta``: label, target, built, commit, title (the game's name;
    shown in the docstring). ``adapter``: the file's tail after the module installer, which
    defines ``agent(observation, configuration)`` last (default: ConnectX's; Reinforce
    Tactics': :data:`RT_ADAPTER`)."""
    tops = {name.split(".")[0] for name in modules}
    header = _HEADER.format(
        title=meta.get("title", "ConnectX"),
        label=meta.get("label", agent_class),
        target=f"{agent_module}:{agent_class}",
        params=params or "(defaults)",
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
        "_SOURCES = {  # module name -> (is a package, source with project imports under _PREFIX)\n",
    ]
    for name, mod in modules.items():
        text = rewrite_imports(mod.source, prefix, tops)
        parts.append(f"    {name!r}: ({mod.is_package}, {_source_literal(text)}),\n")
    parts.append("}\n")
    parts.append(_INSTALLER + (adapter or _CONNECTX_ADAPTER))
    return "".join(parts)
