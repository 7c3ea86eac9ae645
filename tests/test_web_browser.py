"""The web app in a real browser: headless Chromium (Debian's package) driven by Playwright
through a whole game of every game by its own gestures (the drawing checked against the
server after every move), keys, undo, replay, export and links, the analysis panel, the
search tree and the dashboard, with screenshots.

Skipped when Playwright or Chromium is missing (``.ci/run`` installs both, so CI runs them).
``WEB_SCREENSHOTS=DIR`` keeps the screenshots there (docs/web-app.md's come from
``WEB_SCREENSHOTS=docs/screenshots python -m pytest -q -m '' tests/test_web_browser.py``).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import urllib.request
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


def shot(page, name: str, tmp_path: Path, panel: str | None = None) -> None:
    """A screenshot of the whole page, or of one ``panel`` (a CSS selector)."""
    folder = Path(os.environ.get("WEB_SCREENSHOTS") or tmp_path)
    folder.mkdir(parents=True, exist_ok=True)
    path = str(folder / f"{name}.png")
    if panel:
        page.locator(panel).screenshot(path=path)
    else:
        page.screenshot(path=path, full_page=True)
    assert (folder / f"{name}.png").stat().st_size > 3000


def start(page, server: str, game: str, agent: str, human: str = "0", seconds: str = "0.2", params: dict | None = None):
    page.goto(server + "/")
    page.select_option("#game", game)
    for k, v in (params or {}).items():
        page.fill(f'#params input[data-param="{k}"]', str(v))
    page.fill("#agent-spec", agent)
    page.fill("#time", seconds)
    page.select_option("#human", human)
    page.click("#new")
    wait_for_person(page)


def wait_for_person(page, before: int = -1) -> None:
    """Wait until the person is to move with more than ``before`` moves listed, or the game ended."""
    page.wait_for_function(
        f"(() => {{ const s = document.querySelector('#status-text').textContent;"
        f" const n = document.querySelectorAll('#history li').length;"
        f" return s.startsWith('Game over') || (s.startsWith('Your move') && n > {before}); }})()", timeout=60000)


def server_view(page, server: str) -> dict:
    sid = page.evaluate("view.id")
    with urllib.request.urlopen(f"{server}/api/sessions/{sid}") as res:
        return json.load(res)


def drawn_pieces(page) -> dict:
    """(row, column) -> owner and label of every piece the board's SVG draws."""
    got = page.eval_on_selector_all("#board svg [data-p][data-r]",
                                    "els => els.map(e => [+e.dataset.r, +e.dataset.c, e.dataset.p + (e.dataset.label || '')])")
    return {(r, c): label for r, c, label in got}


def check_drawing(page, server: str) -> dict:
    """The SVG shows exactly the pieces of the game's grid as the server reports it, the
    mover's name, the last move, and the game's own extras (pieces in hand, the die)."""
    view = server_view(page, server)
    grid = view["grid"]
    expected = {(r, c): label for r, row in enumerate(grid) for c, label in enumerate(row) if label}
    assert drawn_pieces(page) == expected, (drawn_pieces(page), grid)
    status = page.inner_text("#status-text")
    if not view["terminal"]:
        assert view["picture"]["players"][view["to_move"]] in status, status
    if any(not h.startswith("(") for h in view["history"]):
        assert page.locator("#board svg .last-move, #board svg .last-dot").count() >= 1
    for p in (0, 1):
        hand = view["extra"].get(f"in hand (player {p})")
        if hand is not None:
            counts = page.eval_on_selector_all(f'#board svg [data-hand="{p}"]', "els => els.map(e => +e.dataset.count)")
            assert sum(counts) == len(hand.replace("-", "")), (counts, hand)
    die = view["extra"].get("die", "")
    if view["name"] == "einstein" and die[:1].isdigit():
        assert page.locator(f'#board svg [data-die="{die[0]}"]').count() == 1 and f"die shows {die[0]}" in status
    return view


