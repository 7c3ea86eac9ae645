"""The bundle loader: serves a submission's embedded modules as ``<prefix>.<name>``, and the one
reading of a module's *rendered part* (the source below its :data:`MARK` line).

A submission file (:mod:`base.bundle_file`) and the compiled worker's boot
(:mod:`agents.reinforce_tactics.worker_boot`) run before any project module can be imported,
so they carry code as text: each such piece is a real module here (linted, type-checked,
tested), and what goes into the text is the part of its source below :data:`MARK`
(:func:`rendered_source`). This module's own rendered part is :func:`install_bundle`: the one
loader of both. A rendered part imports nothing of the project and no ``__future__``; the
names it uses from the text above it are declared above its mark.
"""
from __future__ import annotations

import importlib.util

MARK = "# --- rendered from here"
"""The line that starts a module's rendered part (the rest of that line is a comment)."""


def rendered_source(module_name: str) -> str:
    """The source of module ``module_name`` below its :data:`MARK` line, ending in one newline:
    read through its loader, so that it works in the repo and inside a bundle (the finder below
    answers ``get_source``). ImportError when the module has no source or no mark."""
    spec = importlib.util.find_spec(module_name)
    loader = getattr(spec, "loader", None) if spec is not None else None
    get_source = getattr(loader, "get_source", None)
    source = get_source(module_name) if callable(get_source) else None
    if not isinstance(source, str):
        raise ImportError(f"module {module_name} has no source to render")
    _, mark, rest = source.partition("\n" + MARK)
    if not mark:
        raise ImportError(f"module {module_name} has no line {MARK!r}: nothing to render")
    return rest.partition("\n")[2].strip("\n") + "\n"


# --- rendered from here: into every submission file and into the compiled worker's boot


def install_bundle(prefix, sources, label="<connectx-bundle>"):
    """Serve each embedded module of ``sources`` (name -> (is a package, source)) as
    ``<prefix>.<name>`` (its own module, its own namespace) through a meta-path finder, which
    also answers ``get_source``; tracebacks name ``<label>/<path>``. Idempotent: loading a file
    again reuses the modules already imported."""
    import importlib.abc
    import importlib.util
    import linecache
    import sys

    if any(getattr(f, "connectx_prefix", None) == prefix for f in sys.meta_path):
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

        def get_source(self, fullname):
            rel = fullname[len(prefix) + 1:]
            return sources[rel][1] if fullname.startswith(prefix + ".") and rel in sources else None

        def exec_module(self, module):
            if module.__name__ == prefix:
                return
            rel = module.__name__[len(prefix) + 1:]
            is_package, source = sources[rel]
            filename = label + "/" + rel.replace(".", "/") + ("/__init__.py" if is_package else ".py")
            linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
            module.__file__ = filename
            exec(compile(source, filename, "exec"), module.__dict__)

    sys.meta_path.append(BundleFinder())
