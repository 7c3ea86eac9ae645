"""Play a built Reinforce Tactics submission in kaggle-environments, in a process that cannot
see the repo, and check every turn it sent.

Run by ``build_submission.py --game reinforce_tactics`` as ``python -I util/bundle_validate_rt.py
...`` (``-I``: neither the repo, the current folder nor PYTHONPATH is on ``sys.path``), so it
imports nothing from the project: a submission that still needs the repo fails here, as it
would on Kaggle. It loads the file as kaggle-environments does (``get_last_callable``, once per
game: the bundle's modules stay loaded, as in one Kaggle process) and writes a JSON report.

**Skipped actions, from the engine's own record.** The interpreter replaces the acting agent's
``action`` in the step with the entries it executed (``_process_turn``: ``agent.action =
executed``). The agent is called through a wrapper that keeps the list it returned, keyed by
the observation's ``step``; the entries of that list the engine did not execute are the skipped
ones (:func:`skipped_entries`): those before the last executed entry, and those after it unless
the turn ended there (an ``end_turn``, or the game over). A list entry that is not a dict is a
forfeit, counted apart.
"""
from __future__ import annotations

import contextlib
import copy
import io
import os
import random
import runpy
import sys
import time

# The validators' shared part (util/bundle_isolation.py), loaded by its path: the repo stays hidden.
_SHARED = runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "bundle_isolation.py"))
write_report, _Parser, _run = _SHARED["write_report"], _SHARED["Parser"], _SHARED["run"]



def skipped_entries(sent: list, executed: list, game_over: bool) -> int:
    """How many dict entries of the turn ``sent`` the engine skipped, given the entries it
    ``executed`` (in order; a subsequence of ``sent``) and whether the game ended in this turn."""
    sent = [d for d in sent if isinstance(d, dict)]
    j = 0
    last = -1  # index in sent of the last executed entry
    for i, d in enumerate(sent):
        if j < len(executed) and d == executed[j]:
            j += 1
            last = i
    if j < len(executed):  # the engine's record is not a subsequence of what was sent: count it all
        return len(sent)
    ended = last >= 0 and (sent[last].get("type") == "end_turn" or game_over)
    before = (last + 1) - j
    after = 0 if ended else len(sent) - (last + 1)
    return before + after


def _errors(text: str) -> list[str]:
    return [line for line in (text or "").splitlines() if line.startswith("[rt] ERROR") or "Traceback" in line]


PATHS = ("worker_turns", "plain_turns", "fallback_turns")  # the adapter's counts of who planned each turn


def _paths(adapter: object) -> dict[str, int]:
    """The file's counts of who planned its turns so far (:data:`PATHS`, kaggle_agent.RTKaggleAdapter's
    stats): by the compiled worker, plain before it was ready, plain after (0s for a file without them)."""
    stats = getattr(adapter, "stats", None)
    return {k: int(stats.get(k, 0)) if isinstance(stats, dict) else 0 for k in PATHS}


def _worker_wait(adapter: object) -> float:
    """Seconds the file's worker had had at its last turn planned plain before it was ready (its stats' ``worker_wait_s``)."""
    stats = getattr(adapter, "stats", None)
    wait = stats.get("worker_wait_s", 0.0) if isinstance(stats, dict) else 0.0
    return float(wait) if isinstance(wait, (int, float)) else 0.0


def load_per_core() -> float:
    """The machine's 1-minute load average per core now (0.0 where the system has none)."""
    try:
        return os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:
        return 0.0


def _worker_expected(file_globals: dict) -> bool:
    """Whether the file should plan with its compiled worker here: it names one (``_WORKER``)
    and numba may be imported (CONNECTX_NUMBA is not 0 and numba is found; ``--no-numba``'s
    ``sys.modules["numba"] = None`` hides it). Decided here, not by the file's own
    ``jit_worker.numba_present``: validation checks the file's choice."""
    if file_globals.get("_WORKER") is None or os.environ.get("CONNECTX_NUMBA", "1") == "0":
        return False
    import importlib.util

    try:
        return importlib.util.find_spec("numba") is not None
    except (ImportError, ValueError):
        return False


