"""Paths, ids, output files and numbers on the way in (issue 19): every field is an input.

Each test names what warlog did before (found by an outside harness) and checks what it does
now: one line naming the option or file, exit code 1, nothing half-written, nothing replaced.
Real files, a real named pipe, socket and device node, a real SQLite database, real processes
where a read could block or eat all memory.
"""

from __future__ import annotations

import json
import os
import resource
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import no_ambient_db, run  # noqa: F401 - the fixture is autouse
from waits import LIMIT

from warlog.engine.bots import POLICIES
from warlog.engine.game import start
from warlog.engine.scenario import load_scenario
from warlog.events.replay_file import load_replay
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.study import game_id

SCENARIO = "ancients-river-crossing"
BUNDLED = Path(__file__).resolve().parents[2] / "scenarios" / f"{SCENARIO}.toml"

BAD_IDS = {
    "ESC": "a\x1b[31mb", "tab": "a\tb", "newline": "a\nb", "zero-width space": "zw\u200bid",
    "word joiner": "w\u2060j", "byte order mark": "\ufeffbom", "bidi override": "rtl\u202eexe",
    "no-break space": "nb\xa0sp", "201 characters": "g" * 201, "a space at the end": "g ",
}


def one_line(result, *words: str) -> str:
    """The single error line of a failed command, holding every one of ``words``."""
    assert result.exit_code == 1, result.output
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.output
    assert "Traceback" not in result.output
    for word in words:
        assert word in lines[0], (word, lines[0])
    return lines[0]


def edited(path: Path, pairs: list[tuple[str, str]]) -> Path:
    """The bundled river crossing with each (old, new) text edit made once, written to ``path``."""
    text = BUNDLED.read_text("utf-8")
    for old, new in pairs:
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text, "utf-8")
    return path


def games_in(db: Path) -> list[str]:
    with SQLiteEventStore(db) as store:
        return [g.id for g in store.games()]


# -- 1. ids are checked where they are made ------------------------------------------------


@pytest.mark.parametrize("name", list(BAD_IDS))
def test_new_refuses_a_bad_game_id_before_the_database_is_touched(tmp_path, name):
    """Before: `warlog new --game` stored any of these; 7 of 9 then exported to a file that
    `warlog import` refused, and `warlog games` printed the escape sequences raw."""
    db = tmp_path / "w.db"
    line = one_line(run("new", SCENARIO, "--game", BAD_IDS[name], "--db", str(db), ok=False),
                    "Invalid value for '--game': the game id")
    assert line.isprintable()
    assert not db.exists()


@pytest.mark.parametrize("option", ["--red", "--blue"])
def test_new_refuses_a_bad_player_name(tmp_path, option):
    db = tmp_path / "w.db"
    one_line(run("new", SCENARIO, option, "Ann\x1b[2J", "--db", str(db), ok=False),
             f"Invalid value for '{option}': the player name 'Ann\\x1b[2J' holds a control")
    assert not db.exists()


def test_a_note_author_is_a_name_by_the_same_rule(tmp_path):
    db = tmp_path / "w.db"
    run("new", SCENARIO, "--game", "g", "--db", str(db))
    one_line(run("note", "g", "1", "hi", "--author", "An\u2066n", "--db", str(db), ok=False),
             "Invalid value for '--author': the author name 'An\\u2066n' holds an invisible")
    with SQLiteEventStore(db) as store:
        assert [e["kind"] for e in store.read("g")][-1] != "note"


def test_record_refuses_a_bad_new_game_id_and_player_name(tmp_path):
    db, script = tmp_path / "w.db", tmp_path / "s.txt"
    script.write_text("end\n")
    for name, value in BAD_IDS.items():
        one_line(run("record", SCENARIO, "--game", value, "--script", str(script), "--db",
                     str(db), ok=False), "--game: the game id")
    one_line(run("record", SCENARIO, "--game", "g", "--players", "red=A\u202eB", "--script",
                 str(script), "--db", str(db), ok=False),
             "--players: the player name 'A\\u202eB' holds an invisible (format) character")
    assert not db.exists() or games_in(db) == []