def gesture(page, name: str, halfway=lambda: None) -> None:
    """One move entered as the game is played: the first offered choice at each step
    (``halfway`` runs when a piece or cube is picked, before the move is completed)."""
    svg = "#board svg "
    if name in ("connectx", "connect4_count"):
        page.locator(svg + "rect.column.playable").first.click()
    elif name == "tictactoe":
        page.locator(svg + "rect.cell.playable").first.click()
    elif name == "quantik":
        page.locator(svg + "rect.pick").first.click()  # a shape from the hand, then a cell
        shape = int(page.locator(svg + ".qpiece.hand.selected").get_attribute("data-shape"))
        free = sum(1 for row in server_view(page, SERVER[0])["grid"] for label in row if not label)
        shown = page.locator(svg + "circle.cell.playable").count() + page.locator(svg + "circle.cell.blocked").count()
        assert shown == free, (shape, shown, free)  # every empty cell is offered or greyed
        halfway()
        page.locator(svg + "circle.cell.playable").first.click()
    elif name == "quixo":
        page.locator(svg + "g.cube.takeable").first.click()  # a cube, then an arrow
        assert page.locator(svg + "g.arrow.playable").count() >= 1
        halfway()
        page.locator(svg + "g.arrow.playable").first.click()
    elif name == "einstein":
        if not page.locator(svg + "g.ecube.picked").count():
            page.locator(svg + "g.ecube.movable").first.click()  # a cube the die allows, then a target
        halfway()
        page.locator(svg + "circle.target.playable").first.click()
    else:
        raise AssertionError(f"no gesture for {name}")


SERVER: list[str] = []


def play_by_gestures(page, server: str, name: str, max_moves: int = 120, halfway=lambda: None) -> dict:
    """Play to the end; ``halfway`` runs midway through the person's third move."""
    SERVER[:] = [server]
    for i in range(max_moves):
        view = check_drawing(page, server)
        if view["terminal"]:
            assert page.inner_text("#status-text").startswith("Game over")
            return view
        before = len(view["history"])
        gesture(page, name, halfway if i == 2 else lambda: None)
        wait_for_person(page, before)
    raise AssertionError("the game did not end")


GAMES = [  # small gravity boards keep the default suite short; the docs' full boards: the slow test below
    ("connectx", {"rows": 4, "columns": 5, "inarow": 3}),
    ("connect4_count", {"rows": 4, "columns": 5}),
    ("tictactoe", {}),
    ("quantik", {}),
    ("quixo", {"max_plies": 40}),
    ("einstein", {}),
]


@pytest.mark.parametrize("game,params", GAMES)
def test_a_whole_game_of_every_game_by_its_own_gestures(page, server, game, params, tmp_path):
    """A person plays each game to its end by the game's own gestures (a column; a cell; a
    shape then a cell; a cube then an arrow; a cube then a target), and after every move the
    drawing matches the server's state: pieces, the mover, the last move, hand and die."""
    start(page, server, game, "random:seed=4", params=params, seconds="0.05")
    picking = game in ("quantik", "quixo", "einstein")  # the docs show these with a piece picked
    end = play_by_gestures(page, server, game, halfway=lambda: shot(page, game, tmp_path, "#board-panel") if picking else None)
    assert end["result"] and len(end["history"]) >= 3
    if not picking:
        shot(page, game, tmp_path, "#board-panel")


@pytest.mark.slow
@pytest.mark.parametrize("game", ["connectx", "connect4_count"])
def test_a_whole_game_on_the_full_size_board(page, server, game, tmp_path):
    """The same on the 6×7 board (the docs' screenshots, taken after the small boards' ones)."""
    start(page, server, game, "random:seed=4", seconds="0.05")
    end = play_by_gestures(page, server, game)
    assert end["result"] and len(end["history"]) >= 7
    shot(page, game, tmp_path, "#board-panel")


