"""Two commits' benchmark figures side by side, in one run: the before/after ratios a refactor
must show.

    python -m bench.ab --before HEAD~1 [--after WORKTREE_OR_REV] [--repeats 3] -- bench.dfs_speed --time 1

The benchmark module (after ``--``, with its arguments) runs in a clean checkout of each commit
(``git worktree`` under a temporary folder; ``--after`` defaults to this working tree as it is,
uncommitted changes included), alternately, ``--repeats`` times, so that load on the machine
hits both alike. Each run's own benchmark script is used and must end with a ``FIGURES`` line
(:mod:`bench.figures`); figures present in both are printed as the median of the runs, with the
ratio after / before. Which direction is better is each figure's own: a rate wants >= 1, a time
<= 1. A benchmark module the baseline's commit lacks runs there from this tree's copy.
"""
from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from base.cli import OneLineParser
from bench.figures import parse

ROOT = Path(__file__).resolve().parent.parent


def checkout(rev: str, where: Path) -> Path:
    """A detached worktree of ``rev`` at ``where`` (raises SystemExit(2) naming a bad revision)."""
    ok = subprocess.run(["git", "rev-parse", "--verify", "--quiet", rev + "^{commit}"], cwd=ROOT,
                        capture_output=True, text=True)
    if ok.returncode != 0:
        print(f"ab: {rev!r} is not a commit of this repository; pass a revision such as HEAD~1", file=sys.stderr)
        raise SystemExit(2)
    subprocess.run(["git", "worktree", "add", "--detach", str(where), rev], cwd=ROOT, check=True,
                   capture_output=True)
    return where


def provide_module(tree: Path, name: str) -> None:
    """Copy module ``name``'s file from this tree into the checkout ``tree`` when that commit
    lacks it: a benchmark newer than the baseline then measures the baseline's code with this
    tree's script (said on stderr)."""
    rel = Path(*name.split(".")).with_suffix(".py")
    if not (tree / rel).exists() and (ROOT / rel).is_file():
        print(f"ab: {rel} is not in {tree.name}'s commit: running this tree's copy there", file=sys.stderr)
        shutil.copyfile(ROOT / rel, tree / rel)


def run_once(tree: Path, module: list[str]) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(tree))
    out = subprocess.run([sys.executable, "-m", *module], cwd=tree, env=env, capture_output=True, text=True)
    figures = parse(out.stdout)
    if out.returncode != 0 or not figures:
        tail = (out.stderr or out.stdout).strip().splitlines()[-1:] or ["no output"]
        print(f"ab: {' '.join(module)} failed in {tree} (exit {out.returncode}): {tail[0]}", file=sys.stderr)
        raise SystemExit(1)
    return figures


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--" not in argv and not {"-h", "--help"} & set(argv):
        print("ab: give the benchmark after --, e.g. python -m bench.ab --before HEAD~1 -- bench.dfs_speed", file=sys.stderr)
        return 2
    cut = argv.index("--") if "--" in argv else len(argv)
    ap = OneLineParser(prog="python -m bench.ab", description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the baseline revision")
    ap.add_argument("--after", default=None, help="revision to compare (default: this working tree)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each side, alternated (median)")
    args = ap.parse_args(argv[:cut])
    module = argv[cut + 1:]
    if not module or args.repeats < 1:
        print("ab: name a benchmark module after -- and use --repeats >= 1", file=sys.stderr)
        return 2
    tmp = Path(tempfile.mkdtemp(prefix="ab_"))
    trees = []
    try:
        before = checkout(args.before, tmp / "before")
        trees.append(before)
        after = ROOT if args.after is None else checkout(args.after, tmp / "after")
        if args.after is not None:
            trees.append(after)
        for tree in trees:
            provide_module(tree, module[0])
        runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
        for i in range(args.repeats):
            for side, tree in (("before", before), ("after", after)):
                print(f"run {i + 1}/{args.repeats} {side}...", file=sys.stderr, flush=True)
                runs[side].append(run_once(tree, module))
    except KeyboardInterrupt:
        print("ab: interrupted", file=sys.stderr)
        return 130
    finally:
        for tree in trees:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)
    names = sorted(set(runs["before"][0]) & set(runs["after"][0]))
    print(f"{' '.join(module)}: before {args.before}, after {args.after or 'working tree'}, median of {args.repeats}")
    print(f"{'figure':40} {'before':>14} {'after':>14} {'after/before':>12}")
    for name in names:
        b = statistics.median(r[name] for r in runs["before"] if name in r)
        a = statistics.median(r[name] for r in runs["after"] if name in r)
        print(f"{name:40} {b:14,.4g} {a:14,.4g} {a / b if b else float('nan'):12.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
