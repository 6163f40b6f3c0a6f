"""The Review page in Debian's chromium at a laptop's window (issue 38, "Done when"): the review
of a bundled battle shows the graph decision by decision with its grades marked; a click on a
graded decision's row shows the board there with the better order found drawn dashed beside
the one played; "Try it" opens the Play page on a fork of the game at that decision, where the
review's suggestion is offered.

The game is a bot battle of a bundled scenario, stored in the server's own database; what the
page must show (the grades, the decision picked, the better order's marks) is computed here from
the same events with the page's own modules, so the test follows the review wherever the
evaluator's grades fall. The server and browser come from tests/browser_kit.py; every wait is
for a condition, up to tests/waits.py's limit, and a click lost in a redraw is made again."""

from __future__ import annotations

import pytest
from browser_kit import (chromium, click_if_there, new_page, no_exception, streamlit_server,
                         until)
from waits import wait_until

from warlog.dashboard import review_chart, review_page, review_try
from warlog.app.pictures import board
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.scenario import load_scenario
from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCENARIO = "ancients-river-crossing"
GAME = "river-review-1"
WIDTH, HEIGHT = 1280, 800
BOARD = 'svg[data-board="live"]'
CHART = ".st-key-review_chart .js-plotly-plot"
# The better order's marks: the board's "alternative" variant (warlog/app/pictures/board.py), each a
# group of the SVG named by its trace's meta (warlog/app/pictures/board_svg.py).
ALTERNATIVE = f'{BOARD} g[data-role="highlight"][data-variant="alternative"]'
# No script run going on: a click made during one may be lost in the redraw.
IDLE = "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')"
TOGGLED = "() => !!document.querySelector('.st-key-review_only_flawed input:checked')"


@pytest.fixture(scope="module")
def battle() -> list[dict]:
    """A finished bot battle of a bundled scenario (~80 decisions: reviewed in seconds)."""
    return play_out(GAME, load_scenario(SCENARIO), seed=1).events


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory, battle):
    """A server over a database holding the battle alone, and chromium."""
    tmp = tmp_path_factory.mktemp("browser-review")
    db = tmp / "review.db"
    with SQLiteEventStore(db) as store:
        store.append(GAME, battle, 0)
    with streamlit_server(db, tmp) as url, chromium(tmp) as browser:
        yield url, browser, db


@pytest.fixture(scope="module")
def expected(battle) -> dict:
    """The review the page shows (the page's own function on the same events), and the first
    graded decision whose better order the page can draw and try: its row in the table of
    inaccuracies and worse, its order, its better order's marks and where "Try it" forks."""
    events = battle
    review = review_page.review_now(GAME, events)
    timeline = Timeline(events)
    flawed = [o for o in review["orders"] if review_page.flawed(o)]
    for row, order in enumerate(flawed):
        if not order.get("best_order") or review_try.fork_at(events, order) is None:
            continue
        marks = review_try.better_marks(review_page.position_before(timeline, events, order),
                                        order)
        if marks:
            return {"review": review, "row": row, "order": order, "marks": marks,
                    "fork_at": review_try.fork_at(events, order)}
    raise AssertionError("the battle holds no graded decision with a better order to draw")


def _graph_marks(page) -> dict[str, list[int]]:
    """The graph's grade marks as plotly.js drew them: each marked grade's decision numbers."""
    return page.evaluate("""sel => Object.fromEntries(document.querySelector(sel).data
        .filter(t => t.meta && t.meta.role === 'mark')
        .map(t => [t.meta.grade, Array.from(t.x)]))""", CHART)


ROW_PX = 35  # Streamlit's dataframe: the header and each row this tall (glide-data-grid)


def _click_row(page, table_key: str, row: int) -> None:
    """Click row ``row``'s selection cell (the row marker, left of the first column) in the
    dataframe ``table_key``. Streamlit draws the table on a canvas (glide-data-grid), the
    header then the rows, scrolled within its own box: the grid is scrolled to the row first
    (and two frames let it draw there), then the click goes to the row's place on the
    screen."""
    grid = f".st-key-{table_key} [data-testid='stDataFrame']"
    page.locator(grid).scroll_into_view_if_needed()
    scrolled = page.evaluate("""([sel, top]) => { const s = document.querySelector(
        sel + ' .dvn-scroller'); if (!s) return 0; s.scrollTop = top; return s.scrollTop; }""",
                             [grid, row * ROW_PX])
    page.wait_for_function("() => new Promise(done => requestAnimationFrame("
                           "() => requestAnimationFrame(() => done(true))))")
    box = page.locator(grid).bounding_box()
    page.mouse.click(box["x"] + ROW_PX / 2, box["y"] + ROW_PX * (row + 1.5) - scrolled)