def test_keys_undo_replay_export_and_a_link_to_a_position(page, server, tmp_path):
    """A link opens its position; number keys drop stones; u undoes; the replay buttons step
    through the game; the move list and the image are saved; the arrow keys move the cursor."""
    page.goto(server + "/?game=connectx&params=rows=6,columns=7,inarow=4&agent=random:seed=2&human=0&moves=4;4;3")
    wait_for_person(page)
    view = server_view(page, server)
    assert view["history"][:3] == ["4", "4", "3"] and len(view["history"]) == 4
    assert len(drawn_pieces(page)) == 4
    page.keyboard.press("5")
    wait_for_person(page, 4)
    assert server_view(page, server)["history"][4] == "5"
    page.keyboard.press("u")
    page.wait_for_function("document.querySelectorAll('#history li').length == 4", timeout=60000)
    page.click("#r-first")
    page.wait_for_function("document.querySelector('#r-ply').textContent.startsWith('move 0')", timeout=30000)
    assert drawn_pieces(page) == {}
    page.click("#r-next")
    page.wait_for_function("document.querySelector('#r-ply').textContent.startsWith('move 1')", timeout=30000)
    assert list(drawn_pieces(page).values()) == ["0"]
    page.click("#r-last")
    page.wait_for_function("document.querySelector('#r-ply').textContent.includes('live')", timeout=30000)
    with page.expect_download() as moves:
        page.click("#export-moves")
    assert Path(moves.value.path()).read_text().split("\n")[1:5] == view["history"][:4]
    with page.expect_download() as image:
        page.click("#export-image")
    assert Path(image.value.path()).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "moves=4%3B4%3B3" in page.input_value("#share")
    page.keyboard.press("ArrowLeft")  # the cursor shows on the first column, moves right, and ↓ drops the stone
    assert cursor_at(page)[1] == 0
    page.keyboard.press("ArrowRight")
    assert cursor_at(page)[1] == 1
    press_and_expect(page, server, "ArrowDown", "2")


def cursor_at(page) -> tuple[int, int]:
    """The cell under the keyboard cursor's ring (exactly one drawn)."""
    ring = page.locator("#board svg .kbd-cursor")
    assert ring.count() == 1
    return int(ring.get_attribute("data-kr")), int(ring.get_attribute("data-kc"))


def press_and_expect(page, server: str, key: str, text: str) -> None:
    """``key`` completes the person's move: the server's next move is ``text``."""
    before = len(server_view(page, server)["history"])
    page.keyboard.press(key)
    wait_for_person(page, before)
    assert server_view(page, server)["history"][before] == text


def picked_at(page, selector: str) -> tuple[int, int]:
    piece = page.locator(f"#board svg {selector}")
    assert piece.count() == 1
    return int(piece.get_attribute("data-r")), int(piece.get_attribute("data-c"))


def keyboard_turn(page, server: str, game: str, turn: int, tmp_path: Path) -> None:
    """One move of ``game`` entered by keys only; the move played is the one under the cursor."""
    moves = page.evaluate("view.picture.moves")
    if game == "tictactoe" and turn == 0:  # the first key shows the cursor on the first free cell, arrows move it
        page.keyboard.press("ArrowRight")
        assert cursor_at(page) == (0, 0)
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowDown")
        assert cursor_at(page) == (1, 1)
        press_and_expect(page, server, "Enter", "b2")
    elif game == "tictactoe" and turn == 1:  # a digit, read like a phone pad
        r, c = moves[-1]["cell"]
        press_and_expect(page, server, str(3 * r + c + 1), moves[-1]["text"])
    elif game == "tictactoe":
        page.keyboard.press("ArrowUp")
        cell = list(cursor_at(page))
        press_and_expect(page, server, " ", next(m["text"] for m in moves if m["cell"] == cell))
    elif game == "quantik":  # a shape by its number, then the cursor among its free cells
        shape = moves[-1]["shape"]
        page.keyboard.press(str(shape + 1))
        assert int(page.locator("#board svg .qpiece.hand.selected").get_attribute("data-shape")) == shape
        first = cursor_at(page)
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowRight")
        cell = list(cursor_at(page))
        assert turn or cell != list(first)  # the empty board has free cells below and right
        assert page.locator(f'#board svg circle.cell.playable[data-r="{cell[0]}"][data-c="{cell[1]}"]').count() == 1
        press_and_expect(page, server, "Enter", next(m["text"] for m in moves if m["shape"] == shape and m["cell"] == cell))
    elif game == "quixo":  # a cube by the cursor and Enter (Escape puts it back), then the arrow key of the push
        page.keyboard.press("ArrowRight")
        page.keyboard.press("ArrowRight")
        cube = cursor_at(page)
        if turn == 0:
            shot(page, "quixo-keys", tmp_path, "#board-panel")  # the docs' picture of the keyboard cursor
        page.keyboard.press("Enter")
        assert picked_at(page, "g.cube.picked") == cube
        page.keyboard.press("Escape")
        assert page.locator("#board svg g.cube.picked").count() == 0
        page.keyboard.press("Enter")
        assert picked_at(page, "g.cube.picked") == cube
        side = page.locator("#board svg g.arrow.playable").last.get_attribute("data-side")
        key = {"TOP": "ArrowDown", "BOTTOM": "ArrowUp", "LEFT": "ArrowRight", "RIGHT": "ArrowLeft"}[side]
        press_and_expect(page, server, key, next(m["text"] for m in moves if m["from"] == list(cube) and m["side"] == side))
    elif game == "einstein":  # the cube (when the die allows two), then a target, each by the cursor and Enter
        if not page.locator("#board svg g.ecube.picked").count():
            page.keyboard.press("ArrowLeft")
            cube = cursor_at(page)
            page.keyboard.press("Enter")
            assert picked_at(page, "g.ecube.picked") == cube
        cube = list(picked_at(page, "g.ecube.picked"))
        page.keyboard.press("ArrowUp")
        page.keyboard.press("ArrowDown")
        to = list(cursor_at(page))
        assert page.locator(f'#board svg circle.target[data-r="{to[0]}"][data-c="{to[1]}"]').count() == 1
        press_and_expect(page, server, "Enter", next(m["text"] for m in moves if m["from"] == cube and m["to"] == to))


