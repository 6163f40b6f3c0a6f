"""The Replay page in a real browser at a laptop's window (1280x800, 1400x900): the board is in
sight without scrolling, with the scrubbing controls beside it, and after the turn slider is
clicked the arrow keys move step by step.

The server and browser come from tests/browser_kit.py; every wait is for a condition, up to
tests/waits.py's limit."""

from __future__ import annotations

import re

import pytest
from browser_kit import chromium, new_page, no_exception, streamlit_server, until
from run_once import copied
from waits import wait_until

pytestmark = [pytest.mark.browser, pytest.mark.slow]

GAME = "demo-ancients-river-crossing-1"
WIDTH, HEIGHT = 1400, 900


@pytest.fixture(scope="module")
def server(tmp_path_factory, demo_db_file):
    """A streamlit server on a copy of the demo database."""
    tmp = tmp_path_factory.mktemp("browser-replay")
    with streamlit_server(copied(demo_db_file, tmp / "demo.db"), tmp) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("xdg")) as b:
        yield b


def _step(page) -> tuple[int, int]:
    """(the step on show, the turn in its title), read from the "Step N of M · events A–B —
    turn T" line."""
    text = page.evaluate("() => document.body.innerText")
    found = re.search(r"Step (\d+) of \d+ · events? [\d–]+ — turn (\d+)", text)
    assert found, "no step line on the page"
    return int(found[1]), int(found[2])


def _moved_from(page, step: int) -> tuple[int, int]:
    """Wait until the page shows a step other than ``step``; then that step and its turn."""
    page.wait_for_function(
        "s => { const m = document.body.innerText.match(/Step (\\d+) of/);"
        " return m && Number(m[1]) !== s; }", arg=step)
    return _step(page)


def _idle(page) -> None:
    """Wait until the page's script run is over (Streamlit's "running" widget gone): a key
    pressed during a redraw may be lost, and pressing it again could move twice."""
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stStatusWidget\"]')")


# Recorded from the page's first script on: what the page held when the board first appeared
# (its charts' elements, the line saying they follow), and whether a chart was drawn later.
FIRST_SEEN = """(() => { window.firstSeen = {}; new MutationObserver(() => {
    const seen = window.firstSeen;
    if (!seen.board && document.querySelector('svg[data-board="live"] g[data-role="units"]'))
        seen.board = {charts: document.querySelectorAll('[data-testid="stPlotlyChart"]').length,
                      told: document.body.innerText.includes('charts follow')};
    if (seen.board && document.querySelector('.js-plotly-plot')) seen.chart = true;
}).observe(document, {childList: true, subtree: true}); })();"""


BOX = """sel => { const r = document.querySelector(sel).getBoundingClientRect();
    return {top: r.top, bottom: r.bottom, left: r.left, right: r.right}; }"""


@pytest.mark.parametrize("width,height", [(1280, 800), (1400, 900)])
@pytest.mark.parametrize("game", [GAME, "demo-portable-issus-1"])
def test_the_board_and_its_controls_are_on_the_first_screen(server, browser, game, width,
                                                            height):
    """The board first: its top edge in the window's upper half, the whole of its width in
    the window, and the buttons and the step slider beside it (not above it, pushing it
    down)."""
    page = new_page(browser, width, height)
    page.goto(f"{server}/?game={game}")
    page.wait_for_selector('svg[data-board="live"]')
    page.wait_for_selector(".st-key-next_step button")
    no_exception(page)
    board = page.evaluate(BOX, 'svg[data-board="live"]')
    # In the window's upper half (it started 525-618 px down, under the buttons and sliders).
    assert 0 <= board["top"] < height / 2, \
        f"the board starts {board['top']}px down a {height}px window"
    assert 0 <= board["left"] and board["right"] <= width, f"the board is cut: {board}"
    for control in (".st-key-next_step button", ".st-key-step input[type=range]"):
        page.wait_for_selector(control)  # drawn in the same run as the board, maybe a moment later
        box = page.evaluate(BOX, control)
        assert box["top"] < height and box["left"] >= board["right"], (control, box, board)
    page.close()


def test_board_in_sight_and_arrow_keys_step_after_the_turn_slider(server, browser):
    page = new_page(browser, WIDTH, HEIGHT)
    page.add_init_script(FIRST_SEEN)
    page.goto(f"{server}/?game={GAME}")
    page.wait_for_selector('svg[data-board="live"]')
    assert page.locator('[data-testid="stException"]').count() == 0
    top = page.evaluate(
        """() => document.querySelector('svg[data-board="live"]').getBoundingClientRect().top""")
    assert 0 <= top < HEIGHT * 0.75, f"the board starts {top}px down a {HEIGHT}px window"
    # The charts come once the board is drawn (their scripts would hold the board back).
    page.wait_for_function("() => window.firstSeen.chart")
    assert page.evaluate("() => window.firstSeen.board") == {"charts": 0, "told": True}
    page.wait_for_selector("[data-testid='stExpander'] summary")  # options: folded
    assert "Options in force" not in page.evaluate("() => document.body.innerText")

    # A click halfway along the turn slider's track: the page jumps to that turn's first step.
    _idle(page)
    start, _ = _step(page)

    def click_the_turn_track() -> bool:
        track = page.locator("[class*='st-key-turn_'] input[type=range]").locator(
            "xpath=../../..")  # the input, its hidden wrapper, the thumb, the track
        box = track.bounding_box()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        return until(page, "s => { const m = document.body.innerText.match(/Step (\\d+) of/);"
                            " return m && Number(m[1]) !== s; }", start)

    wait_until(click_the_turn_track, "a click on the turn slider never moved the page")
    first, turn = _step(page)
    assert turn > 0
    # The arrow keys now move one step at a time, not one turn: once the run that moved the
    # page has drawn the new turn slider, the old one (and its focus) is gone.
    _idle(page)
    page.wait_for_function("() => !(document.activeElement && document.activeElement.matches("
                           "'input[type=range]'))")
    page.keyboard.press("ArrowRight")
    assert _moved_from(page, first) == (first + 1, turn)
    _idle(page)
    page.keyboard.press("ArrowRight")
    assert _moved_from(page, first + 1)[0] == first + 2
    _idle(page)
    page.keyboard.press("ArrowLeft")
    assert _moved_from(page, first + 2)[0] == first + 1
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()
