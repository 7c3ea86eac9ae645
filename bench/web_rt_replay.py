"""How long the web app takes to open a Reinforce Tactics game to replay, against a baseline
measured in the same run: the game's actions applied one by one through ``State.apply``
(each checked against the legal set, 13 ms in plain Python on a mid-game position).

One episode of kaggle-environments' ``aggressive`` agent against itself (``beginner`` map,
``--seed``) is played, then, ``--repeats`` times each (medians printed):
- ``POST /api/replays/kaggle`` with the whole ``env.toJSON()`` (parsing, the depth check,
  rebuilding the game, replaying every turn's ``actionLog`` through our rules, the first view);
- ``POST /api/replays/stored`` of the same actions written to a temporary tournament store
  (every move checked legal);
- the baseline: the same actions through ``State.apply``.

Usage: ``python -m bench.web_rt_replay [--seed 7] [--repeats 3]``.
"""
from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from base.cli import OneLineParser  # noqa: E402


def _median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = OneLineParser(prog="python -m bench.web_rt_replay", description=" ".join(__doc__.split("\n\n")[0].split()))
    parser.add_argument("--seed", type=int, default=7, help="the episode's seed (default 7)")
    parser.add_argument("--repeats", type=int, default=3, help="timings of each kind, the median printed (default 3)")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.seed < 0:
        print("web_rt_replay: error: --repeats must be at least 1 and --seed at least 0", file=sys.stderr)
        return 2
    from kaggle_environments import make

    from util.arena.store import Store
    from util.arena.web.app import create_app
    from util.arena.web.replays import kaggle_states

    env = make("reinforce_tactics", configuration={"mapName": "beginner", "seed": args.seed})
    env.run(["aggressive", "aggressive"])
    episode = env.toJSON()
    size = len(json.dumps(episode))
    states = kaggle_states(episode)
    actions = [s.history[-1] for s in states[1:]]
    print(f"episode: {len(episode['steps'])} steps, {size / 1e6:.1f} MB of JSON, {len(actions)} actions (chance outcomes included)")

    def baseline() -> None:
        s = states[0]
        for a in actions:
            s = s.apply(a)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "t.sqlite"
        with Store(db) as store:
            a, b = store.player_id("aggressive", "1", {}), store.player_id("aggressive:2", "1", {})
            gid = store.add_game("k", a, b, "rt", {"moves": actions, "winner": 0, "termination": "draw", "errors": {},
                                                    "move_times": [], "opening": []},
                                 time_per_move=5.0, engine="kaggle", seed=args.seed, source="bench", game=states[0].game.spec())
        client = create_app(db=str(db)).test_client()

        def kaggle() -> None:
            r = client.post("/api/replays/kaggle", json={"episode": episode})
            assert r.status_code == 201 and r.json is not None and len(r.json["history"]) == len(actions), r.get_data(as_text=True)

        def stored() -> None:
            r = client.post("/api/replays/stored", json={"id": gid})
            assert r.status_code == 201 and r.json is not None and len(r.json["history"]) == len(actions), r.get_data(as_text=True)

        base = _median_seconds(baseline, args.repeats)
        k = _median_seconds(kaggle, args.repeats)
        st = _median_seconds(stored, args.repeats)
    print(f"baseline, State.apply of every action:      {base:6.2f} s (median of {args.repeats})")
    print(f"POST /api/replays/kaggle (the whole JSON):  {k:6.2f} s  ({k / base:.2f}x the baseline)")
    print(f"POST /api/replays/stored (same actions):    {st:6.2f} s  ({st / base:.2f}x the baseline)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
