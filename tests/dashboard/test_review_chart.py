"""The Review page's figure and logic without Streamlit (dashboard/review_chart.py,
dashboard/review_page.py): the evaluation line decision by decision ending at the result, each
graded mark in its grade's colour and symbol at its decision, the moments annotated, the 50%
line; the battle's chapters along the top; the order table's rows and filter; a click naming a
decision; the position before a decision as replay folds it; the Replay link."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
from figure_traces import one, traces
from whatif_games import bot_game

from warlog.dashboard import review_chart, review_page
from warlog.engine import review_aar
from warlog.engine.fold import Timeline, replay
from warlog.engine.review_aar import Chapter


def _order(index: int, side: str, grade: str, before: float, expected: float, after: float,
           best: float, turn: int = 1, best_text: str | None = "b-x moves W 1") -> dict:
    return {"index": index, "seq": 10 + 2 * index, "turn": turn, "phase": "movement",
            "side": side, "text": f"o{index} <b>moves</b>", "before": before,
            "expected": expected, "after": after, "best": best, "best_text": best_text,
            "best_order": None, "loss": 100 * abs(best - expected), "grade": grade,
            "accuracy": 90.0, "how": "exact: no dice"}


@pytest.fixture
def review() -> dict:
    """Five decisions: red best, blue blunder, red mistake, blue inaccuracy, red good; the
    chain of positions as a real review's (each after is the next before); red wins."""
    orders = [
        _order(0, "red", "best", 0.50, 0.55, 0.55, 0.55, best_text=None),
        _order(1, "blue", "blunder", 0.55, 0.80, 0.85, 0.60),
        _order(2, "red", "mistake", 0.85, 0.72, 0.70, 0.84, turn=2),
        _order(3, "blue", "inaccuracy", 0.70, 0.76, 0.75, 0.69, turn=2),
        _order(4, "red", "good", 0.75, 0.77, 1.0, 0.79, turn=3),
    ]
    return {"format": 1, "game": "g", "evaluator": "ev", "upto": 30, "ended": True,
            "winner": "red", "orders": orders, "split": {},
            "accuracy": {"red": 80.04, "blue": None},
            "moments": [{"index": 1, "seq": 12, "side": "blue", "before": 0.55, "after": 0.85,
                         "decision": 0.25, "dice": 0.05},
                        {"index": 4, "seq": 18, "side": "red", "before": 0.75, "after": 1.0,
                         "decision": 0.02, "dice": 0.23}],
            "turning_points": [], "headline": {"red": "red won", "blue": "blue lost"}}


def test_the_line_is_each_decisions_before_then_the_result(review):
    fig = review_chart.review_figure(review)
    line = one(fig, "eval")
    assert list(line.x) == [1, 2, 3, 4, 5, 6]
    assert list(line.y) == [0.50, 0.55, 0.85, 0.70, 0.75, 1.0]
    assert [c[0] for c in line.customdata] == [0, 1, 2, 3, 4, None]
    assert "turn 2" in line.hovertext[2] and "o2 &lt;b&gt;moves&lt;/b&gt;" in line.hovertext[2]
    assert "the result" in line.hovertext[-1]


def test_each_graded_decision_is_marked_at_its_point_in_its_grades_colour_and_symbol(review):
    fig = review_chart.review_figure(review)
    assert {t.meta["grade"] for t in traces(fig, "mark")} == {"inaccuracy", "mistake", "blunder"}
    for grade, x, y in (("blunder", 2, 0.55), ("mistake", 3, 0.85), ("inaccuracy", 4, 0.70)):
        mark = one(fig, "mark", grade=grade)
        assert (list(mark.x), list(mark.y)) == ([x], [y])
        assert mark.customdata[0][0] == x - 1  # a click on it names the decision
        style = review_chart.GRADE_STYLE[grade]
        assert (mark.marker.color, mark.marker.symbol) == (style["color"], style["symbol"])
        assert mark.name.startswith(grade) and mark.showlegend is not False
    colours = {s["color"] for s in review_chart.GRADE_STYLE.values()}
    symbols = {s["symbol"] for s in review_chart.GRADE_STYLE.values()}
    assert len(colours) == len(symbols) == 3  # told apart by either
    assert "better: b-x moves W 1" in one(fig, "mark", grade="blunder").hovertext[0]