@pytest.mark.parametrize("game", ["tictactoe", "quantik", "quixo", "einstein"])
def test_moves_by_keyboard_only(page, server, game, tmp_path):
    """Three moves of each picking game entered by keys alone (no click on the board): the
    cursor's ring is on the cell a key acts on, and the server plays exactly that move."""
    start(page, server, game, "random:seed=3", seconds="0.05")
    assert "Enter" in page.inner_text("#keys") and "u undoes" in page.inner_text("#keys")
    for turn in range(3):
        if server_view(page, server)["terminal"]:
            break
        keyboard_turn(page, server, game, turn, tmp_path)
        check_drawing(page, server)
    assert sum(1 for h in server_view(page, server)["history"] if not h.startswith("(")) >= 5


def test_analysis_panel_and_search_tree_for_connectx(page, server, tmp_path):
    start(page, server, "connectx", "negamax", seconds="0.3")
    for col in (3, 3):  # click the column: the stone drops
        before = page.locator("#history li").count()
        page.locator(f'#board svg rect.column[data-c="{col}"]').click()
        wait_for_person(page, before + 1)
    assert page.locator("#history li").count() == 4
    assert "depth" in page.inner_text("#analysis")  # the agent's own move explained
    page.fill("#an-agent", "mcts")
    page.fill("#an-time", "0.5")
    page.click("#analyze")
    page.wait_for_selector("#think-bar:not([hidden])", timeout=10000)  # the clock runs while it thinks
    assert page.inner_text("#status-text").startswith("Analysing")
    page.wait_for_selector("#analysis table.values tr.chosen", timeout=60000)
    assert page.locator("#spinner").is_hidden()
    text = page.inner_text("#analysis")
    assert "% to win" in text and "simulations" in text and "Best line" in text
    assert page.locator("#analysis table.values tr").count() >= 4  # header + the legal columns searched
    assert page.locator("#analysis .bar.value-bar").count() == 1
    page.select_option("#tree-depth", "2")
    page.click("#tree")
    page.wait_for_selector("#tree-view svg circle", timeout=60000)
    assert page.locator("#tree-view svg circle").count() >= 8
    assert "e-" not in page.inner_text("#tree-view")  # values read as numbers, not 6.0e-6
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
    page.wait_for_selector("#replay-board svg", timeout=30000)
    last = page.inner_text("#r-ply")
    page.click("#r-first")
    assert page.inner_text("#r-ply").startswith("ply 0")
    page.click("#r-next")
    assert page.inner_text("#r-ply").startswith("ply 1")
    assert last != page.inner_text("#r-ply")
    with page.expect_download() as moves:
        page.click("#r-moves")
    lines = Path(moves.value.path()).read_text().splitlines()
    assert lines[0].startswith("# connectx") and len(lines) - 1 == int(last.split("/")[1].split()[0])
    page.wait_for_function("document.querySelectorAll('#plots img').length == 2 && "
                           "[...document.querySelectorAll('#plots img')].every((i) => i.complete && i.naturalWidth > 100)",
                           timeout=30000)
    shot(page, "dashboard", tmp_path)
    page.click("#r-next")
    page.click("#r-open")  # the position after two plies, in the play page
    page.wait_for_function("document.querySelectorAll('#history li').length >= 2", timeout=60000)
    assert server_view(page, server)["history"][:2] == lines[1:3]



