"""The Review page through Streamlit's AppTest (dashboard/views/review.py): a stored bot game is
reviewed in the background with a progress bar, then shows each side's headline, the evaluation
graph decision by decision and the order table; a decision picked shows the board where it was
made and a link to it on the Replay page; a second session finds the review done; a game whose
id is Markdown is shown as written, never as a link.

The review is held at a gate until the test has seen the page waiting, so what the first run
shows does not depend on how fast the machine is; after that the test reruns the page until the
review is done (a condition, with tests/waits.py's limit), as the page's polling fragment
would."""

from __future__ import annotations

import json
import threading
from urllib.parse import parse_qs, urlsplit

import pytest
from streamlit.testing.v1 import AppTest
from app_pages import APP, board_groups, rerun_until
from markup_probe import leaks, shown
from waits import LIMIT
from whatif_games import bot_game

from warlog.dashboard import background, board, review_page
from warlog.events.sqlite_store import SQLiteEventStore

PAGE = "views/review.py"
LINKED = "[text](http://host/evil)"  # a game id that is a disguised link


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return bot_game(seed=5)


@pytest.fixture(scope="module")
def expected(game) -> dict:
    """The review the page must show: the command's, computed here once."""
    return review_page.review_now(game[0]["game"], game)


@pytest.fixture
def gate(monkeypatch) -> threading.Event:
    """Every review the page starts in the background waits here until the test opens it."""
    opened, real = threading.Event(), review_page.run_review

    def held(*args, **kwargs):
        if threading.current_thread().name.startswith(background.THREAD_PREFIX):
            assert opened.wait(LIMIT), "the gate was never opened"
        return real(*args, **kwargs)

    monkeypatch.setattr(review_page, "run_review", held)
    yield opened
    opened.set()


def _store(tmp_path, monkeypatch, games: dict[str, list[dict]]) -> None:
    db = tmp_path / "review.db"
    with SQLiteEventStore(db) as store:
        for gid, events in games.items():
            store.append(gid, [{**e, "game": gid} for e in events], 0)
    monkeypatch.setenv("WARLOG_DB", str(db))


def _open(game: str | None = None) -> AppTest:
    """The Review page opened by its address (``?game=ID`` when given)."""
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    if game is not None:
        at.query_params["game"] = game
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    return at


def _spec(at: AppTest) -> dict | None:
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    return next((s for s in charts if any((t.get("meta") or {}).get("role") == "eval"
                                          for t in s["data"])), None)


def _until_reviewed(at: AppTest) -> AppTest:
    return rerun_until(at, lambda at: _spec(at) is not None, "the review never finished")


def _trace(spec: dict, role: str, **match) -> dict:
    return next(t for t in spec["data"] if (t.get("meta") or {}).get("role") == role
                and all(t["meta"].get(k) == v for k, v in match.items()))


def _table(at: AppTest):
    return next(d for d in at.dataframe if (d.key or "").startswith("review_table"))