def test_review_graph_better_order_and_try_it(dashboard, battle, expected):
    url, browser, db = dashboard
    events = battle
    review, order = expected["review"], expected["order"]
    page = new_page(browser, WIDTH, HEIGHT)
    page.goto(f"{url}/review?game={GAME}")
    page.wait_for_selector(CHART)  # drawn once the background review is done
    no_exception(page)

    # The graph: one point a decision and the result, each graded decision marked.
    points = page.evaluate("""sel => document.querySelector(sel).data
        .find(t => t.meta && t.meta.role === 'eval').x.length""", CHART)
    assert points == len(review["orders"]) + 1
    assert _graph_marks(page) == {
        grade: [o["index"] + 1 for o in review["orders"] if o["grade"] == grade]
        for grade in review_chart.MARKED}
    assert order["index"] + 1 in _graph_marks(page)[order["grade"]]

    # Only the inaccuracies and worse: the table of them, its rows in the review's order.
    # (Clicked again only while it is off: a second click on a slow page would turn it off.)
    def filter_flawed() -> bool:
        page.wait_for_function(IDLE)
        if not page.evaluate(TOGGLED):
            page.locator(".st-key-review_only_flawed label").first.click()
        return until(page, "() => !!document.querySelector('.st-key-review_table_1 canvas')")

    wait_until(filter_flawed, "the toggle never showed only the graded decisions")

    # A click on the graded decision's row: the board there, the better order drawn dashed.
    caption = f"Decision {order['index'] + 1}, turn {order['turn']}"

    shown = ("([sel, said]) => !!document.querySelector(sel) && "
             "document.body.innerText.includes(said)")

    def pick() -> bool:  # a second click on the row picked would unpick it: looked at first
        page.wait_for_function(IDLE)
        if page.evaluate(f"({shown})", [ALTERNATIVE, caption]):
            return True
        _click_row(page, "review_table_1", expected["row"])
        return until(page, shown, [ALTERNATIVE, caption])

    wait_until(pick, lambda: f"a click on row {expected['row']} never showed {caption}")
    no_exception(page)
    drawn = page.evaluate("""sel => Array.from(document.querySelectorAll(sel)).map(g => ({
        kind: g.dataset.kind, who: g.dataset.unit || g.dataset.source,
        dashed: !!g.querySelector('[stroke-dasharray]')}))""", ALTERNATIVE)
    assert sorted((d["kind"], d["who"]) for d in drawn) == sorted(
        (m["kind"], m.get("unit") or m.get("source")) for m in expected["marks"])
    assert all(d["dashed"] for d in drawn), drawn
    assert {d["who"] for d in drawn} == {order["best_order"].get("unit")}
    said = page.evaluate("() => document.body.innerText")
    assert f"dashed, the {board.ALTERNATIVE_LEGEND}, {order['best_text']}" in said

    # "Try it": a fork of the game before that decision, in the Play page, seats asked afresh;
    # the side that made the decision played by a person, the review's suggestion offered.
    reseating = "() => document.body.innerText.includes('who plays each side now?')"

    def try_it() -> bool:  # a second fork would be made if the first were not looked for
        page.wait_for_function(IDLE)
        if page.evaluate(reseating):
            return True
        click_if_there(page.locator(".st-key-review_try_it button"))
        return until(page, reseating)

    wait_until(try_it, "Try it never opened the Play page")
    no_exception(page)
    side = order["side"]
    page.locator(f".st-key-play_reseat_seat_{side}").get_by_text("person").click()
    page.wait_for_selector(f".st-key-play_reseat_name_{side}")
    page.locator(".st-key-play_reseat_go button").click()
    page.get_by_text("Review suggests").wait_for()
    page.wait_for_selector(BOARD)
    no_exception(page)
    suggestion = page.get_by_text("Review suggests").first.inner_text()
    assert order["best_text"] in suggestion, suggestion
    assert page.locator(".st-key-review_try_give button").count()
    fork = page.evaluate("() => new URLSearchParams(location.search).get('play')")
    assert fork and fork.startswith(f"{GAME}-fork-")
    with SQLiteEventStore(db) as store:
        forked = store.read(fork)
    at = expected["fork_at"]
    assert [{**e, "game": "x"} for e in forked[:at]] == [{**e, "game": "x"}
                                                          for e in events[:at]]
    page.close()
