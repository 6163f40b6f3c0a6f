"""The dashboard in a real browser: `streamlit run` on a free port, driven by Playwright with
Debian's /usr/bin/chromium (Playwright's own browser download is not used). Fails, never skips,
when chromium is missing: CI installs it (`apt-get install -y chromium`).

Every page waits for what it needs (a chart drawn, a step moved) up to tests/waits.py's one limit,
its default for every Playwright wait and action: on a busy machine the first chart can take
longer than Playwright's own 30 s (`./dev test` at a load of 6-10 missed it twice)."""

from __future__ import annotations

import os
import shutil

import pytest
from browser_kit import SETTLED, board_point, chromium, new_page, streamlit_server
from run_once import copied
from waits import LIMIT_MS, wait_until

from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def server(tmp_path_factory, demo_db_file):
    """A streamlit server on a copy of the demo database, and the unit count of the game the
    page opens on."""
    tmp = tmp_path_factory.mktemp("browser")
    db = copied(demo_db_file, tmp / "demo.db")
    with SQLiteEventStore(db) as store:
        first_game = store.read(store.games()[0].id, upto=1)[0]  # the page opens on it
    with streamlit_server(db, tmp) as url:
        yield url, len(first_game["scenario"]["units"])


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    with chromium(tmp_path_factory.mktemp("xdg")) as b:
        yield b


def _step_title(page) -> str:
    return page.get_by_text("Step ", exact=False).filter(has_text=" of ").first.inner_text()


BOARD = 'svg[data-board="live"]'  # the board (dashboard/board_click.py); the charts are plotly's


def _live_units(page) -> int:
    """Points in the board's unit groups, as the browser holds them."""
    return page.evaluate("""() => Array.from(document.querySelectorAll(
        'svg[data-board="live"] g[data-role="units"]'))
        .reduce((n, g) => n + g.dataset.at.split(' ').filter(p => p).length, 0)""")


def test_dashboard_steps_in_a_real_browser(server, browser, tmp_path):
    url, units = server
    page = new_page(browser, 1500, 2300)
    page.goto(url)
    page.wait_for_selector(BOARD)
    page.wait_for_function(SETTLED)
    assert page.locator('[data-testid="stException"]').count() == 0
    first = _step_title(page)
    assert first.startswith("Step 1 of")
    assert _live_units(page) == units
    for _ in range(3):
        before = _step_title(page)
        page.locator(".st-key-next_step button").first.click()
        page.wait_for_function(
            "t => !document.body.innerText.includes(t)", arg=before)
    assert _step_title(page).startswith("Step 4 of")
    page.wait_for_function("() => location.search.includes('step=4')")
    assert "game=" in page.url  # the address names the game and the step: a link reopens it
    page.locator("h1").first.click()  # keyboard shortcuts act when no input has the focus
    page.keyboard.press("End")
    page.wait_for_function(
        "() => /Step (\\d+) of \\1\\b/.test(document.body.innerText)")
    page.keyboard.press("Home")
    page.wait_for_function("() => document.body.innerText.includes('Step 1 of')")
    page.wait_for_selector(BOARD)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_function("""() => [...document.querySelectorAll('.js-plotly-plot')]
        .every(el => el._fullLayout && el.querySelector('.main-svg'))""")
    shot = tmp_path / "dashboard.png"
    page.screenshot(path=str(shot))
    if os.environ.get("WARLOG_SCREENSHOT"):  # a copy to look at: WARLOG_SCREENSHOT=/tmp/x.png
        shutil.copy(shot, os.environ["WARLOG_SCREENSHOT"])
    assert shot.stat().st_size > 20_000
    page.close()


def _point_on_page(page, plot: int, role: str, index: int = 0) -> tuple[float, float]:
    """Where on the page plotly drew point ``index`` of the trace with ``meta.role`` ``role``
    in the ``plot``-th figure of the page."""
    return tuple(page.evaluate("""([plot, role, index]) => {
        const el = document.querySelectorAll('.js-plotly-plot')[plot];
        const t = el._fullData.find(t => t.meta && t.meta.role === role);
        const xa = el._fullLayout[t.xaxis.replace('x', 'xaxis')];
        const ya = el._fullLayout[t.yaxis.replace('y', 'yaxis')];
        const box = el.getBoundingClientRect();
        return [box.left + xa._offset + xa.l2p(t.x[index]),
                box.top + ya._offset + ya.l2p(t.y[index])];
    }""", [plot, role, index]))


