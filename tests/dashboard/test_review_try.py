"""The Review page's better order (dashboard/review_try.py): the order played drawn as the Replay
page draws its step, the better order found drawn as the board's "alternative" (what it does, no
outcome of a roll) without touching the position, and "Try it": a fork of the stored game up to
the decision (the original untouched, the fork's events a prefix), opened in Play, where the
better order is offered first and giving it stores exactly that order.

The game: a seeded bot game of the mirror scenario (aggressive v random) whose review finds two
better orders, one a shot where blue ended its shooting phase (decision 7, a blunder) and one an
end of phase where red shot."""

from __future__ import annotations

import pytest
from app_pages import open_page, rerun_until
from markup_probe import leaks, shown
from whatif_games import bot_game

from warlog.dashboard import review_page, review_try
from warlog.app.pictures import board
from warlog.engine import analysis
from warlog.engine.fold import Timeline
from warlog.events.orders import parse_order
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.forking import rest_points

GAME = "tried"


@pytest.fixture(scope="module")
def played() -> list[dict]:
    return [{**e, "game": GAME} for e in bot_game(seed=5, red="aggressive", blue="random")]


@pytest.fixture(scope="module")
def review(played) -> dict:
    return review_page.review_now(GAME, played)


def _decision(review: dict, best_type: str) -> dict:
    return next(o for o in review["orders"]
                if o["best_order"] and o["best_order"]["type"] == best_type)


def test_the_better_order_is_drawn_as_an_alternative_and_the_position_kept(played, review):
    order = _decision(review, "shoot")
    tl = Timeline(played)
    state = review_page.position_before(tl, played, order)
    before = state.checksum()
    marks = review_try.better_marks(state, order)
    assert state.checksum() == before  # decided on the side: the position on show is unchanged
    best = order["best_order"]
    assert [(m["kind"], m["source"], m["target"], m["variant"]) for m in marks] == [
        ("shooting", best["unit"], best["target"], "alternative")]
    assert "label" not in marks[0]  # one roll's hit or miss: not what the review weighed
    assert tuple(marks[0]["from"]) == state.units[best["unit"]].cell
    assert tuple(marks[0]["to"]) == state.units[best["target"]].cell
    assert review_try.better_marks(state, {**order, "best_order": None}) == []


def test_the_played_order_is_drawn_with_what_its_dice_did(played, review):
    order = _decision(review, "end_phase")  # red shot where ending the phase was better
    marks = review_try.played_marks(played, Timeline(played), order)
    at = review_page.event_index(played, order["seq"])
    given = played[at]["order"]
    rolled = next(e for e in played[at:] if e["kind"] in ("attack_rolled", "hits_inflicted"))
    assert marks and all("variant" not in m for m in marks)
    assert {(m["source"], m["target"]) for m in marks} == {(given["unit"], given["target"])}
    assert any(m.get("label") for m in marks) and rolled["seq"] > order["seq"]
    tl = Timeline(played)
    state = review_page.position_before(tl, played, order)
    assert review_try.better_marks(state, order) == []  # ending the phase moves nothing


def test_the_board_draws_an_alternative_dashed_in_its_colour_with_one_legend_entry(played,
                                                                                   review):
    order = _decision(review, "shoot")
    state = review_page.position_before(Timeline(played), played, order)
    marks = review_try.better_marks(state, order)
    alt = board.board_spec(state, highlight=marks)["data"]
    plain = board.board_spec(state, highlight=[{k: v for k, v in m.items() if k != "variant"}
                                               for m in marks])["data"]
    drawn = [t for t in alt if t["meta"].get("role") == "highlight"]
    assert [t["line"]["color"] for t in drawn] == [board.ALTERNATIVE_COLOUR]
    assert drawn[0]["line"]["dash"] == "dash" and drawn[0]["meta"]["variant"] == "alternative"
    legend = [t for t in alt if t.get("name") == board.ALTERNATIVE_LEGEND]
    assert len(legend) == 1 and legend[0]["showlegend"] is True
    before = [t for t in plain if t["meta"].get("role") == "highlight"]
    assert before[0]["line"]["color"] == board.ATTACK_COLOURS["shooting"]  # as it always was
    assert not [t for t in plain if t.get("name") == board.ALTERNATIVE_LEGEND]


def test_the_fork_point_is_the_event_before_the_decision(played, review):
    points = rest_points(played)
    for order in review["orders"]:
        at = review_try.fork_at(played, order)
        assert at == order["seq"] - 1 and at in points  # cut there exactly, not earlier
    steps = analysis.steps(played)
    assert review_try.decision_step(played, review["orders"][0])[1] in steps


def _reviewed(at):
    return rerun_until(at, lambda at: any(b.key == "review_try_it" for b in at.button),
                       "the review never offered Try it")


def test_try_it_forks_opens_play_and_offers_the_better_order(tmp_path, monkeypatch, played,
                                                             review):
    db = tmp_path / "try.db"
    with SQLiteEventStore(db) as store:
        store.append(GAME, played, 0)
    order = _decision(review, "shoot")
    at = open_page(monkeypatch, db, "views/review.py")
    at.session_state["review_selected"] = order["index"]
    at.session_state["review_selected_for"] = review_page.review_key(f"db:{db}:{GAME}", played)
    _reviewed(at)
    at.button(key="review_try_it").click().run()
    assert not at.exception, at.exception
    fork_id = at.session_state["play_game"]
    with SQLiteEventStore(db) as store:
        assert store.read(GAME) == played  # the original is untouched
        forked = store.read(fork_id)
    cut = order["seq"] - 1
    assert fork_id != GAME and forked == [{**e, "game": fork_id} for e in played[:cut]]
    assert [t.value for t in at.title] == ["Play"] and at.session_state["play_reseat"] is True
    at.switch_page("views/play.py")  # AppTest's next runs stay there, as a browser does
    for side, name in (("red", "Ann"), ("blue", "Bo")):
        at.radio(key=f"play_reseat_seat_{side}").set_value("person").run()
        at.text_input(key=f"play_reseat_name_{side}").set_value(name)
    at.button(key="play_reseat_go").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    said = " ".join(shown(i.value) for i in at.info)
    assert f"Review suggests: {order['best_text']}" in said
    assert not leaks(at), leaks(at)
    at.button(key="review_try_give").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    with SQLiteEventStore(db) as store:
        grown = store.read(fork_id)
    given = [e for e in grown[len(forked):] if e["kind"] == "order_given"]
    assert len(given) == 1 and parse_order(given[0]["order"]) == parse_order(order["best_order"])
    assert given[0]["side"] == order["side"]
    assert not [b for b in at.button if b.key == "review_try_give"]  # spent once a decision made
    assert review_try.SUGGESTION not in at.session_state