def test_fork_refuses_a_bad_new_id_and_a_default_that_grows_too_long(tmp_path):
    db = tmp_path / "w.db"
    long_id = "g" * 195
    run("new", SCENARIO, "--game", long_id, "--db", str(db))
    run("order", long_id, "end", "--db", str(db))
    for value in BAD_IDS.values():
        one_line(run("fork", long_id, "--at", "3", "--new-id", value, "--db", str(db),
                     ok=False), "Invalid value for '--new-id': the game id")
    one_line(run("fork", long_id, "--at", "3", "--db", str(db), ok=False),
             "the new game's id is 202 characters long; game ids have at most 200; give one "
             "with --new-id")
    assert games_in(db) == [long_id]


@pytest.mark.parametrize("game", ["Ann's game 2", "战斗 at the ford", "\u00e9t\u00e9 [bold]x",
                                  "g" * 200])
def test_every_id_new_accepts_exports_and_imports(tmp_path, game):
    db, other, replay = tmp_path / "w.db", tmp_path / "other.db", tmp_path / "g.jsonl"
    run("new", SCENARIO, "--game", game, "--red", "Ann Lee", "--db", str(db))
    run("export", game, "--out", str(replay), "--db", str(db))
    run("import", str(replay), "--db", str(other))
    assert games_in(other) == [game]


def test_an_id_typed_with_its_accents_apart_is_stored_composed(tmp_path):
    """NFC at the typed door: 'e' + U+0301 is the letter é, stored once, as one character."""
    db = tmp_path / "w.db"
    run("new", SCENARIO, "--game", "e\u0301te\u0301", "--red", "Jose\u0301", "--db", str(db))
    assert games_in(db) == ["\u00e9t\u00e9"]


def test_a_scenario_id_is_at_most_100_characters(tmp_path):
    """Before: a scenario id had no cap; one of 900,000 characters made a game id as long,
    written on every line of a 468 MB replay file."""
    for length in (101, 900_000):
        path = edited(tmp_path / "long.toml", [('title = "', f'id = "{"a" * length}"\ntitle = "')])
        line = one_line(run("simulate", str(path), "--out", str(tmp_path / "s.jsonl"), ok=False),
                        f"{path}: id: the scenario id is {length:,} characters long; scenario "
                        "ids have at most 100")
        assert len(line) < 300
    assert not (tmp_path / "s.jsonl").exists()
    fine = edited(tmp_path / "fine.toml", [('title = "', f'id = "{"a" * 100}"\ntitle = "')])
    run("simulate", str(fine), "--first", "blue", "--out", str(tmp_path / "s.jsonl"))
    assert load_replay(tmp_path / "s.jsonl")[0]["game"].startswith("a" * 100)
    from warlog.events.ids import check_id  # the longest id a study makes from it is an id

    longest = max(POLICIES, key=len)
    check_id(game_id("a" * 100, longest, longest, 2**63 - 1, "blue"))


# -- 2. nothing from a log reaches the terminal raw ----------------------------------------

HOSTILE_NOTE = "hi\x1b[2J\x07 \u202e [red]x[/red] :skull: \x9b1m"


