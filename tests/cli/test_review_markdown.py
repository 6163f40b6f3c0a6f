"""The review as Markdown with a picture of each moment (`warlog review GAME --markdown OUT.md`,
warlog/review_markdown.py) and the review's section of the HTML report (warlog/report_review.py),
driven as a club member would: a stored game whose id and scenario title are Markdown a renderer
would make links of, reviewed with --markdown; every moment's picture named in the file, on disk
and a real PNG of the board's size; the captions escaped; a run stopped while drawing leaves no
Markdown pointing at missing pictures; a pictures' folder name taken by a file refused in one
line; the report's section from the stored review, escaped, or one line saying how to make one.

kaleido starts a browser (2-3 s): it is started once, by the one command that draws.
"""

from __future__ import annotations

import re
import struct
from pathlib import Path

import pytest
from cli_run import no_ambient_db  # noqa: F401  (autouse: no WARLOG_DB, a fresh folder)
from typer.testing import CliRunner

from warlog import review_markdown
from warlog.cli import app
from warlog.engine.bots import next_order
from warlog.engine.evaluator import load_weights
from warlog.engine.game import Game
from warlog.engine.review_aar import QUESTIONS
from warlog.engine.review import decisions
from warlog.engine.scenario import load_scenario
from warlog.events.analysis_store import AnalysisStore
from warlog.events.model import make_note
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.app.markup import markdown_text
from warlog.report import report_html
from warlog.app.reviews import stored_review
from warlog.report_review import HEADING, review_section
from warlog.app.reviews import review_params

runner = CliRunner()
QUICK = ("--budget", "2", "--scheduler", "inprocess")
GAME = "[x](http://evil)"
TITLE = "![t](http://evil/pixel.png)"
PLAN = "Take the [ford](http://evil) <b>first</b>"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def run(*args: str, ok: bool = True):
    result = runner.invoke(app, ["review", *args], catch_exceptions=False,
                           env={"COLUMNS": "80"})
    assert (result.exit_code == 0) == ok, result.output
    return result


@pytest.fixture(scope="module")
def events() -> list[dict]:
    """Two dozen decisions of a bot game (quick to review) whose game id and scenario title
    are Markdown links, and red's plan too, written before its first order; it goes on (cut
    before an order past its 60th event)."""
    scenario = load_scenario("ancients-river-crossing").model_copy(update={"title": TITLE})
    game = Game.new(GAME, scenario, seed=5, players={"red": "aggressive", "blue": "cautious"})
    game = Game(game.events + [make_note(game.events, 1, PLAN, "Ann", plan_of="red")])
    while not game.state.ended and (len(game.events) < 60 or game.state.to_act is None):
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
    return game.events


def _stored(folder: Path, events: list[dict]) -> str:
    db = folder / "games.db"
    with SQLiteEventStore(db) as store:
        store.append(GAME, events, 0)
    return str(db)


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory, events):
    """The stored game reviewed once with --markdown (pictures drawn): the command's result,
    the Markdown file and the database (the review now stored in it)."""
    folder = tmp_path_factory.mktemp("reviewed")
    db = _stored(folder, events)
    out = folder / "review.md"
    result = run(GAME, "--db", db, *QUICK, "--markdown", str(out))
    return result, out, db


def _no_browser():
    """In place of kaleido's browser, for the tests that draw no real picture."""
    from contextlib import nullcontext

    return nullcontext()


def _png_size(data: bytes) -> tuple[int, int]:
    """Width and height from a PNG's IHDR chunk (it is always the first)."""
    assert data[:8] == PNG_MAGIC and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_the_markdown_names_a_real_png_picture_for_every_moment(reviewed, events):
    result, out, db = reviewed
    text = out.read_text(encoding="utf-8")
    with AnalysisStore(db) as store:
        data = store.latest_review(GAME, events[-1]["seq"])
    moments = data["moments"]
    assert len(moments) >= 2
    links = re.findall(r"!\[The board after moment (\d+)\]\(([^)]+)\)", text)
    turns = [data["orders"][m["index"]]["turn"] for m in moments]
    assert links == [(str(n), f"review_files/moment-{n}-turn-{turn}.png")
                     for n, turn in enumerate(turns, start=1)]
    for _, link in links:
        picture = out.parent / link
        data_bytes = picture.read_bytes()
        width, height = _png_size(data_bytes)
        assert width == 780 and 400 < height < 1200  # the board's width + margin, scale 1
        assert 10_000 < len(data_bytes) < 1_000_000
    assert sorted(p.name for p in (out.parent / "review_files").iterdir()) == sorted(
        Path(link).name for _, link in links)
    assert not [p for p in out.parent.iterdir() if p.name.endswith(".tmp")]  # cleaned up
    # more than a few pictures: a bar on stderr (plain lines off a terminal); stdout clean
    if len(moments) > 3:
        assert f"pictures: {len(moments)} of {len(moments)} pictures" in result.stderr
    assert "pictures:" not in result.stdout


