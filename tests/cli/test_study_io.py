"""Study files (warlog/app/study_io.py): rows out and back in, as JSON lines and as CSV, the kind
of a file told from its first bytes, and a malformed study file refused in one line."""

from __future__ import annotations

import csv
import os

import pytest

import warlog.app.study_io as study_io
from warlog.engine.bots import play_out
from warlog.engine.scenario import load_scenario
from warlog.events.replay_file import write_replay
from warlog.app.study import ROW_FIELDS, StudyError, summarize
from warlog.app.study_io import kind_of, read_rows, write_rows


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    """Real rows: a draw (no winner), a decisive game, a game cut short (no winner, no end
    reason) and one with exhaustion turns (portable)."""
    river = load_scenario("ancients-river-crossing")
    draw = play_out("a", river, seed=1, red="random", blue="random").events
    won = play_out("b", river, seed=3, red="aggressive", blue="random").events
    axona = play_out("c", load_scenario("portable-the-axona"), seed=2, red="aggressive",
                     blue="aggressive").events
    out = [summarize(draw), summarize(won), summarize(won[:100]), summarize(axona)]
    assert {r["winner"] for r in out} >= {"draw", None} and out[1]["winner"] in ("red", "blue")
    return out


@pytest.mark.parametrize("name", ["rows.jsonl", "rows.csv", "ROWS.CSV"])
def test_rows_come_back_as_they_were_written(tmp_path, rows, name):
    path = tmp_path / name
    write_rows(path, rows)
    assert kind_of(path) == ("csv" if name.lower().endswith(".csv") else "jsonl")
    assert read_rows(path) == rows


def test_csv_has_a_header_and_curves_as_json_cells(tmp_path, rows):
    path = tmp_path / "rows.csv"
    write_rows(path, rows)
    lines = path.read_text().splitlines()
    assert lines[0] == ",".join(ROW_FIELDS)
    assert len(lines) == 1 + len(rows)
    assert '"[0,' in lines[1]  # a curve: one quoted JSON list per cell


def test_a_replay_file_is_told_from_a_study_file(tmp_path, rows):
    events = play_out("g", load_scenario("ancients-river-crossing"), seed=1, red="random",
                      blue="random").events
    for name in ("g.jsonl", "g.jsonl.gz", "g.csv"):  # the name does not decide: the bytes do
        write_replay(tmp_path / name, events)
        assert kind_of(tmp_path / name) == "replay"


@pytest.mark.parametrize("content,words", [
    (b'{"a": 1}\n', "neither a replay file nor a study file"),
    (b"", "neither a replay file nor a study file"),
    (b"hello\n", "neither a replay file nor a study file"),
])
def test_a_file_of_something_else_is_refused_in_one_line(tmp_path, content, words):
    path = tmp_path / "x.jsonl"
    path.write_bytes(content)
    with pytest.raises(StudyError, match=words):
        kind_of(path)


def test_a_missing_file_or_a_folder_is_refused(tmp_path):
    with pytest.raises(StudyError, match="no such file"):
        kind_of(tmp_path / "none.jsonl")
    with pytest.raises(StudyError, match="not a regular file"):
        kind_of(tmp_path)


def test_a_named_pipe_is_never_opened(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(StudyError, match="not a regular file"):
        kind_of(fifo)


def test_a_bad_row_names_its_line_and_field(tmp_path, rows):
    path = tmp_path / "rows.jsonl"
    write_rows(path, rows)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"finished":true', b'"finished":"yes"')
    path.write_bytes(b"".join(lines))
    with pytest.raises(StudyError, match=r"rows.jsonl: line 2: not a study row: finished"):
        read_rows(path)
    path.write_bytes(lines[0] + b"{not json\n")
    with pytest.raises(StudyError, match="line 2: not JSON"):
        read_rows(path)


def test_a_bad_csv_is_refused_naming_the_line(tmp_path, rows):
    path = tmp_path / "rows.csv"
    write_rows(path, rows)
    header, first, *rest = path.read_text().splitlines(keepends=True)
    path.write_text(header.replace("game,", "id,", 1) + first)
    with pytest.raises(StudyError, match="line 1: the header is not a study file's"):
        read_rows(path)
    cells = next(csv.reader([first]))
    path.write_text(header + ",".join(f'"{c}"' for c in cells[:-1]) + "\n")
    with pytest.raises(StudyError, match="line 2: 23 cells, the header has 24"):
        read_rows(path)
    cells[ROW_FIELDS.index("turns")] = "x1"
    path.write_text(header + ",".join(f'"{c}"' for c in cells) + "\n")
    with pytest.raises(StudyError, match="line 2: turns: 'x1' is not a value"):
        read_rows(path)


def test_a_line_past_the_limit_is_refused(tmp_path, rows, monkeypatch):
    path = tmp_path / "rows.jsonl"
    write_rows(path, rows)
    monkeypatch.setattr(study_io, "MAX_LINE_BYTES", 200)
    with pytest.raises(StudyError, match="line 1 is longer than 200 bytes"):
        read_rows(path)
