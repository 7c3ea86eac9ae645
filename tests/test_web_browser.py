"""The web app in a real browser: headless Chromium (Debian's package) driven by Playwright
through whole games, the analysis panel, the search tree and the dashboard, with screenshots.

Skipped when Playwright or Chromium is missing (``.ci/run`` installs both, so CI runs them).
``WEB_SCREENSHOTS=DIR`` keeps the screenshots there (the README's come from
``WEB_SCREENSHOTS=data/screenshots python -m pytest -q tests/test_web_browser.py``).
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install chromium")
ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    """A tournament store with one small run, written by the real command."""
    path = tmp_path_factory.mktemp("web") / "t.sqlite"
    subprocess.run([sys.executable, "-m", "util.arena.tournament", "--agents", "rules,random:seed=1", "--games", "4",
                    "--time", "0.05", "--workers", "1", "--db", str(path), "--quiet", "--tag", "seeded"],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)
    return path


@pytest.fixture(scope="module")
def server(db):
    import waitress

    from util.arena.web.app import create_app

    srv = waitress.create_server(create_app(db=str(db)), host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.effective_port}"
    srv.close()


@pytest.fixture(scope="module")
def browser():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    ctx = browser.new_context(viewport={"width": 1400, "height": 900})
    pg = ctx.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    yield pg
    ctx.close()
    assert not errors, f"JavaScript errors: {errors}"


def shot(page, name: str, tmp_path: Path) -> None:
    folder = Path(os.environ.get("WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / f"{name}.png"), full_page=True)
    assert (folder / f"{name}.png").stat().st_size > 5000


def start(page, server: str, game: str, agent: str, human: str = "0", seconds: str = "0.2", params: dict | None = None):
    page.goto(server + "/")
    page.select_option("#game", game)
    for k, v in (params or {}).items():
        page.fill(f'#params input[data-param="{k}"]', str(v))
    page.fill("#agent-spec", agent)
    page.fill("#time", seconds)
    page.select_option("#human", human)
    page.click("#new")
    page.wait_for_function("document.querySelector('#status').textContent.startsWith('Your move')"
                           " || document.querySelector('#status').textContent.startsWith('Game over')", timeout=60000)


def settle(page, before: int) -> None:
    """Wait until the person's move and the agent's reply are on the page (or the game ended)."""
    page.wait_for_function(
        f"(() => {{ const s = document.querySelector('#status').textContent;"
        f" const n = document.querySelectorAll('#history li').length;"
        f" return s.startsWith('Game over') || (s.startsWith('Your move') && n >= {before + 2}); }})()", timeout=60000)


def play_to_the_end(page, max_moves: int = 60) -> str:
    for _ in range(max_moves):
        status = page.inner_text("#status")
        if status.startswith("Game over"):
            return status
        assert status.startswith("Your move"), status
        before = page.locator("#history li").count()
        cell = page.locator("table.grid td.playable").first
        if cell.count():
            cell.click()
        if page.locator("#choices button.action").count():  # several actions on that cell, or no grid
            page.locator("#choices button.action").first.click()
        settle(page, before)
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("human", ["0", "1"])
def test_a_whole_tictactoe_game_by_clicks(page, server, human, tmp_path):
    start(page, server, "tictactoe", "random:seed=3", human=human)
    status = play_to_the_end(page)
    assert "Game over" in status and page.locator("#history li").count() >= 5
    if human == "0":
        shot(page, "play-tictactoe", tmp_path)


@pytest.mark.parametrize("game,params", [
    ("connect4_count", {"rows": 4, "columns": 4}),
    ("quantik", {}),
    ("quixo", {"size": 3, "max_plies": 30}),
    ("einstein", {}),
])
def test_a_whole_game_of_every_game_by_clicks(page, server, game, params, tmp_path):
    """A person plays each game to its end in the browser: cells to click (and a choice when
    several actions share a cell), dice rolled by the server, the result shown."""
    start(page, server, game, "random:seed=4", params=params)
    status = play_to_the_end(page, max_moves=80)
    assert "Game over" in status
    shot(page, f"play-{game}", tmp_path)


def test_a_whole_connectx_game_on_a_small_board(page, server, tmp_path):
    start(page, server, "connectx", "random:seed=2", params={"rows": 4, "columns": 5, "inarow": 3})
    status = play_to_the_end(page)
    assert "Game over" in status


def test_analysis_panel_and_search_tree_for_connectx(page, server, tmp_path):
    start(page, server, "connectx", "negamax", seconds="0.3")
    for col in (3, 3):  # click the column's top cell: the stone drops
        before = page.locator("#history li").count()
        page.locator(f'table.grid td[data-r="0"][data-c="{col}"]').click()
        settle(page, before)
    assert page.locator("#history li").count() == 4
    page.fill("#an-agent", "mcts")
    page.fill("#an-time", "0.5")
    page.click("#analyze")
    page.wait_for_selector("#analysis table.values tr.chosen", timeout=60000)
    assert page.locator("#analysis table.values tr").count() >= 4  # header + the legal columns searched
    page.select_option("#tree-depth", "2")
    page.click("#tree")
    page.wait_for_selector("#tree-view svg circle", timeout=60000)
    assert page.locator("#tree-view svg circle").count() >= 8
    shot(page, "play-connectx-analysis", tmp_path)
    page.click("#undo")
    page.wait_for_function("document.querySelectorAll('#history li').length == 2", timeout=60000)


def test_dashboard_ratings_match_progress_and_replay(page, server, tmp_path):
    page.goto(server + "/dashboard")
    page.wait_for_selector("#ratings tr:nth-child(3)", timeout=30000)  # header + two agents
    assert "rules" in page.inner_text("#ratings")
    page.fill("#m-a", "rules")
    page.fill("#m-b", "random:seed=5")
    page.fill("#m-games", "2")
    page.fill("#m-time", "0.02")
    page.click("#m-start")
    page.wait_for_function("document.querySelector('#m-status').textContent.includes('done')", timeout=120000)
    assert page.inner_text("#m-status").startswith("2 / 2")
    page.wait_for_function("document.querySelector('#games').textContent.includes('random:seed=5')", timeout=30000)
    page.locator("#games tr.game-row").first.click()
    page.wait_for_selector("#replay-board table.grid", timeout=30000)
    last = page.inner_text("#r-ply")
    page.click("#r-first")
    assert page.inner_text("#r-ply").startswith("ply 0")
    page.click("#r-next")
    assert page.inner_text("#r-ply").startswith("ply 1")
    assert last != page.inner_text("#r-ply")
    page.wait_for_function("document.querySelectorAll('#plots img').length == 2 && "
                           "[...document.querySelectorAll('#plots img')].every((i) => i.complete && i.naturalWidth > 100)",
                           timeout=30000)
    shot(page, "dashboard", tmp_path)
