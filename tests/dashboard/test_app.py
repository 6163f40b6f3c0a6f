"""The dashboard through Streamlit's AppTest: widgets are selected by key, figures read back from
the page's plotly spec. One demo database is seeded per test session (about a second) and every
test points $WARLOG_DB at it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from app_pages import board_drawn, board_groups
from run_once import copied
from streamlit.testing.v1 import AppTest
from waits import LIMIT

from warlog.dashboard.data import markdown_text, parse_upload
from warlog.app.demo import ensure_demo_games
from warlog.engine.rules import catalogue
from warlog.engine.scenario import bundled_scenarios
from warlog.events.replay_file import ReplayError, encode_replay
from warlog.events.sqlite_store import SQLiteEventStore

APP = str(Path(__file__).resolve().parents[2] / "dashboard" / "app.py")
SHORT_GAME = "demo-ancients-river-crossing-1"  # the demo game with the fewest steps


@pytest.fixture(scope="session")
def demo_db(demo_db_file, tmp_path_factory) -> Path:
    path = copied(demo_db_file, tmp_path_factory.mktemp("warlog-db") / "demo.db")
    with SQLiteEventStore(path) as store:
        others = sum(s.period != "ancients" for s in bundled_scenarios())
        assert len(store.games()) == 6 + others  # two a scenario for Ancients, one else
        assert ensure_demo_games(store) == 0  # and none added to a database that has games
    return path


@pytest.fixture
def app(demo_db, monkeypatch) -> AppTest:
    monkeypatch.setenv("WARLOG_DB", str(demo_db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    return at


def board_units(at: AppTest) -> dict[str, list[tuple[float, float]]]:
    """Unit positions per side, as drawn on the page's board."""
    groups = board_groups(at, "board")
    assert any(g["role"] == "cells" for g in groups), "no board on the page"
    drawn = {g["side"]: g["at"] for g in groups if g["role"] == "units"}
    return {side: drawn.get(side, []) for side in ("red", "blue")}  # a side wiped out: none


def turn_slider(at: AppTest):
    """The turn slider (its key changes each time it moves the page: see replay.py)."""
    return next(s for s in at.slider if s.label == "Turn")


def step_title(at: AppTest) -> str:
    return next(m.value for m in at.markdown if m.value.startswith("**Step "))


def text_of(markdown: str) -> str:
    """What a reader sees of an element's Markdown body: its escapes undone (the page escapes
    every text from a game or a file, data.markdown_text)."""
    return re.sub(r"\\(.)", r"\1", markdown)


def choose_game(at: AppTest, game: str) -> AppTest:
    at.selectbox(key="game").set_value(game).run()
    assert not at.exception
    return at


@pytest.mark.slow
def test_steps_through_a_whole_game(app):
    at = choose_game(app, SHORT_GAME)
    last = int(at.slider(key="step").max)  # the step slider counts from 1, like the title
    assert at.slider(key="step").value == 1 and step_title(at).startswith(f"**Step 1 of {last}**")
    boards, turns = {repr(board_units(at))}, [turn_slider(at).value]
    for i in range(2, last + 1):
        at.button(key="next_step").click().run()
        assert not at.exception, f"step {i}"
        assert at.slider(key="step").value == i
        boards.add(repr(board_units(at)))
        turns.append(turn_slider(at).value)
    assert len(boards) > 20  # units move and fall as we step
    assert turns == sorted(turns) and turns[-1] == turn_slider(at).max
    assert "game over" in step_title(at)
    assert at.button(key="next_step").disabled
    assert any("won" in s.value for s in at.success)
    at.button(key="prev_step").click().run()
    assert not at.exception and at.slider(key="step").value == last - 1


def test_turn_slider_jumps_to_the_first_step_of_each_turn(app):
    at = choose_game(app, SHORT_GAME)
    for turn in range(int(turn_slider(at).max) + 1):
        turn_slider(at).set_value(turn).run()
        assert not at.exception
        assert turn_slider(at).value == turn
        assert step_title(at).split("— ")[1].startswith(f"turn {turn} · ")
    at.slider(key="step").set_value(6).run()
    assert not at.exception and turn_slider(at).value == 1
    assert step_title(at).startswith("**Step 6 of")


