"""The Replay page through AppTest: one numbering (a step names the event numbers it covers, as
`warlog log` prints them; ``?event=N`` opens the step holding event N; an address that asks for
what the game does not have says so in one line), the result told at the last step only (not
above the opening, not in a teaching session's game picker), and text from a game shown as text:
a name, a title, a note or a unit id that is Markdown is escaped, never an image or a link."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.engine import analysis
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")


@pytest.fixture(scope="module")
def played() -> list[dict]:
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    return play_out("played", load_scenario("ancients-river-crossing"), seed=2).events


def _store(tmp_path, monkeypatch, events: list[dict], game: str = "played") -> Path:
    db = tmp_path / "one.db"
    with SQLiteEventStore(db) as store:
        store.append(game, [{**e, "game": game} for e in events], 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    return db


def _open(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    for name, value in (query or {}).items():
        at.query_params[name] = value
    at.run()
    assert not at.exception
    return at


def _step_line(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def _param(at: AppTest, name: str) -> str | None:
    value = at.query_params.get(name)
    return value[0] if isinstance(value, list) else value


def test_a_step_names_its_event_numbers_and_an_event_link_opens_its_step(
        tmp_path, monkeypatch, played):
    _store(tmp_path, monkeypatch, played)
    steps = analysis.steps(played)
    step = next(s for s in steps[10:] if s.last > s.first + 1)
    inside = played[step.first + 1]["seq"]  # not the step's first event: any of its events
    at = _open({"event": str(inside)})
    first, last = played[step.first]["seq"], played[step.last]["seq"]
    assert _step_line(at).startswith(
        f"**Step {step.index + 1} of {len(steps)}** · events {first}–{last} — ")
    assert at.slider(key="step").value == step.index + 1
    assert not at.warning  # nothing wrong with that address
    assert _param(at, "event") == str(first) and _param(at, "step") == str(step.index + 1)
    at.button(key="next_step").click().run()
    assert _param(at, "event") == str(played[steps[step.index + 1].first]["seq"])


@pytest.mark.parametrize("query,index,said", [
    ({"step": "48000"}, -1, "This game has {n} steps: step 48000 does not exist; showing the "
                            "last step."),
    ({"event": "99999"}, -1, "This game's events are numbered 1–{last}: event 99999 does not "
                             "exist; showing the last step."),
    ({"event": "abc"}, 0, "The address asks for event 'abc', which is not an event number: "
                          "showing the first step."),
    ({"step": "0"}, 0, "This game has {n} steps: step 0 does not exist; showing the first "
                       "step."),
])
def test_an_address_beyond_the_game_says_so_in_one_line(tmp_path, monkeypatch, played, query,
                                                        index, said):
    from warlog.dashboard.data import markdown_text

    _store(tmp_path, monkeypatch, played)
    n = len(analysis.steps(played))
    at = _open({"game": "played", **query})
    assert at.slider(key="step").value == (index % n) + 1
    (warning,) = at.warning
    assert warning.value == markdown_text(said.format(n=n, last=played[-1]["seq"]))
    at.button(key="prev_step" if index else "next_step").click().run()
    assert not at.warning  # said once, where the address landed


def test_an_old_step_link_still_opens_its_step(tmp_path, monkeypatch, played):
    _store(tmp_path, monkeypatch, played)
    at = _open({"step": "7"})
    assert at.slider(key="step").value == 7 and not at.warning
    steps = analysis.steps(played)
    assert _param(at, "event") == str(played[steps[6].first]["seq"])


def _told_the_result(at: AppTest) -> bool:
    return any(e.value.startswith("Result:") for e in [*at.success, *at.info])


@pytest.mark.parametrize("teaching", [False, True])
def test_the_result_waits_for_the_last_step(tmp_path, monkeypatch, played, teaching):
    _store(tmp_path, monkeypatch, played)
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    at.session_state["teaching"] = teaching
    at.run()
    assert not at.exception
    assert not _told_the_result(at)  # not above the opening
    (label,) = at.selectbox(key="game").options
    assert ("won" in label) is not teaching  # a learner's game picker keeps the secret too
    at.button(key="next_step").click().run()
    assert not _told_the_result(at)
    at.toggle(key="show_result").set_value(True).run()  # asked for: told now
    assert _told_the_result(at)
    at.toggle(key="show_result").set_value(False).run()
    assert not _told_the_result(at)
    at.button(key="last").click().run()
    assert _told_the_result(at) and any("won" in s.value for s in at.success)


# -- text from a game is data -------------------------------------------------------------------

IMAGE, LINK = "![i](http://host/x.png)", "[text](http://evil/)"


def _hostile(events: list[dict]) -> list[dict]:
    """The game with Markdown in its title, description, side names and players, as a
    hand-edited file could hold (unit ids cannot: the store allows letters, digits, _ and -)."""
    out = json.loads(json.dumps(events))
    scenario = out[0]["scenario"]
    scenario["title"], scenario["description"] = f"{LINK} Ford", f"{IMAGE} {LINK}"
    for side in scenario["sides"]:
        if isinstance(scenario["sides"][side], dict) and "name" in scenario["sides"][side]:
            scenario["sides"][side]["name"] = f"{IMAGE} {side}"
    out[0]["players"] = {"red": IMAGE, "blue": LINK}
    return out


def _bodies(at: AppTest) -> list[str]:
    """Every body the page hands to Streamlit's Markdown renderer: markdown, captions, alerts,
    titles, expander and button labels."""
    found = [e.value for kind in ("markdown", "caption", "info", "error", "success", "warning",
                                  "title", "subheader") for e in at.get(kind)]
    found += [e.label for e in at.expander] + [b.label for b in at.button]
    return found


def _unescaped(at: AppTest) -> list[str]:
    return [b for b in _bodies(at) if "![" in b or "](" in b]


@pytest.mark.slow  # every step twice in the app: ~12 s, handed out first
def test_markdown_in_a_game_is_shown_as_text(tmp_path, monkeypatch, played):
    events = _hostile(played)
    db = _store(tmp_path, monkeypatch, events)
    steps = analysis.steps(events)
    about = events[steps[3].first]["seq"]
    with SQLiteEventStore(db) as store:
        note = make_note(store.read("played"), about, f"{LINK} {IMAGE}", author=IMAGE)
        store.append("played", [note], len(events))
    at = _open()
    assert any("Ford" in t.value for t in at.title)  # the title is there, escaped
    assert not _unescaped(at)
    at.toggle(key="event_names").set_value(True).run()
    at.selectbox(key="selected_unit").set_value("r-inf-1").run()  # its reach, described
    assert not at.exception
    seen_note = False
    for index in range(len(steps)):
        at.slider(key="step").set_value(index + 1).run()
        assert not at.exception
        assert not _unescaped(at), (index, _unescaped(at))
        bodies = " ".join(_bodies(at))
        seen_note |= "\\[text\\]\\(http" in bodies and index == 3
    assert seen_note  # shown, as text, at its step
    at.toggle(key="teaching").set_value(True).run()  # the questions quote the unit's id
    for index in range(len(steps)):
        at.slider(key="step").set_value(index + 1).run()
        assert not at.exception and not _unescaped(at), index