def test_the_moments_are_annotated_with_their_cause_and_the_even_line_drawn(review):
    fig = review_chart.review_figure(review, selected=2)
    notes = [a for a in fig.layout.annotations if a.name == "moment"]
    assert [(a.x, a.y, a.text) for a in notes] == [(2, 0.55, "turn 1: order +30"),
                                                   (5, 0.75, "turn 3: dice +25")]
    even = [s for s in fig.layout.shapes if s.name == "even"]
    assert len(even) == 1 and even[0].y0 == even[0].y1 == 0.5
    chosen = [s for s in fig.layout.shapes if s.name == "selected"]
    assert [s.x0 for s in chosen] == [3]
    assert [s.name for s in review_chart.review_figure(review).layout.shapes] == ["even"]


def test_an_unfinished_games_last_point_is_where_it_stands(review):
    review["ended"] = False
    line = one(review_chart.review_figure(review), "eval")
    assert "where the game stands" in line.hovertext[-1]


def test_the_table_rows_the_filter_and_the_counts(review):
    rows, indices = review_page.order_rows(review)
    assert indices == [0, 1, 2, 3, 4] and list(rows[0]) == list(review_page.COLUMNS)
    blunder = rows[1]
    # blue's view: 1 - red's; the better order named only for an inaccuracy or worse
    assert blunder["win % (mover)"] == "45% → 20%" and blunder["side"] == "blue"
    assert blunder["better order found"] == "b-x moves W 1 (40%)"
    assert rows[4]["better order found"] == "" and rows[4]["grade"] == "good"
    flawed, kept = review_page.order_rows(review, only_flawed=True)
    assert kept == [1, 2, 3] and [r["#"] for r in flawed] == [2, 3, 4]
    counts = review_page.grade_counts(review)
    assert counts["red"] == {"best": 1, "good": 1, "inaccuracy": 0, "mistake": 1, "blunder": 0}
    assert counts["blue"]["blunder"] == 1 and counts["blue"]["inaccuracy"] == 1
    summary = review_page.summary_rows(review)
    assert summary[0]["accuracy"] == 80.0 and summary[1]["accuracy"] is None


def test_a_click_names_a_decision_and_nothing_else():
    picked = review_page.clicked_decision
    assert picked({"selection": {"points": [{"x": 3, "customdata": [2]}]}}, 5) == 2
    assert picked({"selection": {"points": [{"x": 4}]}}, 5) == 3  # no customdata: by x
    assert picked({"selection": {"points": [{"x": 6, "customdata": [None]}]}}, 5) is None
    for nothing in (None, {}, {"selection": {"points": []}},
                    {"selection": {"points": [{"customdata": ["x"]}]}},
                    {"selection": {"points": [{"customdata": [9]}]}},
                    {"selection": {"points": [{"customdata": [True]}]}}):
        assert picked(nothing, 5) is None, nothing
    assert review_page.selected_row({"selection": {"rows": [1]}}, [1, 2, 3]) == 2
    assert review_page.selected_row({"selection": {"rows": [7]}}, [1, 2, 3]) is None
    assert review_page.selected_row({"selection": {"rows": []}}, [1, 2, 3]) is None


def test_the_game_opened_is_the_linked_one_then_the_chosen_one():
    ids = ["a", "b", "c"]
    assert review_page.chosen_game(ids, "c", "b", "a") == "c"
    assert review_page.chosen_game(ids, "zz", "b", "a") == "b"
    assert review_page.chosen_game(ids, None, None, "a") == "a"
    assert review_page.chosen_game(ids, None, "gone", None) == "a"