# --- Reinforce Tactics: a turn of many moves by clicks, and a Kaggle episode replayed ------------
def rt_drawn(page) -> tuple[list, list]:
    """The units (row, column, owner, type, hp) and structures (row, column, owner, hp) the SVG draws."""
    units = page.eval_on_selector_all("#board svg g.rt-unit", "els => els.map(e => [+e.dataset.r, +e.dataset.c, +e.dataset.p, e.dataset.label, +e.dataset.hp])")
    structures = page.eval_on_selector_all("#board svg g.rt-structure", "els => els.map(e => [+e.dataset.r, +e.dataset.c, +e.dataset.owner, +e.dataset.hp])")
    return sorted(units), sorted(structures)


def rt_expected(pic: dict) -> tuple[list, list]:
    return (sorted([u["r"], u["c"], u["p"], u["type"], u["hp"]] for u in pic["units"]),
            sorted([s["r"], s["c"], s["owner"], s["hp"]] for s in pic["structures"]))


def rt_check(page, server: str) -> dict:
    """The board and the panel show the server's position: units, structures, gold, turn, and
    the agent's last turn listed action by action."""
    view = server_view(page, server)
    pic = view["picture"]
    assert rt_drawn(page) == rt_expected(pic)
    gold = page.eval_on_selector_all(".rt-panel .rt-chip", "els => els.map(e => +e.dataset.gold)")
    assert gold == pic["gold"]
    assert int(page.get_attribute(".rt-panel .rt-turn", "data-step")) == pic["step"]
    if pic["last_turn"]:
        listed = page.eval_on_selector_all(".rt-actions.last li", "els => els.map(e => e.textContent)")
        assert [t.strip("()") for t in listed] == [m["text"] for m in pic["last_turn"]["moves"]]
    return view


def rt_cell(page, r: int, c: int) -> None:
    page.click(f'#board svg rect.rt-cell[data-r="{r}"][data-c="{c}"]')


def rt_marks(page) -> list:
    """The destinations (dots) and targets (rings) drawn for the picked unit, as (kind, row, column)."""
    got = page.eval_on_selector_all("#board svg circle.rt-dest, #board svg circle.rt-target",
                                    "els => els.map(e => [e.classList.contains('rt-dest') ? 'move' : 'act', +e.dataset.r, +e.dataset.c])")
    return sorted({tuple(x) for x in got})


def rt_offered(moves: list) -> list:
    """What should be drawn for a unit's legal moves: a dot per destination, a ring per target cell."""
    return sorted({("move" if m["kind"] == "move" else "act", m["to"][0], m["to"][1]) for m in moves if "to" in m})


def rt_wait_done(page, before: int) -> None:
    """Wait until the server has taken a click's move (more moves listed) and the page is idle."""
    page.wait_for_function(
        f"document.querySelectorAll('#history li.ply').length > {before} && "
        "!document.querySelector('#status').classList.contains('busy')", timeout=60000)