def test_the_pictures_differ_and_each_caption_says_the_moment_escaped(reviewed, events):
    _, out, _ = reviewed
    text = out.read_text(encoding="utf-8")
    pictures = sorted((out.parent / "review_files").iterdir())
    assert len({p.read_bytes() for p in pictures}) == len(pictures)  # each its own board
    captions = [line.strip() for line in text.splitlines() if line.startswith("    *")]
    assert len(captions) == len(pictures)
    every = decisions(events)
    for caption in captions:
        # the title escaped (no image fetched, no link), then turn, decision and event seq
        assert caption.startswith("*\\!\\[t\\]\\(http\u2060\\://evil/pixel\\.png\\), turn ")
        number, seq = map(int, re.search(r"decision (\d+) \(event (\d+)\)", caption).groups())
        assert every[number - 1].seq == seq  # `warlog log`'s numbering of the events
    assert "](http" not in text and "![t]" not in text and "[x](" not in text
    # what happened is told in warlog log's words, escaped: a move names its cells
    assert any("moves" in c for c in captions)
    assert all(c.endswith("*") for c in captions)


def test_the_after_action_report_tells_the_plan_and_puts_each_picture_in_its_chapter(
        reviewed):
    _, out, _ = reviewed
    text = out.read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, flags=re.M)
    assert headings == [*QUESTIONS, "Every decision"]
    planned = text[text.index("## What was planned"):text.index("## What happened")]
    assert f"- {markdown_text(f'red (Ann), as of event 1: {PLAN}')}\n" in planned
    assert "[ford](" not in planned  # escaped: no link a renderer would make
    assert "<b>" not in text  # the plan's HTML shown as text, never markup
    assert "- blue\\: no plan written" in planned
    happened = text[text.index("## What happened"):text.index("## Why")]
    pictures = re.findall(r"!\[The board after moment \d+\]", text)
    assert pictures and len(re.findall(r"!\[The board after moment \d+\]", happened)) == len(
        pictures)  # every picture under its chapter's moment
    chapters = [line for line in happened.splitlines() if line.startswith("- ")]
    assert chapters[0].startswith("- Deployment and approach") or "First contact" in chapters[0]
    assert chapters[-1].startswith("- Where the log stops")  # the game goes on past the cut


def test_a_run_stopped_while_drawing_leaves_no_markdown_and_keeps_the_old_one(
        reviewed, tmp_path, monkeypatch):
    """An earlier review with its pictures is in place; a second run is stopped after its
    first picture: the old Markdown and every picture it names are still there, nothing of
    the new run is (no half folder, no temporary files)."""
    _, _, db = reviewed
    out = tmp_path / "post.md"
    folder = tmp_path / "post_files"
    folder.mkdir()
    old = "# old review\n\n![The board after moment 1](post_files/moment-1-turn-1.png)\n"
    out.write_text(old, encoding="utf-8")
    (folder / "moment-1-turn-1.png").write_bytes(PNG_MAGIC + b"old")
    drawn = []

    def draw_then_stop(events, timeline, picture, path):
        if drawn:
            raise KeyboardInterrupt
        path.write_bytes(PNG_MAGIC + b"new")
        drawn.append(path)

    monkeypatch.setattr(review_markdown, "_kaleido", _no_browser)
    monkeypatch.setattr(review_markdown, "_draw", draw_then_stop)
    result = run(GAME, "--db", db, *QUICK, "--markdown", str(out), ok=False)
    assert result.exit_code == 130
    assert "the Markdown was not written" in result.stderr
    assert len(drawn) == 1 and not drawn[0].exists()  # drawn into the temporary folder only
    assert out.read_text(encoding="utf-8") == old
    assert [p.name for p in folder.iterdir()] == ["moment-1-turn-1.png"]
    assert (folder / "moment-1-turn-1.png").read_bytes() == PNG_MAGIC + b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["post.md", "post_files"]


