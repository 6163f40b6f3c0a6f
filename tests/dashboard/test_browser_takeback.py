"""Taking an order back in Debian's chromium (issue 39): a hot-seat player ends a phase, takes
the `end` back from the Play page's button, the page says so and shows the phase again, and
the game the clicks stored verifies."""

from __future__ import annotations

import pytest
from browser_kit import chromium, click_if_there, new_page, no_exception, streamlit_server, until
from waits import wait_until

from warlog.app.seats import Seat
from warlog.app.start import start_game
from warlog.engine.scenario import load_scenario
from warlog.engine.verify import verify
from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SCENARIO = "ancients-river-crossing"


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """A server over a database holding one hot-seat game (two people, no seat links), and
    chromium: (url, browser, db, game)."""
    tmp = tmp_path_factory.mktemp("takeback")
    db = tmp / "play.db"
    with SQLiteEventStore(db) as store:
        game = start_game(store, load_scenario(SCENARIO), game_id="hot", seed=3,
                          seats={"red": Seat.person("Ann"), "blue": Seat.person("Bo")})
    with streamlit_server(db, tmp) as url, chromium(tmp) as browser:
        yield url, browser, db, game


def _header(page) -> str:
    return page.get_by_text("to act:", exact=False).first.inner_text()


def test_an_end_is_taken_back_from_the_page_and_the_game_verifies(dashboard):
    url, browser, db, game = dashboard
    page = new_page(browser, 1400, 900)
    page.goto(f"{url}/play?play={game}")
    page.wait_for_selector('svg[data-board="live"]')
    page.get_by_text("to act:").first.wait_for()
    before = _header(page)
    side = "red" if "to act: red" in before else "blue"
    assert not page.locator(f".st-key-play_takeback_{side}").count()

    def ended() -> bool:  # a click lost in a busy page's redraw is made again
        click_if_there(page.locator("button", has_text="end phase"))
        return until(page, "h => !document.body.innerText.includes(h)", before)

    wait_until(ended, lambda: f"end phase never moved the game on from {before!r}")
    take = page.get_by_role("button", name=f"Take back {side}'s last order")
    take.first.wait_for()  # (the page may hold the button's previous drawing a moment longer)

    def taken_back() -> bool:
        click_if_there(take.first)  # gone once taken back: never clicked twice
        return until(page, "() => document.body.innerText.includes('takes back 1 order')")

    wait_until(taken_back, "the take-back button never took the end back")
    page.wait_for_function("h => document.body.innerText.includes(h)", arg=before)
    no_exception(page)
    with SQLiteEventStore(db) as store:
        events = store.read(game)
    assert [e["kind"] for e in events if e["kind"] in ("order_given", "orders_taken_back")] == [
        "order_given", "orders_taken_back"]
    assert verify(events).ok
    page.close()