@pytest.fixture
def hostile_game(tmp_path, monkeypatch):
    """A game whose note holds control and format characters and markup, and a game with
    such an id and player names, stored as an older database would hold them (today every door
    refuses them: `warlog note`, `new` and every file read, by events/fields.py's rules)."""
    db = tmp_path / "w.db"
    run("new", SCENARIO, "--game", "g", "--db", str(db))
    old = "old\x1b[31mgame\u200b"
    # an older warlog's store, which took any id: today's refuses this one (events/ids.py)
    monkeypatch.setattr("warlog.events.sqlite_store.check_id", lambda value, what: value)
    with SQLiteEventStore(db) as store:
        events = store.read("g")
        store.append("g", [{"kind": "note", "game": "g", "seq": len(events) + 1, "turn": 0,
                            "side": None, "phase": None, "v": 3, "cause": None, "rules": [],
                            "about": 1, "text": HOSTILE_NOTE, "author": None}], len(events))
        made = start("old", load_scenario(SCENARIO), players={"red": "Red", "blue": "Blue"},
                     dice="manual", played="2026-01-02")  # today's engine makes only clean ones
        made = [{**e, "game": old} for e in made]
        made[0]["players"] = {"red": "R\x1b[1med", "blue": "B\u202elue"}
        store.append(old, made, 0)
    return db


def _assert_safe(text: str) -> None:
    for raw in ("\x1b", "\x07", "\u202e", "\u200b", "\x9b"):
        assert raw not in text, (raw, text)


@pytest.mark.parametrize("command", [["log", "g"], ["log", "g", "--rules"], ["show", "g"],
                                     ["games"], ["log", "g", "--json"],
                                     ["show", "g", "--json"], ["games", "--json"],
                                     ["log", "old\x1b[31mgame\u200b"],
                                     ["review", "g", "--scheduler", "inprocess"],
                                     ["review", "old\x1b[31mgame\u200b", "--json"]])
def test_no_control_character_from_a_log_reaches_the_terminal(hostile_game, command):
    """Before: `warlog log` sent a note's ESC [2J (clear the screen) to the terminal as it
    was, `warlog games` a game id's ESC [31m, and ':skull:' in a note printed as an emoji."""
    result = run(*command, "--db", str(hostile_game))
    _assert_safe(result.output)
    if command[:2] == ["log", "g"] and "--json" not in command:
        assert "hi\\x1b[2J\\x07 \\u202e [red]x[/red] :skull: \\x9b1m" in result.output
    if command == ["games"]:  # the id whole (its column does not wrap), the names maybe cut
        assert "old\\x1b[31mgame\\u200b" in result.output and "R\\x1b" in result.output
    if "--json" in command:
        json.loads(result.stdout)  # the escapes are JSON's own: the same values
    if command == ["log", "g", "--json"]:
        assert any(HOSTILE_NOTE in e["text"] for e in json.loads(result.stdout))


def test_an_error_quoting_a_hostile_id_is_printed_safely(hostile_game):
    """Before: fork's refusal quoted the stored game's id as it was, ESC and all."""
    result = run("fork", "old\x1b[31mgame\u200b", "--at", "999", "--db", str(hostile_game),
                 ok=False)
    _assert_safe(result.output)
    assert "old\\x1b[31mgame\\u200b has events 1 to" in result.output


def test_the_report_escapes_unit_names_in_the_hover_text(tmp_path):
    """Before: the board's hover text quoted a unit's name as it was, and plotly reads hover
    text as HTML: a name could add links and styles to the page."""
    db, page = tmp_path / "w.db", tmp_path / "r.html"
    name = "<a href='https://evil.example'>X</a><span style='font-size:99px'>"
    path = edited(tmp_path / "evil.toml", [('name = "Hastati"', f'name = "{name}"')])
    run("new", str(path), "--game", "g", "--db", str(db))
    run("report", "g", "--out", str(page), "--db", str(db))
    html = page.read_text("utf-8")
    assert "https://evil.example" in html  # the name is there ...
    assert "<a href='https://evil.example'>" not in html  # ... never as markup
    boards = json.loads(html.split('id="boards">', 1)[1].split("</script>", 1)[0])
    hovers = [h for b in boards for t in b["data"] if (t.get("meta") or {}).get("role") ==
              "units" for h in t.get("hovertext", ())]
    assert any("&lt;a href=&#x27;https://evil.example&#x27;&gt;X&lt;/a&gt;" in h for h in hovers)


