"""Every rule system the browser tests did not yet play, played on the Play page in Debian's
chromium by clicks alone against the tactician: Morschauser's Frontier (a battery's bombard
aimed at a cell, a combat ordered by clicking the enemy the selected unit faces), the Napoleonic
system (a change of formation and a battery limbered or unlimbered, both the unit's own buttons
beside the board) and the ancient density system (moves, a shot, a reform). Each game is stored
with a fixed seed and opened by its address (``/play?play=GAME_ID``), so the same clicks meet
the same battle every run; `warlog verify` then re-derives the stored game, and its log holds
the orders the person gave, signed with their name.

Why the test reads the store to choose: the person here is a scripted player (``_choose``, a
plan per system: the wanted orders as soon as the rules allow them, a few moves the aggressive
bot would make, then the end of the phase), and the page is only ever driven by clicks on the
board and on its buttons. Every click is checked by its effect (the unit selected, the order
stored, the choices offered) and made again if a redraw lost it: a click on a board or a
button drawn before the game moved on is refused by the page, so a repeated click never gives a
second order.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest
from browser_kit import chromium, click_if_there, new_page, no_exception, streamlit_server, until
from waits import LIMIT, wait_until

from warlog.app.seats import Seat
from warlog.app.start import start_game
from warlog.engine import vocabulary
from warlog.engine.bots import bot_rng, get_policy
from warlog.engine.fold import replay
from warlog.engine.game import legal_orders
from warlog.engine.scenario import load_scenario
from warlog.engine.state import GameState
from warlog.events.orders import Order, parse_order
from warlog.events.sqlite_store import SQLiteEventStore

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PERSON = "Ann"  # the person's name, as the game records it (order_given's "by")
BOT = "tactician"  # the fastest strong bot in every system (a dozen milliseconds an order)


@dataclass(frozen=True)
class Plan:
    """How the scripted person plays one system: ``wants`` (order kinds, ``_kind``) each given
    once, as soon as one is legal; at most ``moves`` moves a phase, each the aggressive bot's
    choice (the first one of the game given by Shift-click as an alternative the click
    offers); then the phase ended. ``turns``: the game is played until that turn is over."""

    scenario: str
    seed: int
    wants: tuple[str, ...]
    moves: int
    turns: int
    side: str = "red"


PLANS = {
    "frontier": Plan("frontier-ulundi", 1, ("bombard", "fight"), moves=2, turns=2),
    "napoleonic": Plan("napoleonic-aspern", 1, ("formation", "limber"), moves=1, turns=2),
    # A reform needs a unit out of order first, which a die decides: with this seed the moves
    # the plan makes put one out of order in the first turn.
    "density": Plan("density-granicus", 7, ("reform", "shoot"), moves=4, turns=2),
}


def _kind(order: Order) -> str:
    """An order's kind for a plan: its type, but a battery limbered or unlimbered apart from
    the foot's and horse's changes of formation."""
    if order.type == "formation" and order.formation in ("limbered", "unlimbered"):
        return "limber"
    return order.type


# -- the scripted person: what to give now ---------------------------------------------------


def _alone(state: GameState, unit: str) -> bool:
    """Whether ``unit`` is the one unit in its cell: a click there is a click on it (a click on
    a cell two units share selects the one the page finds first)."""
    found = state.unit_at(state.units[unit].cell)
    return found is not None and found.id == unit


def _joiner(state: GameState, order: Order, ready: list[str]) -> str | None:
    """The unit to select for ``order``: its own unit, or for a side's order (Frontier's fight)
    a unit that may act and takes part in it."""
    owner = vocabulary.unit_of(state, order)
    if owner is not None:
        return owner
    kind = vocabulary.kind_of(state, order)
    if kind.takes_part is None:
        return None
    return next((u for u in ready if _alone(state, u) and kind.takes_part(state, u, order)), None)


def _target_cell(state: GameState, order: Order):
    where = vocabulary.gesture(state, order)
    if where.how in ("cell", "aim"):
        return tuple(where.at)
    if where.how == "enemy":
        return state.units[where.at].cell
    return None


def _clickable(state: GameState, order: Order, ready: list[str]) -> bool:
    """Whether clicks can give ``order`` unambiguously: the unit to select is alone in its cell,
    and the cell clicked then holds nobody of the side to act (a click on a friend selects it)
    and, for an enemy, that enemy alone."""
    where = vocabulary.gesture(state, order)
    if where.how == "side":
        return order.type == "end_phase"
    unit = _joiner(state, order, ready)
    if unit is None or unit not in ready or not _alone(state, unit):
        return False
    if where.how == "unit":
        return True
    there = state.unit_at(_target_cell(state, order))
    if where.how == "enemy":
        return there is not None and there.id == where.at
    return there is None or (where.how == "aim" and there.side != state.to_act)


def _offered_at(state: GameState, unit: str, cell, legal: list[Order]) -> list[Order]:
    """The orders a click on ``cell`` offers with ``unit`` selected (play_clicks.resolve)."""
    choices = vocabulary.choices(state, unit, legal)
    there = state.unit_at(cell)
    return ((choices.enemies.get(there.id, []) if there is not None else [])
            or choices.cells.get(cell, []) or choices.aims.get(cell, []))


def _asked_instead(state: GameState, pick: Order, usable: list[Order], legal: list[Order]
                   ) -> Order:
    """The game's first move: one that only a Shift-click offers (another facing at a cell),
    the one nearest the aggressive bot's ``pick`` (its unit's first), or ``pick`` itself when
    no cell offers a choice."""
    def alternative(order: Order) -> bool:
        offered = _offered_at(state, order.unit, tuple(order.path[-1]), legal)
        return vocabulary.plain_order(state, offered) != order

    routes = [o for o in usable if o.type == "route" and o.path and alternative(o)]
    end = tuple(pick.path[-1])
    routes.sort(key=lambda o: (o.unit != pick.unit, state.grid.distance(tuple(o.path[-1]), end),
                               vocabulary.label(state, o)))
    return routes[0] if routes else pick


def _choose(state: GameState, mine: list[dict], plan: Plan) -> Order:
    """The person's next order at ``state``, given ``mine`` (their order_given events so far):
    a wanted kind not yet given (a bombard on an enemy's cell first, a fight without advancing),
    else one of the phase's moves (the first one of the game only a Shift-click offers), else
    the end of the phase (or, when the rules want a choice
    first, the first choice)."""
    legal = legal_orders(state)
    ready = vocabulary.units_to_act(state, legal)
    usable = [o for o in legal if _clickable(state, o, ready)]
    given = {_kind(parse_order(e["order"])) for e in mine}
    for want in plan.wants:
        if want in given:
            continue
        found = [o for o in usable if _kind(o) == want]
        found.sort(key=lambda o: (not (o.type == "bombard" and state.unit_at(tuple(o.cell))),
                                  getattr(o, "advance", False)))
        if found:
            return found[0]
    here = [e for e in mine if (e["turn"], e["phase"]) == (state.turn, state.phase)]
    moved = sum(1 for e in here if e["order"]["type"] == "route" and e["order"]["path"])
    if moved < plan.moves:
        pick = get_policy("aggressive").choose(state, bot_rng(state))
        if pick.type == "route" and pick.path and pick in usable:
            if not any(e["order"]["type"] == "route" for e in mine):
                return _asked_instead(state, pick, usable, legal)
            return pick
    ends = [o for o in legal if o.type == "end_phase"]
    return ends[0] if ends else (usable or legal)[0]


# -- the page -------------------------------------------------------------------------------

# The board drawn after the game moved on from event ``s`` (while the page redraws, the board
# may be briefly missing: that is no sign of anything).
MOVED = """s => { const b = document.querySelector('.warlog-board');
    return !!b && b.dataset.seen !== undefined && b.dataset.seen !== String(s); }"""
SEEN = """s => { const b = document.querySelector('.warlog-board');
    return !!b && b.dataset.seen === String(s); }"""
SELECTED = """([s, unit]) => { const b = document.querySelector('.warlog-board');
    return !!b && b.dataset.seen === String(s) && Array.from(b.querySelectorAll(
        'svg[data-board=live] g[data-role=reach_selected]')).some(
            g => g.dataset.unit === unit); }"""
READY = """unit => { const g = document.querySelector('svg[data-board=live] g[data-role=ready]');
    return !!g && JSON.parse(g.dataset.units).includes(unit); }"""
# A point of the board in the board's own units (the engine's cell centres) on the screen, and
# whether a click there reaches the board (not the header bar over it, nor outside the window).
ON_SCREEN = """([x, y]) => { const svg = document.querySelector('svg[data-board=live]');
    if (!svg) return null;
    const at = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
    const e = document.elementFromPoint(at.x, at.y);
    return [at.x, at.y, !!(e && e.closest('svg[data-board=live]'))]; }"""
# Scroll whatever scrolls the board so that the point comes to the middle of the window.
SCROLL_TO = """([x, y]) => { const svg = document.querySelector('svg[data-board=live]');
    if (!svg) return;
    const at = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
    const dy = at.y - window.innerHeight / 2;
    for (let e = svg.parentElement; e; e = e.parentElement) {
        const style = getComputedStyle(e).overflowY;
        if (e.scrollHeight > e.clientHeight + 1 && (style === 'auto' || style === 'scroll')) {
            e.scrollBy(0, dy); return; } }
    window.scrollBy(0, dy); }"""
SHOWS = """([selector, label]) => { const b = document.querySelector(selector);
    return !!b && b.innerText.trim() === label
        && !document.querySelector('[data-testid="stStatusWidget"]'); }"""
# A button showing some text, or the game already moved on.
PRESENT = """([s, selector, text]) => (""" + MOVED + """)(s) || Array.from(
    document.querySelectorAll(selector)).some(b => b.innerText.includes(text))"""
OFFERS = """s => !!document.querySelector(`[class*='st-key-play_offer_${s}_'] button`)"""


class Person:
    """The person's seat of one game in one page, played by clicks; the store read to know the
    game as it stands (the page is never asked: it is only clicked)."""

    def __init__(self, page, store: SQLiteEventStore, game: str, plan: Plan) -> None:
        self.page, self.store, self.game, self.plan = page, store, game, plan
        self.asked = 0  # orders given by choosing among what a Shift-click offered
        self._read: tuple[int, list[dict], GameState] | None = None

    def now(self) -> tuple[list[dict], GameState]:
        """The stored game and its state (folded again only when something was appended)."""
        seq = self.store.last_seq(self.game)
        if self._read is None or self._read[0] != seq:
            events = self.store.read(self.game)
            self._read = (seq, events, replay(events))
        return self._read[1], self._read[2]

    def _seq(self) -> int:
        return self.store.last_seq(self.game)

    def _page_says(self) -> str:
        alerts = self.page.locator('[data-testid="stAlert"], [data-testid="stException"]')
        return " | ".join(alerts.nth(i).inner_text() for i in range(alerts.count()))

    def wait_for_my_turn(self) -> GameState:
        """Wait until the person is to act (the bot's turn played on the server) or the game
        ended, and until the page shows that very state."""
        def mine():
            _, state = self.now()
            return state if state.ended or state.to_act == self.plan.side else None

        state = wait_until(mine, lambda: f"{self.plan.side} never came to act: {self._page_says()}")
        self.page.wait_for_function(SEEN, arg=self._seq())
        return state

    # -- clicks ----------------------------------------------------------------------------

    def _point(self, state: GameState, cell) -> tuple[float, float]:
        """Where on the screen a click reaches ``cell``, the board scrolled to it if need be."""
        x, y = state.grid.centre(cell)
        for _ in range(3):
            found = self.page.evaluate(ON_SCREEN, [x, y])
            assert found is not None, "the page shows no board to click"
            if found[2]:
                return found[0], found[1]
            self.page.evaluate(SCROLL_TO, [x, y])
        raise AssertionError(f"cell {cell} cannot be brought into the window to click")

    def _click_until(self, state: GameState, cell, done: str, arg, what: str,
                     shift: bool = False) -> None:
        """Click ``cell`` (with Shift: ask which order) until the JavaScript ``done`` holds,
        clicking again when a redraw lost the click."""
        def once() -> bool:
            x, y = self._point(state, cell)
            if not shift:
                self.page.mouse.click(x, y)
                return until(self.page, done, arg)
            self.page.keyboard.down("Shift")  # the page reads the click event's shiftKey
            try:
                self.page.mouse.click(x, y)
            finally:
                self.page.keyboard.up("Shift")
            return until(self.page, done, arg)

        wait_until(once, lambda: f"{what}: {self._page_says()}")

    def _press_until_stored(self, selector: str, text: str, seq: int, what: str) -> None:
        """Press the button ``selector`` showing ``text`` until the store has an event after
        ``seq`` (a press on a button of a page drawn before is refused by the page: never a
        second order); a button not drawn yet is waited for."""
        button = self.page.locator(selector, has_text=text)

        def once() -> bool:
            if self._seq() != seq:
                return True
            if button.count() and click_if_there(button):
                return until(self.page, MOVED, seq) or self._seq() != seq
            until(self.page, PRESENT, [seq, selector, text])
            return False

        wait_until(once, lambda: f"{what}: {self._page_says()}")

    def _button(self, prefix: str, seq: int, index: int, label: str) -> str:
        """The selector of the page's button ``index`` of ``prefix`` (keyed by the board it was
        drawn with), once it shows ``label`` and no run of the page is going on: while the page
        redraws after a new unit was selected, the button under that key may still be the
        previous unit's."""
        selector = f"[class*='st-key-{prefix}_{seq}_{index}_'] button"  # then the order's mark
        self.page.wait_for_function(SHOWS, arg=[selector, label])
        return selector

    def select(self, state: GameState, unit: str) -> None:
        """Select ``unit`` by clicking it on the board (it must be marked as able to act)."""
        seq = self._seq()
        if self.page.evaluate(SELECTED, [seq, unit]):
            return  # still selected (the page keeps a unit that may act again selected)
        assert self.page.evaluate(READY, unit), f"{unit} is not marked as able to act"
        self._click_until(state, state.units[unit].cell, SELECTED, [seq, unit],
                          f"a click on {unit} never selected it")

    def give(self, state: GameState, order: Order) -> None:
        """Give ``order`` by clicks, as a player would: the side's button, or the unit selected
        on the board and then its own button, or the cell or enemy clicked (a plain click when
        it gives this very order, else Shift-click and the choice among what it offers); then
        check that the store holds it, given by the person."""
        seq = self._seq()
        legal = legal_orders(state)
        where = vocabulary.gesture(state, order)
        if order.type == "end_phase":
            # the side's button of this very board (one of an earlier board, still shown while
            # the page redraws, is refused by the page as moved on)
            self._press_until_stored(f"[class*='st-key-play_side_{seq}_'] button", "end phase",
                                     seq, "end phase never ended the phase")
        elif where.how == "unit":
            unit = vocabulary.unit_of(state, order)
            self.select(state, unit)
            index = vocabulary.choices(state, unit, legal).buttons.index(order)
            label = vocabulary.label(state, order)
            button = self._button("play_unit_order", seq, index, label)
            self._press_until_stored(button, label, seq, f"the button {label!r} gave nothing")
        else:
            unit = _joiner(state, order, vocabulary.units_to_act(state, legal))
            self.select(state, unit)
            cell = _target_cell(state, order)
            offered = _offered_at(state, unit, cell, legal)
            if vocabulary.plain_order(state, offered) == order:
                self._click_until(state, cell, MOVED, seq,
                                  f"a click on {cell} with {unit} selected gave nothing")
            else:
                self._click_until(state, cell, OFFERS, seq,
                                  f"a Shift-click on {cell} offered nothing", shift=True)
                index = vocabulary.plain_first(state, offered).index(order)
                label = vocabulary.label(state, order)
                button = self._button("play_offer", seq, index, label)
                self._press_until_stored(button, label, seq, "the offered order was not given")
                self.asked += 1
        wait_until(lambda: self._seq() != seq,
                   lambda: f"{order!r} was never stored: {self._page_says()}")
        events, _ = self.now()
        given = next(e for e in events if e["seq"] > seq and e["kind"] == "order_given")
        assert parse_order(given["order"]) == order and given["by"] == PERSON, given

    def play(self) -> None:
        """Play the plan's turns: each time the person is to act, the scripted order, by clicks."""
        while True:
            state = self.wait_for_my_turn()
            if state.ended or state.turn > self.plan.turns:
                return
            events, _ = self.now()
            mine = [e for e in events if e["kind"] == "order_given" and e["by"] == PERSON]
            self.give(state, _choose(state, mine, self.plan))
            no_exception(self.page)


# -- the tests ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    """A server over a database holding one fresh game per system (the person red, the
    tactician blue, a fixed seed), and chromium."""
    tmp = tmp_path_factory.mktemp("systems")
    db = tmp / "systems.db"
    with SQLiteEventStore(db) as store:
        for system, plan in PLANS.items():
            start_game(store, load_scenario(plan.scenario), game_id=f"{system}-by-clicks",
                       seats={plan.side: Seat.person(PERSON), "blue": Seat.of_bot(BOT)},
                       seed=plan.seed, played="2026-12-06")
    with streamlit_server(db, tmp) as url, chromium(tmp) as browser:
        yield url, browser, db


def _play_by_clicks(dashboard, system: str) -> list[dict]:
    """Open the system's game by its address, play the plan by clicks, check that `warlog
    verify` re-derives the stored game; its events."""
    url, browser, db = dashboard
    plan, game = PLANS[system], f"{system}-by-clicks"
    page = new_page(browser, 1400, 1300)
    page.goto(f"{url}/play?play={game}")
    page.wait_for_selector('svg[data-board="live"]')
    no_exception(page)
    with SQLiteEventStore(db) as store:
        person = Person(page, store, game, plan)
        person.play()
        events, state = person.now()
    no_exception(page)
    page.close()
    assert state.ended or state.turn > plan.turns
    assert person.asked >= 1, "no order was given by choosing what a Shift-click offered"

    checked = subprocess.run([sys.executable, "-m", "warlog.cli", "verify", game, "--db", str(db)],
                             capture_output=True, text=True, timeout=LIMIT)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    return [e for e in events if e["kind"] == "order_given"]


def _kinds_by(orders: list[dict], name: str) -> set[str]:
    return {_kind(parse_order(e["order"])) for e in orders if e["by"] == name}


def test_frontier_bombard_and_fight_by_clicks_against_the_tactician(dashboard):
    orders = _play_by_clicks(dashboard, "frontier")
    assert {"route", "bombard", "fight", "end_phase"} <= _kinds_by(orders, PERSON)
    assert _kinds_by(orders, BOT)  # the bot played its side on the server


def test_napoleonic_formation_and_limbering_by_clicks_against_the_tactician(dashboard):
    orders = _play_by_clicks(dashboard, "napoleonic")
    assert {"route", "formation", "limber", "end_phase"} <= _kinds_by(orders, PERSON)
    assert _kinds_by(orders, BOT)


def test_density_moves_shooting_and_reform_by_clicks_against_the_tactician(dashboard):
    orders = _play_by_clicks(dashboard, "density")
    assert {"route", "shoot", "reform", "end_phase"} <= _kinds_by(orders, PERSON)
    assert _kinds_by(orders, BOT)