def test_a_new_run_replaces_an_old_reviews_pictures_it_no_longer_names(
        reviewed, tmp_path, monkeypatch):
    _, _, db = reviewed
    out = tmp_path / "post.md"
    folder = tmp_path / "post_files"
    folder.mkdir()
    (folder / "moment-9-turn-99.png").write_bytes(PNG_MAGIC)  # an earlier review's
    (folder / "mine.txt").write_text("the user's own file")  # never a review's: kept
    monkeypatch.setattr(review_markdown, "_kaleido", _no_browser)
    monkeypatch.setattr(review_markdown, "_draw",
                        lambda events, timeline, picture, path: path.write_bytes(PNG_MAGIC))
    run(GAME, "--db", db, *QUICK, "--markdown", str(out))
    named = re.findall(r"\(post_files/([^)]+)\)", out.read_text(encoding="utf-8"))
    assert named and sorted(p.name for p in folder.iterdir()) == sorted(named + ["mine.txt"])


def test_a_pictures_folder_name_taken_by_a_file_is_refused_in_one_line(reviewed, tmp_path):
    _, _, db = reviewed
    (tmp_path / "post_files").write_text("not a folder")
    result = run(GAME, "--db", db, *QUICK, "--markdown", str(tmp_path / "post.md"), ok=False)
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and "post_files is a file, not a folder" in lines[0], result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "post.md").exists()


def test_where_kaleido_cannot_draw_the_review_is_written_without_pictures(
        reviewed, tmp_path, monkeypatch):
    """A machine without a browser for kaleido: the Markdown is still written (no link to a
    picture that is not there), and one line says the pictures were left out and why."""
    _, _, db = reviewed

    def no_chrome(*args, **kwargs):
        raise RuntimeError("Kaleido requires Google Chrome to be installed")

    monkeypatch.setattr(review_markdown, "draw_pictures", no_chrome)
    out = tmp_path / "plain.md"
    result = run(GAME, "--db", db, *QUICK, "--markdown", str(out))
    assert result.stderr.strip().splitlines()[-1] == (
        "the pictures were left out: kaleido could not draw them (RuntimeError: Kaleido "
        "requires Google Chrome to be installed)")
    text = out.read_text(encoding="utf-8")
    assert "## What happened" in text and ".png" not in text
    assert not (tmp_path / "plain_files").exists()


# ---- the HTML report's section ---------------------------------------------------------------

def _section(page: str) -> str:
    start = page.index(f"<h2>{HEADING}</h2>")
    return page[start:page.index("<h2>What happened</h2>", start)]


def test_the_report_shows_the_stored_review_escaped(reviewed, events):
    _, _, db = reviewed
    review = stored_review(db, events)
    assert review is not None and review["game"] == GAME
    # a stored review is data anyone may edit: an order's words that are HTML stay text
    hostile = "<script>alert(1)</script>"
    review["orders"][review["moments"][0]["index"]]["text"] = hostile
    with AnalysisStore(db) as store:
        store.save_review(GAME, review_params(_budget(), 1, load_weights()["version"]),
                          events[-1]["seq"], review)
    again = stored_review(db, events)
    assert again == review  # the latest stored (by the current evaluator) is the one shown
    section = _section(report_html(events, review=again))
    for side in ("red", "blue"):
        assert review["headline"][side] in section
    assert section.count("<tr><td>") == 2 and "accuracy" in section
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in section and hostile not in section
    assert section.count("<li>Turn ") == len(review["moments"])
    assert re.findall(r"<h3>([^<]+)</h3>", section) == list(QUESTIONS)
    assert "Take the [ford](http://evil) &lt;b&gt;first&lt;/b&gt;" in section


def test_the_report_says_how_to_make_a_review_when_none_is_stored(tmp_path, events):
    db = tmp_path / "games.db"
    assert stored_review(db, events) is None and not db.exists()  # reading creates nothing
    _stored(tmp_path, events)
    assert stored_review(db, events) is None  # the game, but no review of it
    section = _section(report_html(events, review=None))
    assert section.count("<p") == 1 and "No review is stored for this game" in section
    assert "<code>warlog review &#x27;[x](http://evil)&#x27;</code>" in section
    assert review_section(None, "a<b", []).count("&lt;") == 1


def _budget():
    from warlog.engine.review import Budget

    return Budget.of(2)
