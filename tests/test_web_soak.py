"""The web server's memory levels off over a long soak of mixed requests on loopback (sessions of
every game played and replayed, frames, analyses, bad and heavy bodies): the server grew from
34 MB to 1.7 GB over 2,465 requests and never gave it back. A real server (waitress, as
``python -m util.arena.web`` starts it) in a subprocess; its resident memory is read from /proc.

``python -m tests.test_web_soak [ROUNDS]`` prints the memory after each round (the figures in
docs/web-app.md)."""
from __future__ import annotations

import http.client
import json
import os
import random
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = 24  # sessions the soaked server keeps: full after four rounds, so the rest shows whether memory levels off
GAMES = ["tictactoe", "connectx", "quixo", "quantik", "einstein", "connect4_count", "reinforce_tactics"]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS")


class Client:
    """JSON requests to the server on 127.0.0.1 (one connection, reopened when the server closes it)."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.count = 0
        self.codes: dict[int, int] = {}
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method: str, path: str, body: object = None, raw: bytes | None = None) -> tuple[int, object]:
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        headers = {"Content-Type": "application/json"} if data is not None else {}
        for attempt in range(2):
            try:
                self.conn.request(method, path, body=data, headers=headers)
                res = self.conn.getresponse()
                payload = res.read()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=120)
                if attempt:
                    raise
        self.count += 1
        self.codes[res.status] = self.codes.get(res.status, 0) + 1
        assert res.status != 500, payload[:300]
        try:
            return res.status, json.loads(payload)
        except ValueError:
            return res.status, None


def play(client: Client, rng: random.Random, game: str, agent: str, moves: int, wait_warm: bool = False) -> None:
    """A session of ``game``: up to ``moves`` requests of moves (the agent's and the person's),
    frames, a view, an undo, an analysis; with ``wait_warm``, the agent's first move is asked
    again until its warm-up is over (a compile: a minute at load 10)."""
    code, view = client.call("POST", "/api/sessions", {"game": game, "agent": agent, "time": 0.05, "human": rng.randint(0, 1)})
    assert code == 201, view
    assert isinstance(view, dict)
    sid = view["id"]
    for _ in range(moves):
        if view["terminal"]:
            break
        if view["agent_to_move"]:
            code, out = client.call("POST", f"/api/sessions/{sid}/agent")
            for _ in range(WARM_TRIES if wait_warm else 0):
                if code != 503:
                    break
                time.sleep(1)
                code, out = client.call("POST", f"/api/sessions/{sid}/agent")
        else:
            code, out = client.call("POST", f"/api/sessions/{sid}/move", {"action": rng.choice(view["legal"])["action"]})
        if code == 200:
            view = out  # type: ignore[assignment]
        else:
            assert code in (409, 429, 503), out  # busy, a full server, an agent warming up
            client.call("GET", f"/api/sessions/{sid}")
        client.call("GET", f"/api/sessions/{sid}/frame?ply={rng.randint(0, len(view['history']))}")
    client.call("POST", f"/api/sessions/{sid}/undo")
    if not view["terminal"]:
        client.call("POST", f"/api/sessions/{sid}/analyze", {"agent": "random", "time": 0.05})


WARM_TRIES = 600  # the first round's tries of a move while its agent warms up (a second apart)
TABLES = ["mcts:capacity=200000", "alphabeta:tt_bits=20", "perfect"]  # ConnectX agents with tables


def round_of_requests(client: Client, rng: random.Random, episode: bytes | None, first: bool = False) -> None:
    """About 130 requests; the ``first`` round plays every game and every agent of
    :data:`TABLES` (their compiles are done once a process: memory that stays, by design)."""
    client.call("GET", "/")
    client.call("GET", "/api/games")
    client.call("GET", "/static/play.js")
    client.call("GET", "/api/no/such/route")
    for game in GAMES if first else rng.sample(GAMES, 3):
        play(client, rng, game, "random", 8 if game == "reinforce_tactics" else 30)
    for agent in TABLES if first else [rng.choice(TABLES)]:
        play(client, rng, "connectx", agent, 6, wait_warm=first)
    client.call("POST", "/api/sessions", raw=b"[" * 40_000 + b"]" * 20_000)  # too deep (413 past 64 KiB)
    client.call("POST", "/api/replays/kaggle", raw=b'{"episode": [' + b",".join([b"[" * 15 + b"]" * 15] * 100_000) + b"]}")
    client.call("POST", "/api/sessions", {"game": "reinforce_tactics", "params": {"starting_gold": 10 ** 30}})
    if episode is not None:
        code, out = client.call("POST", "/api/replays/kaggle", raw=episode)
        assert code in (201, 429), out


def kaggle_episode() -> bytes | None:
    """A short Reinforce Tactics episode from kaggle-environments (None when it is not installed)."""
    try:
        import kaggle_environments as K
    except ImportError:
        return None
    env = K.make("reinforce_tactics", configuration={"episodeSteps": 30, "mapName": "beginner", "seed": 4})
    env.run(["aggressive", "random"])
    return json.dumps({"episode": env.toJSON()}).encode()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(sessions: int) -> tuple[subprocess.Popen, int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "util.arena.web", "--port", str(port), "--sessions", str(sessions)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for _ in range(600):  # the banner comes once the app is built (imports: seconds at load)
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc, port
        except OSError:
            if proc.poll() is not None:
                raise RuntimeError(f"the server exited: {proc.stderr.read() if proc.stderr else ''}") from None
            time.sleep(0.2)
    proc.kill()
    raise RuntimeError("the server did not listen")


def soak(rounds: int, seed: int = 1, sessions: int = SESSIONS, report=None, min_requests: int = 0) -> tuple[list[float], Client]:
    """Resident MiB of a fresh server keeping ``sessions`` sessions after each of ``rounds``
    rounds of mixed requests, and of more rounds (up to twice ``rounds``) until ``min_requests``
    were made (a round's count depends on how its games end)."""
    rng = random.Random(seed)
    episode = kaggle_episode()
    proc, port = start_server(sessions)
    try:
        client = Client(port)
        levels = []
        for i in range(2 * rounds):
            if i >= rounds and client.count >= min_requests:
                break
            round_of_requests(client, rng, episode, first=not i)
            levels.append(rss_mib(proc.pid))
            if report:
                report(f"round {i + 1}: {client.count} requests, {levels[-1]:.0f} MiB, codes {sorted(client.codes.items())}")
        return levels, client
    finally:
        proc.terminate()
        proc.wait(30)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads the server's memory from /proc")
def test_the_servers_memory_levels_off_over_a_long_soak() -> None:
    """A few thousand mixed requests: the memory of the last third of the rounds stays within
    a margin of the most the first two thirds reached (the compiles are done in the first
    round, the sessions' store is full from the fifth; the tables its sessions fill as they
    search, and the allocator's pages, make the noise; what keeps growing is a leak)."""
    pytest.importorskip("waitress")
    levels, client = soak(15, min_requests=2000)
    assert client.count >= 2000, client.count  # CI's 15 rounds once made 1,978
    settled = max(levels[: 2 * len(levels) // 3])
    assert max(levels[2 * len(levels) // 3:]) <= settled * 1.25 + 30, levels  # the leak seen: +1.6 GB in 2,465 requests


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    soak(int(sys.argv[1]) if len(sys.argv) > 1 else 15, sessions=int(sys.argv[2]) if len(sys.argv) > 2 else SESSIONS, report=print)