def test_the_replay_link_encodes_a_hostile_id():
    link = review_page.replay_link("[text](http://host/evil)&event=1", 40)
    query = parse_qs(urlsplit(link).query)
    assert link.startswith("/?") and query == {"game": ["[text](http://host/evil)&event=1"],
                                                "event": ["40"]}


@pytest.fixture(scope="module")
def real() -> tuple[list[dict], dict]:
    """A bot game and the page's review of it (seconds: made once for the tests below)."""
    events = bot_game(seed=5)
    return events, review_page.review_now(events[0]["game"], events)


def test_a_real_review_is_drawn_and_its_positions_are_those_replay_folds(real):
    events, review = real
    orders = review["orders"]
    fig = review_chart.review_figure(review)
    assert len(one(fig, "eval").x) == len(orders) + 1
    assert one(fig, "eval").y[-1] == orders[-1]["after"]
    marked = sum(len(t.x) for t in traces(fig, "mark"))
    assert marked == sum(review_page.flawed(o) for o in orders)
    tl = Timeline(events)
    for order in (orders[0], orders[len(orders) // 2], orders[-1]):
        at = review_page.event_index(events, order["seq"])
        assert events[at]["kind"] in ("order_given", "side_conceded")
        state = review_page.position_before(tl, events, order)
        assert state.checksum() == replay(events[:at]).checksum()


def _chapter(kind: str, title: str, first: int | None, last: int | None) -> Chapter:
    return Chapter(kind=kind, title=title, seq=0, turn=1, last_turn=1, first=first, last=last,
                   start=0.5, end=0.5)


def test_the_chapters_are_drawn_at_their_first_decisions_with_their_titles(review):
    chapters = [_chapter("deployment", "Deployment and approach", 0, 1),
                _chapter("contact", "First contact <b>", 2, 3),
                _chapter("turning point", "Red takes the lead", 4, 4),
                _chapter("end", "The end: red wins", None, None)]
    plain = review_chart.review_figure(review, selected=2)
    fig = review_chart.review_figure(review, selected=2, chapters=chapters)
    lines = [s for s in fig.layout.shapes if s.name == "chapter"]
    assert [s.x0 for s in lines] == [1, 3, 5] and all(s.line.dash == "dot" for s in lines)
    bands = [s for s in fig.layout.shapes if s.name == "chapter band"]
    assert [(s.x0, s.x1) for s in bands] == [(3, 5)]  # every other chapter, to its last point
    labels = [a for a in fig.layout.annotations if a.name == "chapter"]
    assert [(a.x, a.text) for a in labels] == [(1, "Deployment and approach"),
                                               (3, "First contact &lt;b&gt;"),
                                               (5, "Red takes the lead")]
    assert all(a.yref == "paper" and a.y == 1 for a in labels)  # along the top
    assert len({a.yshift for a in labels[:2]}) == 2  # neighbours' labels at two heights
    # drawn beside, never instead of, what the graph held: the same traces (a click still
    # names a decision), the moments, the even and selected lines
    assert [t.name for t in fig.data] == [t.name for t in plain.data]
    assert ([a.text for a in fig.layout.annotations if a.name == "moment"]
            == [a.text for a in plain.layout.annotations if a.name == "moment"])
    assert {s.name for s in fig.layout.shapes} - {"chapter", "chapter band"} == {"even",
                                                                               "selected"}


def test_a_real_reviews_chapters_are_those_of_the_after_action_report(real):
    events, review = real
    chapters = review_aar.chapters(review, events)
    fig = review_chart.review_figure(review, chapters=chapters)
    told = [c for c in chapters if c.kind != "end"]
    assert len(told) >= 2  # deployment and first contact at least
    assert ([a.text for a in fig.layout.annotations if a.name == "chapter"]
            == [c.title for c in told])
    assert [s.x0 for s in fig.layout.shapes if s.name == "chapter"] == [c.first + 1
                                                                        for c in told]