def test_a_game_is_reviewed_in_the_background_then_shown(tmp_path, monkeypatch, gate, game,
                                                         expected):
    _store(tmp_path, monkeypatch, {game[0]["game"]: game})
    at = _open()
    waiting = at.get("progress")
    assert len(waiting) == 1 and waiting[0].proto.text.startswith("Reviewing the game")
    assert _spec(at) is None  # not yet: the page waits, responsive
    gate.set()
    _until_reviewed(at)
    orders = expected["orders"]
    bodies = " ".join(shown(m.value) for m in at.markdown)
    for side in ("red", "blue"):
        assert expected["headline"][side] in bodies
    summary = at.dataframe[0].value
    assert list(summary["side"]) == ["red", "blue"]
    red_counts = review_page.grade_counts(expected)["red"]
    assert [int(summary.loc[0, g]) for g in red_counts] == list(red_counts.values())
    spec = _spec(at)
    line = _trace(spec, "eval")
    assert line["y"] == pytest.approx([o["before"] for o in orders] + [orders[-1]["after"]])
    flawed = [o for o in orders if review_page.flawed(o)]
    assert flawed, "the game chosen should hold a graded decision"
    first = flawed[0]
    mark = _trace(spec, "mark", grade=first["grade"])
    assert first["index"] + 1 in list(mark["x"])
    table = _table(at).value
    assert len(table) == len(orders) and list(table["order"]) == [o["text"] for o in orders]
    at.toggle(key="review_only_flawed").set_value(True).run()
    assert list(_table(at).value["#"]) == [o["index"] + 1 for o in flawed]

    at.session_state["review_selected"] = first["index"]  # as a click on its mark or row does
    at.session_state["review_selected_for"] = review_page.review_key(
        f"db:{tmp_path / 'review.db'}:{game[0]['game']}", game)
    at.run()
    assert not at.exception
    assert [c.key for c in at.get("bidi_component")] == ["review_board"]
    link = at.get("link_button")[0].proto
    assert link.label == "Open in Replay at this step"
    assert parse_qs(urlsplit(link.url).query) == {"game": [game[0]["game"]],
                                                  "event": [str(first["seq"])]}
    said = " ".join(shown(c.value) for c in at.caption)
    assert f"Decision {first['index'] + 1}, turn {first['turn']}" in said
    assert [s for s in _spec(at)["layout"]["shapes"] if s.get("name") == "selected"]

    again = _open()  # another session: the review is done on this server
    assert _spec(again) is not None and not again.get("progress")


def test_a_game_id_that_is_markdown_is_shown_as_written(tmp_path, monkeypatch, game, expected):
    _store(tmp_path, monkeypatch, {"A-plain": game, LINKED: game})  # "A-plain" listed first
    at = _until_reviewed(_open(LINKED))
    assert at.selectbox(key="review_game").value == LINKED  # the address opened it, not the first
    assert any(LINKED in shown(c.value) for c in at.caption)
    assert not leaks(at), leaks(at)
    assert not at.get("bidi_component")  # no decision picked yet: no board
    at.session_state["review_selected"] = len(expected["orders"]) - 1
    at.session_state["review_selected_for"] = review_page.review_key(
        f"db:{tmp_path / 'review.db'}:{LINKED}", game)
    at.run()
    assert not at.exception and not leaks(at), leaks(at)
    url = at.get("link_button")[0].proto.url
    assert parse_qs(urlsplit(url).query)["game"] == [LINKED]


def test_the_better_order_found_is_drawn_beside_the_one_played(tmp_path, monkeypatch):
    """At a decision with a better order found, the board the page sends holds the better
    order's marks as the board's "alternative" (dashed, its legend entry), no outcome of its
    dice, beside the played order's own marks; the played order there drew nothing (it ended
    the phase), so every alternative mark is the better order's."""
    played = [{**e, "game": "better"} for e in bot_game(seed=5, red="aggressive", blue="random")]
    review = review_page.review_now("better", played)
    order = next(o for o in review["orders"] if o["best_order"] and o["text"].endswith(
        "ends shooting"))
    best = order["best_order"]
    _store(tmp_path, monkeypatch, {"better": played})
    at = _until_reviewed(_open("better"))
    at.session_state["review_selected"] = order["index"]
    at.session_state["review_selected_for"] = review_page.review_key(
        f"db:{tmp_path / 'review.db'}:better", played)
    at.run()
    assert not at.exception, at.exception
    marks = [g for g in board_groups(at, "review_board") if g["role"] == "highlight"]
    assert marks and all(g.get("variant") == "alternative" for g in marks)
    assert {(g["kind"], g["source"], g["target"]) for g in marks} == {
        ("shooting", best["unit"], best["target"])}
    (component,) = [c for c in at.get("bidi_component") if c.key == "review_board"]
    html = json.loads(component.proto.json)["html"]
    assert board.ALTERNATIVE_LEGEND in html and board.ALTERNATIVE_COLOUR in html
    assert ">hit<" not in html and ">miss<" not in html  # one roll's outcome is not drawn
    said = " ".join(shown(c.value) for c in at.caption)
    assert f"dashed, the {board.ALTERNATIVE_LEGEND}, {order['best_text']}" in said
    assert [b.key for b in at.button if b.key == "review_try_it"]
