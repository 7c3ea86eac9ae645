"""The web app's views of games of hidden information in a real browser (headless Chromium, as
tests/test_web_browser.py): Kuhn poker's cards (the person's face up, the agent's face down
until the View selector shows everything after the end), the agents offered as the game's
parameters change, Reinforce Tactics under fog shaded with the units remembered drawn hollow.
Skipped without Playwright or Chromium. ``WEB_SCREENSHOTS=docs/screenshots`` keeps the
screenshots docs/web-app.md shows."""
from __future__ import annotations

import json
import os
import shutil
import threading
import urllib.request
from pathlib import Path

import pytest

playwright_api = pytest.importorskip("playwright.sync_api")
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install chromium")

import tests.test_web_browser as web_browser  # noqa: E402

browser, page = web_browser.browser, web_browser.page  # its fixtures: the same Chromium, a page whose JavaScript errors fail the test
APPS: list = []  # the server's app: a test sets a session's history in it (a game well under way)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    import waitress

    from util.arena.web.app import create_app

    db = tmp_path_factory.mktemp("webhidden") / "none.sqlite"
    app = create_app(db=str(db))
    APPS.append(app)
    srv = waitress.create_server(app, host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.effective_port}"
    srv.close()


def shot(page, name: str, tmp_path: Path, panel: str) -> None:
    folder = Path(os.environ.get("WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    page.locator(panel).screenshot(path=str(folder / f"{name}.png"))
    assert (folder / f"{name}.png").stat().st_size > 3000


def wait_for_person(page) -> None:
    page.wait_for_function("(() => { const s = document.querySelector('#status-text').textContent;"
                           " return s.startsWith('Game over') || s.startsWith('Your move'); })()", timeout=60000)


def server_view(page, server: str) -> dict:
    with urllib.request.urlopen(f"{server}/api/sessions/{page.evaluate('view.id')}") as res:
        return json.load(res)


def test_kuhn_cards_hidden_until_the_end(page, server, tmp_path):
    page.goto(server + "/")
    page.select_option("#game", "kuhn_poker")
    page.wait_for_function("[...document.querySelectorAll('#agent option')].map(o => o.value).includes('cfr')")
    offered = page.eval_on_selector_all("#agent option", "els => els.map(e => e.value)")
    assert "alphabeta" not in offered and "ismcts" in offered
    page.select_option("#agent", "ismcts")
    page.wait_for_selector('#agent-params input[data-aparam="max_sims"]')
    page.fill('#agent-params input[data-aparam="max_sims"]', "50")
    page.fill("#time", "0.2")
    page.select_option("#human", "1")
    page.click("#new")
    wait_for_person(page)
    view = server_view(page, server)
    assert view["agent"] == "ismcts:max_sims=50"
    labels = page.eval_on_selector_all("#board svg .card-slot", "els => els.map(e => [e.dataset.owner, e.dataset.label])")
    own = view["picture"]["cards"][1]["text"].split()[-1]
    assert labels == [["0", "?"], ["1", own]]
    assert not page.is_hidden("#r-seat-label")
    shot(page, "web-hidden-kuhn", tmp_path, "#board-panel")
    while not page.inner_text("#status-text").startswith("Game over"):
        before = page.locator("#history li").count()
        page.click("#board .cards-move >> nth=0")
        page.wait_for_function(f"document.querySelectorAll('#history li').length > {before}")
        wait_for_person(page)
    page.select_option("#r-seat", "full")
    page.wait_for_function("document.querySelector('#r-ply').textContent.includes('replay')")
    labels = page.eval_on_selector_all("#board svg .card-slot", "els => els.map(e => e.dataset.label)")
    assert "?" not in labels and len(labels) == 2  # the full view: both cards face up


def test_rt_fog_board_shaded(page, server, tmp_path):
    page.goto(server + "/")
    page.select_option("#game", "reinforce_tactics")
    page.fill('#params input[data-param="fog"]', "1")
    page.dispatch_event('#params input[data-param="fog"]', "change")
    page.wait_for_function("![...document.querySelectorAll('#agent option')].map(o => o.value).includes('greedy')")
    page.fill("#agent-spec", "random:seed=1")
    page.fill("#time", "0.2")
    page.click("#new")
    wait_for_person(page)
    view = server_view(page, server)
    fog = view["picture"]["fog"][view["human"]]
    dark = sum(row.count("0") for row in fog["cells"])
    assert dark > 0 and page.locator("#board svg .rt-fog.unexplored").count() == dark
    drawn = page.eval_on_selector_all("#board svg .rt-unit", "els => els.map(e => e.dataset.p)")
    assert sorted(drawn) == sorted(str(u["p"]) for u in view["picture"]["units"])
    assert "hidden" in page.inner_text(".rt-gold")
    # a game well under way (random moves of both sides, the person to move): units out of sight remembered
    from tests.test_web_hidden import fog_states

    game, states = fog_states(seed=4, plies=400)
    cut = max(i for i, s in enumerate(states) if s.current_player() == view["human"]
              and game.player_picture(s, view["human"])["fog"][view["human"]]["remembered"])
    session = APPS[0].extensions["sessions"].get(view["id"])
    session.states, session.infos = states[:cut + 1], [{} for _ in states[:cut + 1]]
    page.evaluate("(async () => { view = await api('GET', `/api/sessions/${view.id}`); render(); })()")
    view = server_view(page, server)
    remembered = view["picture"]["fog"][view["human"]]["remembered"]
    page.wait_for_function(f"document.querySelectorAll('#board svg .rt-remembered').length === {len(remembered)}")
    drawn = page.eval_on_selector_all("#board svg .rt-unit", "els => els.map(e => e.dataset.p)")
    assert sorted(drawn) == sorted(str(u["p"]) for u in view["picture"]["units"])
    assert "?" in view["history"]
    shot(page, "web-hidden-rt-fog", tmp_path, "#board-panel")
