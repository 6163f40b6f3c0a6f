"""The Replay page's layout and actions through AppTest: the options and the verification line
folded away (a failure still in sight), narrated events with their raw names behind a toggle,
each rule cited in a step shown once (teaching mode's answer included), and "Continue from
here" forking a stored game into the Play page."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.dashboard import scrub
from warlog.engine import analysis, teaching
from warlog.engine.fold import Timeline
from warlog.engine.rules import catalogue
from warlog.events.replay_file import encode_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.forking import rest_points


APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> list[dict]:
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    return play_out("played", load_scenario("ancients-river-crossing"), seed=2).events


def _page(tmp_path, monkeypatch, events: list[dict], game: str = "played") -> AppTest:
    db = tmp_path / "one.db"
    with SQLiteEventStore(db) as store:
        store.append(game, [{**e, "game": game} for e in events], 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    return at


def _header(at: AppTest):
    return next(e for e in at.expander if e.label.startswith("The scenario, its options"))


def _go(at: AppTest, index: int) -> AppTest:
    at.slider(key="step").set_value(index + 1).run()
    assert not at.exception
    return at


def test_options_and_verification_are_folded_in_the_header(tmp_path, monkeypatch, played):
    at = _page(tmp_path, monkeypatch, played)
    header = _header(at)
    assert header.label.endswith("· verified")
    assert header.proto.expanded is False  # collapsed by default
    inside = [c.value for c in header.caption]
    assert any(c.startswith("Options in force: ") and "=" in c for c in inside)
    assert any(c.startswith("Verified") for c in inside)
    outside = [c.value for c in at.main.caption if c.value not in inside]
    assert not any("Options in force" in c or c.startswith("Verified") for c in outside)
    assert not at.error


def test_a_failed_verification_stays_in_sight(tmp_path, monkeypatch, played):
    die = next(i for i, e in enumerate(played) if e["kind"] == "dice_rolled")
    edited = [dict(e) for e in played]
    edited[die]["faces"] = [7 - edited[die]["faces"][0]]  # stored as if the die had fallen so
    at = _page(tmp_path, monkeypatch, edited)
    assert _header(at).label.endswith("NOT verified")
    assert any(e.value.startswith("Not verified") for e in at.error)  # outside the fold


def _step_with(events: list[dict], want) -> int:
    return next(s.index for s in analysis.steps(events) if want(events[s.first : s.last + 1]))


def test_raw_event_names_show_only_when_asked(tmp_path, monkeypatch, played):
    at = _page(tmp_path, monkeypatch, played)
    _go(at, _step_with(played, lambda es: any(e["kind"] == "hits_inflicted" for e in es)))
    lines = [m.value for m in at.markdown]
    assert not any("hits_inflicted" in m for m in lines)
    assert any(" hit" in m for m in lines)  # the narrated sentence is there
    at.toggle(key="event_names").set_value(True).run()
    assert any("hits\\_inflicted]" in m for m in (m.value for m in at.markdown))  # escaped
    at.toggle(key="event_names").set_value(False).run()
    assert not any("hits_inflicted" in m.value for m in at.markdown)


def test_each_rule_cited_in_a_step_is_shown_once(tmp_path, monkeypatch, played):
    def cites_a_rule_twice(es):
        cited = [r for e in es for r in e.get("rules") or ()]
        return len(cited) > len(set(cited))

    index = _step_with(played, cites_a_rule_twice)
    step = analysis.steps(played)[index]
    cited = {r for e in played[step.first : step.last + 1] for r in e.get("rules") or ()}
    at = _go(_page(tmp_path, monkeypatch, played), index)
    text = "\n".join(c.value for c in at.caption)
    for rid in cited:
        assert text.count(_paragraph(rid)) == 1, rid
    assert scrub.cited_rules(played[step.first : step.last + 1]) == list(
        dict.fromkeys(r for e in played[step.first : step.last + 1] for r in e.get("rules") or ()))


def _paragraph(rid: str) -> str:
    rule = catalogue().get(rid)
    return f"`{rid}` {rule.text}" if rule else f"`{rid}`"


def test_an_answered_teaching_question_gives_its_rules_once(tmp_path, monkeypatch, played):
    """Teaching mode: after an answer, the rules the answer gave are not listed again under the
    step's events, and the step's other rules are."""
    steps = analysis.steps(played)
    timeline = Timeline(played)
    questions = [q for q in (teaching.question(played, s, timeline.state_at) for s in steps)
                 if q is not None]
    # a question whose step cites a rule beyond the answer's, so both lists show
    q = next(q for q in questions if q.rules and set(q.rules) < {
        r for e in played[steps[q.step].first : steps[q.step].last + 1]
        for r in e.get("rules") or ()})
    step = steps[q.step]
    cited = {r for e in played[step.first : step.last + 1] for r in e.get("rules") or ()}

    at = _page(tmp_path, monkeypatch, played)
    at.toggle(key="teaching").set_value(True).run()
    at = _go(at, q.step)
    assert any(m.value.startswith("**Question:**") for m in at.markdown)
    if q.choices:
        at.radio(key=f"teach_given_{q.step}").set_value(q.choices[0]).run()
    else:
        at.number_input(key=f"teach_given_{q.step}").set_value(0).run()
    at.button(key="teach_answer").click().run()
    assert not at.exception

    text = "\n".join(c.value for c in at.caption)
    for rid in cited:
        assert text.count(_paragraph(rid)) == 1, rid
    assert any(m.value.startswith("**Other rules cited in this step**") for m in at.markdown)


def test_fork_point_is_a_step_after_which_the_game_waits(played):
    steps = analysis.steps(played)
    points = set(rest_points(played))
    offered = [s for s in steps if scrub.fork_point(played, s, ended=False) is not None]
    assert offered and len(offered) < len(steps)  # automatic phases follow some steps
    for s in offered:  # the fork is cut exactly there, not at an earlier step
        at = scrub.fork_point(played, s, ended=False)
        assert at == played[s.last]["seq"] and max(k for k in points if k <= at) == at
    assert scrub.fork_point(played, steps[-1], ended=True) is None  # a game over stays over


def test_continue_from_here_forks_the_game_and_opens_it_to_play(tmp_path, monkeypatch, played):
    at = _page(tmp_path, monkeypatch, played)
    steps = analysis.steps(played)
    step = next(s for s in steps[5:] if scrub.fork_point(played, s, ended=False))
    _go(at, step.index)
    at.button(key="continue_here").click().run()
    new_id = at.session_state["play_game"]
    assert new_id != "played" and at.session_state["play_reseat"] is True
    with SQLiteEventStore(tmp_path / "one.db") as store:
        forked = store.read(new_id)
        assert store.read("played") == played  # the original is untouched
    cut = played[step.last]["seq"]
    assert forked == [{**e, "game": new_id} for e in played[:cut]]
    assert not [s for s in at.slider if s.key == "step"]  # the Play page is on show


def test_no_continue_on_the_last_step_of_a_finished_game(tmp_path, monkeypatch, played):
    at = _page(tmp_path, monkeypatch, played)
    at.button(key="last").click().run()
    assert not [b for b in at.button if b.key == "continue_here"]
    assert any("game is over at this step" in c.value for c in at.caption)


def test_a_replay_file_must_be_imported_before_continuing(tmp_path, monkeypatch, played):
    at = _page(tmp_path, monkeypatch, played)
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(
        ("game.jsonl", encode_replay(played), "application/octet-stream")).run()
    assert not at.exception and not [b for b in at.button if b.key == "continue_here"]
    assert any("import the replay file first" in c.value for c in at.caption)