def play(path: str, map_name: str, opponent: str, seat: int, seed: int, steps: int, act: float,
         environment: str = "reinforce_tactics") -> dict:
    """One game; ``seat`` 0 moves first. Our turns' durations as Kaggle logged them."""
    from kaggle_environments import make
    from kaggle_environments.agent import get_last_callable

    random.seed(seed)
    with open(path, encoding="utf-8") as f:
        raw = f.read()
    started = time.perf_counter()
    with contextlib.redirect_stderr(io.StringIO()) as load_err:
        fn = get_last_callable(raw, path=path)
    load_s = time.perf_counter() - started
    sent: dict[int, list] = {}
    forfeits = 0

    def wrapped(observation, configuration):
        nonlocal forfeits
        out = fn(observation, configuration)
        kept = copy.deepcopy(out)
        if not isinstance(kept, list) or any(not isinstance(d, dict) for d in kept):
            forfeits += 1
        sent[int(observation.step)] = kept if isinstance(kept, list) else [kept]
        return out

    file_globals = getattr(fn, "__globals__", {})
    adapter = file_globals.get("_ADAPTER")
    paths_before = _paths(adapter)
    env = make(environment, configuration={"mapName": map_name, "seed": seed, "episodeSteps": steps, "actTimeout": act})
    players = [wrapped, opponent] if seat == 0 else [opponent, wrapped]
    t_run = time.perf_counter()
    result = env.run(players)
    wall = time.perf_counter() - t_run
    durations, errors, skipped = [], _errors(load_err.getvalue()), 0
    turns: list[dict] = []
    for k in sorted(sent):
        if k + 1 >= len(result):
            continue
        executed = result[k + 1][seat].action or []
        over = result[k + 1][seat].status == "DONE"
        n = skipped_entries(sent[k], list(executed), over)
        skipped += n
        if n and len(turns) < 3:
            turns.append({"step": k, "sent": sent[k], "executed": executed})
    for step_logs in env.logs:
        if len(step_logs) > seat and isinstance(step_logs[seat], dict) and "duration" in step_logs[seat]:
            durations.append(step_logs[seat]["duration"])
            errors += _errors(step_logs[seat].get("stderr", ""))
    last = result[-1][seat]
    return {
        "map": map_name, "opponent": opponent, "seat": seat, "seed": seed,
        "status": last.status, "reward": last.reward, "steps": len(result) - 1,
        "turns": len(sent), "durations": durations, "load_s": load_s,
        "errors": errors[:5], "error_count": len(errors), "skipped": skipped, "skipped_examples": turns,
        "forfeits": forfeits, "act_timeout": act, "wall_s": wall,
        **{k: n - paths_before[k] for k, n in _paths(adapter).items()},
        "worker_expected": _worker_expected(file_globals), "worker_wait_s": _worker_wait(adapter),
        "worker_stopped": str(getattr(adapter, "worker_stopped", "") or ""), "load_per_core": load_per_core(),
        "bank_used": sum(max(0.0, d - act) for d in durations),
    }


def main(argv: list[str] | None = None) -> int:
    parser = _Parser("bundle_validate_rt", __doc__, "reinforce_tactics")
    parser.add_argument("--maps", required=True, help="built-in map names, comma-separated")
    parser.add_argument("--opponents", default="random,aggressive", help="kaggle-environments built-in agents, comma-separated")
    parser.add_argument("--seats", default="0,1", help="our seats to play on each map (0 moves first)")
    parser.add_argument("--episode-steps", type=int, default=200, help="Kaggle's episodeSteps (200)")
    parser.add_argument("--act-timeout", type=float, default=5.0, help="Kaggle's actTimeout in seconds (5)")
    parser.add_argument("--seed", type=int, default=0, help="episode seed (terrain flips) and seed of Python's random")
    args = parser.parse(argv)
    report: dict = {"python": sys.version.split()[0], "no_numba": args.no_numba, "games": []}

    def games() -> None:
        for m in filter(None, args.maps.split(",")):
            for opp in filter(None, args.opponents.split(",")):
                for seat in (int(x) for x in args.seats.split(",")):
                    report["games"].append(play(args.submission, m, opp, seat, args.seed, args.episode_steps, args.act_timeout, args.environment))
                    write_report(args.out, report)  # after each game: a run stopped early still shows what it played

    return _run(args, report, games)



if __name__ == "__main__":
    sys.exit(main())