# -- 3. only regular files are read ------------------------------------------------------


def _limited_memory() -> None:
    """The child's address space capped: a read that never ends fails there, not the host."""
    resource.setrlimit(resource.RLIMIT_AS, (3 * 1024**3, 3 * 1024**3))


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """`warlog ARGS` as a real process, with tests/waits.py's limit: a read that blocks fails
    the test rather than hanging it."""
    env = {k: v for k, v in os.environ.items() if k != "WARLOG_DB"}
    return subprocess.run([sys.executable, "-m", "warlog.cli", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=LIMIT,
                          preexec_fn=_limited_memory)


@pytest.mark.parametrize("kind", ["a named pipe", "a device", "/dev/urandom", "a folder",
                                  "too big", "not UTF-8"])
def test_a_record_script_that_is_not_a_text_file_is_one_line(tmp_path, kind):
    """Before: `record --script` on a named pipe blocked forever, on /dev/urandom read
    forever, and on /dev/zero ended in a MemoryError traceback."""
    script = {"a device": Path("/dev/zero"), "/dev/urandom": Path("/dev/urandom"),
              "a folder": tmp_path}.get(kind, tmp_path / "s.txt")
    if kind == "a named pipe":
        os.mkfifo(script)
    elif kind == "too big":
        with script.open("wb") as handle:
            handle.truncate(4 * 1024 * 1024 + 1)  # sparse
    elif kind == "not UTF-8":
        script.write_bytes(b"end\nnote caf\xe9\n")
    done = cli("record", SCENARIO, "--game", "g", "--script", str(script), "--db", "w.db",
               cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {script}: "), done.stderr
    words = {"a named pipe": "not a script: it is a named pipe",
             "a device": "not a script: it is a device",
             "/dev/urandom": "not a script: it is a device",
             "a folder": "not a script: it is a folder",
             "too big": "scripts larger than 4,194,304 bytes are refused",
             "not UTF-8": "line 2 is not UTF-8 text"}[kind]
    assert words in lines[0]
    assert games_in(tmp_path / "w.db") == [] if (tmp_path / "w.db").exists() else True


def test_a_study_file_that_is_a_pipe_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "rows.jsonl"
    os.mkfifo(fifo)
    done = cli("analyze", str(fifo), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == f"error: {fifo}: not a study file: it is a named pipe, not a " \
                                  "regular file"


# -- 4. output goes to regular files only -------------------------------------------------


@pytest.fixture(params=["a named pipe", "a device", "a folder", "a socket"])
def node(request, tmp_path):
    """(path, kind) of a filesystem node that is not a regular file; the device is a char
    device made here (as root; else the test is skipped), never a system one."""
    kind, path = request.param, tmp_path / "target.out"
    held = None
    if kind == "a named pipe":
        os.mkfifo(path)
    elif kind == "a device":
        try:
            os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
        except PermissionError:
            pytest.skip("making a device node needs root")
    elif kind == "a folder":
        path.mkdir()
    else:
        held = socket.socket(socket.AF_UNIX)
        held.bind(str(path))
    yield path, kind
    if held is not None:
        held.close()


def _writers(tmp_path: Path, target: Path) -> list[list[str]]:
    db = tmp_path / "w.db"
    run("new", SCENARIO, "--game", "g", "--db", str(db))
    return [["simulate", SCENARIO, "--out", str(target)],
            ["simulate", SCENARIO, "-n", "2", "--scheduler", "inprocess", "--out", str(target)],
            ["export", "g", "--out", str(target), "--db", str(db)],
            ["report", "g", "--out", str(target), "--db", str(db)],
            ["review", "g", "--markdown", str(target), "--db", str(db)]]


def test_no_writer_replaces_a_node_that_is_not_a_regular_file(tmp_path, node):
    """Before: `simulate --out pipe` (and export, report, a study's rows) replaced the named
    pipe with a regular file; as root, `--out /dev/null` replaced the system's device."""
    path, kind = node
    before = os.lstat(path)
    for command in _writers(tmp_path, path):
        one_line(run(*command, ok=False), f"{path}: not written: it is {kind}")
        after = os.lstat(path)
        assert (stat.S_IFMT(after.st_mode), after.st_ino) == \
            (stat.S_IFMT(before.st_mode), before.st_ino), command
    assert not [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_schema_files_are_written_onto_regular_files_only(tmp_path):
    """Before: `warlog schema --out DIR` opened DIR/index.json, a named pipe, for writing and
    blocked there forever (a real process: the test fails rather than hangs)."""
    out = tmp_path / "schema"
    out.mkdir()
    os.mkfifo(out / "index.json")
    done = cli("schema", "--out", str(out), cwd=tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip().startswith(f"error: {out / 'index.json'}: not written: it is a "
                                          "named pipe")
    assert stat.S_ISFIFO(os.lstat(out / "index.json").st_mode)


def test_output_into_a_missing_folder_is_one_line_and_plays_nothing(tmp_path):
    one_line(run("simulate", SCENARIO, "-n", "3", "--out", str(tmp_path / "no" / "rows.csv"),
                 ok=False), "not written: the folder", "does not exist")
    assert not Path("warlog.db").exists()


# -- 5. every number option has its range ------------------------------------------------

TOO_BIG = str(2**64)


NO_DB = "/nonexistent/w.db"  # where an option passed the old code, it fails at once here


@pytest.mark.parametrize("args, option", [
    (["simulate", SCENARIO, "--seed", TOO_BIG, "--out", "s.jsonl"], "--seed"),
    (["simulate", SCENARIO, "--seed", "-1", "--out", "s.jsonl"], "--seed"),
    (["simulate", "no-such", "--games", "1000001"], "--games' / '-n"),
    (["simulate", "no-such", "-n", "3", "--workers", "1025", "--scheduler", "local"],
     "--workers"),
    (["whatif", "g", "--seed", TOO_BIG], "--seed"),
    (["whatif", "g", "--playouts", "100001"], "--playouts' / '-n"),
    (["winprob", "g", "--seed", TOO_BIG], "--seed"),
    (["winprob", "g", "--workers", "0"], "--workers"),
    (["review", "g", "--seed", TOO_BIG], "--seed"),
    (["review", "g", "--budget", "65"], "--budget"),
    (["new", SCENARIO, "--dice", "seeded", "--seed", str(2**63)], "--seed"),
    (["record", SCENARIO, "--dice", "auto", "--seed", TOO_BIG], "--seed"),
    (["army", "--period", "ancients", "--units", "4", "--seed", TOO_BIG], "--seed"),
    (["army", "--period", "ancients", "--units", "4", "--seed", "-3"], "--seed"),
    (["dashboard", "--port", "0", "--no-open", "--db", NO_DB], "--port"),
    (["dashboard", "--port", "70000", "--no-open", "--db", NO_DB], "--port"),
])
def test_a_number_out_of_its_range_is_clicks_one_line(args, option):
    """Before: `simulate --seed 18446744073709551616 --out s.jsonl` and `winprob --seed
    2**64` ended in tracebacks (CanonicalError, TypeError), negative seeds and seeds past 2**63
    were played, and --port 0 was handed to Streamlit."""
    one_line(run(*args, ok=False), f"Invalid value for '{option}'")
    assert not Path("warlog.db").exists() and not Path("s.jsonl").exists()


def test_the_seeds_of_a_study_stay_within_64_bits():
    one_line(run("simulate", SCENARIO, "--seed", str(2**63 - 1), "--games", "2", ok=False),
             "--seed 9223372036854775807 with --games 2: the last game's seed would pass "
             "9,223,372,036,854,775,807")
