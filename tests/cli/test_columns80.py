"""Every listing in an 80-column terminal (COLUMNS=80), on a database of games with long ids and
long player names: no line wider than 80, and every game id, scenario and player either whole
or shortened in the middle, its start and its end kept (never a column cut to a letter or
two), so a player can still tell the games apart and type an id."""

from __future__ import annotations

import re

import pytest
from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from typer.testing import CliRunner

from warlog.cli import app
from warlog.engine.bots import play_out
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.terminal import shorten_middle

SUFFIX = "-autumn-campaign-2026-game-000"
BOT_GAMES = [f"{scn}{SUFFIX}{i}" for i, scn in
             enumerate(["ancients-river-crossing", "ancients-battle-for-the-hill"], start=1)]
TABLE_GAME = "napoleonic-waterloo-hougoumont-farm-assault-replay-long-id-7"
RED = "Marshal Jean-Baptiste Jules Bernadotte"
BLUE = "Field Marshal Gebhard Leberecht von Bluecher"
KEPT = 3  # the fewest characters kept at each end of a shortened name


def run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "80"}, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    path = str(tmp_path_factory.mktemp("columns") / "games.db")
    with SQLiteEventStore(path) as store:
        for i, gid in enumerate(BOT_GAMES):
            scenario = gid.removesuffix(f"{SUFFIX}{i + 1}")
            events = play_out(gid, load_scenario(scenario), seed=5 + i).events
            store.append(gid, events, 0)
    run("new", "ancients-river-crossing", "--game", TABLE_GAME, "--red", RED, "--blue", BLUE,
        "--date", "2026-10-03", "--db", path)
    return path


def shown(name: str, text: str) -> bool:
    """Whether ``name`` is in ``text`` whole or as its first and last characters (at least
    KEPT of each) around an ellipsis."""
    if name in text:
        return True
    return any(f"{name[:head]}…{name[len(name) - tail:]}" in text
               for head in range(KEPT, len(name)) for tail in range(KEPT, len(name) - head))


def fits(text: str) -> None:
    wide = [line for line in text.splitlines() if len(line) > 80]
    assert not wide, f"{len(wide)} lines wider than 80: {wide[0]!r}"


def test_shortening_keeps_both_ends_and_the_width():
    assert shorten_middle("ancients-river-crossing-1", 24) == "ancients-riv…-crossing-1"
    assert shorten_middle("ancients-river-crossing-1", 25) == "ancients-river-crossing-1"
    assert shorten_middle("日本語のテキスト", 9) == "日本…スト"  # two cells a character


def test_games(db):
    text = run("games", "--db", db)
    fits(text)
    for name in [*BOT_GAMES, TABLE_GAME, "ancients-river-crossing",
                 "ancients-battle-for-the-hill", RED, BLUE]:
        assert shown(name, text), f"{name} is cut:\n{text}"
    assert "2026-10-03" in text and "in progress" in text
    assert f"red: {RED[:KEPT]}" in text and f"blue: {BLUE[:KEPT]}" in text  # red first, named


def test_scenarios():
    text = run("scenarios")
    fits(text)
    for s in bundled_scenarios():
        assert s.id in text, f"{s.id} is not whole (it is what `warlog new` takes)"


def test_rules():
    text = run("rules", "napoleonic")
    fits(text)
    assert "Napoleonic" in text and "interpretation" in text


def test_luck_whatif_and_winprob_of_a_game_with_a_long_id(db):
    game = BOT_GAMES[0]
    for text in (run("luck", game, "--db", db),
                 run("whatif", game, "--db", db, "--at", "100", "-n", "4",
                     "--scheduler", "inprocess"),
                 run("winprob", game, "--db", db, "-n", "2", "--scheduler", "inprocess")):
        fits(text)
        assert shown(game, text)


def test_odds():
    fits(run("odds", "Infantry", "Cavalry", "--system", "ohw", "--period", "ancients",
             "--kind", "melee"))


def test_a_balance_study_keeps_its_figures_whole():
    text = run("simulate", "ancients-river-crossing", "--games", "2", "--first", "both",
               "--swap", "--scheduler", "inprocess")
    fits(text)
    assert shown("ancients-river-crossing", text)
    assert not re.search(r"[\d%()/.;-]…", text), text  # no figure cut off at its end
    assert shown("aggressive v cautious", text) and shown("cautious v aggressive", text)


def test_analyze_groups_by_scenario_and_players(db):
    text = run("analyze", "--db", db, "--by", "scenario,policies")
    fits(text)
    for name in ("ancients-river-crossing", "ancients-battle-for-the-hill"):
        assert shown(name, text), f"{name} is cut:\n{text}"
    assert shown(f"{RED} v {BLUE}", text)
    assert "100%" in text and "(21-100)" in text  # a figure whole, on its lines


def test_review(db):
    text = run("review", BOT_GAMES[0], "--db", db, "--budget", "2", "--scheduler", "inprocess")
    fits(text)
    assert shown(BOT_GAMES[0], text)
