"""The compiled worker's boot: what ``python -c jit_worker.BOOT`` runs (BOOT: the bundle
loader's rendered part, then this module's, then ``boot_worker()``; see
:mod:`base.bundle_loader`). It opens the answer pipe, reads the header, makes the project
importable (a bundle's sources through the bundle loader, as the submission file does, or a
repo ``root``), then runs :func:`agents.reinforce_tactics.jit_worker.serve`. Imported by
jit_worker only to read its source (importing it runs nothing).
"""
from __future__ import annotations

from base.bundle_loader import install_bundle

# --- rendered from here: the compiled worker's boot, after the bundle loader


def boot_worker():
    import importlib
    import json
    import os
    import sys

    answers = os.fdopen(int(os.environ.pop("RT_WORKER_FD")), "w", encoding="utf-8")  # the answer pipe (jit_worker.FD_VAR)
    os.set_inheritable(answers.fileno(), False)
    head = json.loads(sys.stdin.readline())
    prefix, sources = head.get("prefix", ""), head.get("sources") or {}
    if head.get("root"):
        sys.path.insert(0, head["root"])
    if sources:
        install_bundle(prefix, sources, "<worker-bundle>")
    head["sources"] = None
    importlib.import_module((prefix + "." if prefix else "") + "agents.reinforce_tactics.jit_worker").serve(head, sys.stdin, answers)