@pytest.mark.parametrize("turns", [pytest.param(3, id="3turns"), pytest.param(8, id="8turns", marks=pytest.mark.slow)])
def test_reinforce_tactics_turns_by_clicks(page, server, tmp_path, turns):
    """A person plays turns of Reinforce Tactics against random by clicks: recruits at the HQ
    (a unit type from the menu), picks each unit (its dots and rings are the server's moves),
    has a click elsewhere refused with a reason, moves it to a dot and acts on a ring (choosing
    the act when several share the cell), ends the turn; the agent's whole turn follows and is
    listed. After every step the drawing matches the server's state."""
    import random

    rng = random.Random(3)
    start(page, server, "reinforce_tactics", "random:seed=2", params={"map": "beginner", "seed": 3})
    page.wait_for_selector("#board svg.rt")
    # by keys first: the cursor shows on the first building that can recruit, Enter opens its menu, 3 a Cleric
    first = min(m["cell"] for m in server_view(page, server)["picture"]["moves"] if m["kind"] == "create_unit")
    page.focus("#board")
    page.keyboard.press("ArrowRight")
    cursor = page.locator("#board svg rect.kbd-cursor")
    assert [int(cursor.get_attribute("data-kr")), int(cursor.get_attribute("data-kc"))] == first
    page.keyboard.press("Enter")
    page.wait_for_selector(".rt-recruit")
    page.keyboard.press("3")
    rt_wait_done(page, 0)
    view = rt_check(page, server)
    pic0 = view["picture"]
    assert view["history"] == [f"create C {pic0['origin'][1] + first[1]},{pic0['origin'][0] + first[0]}"]
    acted = refused = shots = 0
    for _turn in range(turns):
        view = rt_check(page, server)
        if view["terminal"]:
            break
        pic = view["picture"]
        # recruit: an own building or HQ with a recruit among the legal moves
        creates = [m for m in pic["moves"] if m["kind"] == "create_unit"]
        if creates:
            m = rng.choice(creates)
            rt_cell(page, *m["cell"])
            assert page.locator(".rt-recruit").count() == 8  # every type, the unaffordable greyed
            before = len(server_view(page, server)["history"])
            page.click(f'.rt-recruit[data-type="{m["unit_type"]}"]')
            rt_wait_done(page, before)
            view = rt_check(page, server)
            assert view["history"][-1] == m["text"]
            # the new unit cannot do anything this turn: a click on it is refused with the server's reason
            unit = next(u for u in view["picture"]["units"] if [u["r"], u["c"]] == m["cell"])
            rt_cell(page, *m["cell"])
            assert page.inner_text(".rt-refusal") == unit["why"]
            refused += 1
        # each unit that can do something: click it (its dots and rings are the server's moves
        # from its cell), a refused click elsewhere, then a move (it stays picked) and an act
        pic = server_view(page, server)["picture"]
        for cell in sorted({tuple(m["from"]) for m in pic["moves"] if "from" in m}):
            pic = server_view(page, server)["picture"]
            mine = [m for m in pic["moves"] if m.get("from") == list(cell)]
            if not mine:
                continue
            rt_cell(page, *cell)
            assert rt_marks(page) == rt_offered(mine)
            if _turn == 2 and not shots:  # the docs' picture: a unit picked, its dots and rings, the turns listed
                shot(page, "rt_play", tmp_path, "#board-panel")
                shots += 1
            # a cell nothing marks: refused with a reason, the unit stays picked
            marked = [m["to"] for m in mine if "to" in m]
            free = [[r, c] for r, row in enumerate(pic["terrain"]) for c, _t in enumerate(row)
                    if [r, c] not in marked and [r, c] != list(cell) and not any(u["r"] == r and u["c"] == c for u in pic["units"])
                    and not any(s["r"] == r and s["c"] == c for s in pic["structures"])]
            if free:
                rt_cell(page, *rng.choice(free))
                text = page.inner_text(".rt-refusal")
                assert "out of reach" in text or "water" in text or "already moved" in text, text
                refused += 1
                assert rt_marks(page) == rt_offered(mine)
            steps = [m for m in mine if m["kind"] == "move"]
            here = list(cell)
            if steps and rng.random() < 0.8:
                m = rng.choice(steps)
                before = len(server_view(page, server)["history"])
                rt_cell(page, *m["to"])
                rt_wait_done(page, before)
                view = rt_check(page, server)
                assert view["history"][-1] == m["text"]
                here = m["to"]
                mine = [a for a in view["picture"]["moves"] if a.get("from") == here]
                assert rt_marks(page) == rt_offered(mine)  # the moved unit stays picked: its targets ringed
            acts = [a for a in mine if a["kind"] not in ("move", "seize", "end_turn")]
            if acts:
                a = rng.choice(acts)
                before = len(server_view(page, server)["history"])
                rt_cell(page, *a["to"])
                there = [x for x in mine if x.get("cell") == a["to"]]
                if len(there) > 1 or a["to"] == here:  # several acts on that cell, or the unit's own: the page asks which
                    page.wait_for_selector(".rt-choices [data-choice]")
                    assert sorted(int(x) for x in page.eval_on_selector_all(".rt-choices [data-choice]", "els => els.map(e => e.dataset.action)")) == \
                        sorted(x["action"] for x in there)
                    page.click(f'.rt-choices [data-choice][data-action="{a["action"]}"]')
                rt_wait_done(page, before)
                assert a["text"] in server_view(page, server)["history"][before:][:1], (a, server_view(page, server)["history"][before:])
                acted += 1
            elif page.locator("#board svg rect.rt-ready.picked").count() and not any(x.get("cell") == here for x in mine):
                rt_cell(page, *here)  # a second click on the picked unit drops it
                assert page.locator("#board svg circle.rt-dest, #board svg circle.rt-target").count() == 0
        rt_check(page, server)
        before = len(server_view(page, server)["history"])
        page.click(".rt-end")  # the agent's whole turn follows
        page.wait_for_function(
            f"document.querySelectorAll('#history li.ply').length > {before + 1} && "
            "(document.querySelector('#status-text').textContent.startsWith('Your move') || "
            "document.querySelector('#status-text').textContent.startsWith('Game over'))", timeout=120000)
    assert refused >= turns, refused
    assert acted >= (3 if turns > 3 else 0), acted  # the long game reaches the enemy (seeded: 5 acts in 6 turns)
    view = rt_check(page, server)
    assert len(view["turns"]) >= 2 * turns and view["picture"]["last_turn"]["player"] == 1


