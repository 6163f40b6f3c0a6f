"""The board read at arm's length, in Debian's chromium at 1280x800: on the Play and the Replay
pages the SVG board is as wide as its column (on Replay a wider board gets a wider column), so a
counter's id is drawn at least 10 px high and its strength pips at least 6 px, without zoom, on
boards 12 and 14 cells wide; the board's zoom buttons make it larger, and a click on the zoomed
(and scrolled) board still selects the unit under the pointer."""

from __future__ import annotations

import pytest
from browser_kit import SETTLED, chromium, click_if_there, new_page, no_exception, streamlit_server, until
from waits import wait_until

from warlog.app.seats import Seat
from warlog.app.start import start_game
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# A Portable Wargame battle: its units show strength pips (One Hour Wargames' show a bar), on
# one of the bundled boards 12 cells wide.
SCENARIO = "portable-the-axona"
WIDEST = "portable-zama"  # 14 cells wide: the widest bundled boards
BOARD = 'svg[data-board="live"]'
ID_PX, PIP_PX = 10, 6

# The smallest rendered height of the units' ids and of their pips, and the board's width.
SIZES = """() => {
    const svg = document.querySelector('svg[data-board="live"]');
    const heights = sel => Array.from(svg.querySelectorAll(sel)).map(
        e => e.getBoundingClientRect().height);
    const ids = heights('g[data-role="labels"] text');
    const pips = heights('g[data-role="strength_pips"] circle, g[data-role="strength_pips"] path');
    return {ids: ids.length ? Math.min(...ids) : 0, idCount: ids.length,
            pips: pips.length ? Math.min(...pips) : 0, pipCount: pips.length,
            width: svg.getBoundingClientRect().width,
            view: svg.parentElement.getBoundingClientRect().width}; }"""


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """A server over a database holding a finished game (for Replay) and a new game between
    two people (for Play), and chromium."""
    tmp = tmp_path_factory.mktemp("board")
    db = tmp / "board.db"
    done = play_out("done-1", load_scenario(SCENARIO), seed=1)
    widest = play_out("done-14", load_scenario(WIDEST), seed=1)
    with SQLiteEventStore(db) as store:
        store.append("done-1", done.events, 0)
        store.append("done-14", widest.events, 0)
        start_game(store, load_scenario(SCENARIO), game_id="at-table",
                   seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")}, seed=5,
                   played="2026-12-06")
    with streamlit_server(db, tmp) as url, chromium(tmp) as browser:
        yield url, browser


def _assert_readable(page, where: str) -> dict:
    sizes = page.evaluate(SIZES)
    assert sizes["idCount"] and sizes["pipCount"], (where, sizes)
    assert sizes["ids"] >= ID_PX, (where, sizes)
    assert sizes["pips"] >= PIP_PX, (where, sizes)
    assert sizes["width"] >= sizes["view"] - 1, (where, sizes)  # the column's whole width
    return sizes


@pytest.mark.parametrize("game", ["done-1", "done-14"])
def test_replay_draws_ids_and_pips_readable_without_zoom(dashboard, game):
    url, browser = dashboard
    page = new_page(browser, 1280, 800)
    page.goto(f"{url}/?game={game}")
    page.wait_for_selector(BOARD)
    page.wait_for_function(SETTLED)  # the charts' run, after the board's, is over
    _assert_readable(page, f"replay of {game}")
    no_exception(page)
    page.close()


READY = 'svg[data-board="live"] g[data-role="ready"]'


def _until_units_may_act(page) -> None:
    """End phases (a phase no unit of the side acts in: its missile machines, ...) until the
    board frames units that may act; a click lost in a busy page's redraw is made again."""
    for _ in range(12):
        if page.locator(READY).count():
            return
        header = page.evaluate("() => document.body.innerText.split('\\n')"
                               ".find(line => line.includes(' to act')) || ''")
        assert header, "the page names no side to act"

        def once(header=header) -> bool:
            click_if_there(page.locator("button", has_text="end phase"))
            return until(page, "([h, ready]) => document.querySelector(ready) || "
                               "!document.body.innerText.includes(h)", [header, READY])

        wait_until(once, lambda header=header: f"end phase never moved on from {header!r}")
    assert page.locator(READY).count(), "no unit may act in twelve phases"


SELECTED = """() => { const g = document.querySelector(
    'svg[data-board="live"] g[data-role="reach_selected"]');
    return g ? JSON.parse(g.dataset.units)[0] : null; }"""


def _unit_on_screen(page, index: int) -> tuple[str, float, float]:
    """The id of the ``index``-th unit that may act and where its counter is on the screen,
    once the zoomed board's view has scrolled it into sight."""
    return tuple(page.evaluate("""index => {
        const svg = document.querySelector('svg[data-board="live"]');
        const view = svg.parentElement;
        const g = svg.querySelector('g[data-role="ready"]');
        const [x, y] = g.dataset.at.split(' ')[index].split(',').map(Number);
        const screen = () => new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
        const box = view.getBoundingClientRect();
        view.scrollLeft += screen().x - (box.left + box.width / 2);
        view.scrollTop += screen().y - (box.top + box.height / 2);
        view.scrollIntoView({block: 'center'});
        const at = screen();
        return [JSON.parse(g.dataset.units)[index], at.x, at.y]; }""", index))


def test_play_draws_ids_and_pips_readable_and_a_zoomed_click_selects_the_unit(dashboard):
    url, browser = dashboard
    page = new_page(browser, 1280, 800)
    page.goto(f"{url}/play?play=at-table")
    page.wait_for_selector(BOARD)
    _until_units_may_act(page)
    before = _assert_readable(page, "play")

    zoom_in = page.locator('.warlog-board-zoom [data-zoom="in"]')
    zoom_in.click()
    zoom_in.click()
    page.wait_for_function(f"() => ({SIZES})().width > 1.4 * ({SIZES})().view")
    after = page.evaluate(SIZES)
    assert after["ids"] > before["ids"] * 1.4 and after["pips"] > before["pips"] * 1.4

    count = page.evaluate("""() => JSON.parse(document.querySelector(
        'svg[data-board="live"] g[data-role="ready"]').dataset.units).length""")
    for index in (count - 1, 0):  # two units, the view scrolled to each in turn
        unit, x, y = _unit_on_screen(page, index)

        def select(unit=unit, x=x, y=y) -> bool:
            page.mouse.click(x, y)
            return until(page, f"u => ({SELECTED})() === u", unit)

        wait_until(select, lambda unit=unit: f"a click on {unit} on the zoomed board did not "
                                             f"select it (selected: {page.evaluate(SELECTED)})")
        # the redraw after the click kept the zoom
        assert page.evaluate(f"() => ({SIZES})().width > 1.4 * ({SIZES})().view")
    page.locator('.warlog-board-zoom [data-zoom="reset"]').click()
    page.wait_for_function(f"() => ({SIZES})().width <= ({SIZES})().view + 1")
    no_exception(page)
    page.close()
