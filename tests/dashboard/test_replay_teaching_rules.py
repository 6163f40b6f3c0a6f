"""Teaching mode on the Replay page gives each rule's paragraph once: after an answer, the rules
the answer gave are not listed again under the step's events, and the step's other rules are."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.engine import analysis, teaching
from warlog.engine.fold import Timeline
from warlog.engine.rules import catalogue
from warlog.events.sqlite_store import SQLiteEventStore

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def played() -> list[dict]:
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    return play_out("played", load_scenario("ancients-river-crossing"), seed=2).events


def paragraph(rid: str) -> str:
    rule = catalogue().get(rid)
    return f"`{rid}` {rule.text}" if rule else f"`{rid}`"


def test_an_answered_question_gives_its_rules_once(tmp_path, monkeypatch, played):
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

    db = tmp_path / "one.db"
    with SQLiteEventStore(db) as store:
        store.append("played", played, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    at.toggle(key="teaching").set_value(True).run()
    at.slider(key="step").set_value(q.step + 1).run()
    assert any(m.value.startswith("**Question:**") for m in at.markdown)
    if q.choices:
        at.radio(key=f"teach_given_{q.step}").set_value(q.choices[0]).run()
    else:
        at.number_input(key=f"teach_given_{q.step}").set_value(0).run()
    at.button(key="teach_answer").click().run()
    assert not at.exception

    text = "\n".join(c.value for c in at.caption)
    for rid in cited:
        assert text.count(paragraph(rid)) == 1, rid
    assert any(m.value.startswith("**Other rules cited in this step**") for m in at.markdown)