@pytest.mark.slow
def test_reinforce_tactics_kaggle_episode_replayed_turn_by_turn(page, server, tmp_path):
    """A Kaggle episode (made here by kaggle-environments: its aggressive agent against random)
    opened from its file and stepped turn by turn, each frame drawn as the server has it, with
    the last turn's actions listed."""
    page.goto(server + "/")
    page.wait_for_selector("#game option", state="attached")
    env_mod = pytest.importorskip("kaggle_environments")
    env = env_mod.make("reinforce_tactics", configuration={"episodeSteps": 16, "mapName": "beginner", "seed": 5})
    env.run(["aggressive", "random"])
    episode = tmp_path / "episode.json"
    episode.write_text(json.dumps(env.toJSON()))
    page.set_input_files("#kaggle-file", str(episode))
    page.wait_for_function("document.querySelector('#r-ply').textContent.startsWith('move 0 of')", timeout=60000)
    view = server_view(page, server)
    assert len(view["history"]) > 15 and view["turns"]
    sid = view["id"]
    assert view["agent"] == "random"
    shots = 0
    for _ in range(12):
        was = page.inner_text("#r-ply")
        page.click("#r-next-turn")
        page.wait_for_function(f"document.querySelector('#r-ply').textContent != {json.dumps(was)}")
        shown = int(page.inner_text("#r-ply").split()[1])
        assert shown in [t["ply"] for t in view["turns"]] + [len(view["history"])]
        with urllib.request.urlopen(f"{server}/api/sessions/{sid}/frame?ply={shown}") as res:
            frame = json.load(res)
        page.wait_for_function(f"document.querySelector('.rt-turn') && +document.querySelector('.rt-turn').dataset.step == {frame['step']}")
        assert rt_drawn(page) == rt_expected(frame)
        if frame["last_turn"]:
            listed = page.eval_on_selector_all(".rt-actions.last li", "els => els.map(e => e.textContent)")
            assert [t.strip("()") for t in listed] == [m["text"] for m in frame["last_turn"]["moves"]]
        if not shots and frame["last_turn"] and len(frame["last_turn"]["moves"]) >= 4:  # the docs' picture: a turn's arrows
            shot(page, "rt_replay", tmp_path, "#board-panel")
            shots += 1
        if shown == len(view["history"]):
            break
    assert shots == 1
