"""The Reinforce Tactics analysis panel in headless Chromium: a midgame position opened by a
link, a macro-move search's analysis asked for on the page; the planned turn drawn on the map
(arrows and rings, numbered) is the plan the API sent, in order and cell by cell, and so is
the listed plan; a click on an alternative draws that turn instead, a click on the plan's
heading draws the plan again. ``WEB_SCREENSHOTS=docs/screenshots`` keeps rt_analysis.png."""
from __future__ import annotations

import os
import threading
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.test_web_browser import ARGS, CHROMIUM, playwright_api, wait_for_person
from tests.test_web_rt_panel import PARAMS, SEARCHES, midgame
from util.arena.web.render import move_texts

pytestmark = [pytest.mark.skipif(CHROMIUM is None, reason="no chromium: apt-get install chromium"), pytest.mark.slow]


@pytest.fixture(scope="module")
def server():
    import waitress

    from util.arena.web.app import create_app

    srv = waitress.create_server(create_app(db=None), host="127.0.0.1", port=0, threads=4)
    threading.Thread(target=srv.run, daemon=True).start()
    yield f"http://127.0.0.1:{srv.effective_port}"
    srv.close()


@pytest.fixture()
def page():
    with playwright_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = b.new_context(viewport={"width": 1400, "height": 1300}).new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        yield pg
        b.close()
        assert not errors, f"JavaScript errors: {errors}"


def drawn_plan(page) -> list[tuple[int, str, str]]:
    """The turn drawn on the map: (action, cell, from) of each numbered mark, in step order."""
    got = page.eval_on_selector_all("#board svg .rt-plan .rt-plan-item",
                                    "els => els.map(e => [+e.dataset.step, +e.dataset.action, e.dataset.cell, e.dataset.from])")
    assert [g[0] for g in got] == list(range(1, len(got) + 1))
    return [(a, cell, frm) for _step, a, cell, frm in got]


def expected(moves: list[dict]) -> list[tuple[int, str, str]]:
    """What the page should draw of the API's ``moves``: each one with a cell (the end of the turn has none)."""
    return [(m["action"], ",".join(map(str, m["cell"])), ",".join(map(str, m["from"])) if m.get("from") else "")
            for m in moves if m.get("cell")]


def test_the_planned_turn_is_drawn_as_the_api_sent_it(page, server, tmp_path):
    states = midgame()
    q = {"game": "reinforce_tactics", "params": ",".join(f"{k}={v}" for k, v in PARAMS.items()),
         "agent": "random:seed=1", "human": str(states[-1].current_player()), "moves": ";".join(move_texts(states))}
    page.goto(f"{server}/?{urlencode(q)}")
    page.wait_for_selector("#board svg.rt")
    wait_for_person(page)
    page.fill("#an-agent", SEARCHES["macro_mcts"])
    page.fill("#an-time", "30")
    with page.expect_response(lambda r: r.url.endswith("/analyze"), timeout=120000) as res:
        page.click("#analyze")
    turn = res.value.json()["turn"]
    page.wait_for_selector("#board svg .rt-plan .rt-plan-item", timeout=60000)
    assert len(expected(turn["moves"])) >= 2
    assert drawn_plan(page) == expected(turn["moves"])
    listed = page.eval_on_selector_all("#analysis .rt-plan-list li", "els => els.map(e => e.textContent)")
    assert listed == [m["text"] for m in turn["moves"]]
    assert "mean reward" in page.inner_text("#analysis")
    rows = page.locator("#analysis li.rt-alt")
    assert rows.count() == len(turn["alternatives"]) >= 2
    folder = Path(os.environ.get("WEB_SCREENSHOTS") or tmp_path)  # the board and the panel, not the long move list
    folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(folder / "rt_analysis.png"), clip={"x": 0, "y": 0, "width": 1400, "height": 1300})
    # another sampled turn, clicked: drawn instead (a different turn, so a different drawing)
    k = next(i for i, alt in enumerate(turn["alternatives"]) if expected(alt["moves"]) != expected(turn["moves"]))
    rows.nth(k).click()
    assert drawn_plan(page) == expected(turn["alternatives"][k]["moves"])
    assert "chosen" in (rows.nth(k).get_attribute("class") or "")
    page.click("#analysis .rt-plan-head")
    assert drawn_plan(page) == expected(turn["moves"])