def test_clicks_on_the_board_and_the_charts_and_a_copied_link(server, browser):
    """A click on a unit selects it (its ring and reach drawn); a click on a chart's point goes
    to that turn; the page's address opened in a new tab finds the same step."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    url, _ = server
    page = new_page(browser, 1500, 2300)
    page.goto(url)
    page.wait_for_selector(BOARD)
    page.wait_for_function(SETTLED)
    x, y, _, _ = board_point(page, "units")
    page.mouse.click(x, y)
    page.wait_for_selector(f'{BOARD} g[data-role="reach_selected"]')
    assert page.get_by_text("facing", exact=False).count() > 0
    page.wait_for_function("() => document.querySelectorAll('.js-plotly-plot').length >= 3")
    before = _step_title(page)
    # The page may still be redrawing after the board click: find the attrition chart afresh
    # on each try, bring it into view, click its last turn, and wait for the step to move; a
    # click lost in a redraw is made again after a twelfth of the limit (every try goes to the
    # same turn), until the limit.
    def click_moves_the_step() -> bool:
        page.wait_for_function("""() => { const el = document.querySelectorAll(
            '.js-plotly-plot')[0]; return el && el._fullData &&
            el._fullData.some(t => t.meta && t.meta.role === 'hits'); }""")
        last = page.evaluate("""() => {
            const el = document.querySelectorAll('.js-plotly-plot')[0];
            el.scrollIntoView({block: 'center'});
            const t = el._fullData.find(t => t.meta && t.meta.role === 'hits');
            return t._length - 1;
        }""")
        x, y = _point_on_page(page, 0, "hits", last)  # the attrition chart's last turn
        page.mouse.click(x, y)
        try:
            page.wait_for_function("t => !document.body.innerText.includes(t)", arg=before,
                                   timeout=LIMIT_MS / 12)
            return True
        except PlaywrightTimeout:
            return False

    wait_until(click_moves_the_step, "a click on the chart's point never moved the step")
    page.wait_for_function("() => /step=\\d+/.test(location.search)")
    moved = _step_title(page)
    assert not moved.startswith("Step 1 of")
    copy = new_page(browser, 1500, 1400)
    copy.goto(page.url)
    copy.wait_for_selector(BOARD)
    copy.wait_for_function("t => document.body.innerText.includes(t)",
                           arg=moved.split(" — ")[0])
    assert copy.locator('[data-testid="stException"]').count() == 0
    copy.close()
    page.close()


def test_invalid_upload_shows_an_error_in_the_browser(server, browser, tmp_path):
    page = new_page(browser, 1400, 1200)
    page.goto(server[0])
    page.wait_for_selector(BOARD)
    page.get_by_text("Replay file", exact=True).click()
    bad = tmp_path / "broken.jsonl"
    bad.write_bytes(b"this is not a replay\n")
    page.locator('input[type="file"]').set_input_files(str(bad))
    error = page.locator('[data-testid="stAlertContentError"]')
    error.wait_for()
    assert "not a warlog replay" in error.inner_text()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_a_compressed_replay_uploads_in_the_browser(server, browser, tmp_path):
    """`warlog export NAME.jsonl.gz` writes gzip; the uploader takes it (the browser enforces
    the uploader's file types, which AppTest does not)."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario
    from warlog.events.replay_file import write_replay

    path = tmp_path / "battle.jsonl.gz"
    write_replay(path, play_out("gz", load_scenario("ancients-river-crossing"), seed=3).events)
    page = new_page(browser, 1400, 1200)
    page.goto(server[0])
    page.wait_for_selector(BOARD)
    page.get_by_text("Replay file", exact=True).click()
    page.locator('input[type="file"]').set_input_files(str(path))
    page.get_by_role("heading", name="Crossing at the Ford").wait_for()
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_the_html_report_works_offline_in_a_real_browser(browser, tmp_path):
    """`warlog report`: one file, opened from disk with no network: the board steps through the
    turns, and the page asks for nothing outside itself."""
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario
    from warlog.report import report_html

    events = play_out("rep", load_scenario("ancients-river-crossing"), seed=7).events
    path = tmp_path / "battle.html"
    path.write_text(report_html(events), encoding="utf-8")
    page = new_page(browser, 1300, 1600)
    requests, errors = [], []
    page.on("request", lambda r: requests.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_selector("#board.js-plotly-plot")
    assert page.locator("#turn-label").inner_text() == "Set-up"
    page.locator("#turn").focus()
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "() => document.getElementById('turn-label').textContent === 'End of turn 1'")
    assert page.locator(".js-plotly-plot").count() >= 4  # the board and three charts
    assert not errors, errors
    assert all(url.startswith(("file://", "data:", "blob:", "about:")) for url in requests), requests
    page.close()
