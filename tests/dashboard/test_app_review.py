"""The Review page through Streamlit's AppTest (dashboard/views/review.py): a stored bot game is
reviewed in the background with a progress bar, then shows each side's headline, the evaluation
graph decision by decision and the order table; a decision picked shows the board where it was
made and a link to it on the Replay page; a second session finds the review done; a game whose
id is Markdown is shown as written, never as a link. A review stored beside the game is shown at
once, with its after-action report and its chapters on the graph; one the page computes is
stored; an older evaluator's is said to be one and reviewed again on request; one that cannot
be read is reviewed again.

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

from warlog.app import background
from warlog.dashboard import review_page
from warlog.app.pictures import board
from warlog.engine import review, review_aar
from warlog.engine.bots import next_order
from warlog.engine.game import Game
from warlog.events.analysis_store import AnalysisStore
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore
from whatif_games import mirror_scenario

PAGE = "views/review.py"
LINKED = "[text](http://host/evil)"  # a game id that is a disguised link
PLAN = "Take the **ford**, <b>then</b> ![i](http://host/x) hold"  # a hostile plan note
AUTHOR = "**Ann** [me](http://host/evil)"
SMALL = review.Budget(candidates=2, cap=64, samples=8)  # a quick review for the store
HOSTILE_GAME = "planned"


@pytest.fixture(scope="module")
def game() -> list[dict]:
    return bot_game(seed=5)


@pytest.fixture(scope="module")
def expected(game) -> dict:
    """The review the page must show: the command's, computed here once."""
    return review_page.review_now(game[0]["game"], game)


@pytest.fixture(scope="module")
def planned() -> list[dict]:
    """A bot game in which red wrote a hostile plan before its first order."""
    game = Game.new(HOSTILE_GAME, mirror_scenario(), seed=5,
                    players={"red": "aggressive", "blue": "aggressive"})
    game = Game(game.events + [make_note(game.events, 1, PLAN, AUTHOR, plan_of="red")])
    while not game.state.ended:
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return list(game.events)


def _small_review(events: list[dict], evaluator: str) -> dict:
    verdicts = review.judge(events, [d.index for d in review.decisions(events)], SMALL)
    return review.assemble(events[0]["game"], events, verdicts, evaluator).as_dict()


def _keep(tmp_path, events: list[dict], data: dict, evaluator: str) -> None:
    """Store ``data`` as `warlog review` would have, made by ``evaluator``."""
    with AnalysisStore(tmp_path / "review.db") as store:
        store.save_review(events[0]["game"], {**review_page.review_params(),
                                              "evaluator": evaluator}, events[-1]["seq"], data)


def _kept(tmp_path, events: list[dict]) -> dict | None:
    """The review stored under the page's (the command's) key, the current evaluator's."""
    with AnalysisStore(tmp_path / "review.db") as store:
        return store.load_review(events[0]["game"], review_page.review_params(),
                                 events[-1]["seq"])


@pytest.fixture
def no_review(monkeypatch):
    """A page that starts a review fails the test: it should show the stored one."""
    def refused(*args, **kwargs):
        raise AssertionError("the page reviewed the game again")

    monkeypatch.setattr(review_page, "run_review", refused)


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
    _keep(tmp_path, game, {"format": 1, "orders": "edited outside warlog"},
          review_page.current_evaluator())  # not a review: ignored, the game reviewed again
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
    assert _kept(tmp_path, game) == expected  # and stored beside the game, as the command's


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


def _bodies(at: AppTest) -> str:
    return " ".join(shown(m.value) for m in at.markdown)


def test_a_stored_review_is_shown_at_once_with_its_after_action_report(tmp_path, monkeypatch,
                                                                       planned, no_review):
    stored = _small_review(planned, review_page.current_evaluator())
    _store(tmp_path, monkeypatch, {HOSTILE_GAME: planned})
    _keep(tmp_path, planned, stored, review_page.current_evaluator())
    at = _open(HOSTILE_GAME)  # the first run: no job, no progress, the review itself
    assert not at.get("progress") and _spec(at) is not None
    for side in ("red", "blue"):
        assert stored["headline"][side] in _bodies(at)
    assert not [i for i in at.info if "evaluator" in i.value]  # the current evaluator's
    (report,) = [e for e in at.expander if e.label == "After-action report"]
    assert not report.proto.expanded  # the headlines and the graph come first
    assert [shown(h.value) for h in report.subheader] == list(review_aar.QUESTIONS)
    said = " ".join(shown(m.value) for m in report.markdown)
    assert f"red (**Ann** [me](http://host/evil)), as of event 1: {PLAN}" in said
    assert not leaks(at), leaks(at)  # the plan and its author shown as written, never markup
    chapters = [c for c in review_aar.chapters(stored, planned) if c.kind != "end"]
    for chapter in chapters:
        assert chapter.title in said
    labels = [a for a in _spec(at)["layout"]["annotations"] if a.get("name") == "chapter"]
    assert [a["text"] for a in labels] == [c.title for c in chapters]
    assert [s["x0"] for s in _spec(at)["layout"]["shapes"] if s.get("name") == "chapter"] == [
        c.first + 1 for c in chapters]

    moment = stored["moments"][0]["index"]  # its button shows the decision on the board
    at.button(key=f"review_moment_{moment}").click().run()
    assert not at.exception, at.exception
    assert at.session_state["review_selected"] == moment
    assert [c.key for c in at.get("bidi_component")] == ["review_board"]
    assert f"Decision {moment + 1}, turn" in " ".join(shown(c.value) for c in at.caption)


def test_an_older_evaluators_review_is_said_and_reviewed_again_on_request(tmp_path, monkeypatch,
                                                                           planned):
    older = _small_review(planned, "old-1")
    _store(tmp_path, monkeypatch, {HOSTILE_GAME: planned})
    _keep(tmp_path, planned, older, "old-1")
    at = _open(HOSTILE_GAME)
    assert not at.get("progress") and older["headline"]["red"] in _bodies(at)
    line = f"Reviewed by evaluator old-1; this warlog's evaluator is " \
           f"{review_page.current_evaluator()}."
    assert [shown(i.value) for i in at.info if "evaluator" in i.value] == [line]
    assert _kept(tmp_path, planned) is None  # nothing reviewed yet
    at.button(key="review_again_button").click().run()
    assert not at.exception, at.exception
    assert not [b for b in at.button if b.key == "review_again_button"]  # asked once
    rerun_until(at, lambda at: not [i for i in at.info if "evaluator" in i.value],
                "the current evaluator's review never came")
    current = _kept(tmp_path, planned)
    assert current is not None and current["evaluator"] == review_page.current_evaluator()
    assert current["headline"]["red"] in _bodies(at) and _spec(at) is not None
    fresh = _open(HOSTILE_GAME)  # a new session finds the current one stored: no line, no job
    assert not fresh.get("progress") and not [i for i in fresh.info if "evaluator" in i.value]