def test_board_follows_the_step(app):
    at = choose_game(app, SHORT_GAME)
    opening = board_units(at)
    at.slider(key="step").set_value(at.slider(key="step").max).run()
    end = board_units(at)
    assert opening != end
    assert len(end["red"]) + len(end["blue"]) < len(opening["red"]) + len(opening["blue"])


def test_events_show_narration_and_the_text_of_the_rules_they_cite(app):
    at = choose_game(app, SHORT_GAME)
    turn_slider(at).set_value(2).run()
    for _ in range(30):  # to the first shot of turn 2
        if "shoots" in step_title(at):
            break
        at.button(key="next_step").click().run()
    lines = " ".join(m.value for m in at.markdown)
    assert "shoots" in lines and "die " in lines
    captions = " ".join(c.value for c in at.caption)
    for rule_id in ("ohw.shoot.roll", "grid.arc"):
        assert f"`{rule_id}` {catalogue()[rule_id].text}" in captions
    assert "interpretation" in captions  # grid.arc is one, and is flagged


def test_changing_game_resets_to_the_opening(app, demo_db):
    at = app
    at.slider(key="step").set_value(40).run()
    with SQLiteEventStore(demo_db) as store:
        other = [g.id for g in store.games() if g.id != at.selectbox(key="game").value][0]
    choose_game(at, other)
    assert at.selectbox(key="game").value == other and other in at.markdown[0].value
    assert at.slider(key="step").value == 1 and turn_slider(at).value == 0
    assert "opening" in step_title(at)


def test_invalid_upload_shows_an_error_not_a_traceback(app):
    at = app
    at.radio(key="source").set_value("Replay file").run()
    assert not at.exception and at.info  # asks for a file
    at.file_uploader(key="upload").set_value(("broken.jsonl", b"this is not json\n",
                                               "application/octet-stream")).run()
    assert not at.exception
    assert at.error and "not a warlog replay" in text_of(at.error[0].value)
    assert "broken.jsonl" in text_of(at.error[0].value)


def test_without_a_browser_the_charts_come_at_once_and_the_boards_word_is_harmless(app):
    """The charts wait for the board's component to say the browser has drawn the board only
    when a browser is there to say it (tests/dashboard/test_browser_replay.py); a session with
    none gets them in its first run, and the word, should it come, changes nothing."""
    at = choose_game(app, SHORT_GAME)
    charts = len(at.get("plotly_chart"))
    assert charts >= 3 and not any("charts follow" in c.value for c in at.caption)
    board_drawn(at)
    assert not at.exception and len(at.get("plotly_chart")) == charts


def test_exhaustion_chart_sits_beside_attrition_with_its_reference_explained(app):
    at = choose_game(app, SHORT_GAME)
    turn_slider(at).set_value(4).run()
    spec = None
    for chart in at.get("plotly_chart"):
        data = json.loads(chart.proto.spec)["data"]
        if any((t.get("meta") or {}).get("role") == "threshold" for t in data):
            spec = data
    assert spec is not None
    lines = [t for t in spec if (t.get("meta") or {}).get("role") == "threshold"]
    assert {t["meta"]["side"] for t in lines} == {"red", "blue"}
    assert all("reference" in t["name"] for t in lines)
    assert any("yardstick, not a rule" in c.value for c in at.caption)


def test_valid_upload_is_replayed(app, demo_db):
    with SQLiteEventStore(demo_db) as store:
        events = store.read(SHORT_GAME)
    at = app
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(("game.jsonl", encode_replay(events),
                                               "application/octet-stream")).run()
    assert not at.exception and not at.error
    assert at.title[0].value == "Crossing at the Ford"
    at.button(key="next_step").click().run()
    assert not at.exception and at.slider(key="step").value == 2


