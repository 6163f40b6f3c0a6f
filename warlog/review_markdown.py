"""A battle's review as Markdown (`warlog review --markdown OUT.md`): for a club forum or a blog,
with a picture of the board at each moment that mattered.

Everything from the game (unit ids, orders in words, the game's id, the scenario's title) is
data: escaped with warlog.app.markup, so a name like ``![i](http://host/x)`` is printed as written,
never fetched. Picture file names are built from numbers only (``moment-1-turn-6.png``), never
from the game's text, and they go in a folder named after the Markdown file (``OUT_files/``).

Why the order of writing: a forum post is copied with its pictures, so the Markdown must never
point at a picture that is not there. The pictures are drawn into a temporary folder beside
the file (kaleido is slow: that is where a Ctrl-C lands), moved into ``OUT_files/`` only once all
are drawn, and the Markdown is written last, whole (a temporary file renamed over it). A run
stopped anywhere leaves either the old Markdown with its old pictures, or the new one with its
new pictures; the temporary folder is removed on the way out.

A review grades the live line (engine/review.py): a decision's picture and caption stop before
the orders a take-back voided, and before the take-back (``_resolved_up_to``), so the board and
its marks are the game as it stands, never a taken-back move.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from warlog.engine.review_score import mover, percent
from warlog.app.markup import markdown_text

GRADES = ("best", "good", "inaccuracy", "mistake", "blunder")
Event = dict[str, Any]
Progress = Callable[[int, int], None]
PICTURE = re.compile(r"moment-\d+-turn-\d+\.png")  # what a review's folder holds of its own
# Events that say nothing a reader of the caption needs: the order itself (said already), the
# flow's bookkeeping, the dice (each hit repeats its die), and facing changes before a move.
_UNTOLD = frozenset({"order_given", "side_conceded", "phase_started", "state_checksum", "note",
                     "dice_rolled", "unit_activated", "unit_turned", "seats_changed",
                     "order_retracted"})
_TOLD = 2  # sentences of what happened, at most, in a caption


def _cell(text: str) -> str:
    """Escaped text for a table cell (a pipe is escaped by markdown_text already)."""
    return markdown_text(text)


@dataclass(frozen=True)
class MomentPicture:
    """One moment's picture: which events it shows and what the caption under it says.
    ``first``..``last`` are event indexes (inclusive): the decision and all it resolved, up to
    the event before the next decision (or the end of the log), less what a take-back voided
    at its end and the take-back itself."""

    number: int  # the moment's number in the review, from 1
    decision: int  # the decision's number in the game, from 1 (the review's table's #)
    turn: int  # the decision's turn (its resolution may run into the next turn's start)
    first: int
    last: int
    name: str  # the file's name, from numbers only
    caption: str  # Markdown, the game's text escaped


def pictures_folder(path: Path) -> Path:
    """Where the pictures of the review at ``path`` go: ``review.md`` -> ``review_files``."""
    return path.with_name(f"{path.stem}_files")


def check_pictures_folder(path: Path) -> Path:
    """The pictures' folder of ``path``, if it is a folder or does not exist yet; anything else
    of that name (a file, a link, a pipe) is refused, never replaced (FileRefused)."""
    from warlog.events.safe_files import FileRefused, node_kind

    folder = pictures_folder(Path(path))
    try:
        mode = os.lstat(folder).st_mode
    except FileNotFoundError:
        return folder
    except OSError as exc:
        raise FileRefused(f"{path}: not written: cannot use {folder} for its pictures "
                          f"({exc.strerror or exc})") from None
    if not stat.S_ISDIR(mode):
        what = ("a file" if stat.S_ISREG(mode) else "a symbolic link" if stat.S_ISLNK(mode)
                else node_kind(mode))
        raise FileRefused(f"{path}: not written: {folder} is {what}, not a folder; the "
                          "pictures go in a folder of that name (move it, or name another "
                          "file)")
    return folder


def _happened(events: Sequence[Event], lines: Sequence[str], first: int, last: int) -> str:
    """What a decision's events did, in a sentence or two of `warlog log`'s words: the first
    and, when there were more, the last (a removal or the battle's end is usually last)."""
    told = [lines[i] for i in range(first + 1, last + 1) if events[i]["kind"] not in _UNTOLD]
    if len(told) > _TOLD:
        told = [told[0], f"… {told[-1]}"]
    return " ".join(t if t.endswith(".") else f"{t}." for t in told) or "Nothing else happened."


def _resolved_up_to(events: Sequence[Event], first: int, last: int, gone: dict[int, int]) -> int:
    """The last event of a decision's resolution: ``last``, or the event before the first one
    after the decision that a take-back voided, or the take-back itself (what follows is not
    what the decision did)."""
    for i in range(first + 1, last + 1):
        if events[i]["seq"] in gone or events[i]["kind"] == "orders_taken_back":
            return i - 1
    return last


def moment_pictures(data: dict[str, Any], events: Sequence[Event]) -> list[MomentPicture]:
    """A picture for each moment of the review ``data`` that is about a decision of ``events``
    (a stored review is checked against its log: a moment whose decision is not there at that
    seq has no picture rather than a wrong one)."""
    from warlog.engine.narration import narrate_all
    from warlog.engine.review import decisions
    from warlog.engine.takeback import voided

    every, gone = decisions(events), voided(events)
    orders = data["orders"]
    if not data["moments"] or not every:
        return []
    lines = narrate_all(events)
    title = events[0]["scenario"].get("title", "")
    out = []
    for number, m in enumerate(data["moments"], start=1):
        i = m["index"]
        if not 0 <= i < len(every) or every[i].seq != orders[i]["seq"]:
            continue
        first = every[i].at
        last = _resolved_up_to(events, first, every[i + 1].at - 1 if i + 1 < len(every)
                               else len(events) - 1, gone)
        turn, seq = int(every[i].turn), int(every[i].seq)
        caption = (f"{markdown_text(title)}, turn {turn}, decision {i + 1} (event {seq}): "
                   f"{markdown_text(orders[i]['text'])}. "
                   f"{markdown_text(_happened(events, lines, first, last))}")
        out.append(MomentPicture(number, i + 1, turn, first, last,
                                 f"moment-{number}-turn-{turn}.png", caption))
    return out


def review_markdown(data: dict[str, Any], events: Sequence[Event],
                    pictures: Sequence[MomentPicture] = (), folder: str = "") -> str:
    """The review (``Review.as_dict()``) of the game ``events`` as a Markdown document: the
    headlines and accuracies, the after-action report's four questions
    (engine/review_aar.py), each moment that has a picture showing it under its chapter
    (``folder``/its name, a relative link) with its caption, then every decision."""
    from warlog.engine.review_aar import after_action, sections

    orders = data["orders"]
    lines = [f"# Review of {markdown_text(data['game'])}", ""]
    if not orders:
        return "\n".join(lines + ["No decision was made in this game yet: nothing to review.",
                                  ""])
    lines += [f"- {markdown_text(data['headline'][side])}" for side in ("red", "blue")]
    lines += ["", "| side | accuracy | " + " | ".join(GRADES) + " |",
              "|---|---:|" + "---:|" * len(GRADES)]
    for side in ("red", "blue"):
        acc = data["accuracy"].get(side)
        counts = [sum(o["side"] == side and o["grade"] == g for o in orders) for g in GRADES]
        lines.append(f"| {side} | {'-' if acc is None else f'{acc:.1f}'} | "
                     + " | ".join(str(n) for n in counts) + " |")
    by_decision = {p.decision - 1: p for p in pictures}
    for section in sections(after_action(data, events), data):
        lines += ["", f"## {section.heading}", "", f"*{markdown_text(section.intro)}*", ""]
        for item in section.items:
            lines.append(f"- {markdown_text(item.text)}")
            for under in item.under:
                lines.append(f"  - {markdown_text(under.text)}")
                picture = by_decision.get(under.decision)
                if picture is not None:  # the picture and its caption belong to the item
                    link = quote(f"{folder}/{picture.name}")
                    lines += ["", f"    ![The board after moment {picture.number}]({link})", "",
                              f"    *{picture.caption}*", ""]
    lines += ["", "## Every decision", "",
              "| # | turn | side | order | win % (mover) | grade | better order found |",
              "|---:|---:|---|---|---|---|---|"]
    for o in orders:
        better = ""
        if o["best_text"] and o["grade"] not in ("best", "good"):
            better = f"{_cell(o['best_text'])} ({percent(mover(o['best'], o['side']))})"
        lines.append(f"| {o['index'] + 1} | {o['turn']} | {o['side']} | {_cell(o['text'])} | "
                     f"{percent(mover(o['before'], o['side']))} → "
                     f"{percent(mover(o['expected'], o['side']))} | {o['grade']} | {better} |")
    lines += ["", f"Evaluator {markdown_text(data['evaluator'])}. Each order is judged on the "
              "win probability it leaves with its dice averaged out (exact over every way they "
              "fall, or sampled where they are too many); the dice are judged apart, and start "
              "+ orders + dice = the result.", ""]
    return "\n".join(lines)


@contextmanager
def _kaleido() -> Iterator[None]:
    """One kaleido browser for all the pictures (a browser a picture costs about 3 s each),
    with plotly's warning that kaleido's options went to the server once silenced."""
    import warnings

    import kaleido

    kaleido.start_sync_server(silence_warnings=True)
    try:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The kopts argument is ignored")
            yield
    finally:
        kaleido.stop_sync_server(silence_warnings=True)


def _draw(events: Sequence[Event], timeline: Any, picture: MomentPicture, path: Path) -> None:
    """The board right after the moment's decision resolved, with its moves and attacks marked,
    as the README's pictures are drawn (dashboard/board_pictures.py)."""
    import html

    import plotly.graph_objects as go
    import plotly.io as pio

    from warlog.app.pictures.board import BOARD_PX, board_spec
    from warlog.engine import analysis
    from warlog.terminal import terminal_safe

    state = timeline.state_at(picture.last)
    marks = analysis.highlights(events[picture.first:picture.last + 1], state)
    fig = go.Figure(board_spec(state, highlight=marks, width_px=BOARD_PX), _validate=False)
    title = html.escape(terminal_safe(f"{state.scenario.title}, turn {picture.turn}: after "
                                      f"decision {picture.decision}"))
    fig.update_layout(title={"text": title, "x": 0.01, "font": {"size": 15}}, margin={"t": 60})
    pio.write_image(fig, path, format="png", width=BOARD_PX + 60,
                    height=int(fig.layout.height) + 50, scale=1)


def draw_pictures(events: Sequence[Event], pictures: Sequence[MomentPicture], folder: Path,
                  progress: Progress | None = None) -> None:
    """Draw every picture into ``folder`` (kaleido started once for all of them)."""
    from warlog.engine.fold import Timeline

    if not pictures:
        return
    timeline = Timeline(list(events))
    with _kaleido():
        for n, picture in enumerate(pictures, start=1):
            _draw(events, timeline, picture, folder / picture.name)
            if progress is not None:
                progress(n, len(pictures))


def write_markdown(path: Path, data: dict[str, Any], events: Sequence[Event],
                   *, progress: Progress | None = None) -> str | None:
    """Write the review of the game ``events`` to ``path`` whole, and a picture of each moment
    into ``OUT_files/`` beside it first (refused if ``path`` is not a place for a file,
    or its pictures' folder name is taken by something that is not a folder). ``progress(done,
    total)`` is told of each picture drawn. Where kaleido cannot draw (no browser for it on
    this machine), the review is written without its pictures and the line saying so is
    returned (None when nothing was left out)."""
    from warlog.events.replay_file import write_bytes_atomic
    from warlog.events.safe_files import check_output

    path = check_output(path)
    folder = check_pictures_folder(path)
    pictures = moment_pictures(data, events)
    text = review_markdown(data, events, pictures, folder.name).encode("utf-8")
    if not pictures:
        write_bytes_atomic(path, text)
        return
    drawn = Path(tempfile.mkdtemp(dir=path.parent, prefix=f".{folder.name}.", suffix=".tmp"))
    try:
        try:
            draw_pictures(events, pictures, drawn, progress)
        except Exception as exc:  # noqa: BLE001 - kaleido's browser missing or failing
            write_bytes_atomic(path, review_markdown(data, events, [], folder.name)
                               .encode("utf-8"))
            return (f"the pictures were left out: kaleido could not draw them "
                    f"({type(exc).__name__}: {' '.join(str(exc).split())[:200]})")
        folder.mkdir(exist_ok=True)
        check_pictures_folder(path)  # still a folder (not swapped for a link meanwhile)
        for picture in pictures:
            check_output(folder / picture.name)  # a pipe or a device of that name is kept
        for picture in pictures:
            os.replace(drawn / picture.name, folder / picture.name)
        write_bytes_atomic(path, text)  # last: it points only at pictures already in place
    finally:
        shutil.rmtree(drawn, ignore_errors=True)
    kept = {p.name for p in pictures}
    for old in folder.iterdir():  # an earlier review's moments, now pointed at by nothing
        if PICTURE.fullmatch(old.name) and old.name not in kept and old.is_file():
            old.unlink(missing_ok=True)