def test_parse_upload_refuses_bad_files_with_messages(demo_db):
    with SQLiteEventStore(demo_db) as store:
        good = encode_replay(store.read(SHORT_GAME))
    assert len(parse_upload(good, "ok.jsonl")) == good.count(b"\n") - 2  # header, closing line
    lines = good.splitlines()
    edited = {**orjson.loads(lines[3]), "turn": 7}  # an edit that keeps the old chain value
    tampered = b"\n".join([*lines[:3], orjson.dumps(edited), *lines[4:]]) + b"\n"
    for data, words in [(b"", "empty"), (b"[1, 2]\n", "not a warlog replay"),
                        (tampered, "hash chain broken"),
                        (good[: len(good) // 2 - 10], "truncated")]:
        with pytest.raises(ReplayError, match=words) as info:
            parse_upload(data, "bad.jsonl")
        assert "bad.jsonl" in str(info.value) and "/tmp" not in str(info.value)


def test_rules_page_is_searchable(app):
    at = app
    at.switch_page("views/rules.py").run()
    assert not at.exception
    everything = len([m for m in at.markdown if m.value.startswith("#### ")])
    assert everything == len(catalogue())
    at.text_input(key="rule_search").input("cavalry").run()
    found = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert 0 < len(found) < everything
    at.checkbox(key="rule_interpretations").check().run()
    assert all("interpretation" in m for m in
               [m.value for m in at.markdown if m.value.startswith("#### ")])
    at.text_input(key="rule_search").input("").run()
    at.checkbox(key="rule_interpretations").uncheck().run()
    at.selectbox(key="rule_period").set_value("ohw.ww2").run()
    shown = [m.value for m in at.markdown if m.value.startswith("#### ")]
    assert any("ohw.ww2.spotting" in m for m in shown) and any("grid.los" in m for m in shown)
    assert not any("ohw.ancients." in m or "ohw.medieval." in m for m in shown)


def test_a_game_exported_mid_play_replays_as_in_progress(app, demo_db):
    with SQLiteEventStore(demo_db) as store:
        events = store.read(SHORT_GAME)
    at = app
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(("half.jsonl", encode_replay(events[:120]),
                                               "application/octet-stream")).run()
    assert not at.exception and not at.error
    assert not any("in progress" in i.value for i in at.info)  # told at the end, not before
    at.slider(key="step").set_value(at.slider(key="step").max).run()
    assert not at.exception
    assert any("in progress" in i.value for i in at.info)


@pytest.mark.parametrize("bad", ["missing-folder/x.db", "not-a-database.db"])
def test_a_database_that_cannot_be_opened_is_an_error_message(tmp_path, monkeypatch, bad):
    path = tmp_path / bad
    if bad.startswith("not-"):
        path.write_bytes(b"this is a text file, not SQLite " * 100)
    monkeypatch.setenv("WARLOG_DB", str(path))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    assert not at.exception
    assert at.error and "Cannot open the database" in at.error[0].value


def test_a_stored_game_that_no_longer_folds_is_an_error_message(tmp_path, monkeypatch):
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    events = play_out("bent", load_scenario("ancients-river-crossing"), seed=1).events
    check = next(i for i, e in enumerate(events) if e["kind"] == "state_checksum")
    events[check] = {**events[check], "sha256": "0" * 64}  # stored as if the engine differed
    db = tmp_path / "bent.db"
    with SQLiteEventStore(db) as store:
        store.append("bent", events, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(str(APP), default_timeout=LIMIT).run()
    assert not at.exception
    assert at.error and "cannot be replayed" in at.error[0].value
    assert f"event seq {events[check]['seq']}" in at.error[0].value


def test_a_copied_link_opens_the_same_game_and_step(demo_db, monkeypatch):
    monkeypatch.setenv("WARLOG_DB", str(demo_db))
    at = AppTest.from_file(APP, default_timeout=LIMIT)
    at.query_params["game"] = SHORT_GAME
    at.query_params["step"] = "12"
    at.run()
    assert not at.exception
    assert at.selectbox(key="game").value == SHORT_GAME
    assert at.slider(key="step").value == 12 and step_title(at).startswith("**Step 12 of")
    at.button(key="next_step").click().run()
    # The page's own address names the step and its first event, the number `warlog log`
    # prints beside it.
    with SQLiteEventStore(demo_db) as store:
        events = store.read(SHORT_GAME)
    from warlog.engine.analysis import steps

    first = events[steps(events)[12].first]["seq"]
    assert at.query_params["event"] in ([str(first)], str(first))
    assert at.query_params["step"] in (["13"], "13")
    assert at.query_params["game"] in ([SHORT_GAME], SHORT_GAME)


def test_scrubbing_buttons_move_by_phase_turn_and_to_the_ends(app):
    at = choose_game(app, SHORT_GAME)
    at.button(key="next_turn").click().run()
    assert not at.exception and turn_slider(at).value == 1
    first_of_turn = at.slider(key="step").value
    at.button(key="next_phase").click().run()
    title = step_title(at)
    assert at.slider(key="step").value > first_of_turn and "red movement" not in title
    at.button(key="prev_phase").click().run()
    assert at.slider(key="step").value == first_of_turn
    at.button(key="last").click().run()
    assert at.slider(key="step").value == at.slider(key="step").max
    assert at.button(key="next_step").disabled and at.button(key="last").disabled
    at.button(key="prev_turn").click().run()
    assert turn_slider(at).value == turn_slider(at).max  # back to its turn's start
    at.button(key="first").click().run()
    assert at.slider(key="step").value == 1 and at.button(key="first").disabled


def test_a_note_written_at_a_step_is_stored_and_shown_there(tmp_path, monkeypatch):
    from warlog.engine.bots import play_out
    from warlog.engine.scenario import load_scenario

    db = tmp_path / "notes.db"
    with SQLiteEventStore(db) as store:
        game = play_out("noted", load_scenario("ancients-river-crossing"), seed=2)
        store.append("noted", game.events, 0)
    monkeypatch.setenv("WARLOG_DB", str(db))
    at = AppTest.from_file(APP, default_timeout=LIMIT).run()
    at.slider(key="step").set_value(9).run()
    at.text_area(key="note_text").input("Here the Numidians should have waited.").run()
    at.text_input(key="note_author").input("Bo").run()
    at.button(key="add_note").click().run()
    assert not at.exception and not at.error
    assert at.slider(key="step").value == 9  # writing a note keeps the reader where they were
    assert any("Numidians should have waited" in i.value and "Bo" in i.value for i in at.info)
    with SQLiteEventStore(db) as store:
        stored = store.read("noted")
    note = stored[-1]
    assert note["kind"] == "note" and note["author"] == "Bo"
    at.button(key="first").click().run()
    assert not any("Numidians" in i.value for i in at.info)  # shown at its own step only
    at.button(key=f"note_{note['seq']}").click().run()  # the sidebar's notes jump to it
    assert at.slider(key="step").value == 9
    assert any("Numidians" in i.value for i in at.info)


@pytest.mark.slow
def test_the_board_and_each_chart_download_as_png(app):
    """kaleido draws the picture with the system's chromium (no browser download)."""
    at = choose_game(app, SHORT_GAME)
    at.slider(key="step").set_value(20).run()
    for which in ("board", "exhaustion"):
        at.selectbox(key="png_which").set_value(which).run()
        at.button(key="png_make").click().run()
        assert not at.exception
        made = at.session_state["png"]
        assert made[0] == which and made[2] == 19 and made[3].startswith(b"\x89PNG\r\n\x1a\n")
        assert len(made[3]) > 10_000
        assert at.get("download_button")


def _board_roles(at: AppTest) -> dict[str, dict]:
    roles = {g["role"]: g for g in board_groups(at, "board")}
    assert "cells" in roles, "no board on the page"
    return roles


def test_selecting_a_unit_draws_its_reach_and_explains_it(app):
    at = choose_game(app, SHORT_GAME)
    assert "reach_selected" not in _board_roles(at)
    unit = next(u for u in at.selectbox(key="selected_unit").options if u.startswith("r-"))
    uid = unit.split(" ")[0]
    at.selectbox(key="selected_unit").set_value(uid).run()
    assert not at.exception
    seen = set()
    for _ in range(40):  # the selection stays as the game goes on; its reach follows the step
        roles = _board_roles(at)
        assert roles["reach_selected"]["units"] == [uid]
        text = text_of(next(m.value for m in at.markdown
                            if m.value.startswith(f"**{markdown_text(uid)}**")))
        if "may move to" in text:
            seen.add("moves")
            assert roles["reach_moves"]["at"]
        if "blue is to act" in text:
            seen.add("waiting")
            assert "reach_moves" not in roles
        if seen == {"moves", "waiting"}:
            break
        at.button(key="next_step").click().run()
    assert seen == {"moves", "waiting"}


def _question(at: AppTest) -> str | None:
    return next((m.value for m in at.markdown if m.value.startswith("**Question:**")), None)


def test_teaching_mode_asks_before_it_shows_then_answers_and_scores(app):
    at = choose_game(app, SHORT_GAME)
    at.toggle(key="teaching").set_value(True).run()
    assert not at.exception
    marked = []
    for _ in range(80):  # two hits questions: one answered wrongly, one rightly
        at.button(key="next_step").click().run()
        prompt = _question(at)
        if not prompt or "How many hits" not in prompt:
            continue
        assert "answer to see what happens" in step_title(at)
        assert not any("->" in text_of(m.value) for m in at.markdown)  # not shown yet
        given = at.number_input(key=next(n.key for n in at.number_input))
        assert at.button(key="teach_answer").disabled  # nothing given yet
        given.set_value(99 if not marked else None).run()
        if marked:  # the right answer: read it off the hits event once, by peeking the log
            step = int(at.slider(key="step").value) - 1
            events = data_events(at)
            from warlog.engine import analysis

            s = analysis.steps(events)[step]
            hits = next(e["hits"] for e in events[s.first : s.last + 1]
                        if e["kind"] == "hits_inflicted")
            at.number_input(key=given.key).set_value(hits).run()
        at.button(key="teach_answer").click().run()
        assert not at.exception
        marked.append(_verdict(at))
        assert any("->" in text_of(m.value) for m in at.markdown)  # now the arithmetic
        assert "answer to see" not in step_title(at)
        if len(marked) == 2:
            break
    assert marked == [False, True]
    assert at.sidebar.get("metric")[0].proto.body == "1 of 2"
    at.button(key="prev_step").click().run()  # an answered question stays answered
    at.button(key="next_step").click().run()
    assert at.sidebar.get("metric")[0].proto.body == "1 of 2" and _verdict(at) is True


def _verdict(at: AppTest) -> bool | None:
    if any(s.value.startswith("Right:") for s in at.success):
        return True
    return False if any(e.value.startswith("Not quite") for e in at.error) else None


def data_events(at: AppTest) -> list[dict]:
    import os

    with SQLiteEventStore(os.environ["WARLOG_DB"]) as store:
        return store.read(SHORT_GAME)


def test_an_upload_with_an_edited_die_is_refused_naming_the_event(app, demo_db):
    """The chain recomputed over the edit (encode_replay hashes what it is given): only
    re-deriving the game from its orders and dice can tell."""
    with SQLiteEventStore(demo_db) as store:
        events = store.read(SHORT_GAME)
    die = next(i for i, e in enumerate(events) if e["kind"] == "dice_rolled")
    edited = [dict(e) for e in events]
    edited[die]["faces"] = [7 - edited[die]["faces"][0]]
    at = app
    at.radio(key="source").set_value("Replay file").run()
    at.file_uploader(key="upload").set_value(("edited.jsonl", encode_replay(edited),
                                               "application/octet-stream")).run()
    assert not at.exception
    message = text_of(" ".join(e.value for e in at.error))
    assert "does not re-derive" in message and f"event seq {edited[die]['seq']}" in message
    assert not at.get("plotly_chart")  # nothing of the game is shown


def test_phases_and_rule_systems_are_named_in_words_on_the_page(app):
    at = choose_game(app, "demo-portable-zama-1")
    at.button(key="next_step").click().run()  # the muster: after it, blue's missile machines
    shown = text_of(" ".join(c.value for c in at.caption)
                    + " ".join(m.value for m in at.markdown))
    assert "missile machines" in shown  # the rule id portable.missile_machines is an id
    assert "missile_machines" not in shown.replace("portable.missile_machines", "")
    assert "The Portable Wargame: Ancient Battles" in shown and "ancient_battles" not in shown
