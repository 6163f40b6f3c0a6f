"""Every text a page hands to Streamlit's markdown, and whether data got into it as markup.

Streamlit renders Markdown (GitHub-flavoured, with its directives) in ``st.markdown``,
``st.caption``, titles and headers, the alert boxes, toasts, widget labels and their help, radio
options, and expander, tab and popover labels. A game's text (a player's name, a scenario title,
a note, a game id, an address) reaching one of them unescaped is drawn: ``![i](url)`` as an image
the browser fetches (a tracking pixel in a shared replay file), ``[text](url)`` as a disguised
link, a bare ``http://...`` as a link. Pages pass such text through
``warlog.dashboard.data.markdown_text``; this module reads what a page under AppTest sent and
says where it did not. (A selectbox's options are not markdown: Streamlit shows them as plain
text, so they are not collected.)

    from markup_probe import leaks, markdown_bodies
    assert not leaks(at, HOSTILE)

``shown(body)`` is the text a reader sees of an escaped body (for tests that look for words).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from streamlit.testing.v1 import AppTest
from streamlit.testing.v1.element_tree import (AlertBase, Block, Element, Expander,
                                               HeadingBase, Markdown, Radio, Tab, Toast, Widget)

HOSTILE = (
    "![i](http://host/x)",
    "[text](http://host/evil)",
    "<img src=x onerror=alert(1)>",
    "**bold**",
    ":red[x]",
    "http://host/bare",
)
"""Text a hostile replay file or address may carry: an image (fetched by every viewer), a
disguised link, raw HTML, emphasis, a colour directive, a bare address (auto-linked)."""

WORD_JOINER = "\u2060"
_ESCAPED = re.compile(r"\\[\s\S]")
_TAG = re.compile(r"<[^<>]*>")
# GFM's autolink literals, as remark-gfm finds them in the parsed text (escapes do not stop them)
_AUTOLINK = re.compile(r"(?i)(https?://|www\.)[-.\w]|[-.\w+]+@[-\w]+(\.[-\w]+)+")


@dataclass(frozen=True)
class Body:
    """One text a page gave to the markdown renderer: ``where`` (the element and, for a
    widget, which of its texts), ``text`` as sent, ``html`` whether raw HTML was allowed."""

    where: str
    text: str
    html: bool = False


def _widget_texts(node: Widget) -> Iterator[Body]:
    kind = type(node).__name__
    label = getattr(node, "label", "")
    if label:
        yield Body(f"{kind} label ({node.key})", label)
    help_text = getattr(node.proto, "help", "")
    if help_text:
        yield Body(f"{kind} help ({node.key})", help_text)
    if isinstance(node, Radio):
        yield from (Body(f"radio option ({node.key})", o) for o in node.options)


def _block_label(node: Block) -> str:
    """An expander's, tab's or popover's label (markdown): the block's own sub-message."""
    if isinstance(node, (Expander, Tab)):
        return node.label
    try:
        kind = node.proto.WhichOneof("type")
    except (AttributeError, ValueError):  # no proto, or a column's own (a sub-message)
        return ""
    return getattr(getattr(node.proto, kind, None), "label", "") or "" if kind else ""


def markdown_bodies(at: AppTest) -> list[Body]:
    """Every markdown-rendered text of the page as it stands: main area, sidebar and toasts."""
    found: list[Body] = []
    nodes: Iterable = [*at.main, *at.sidebar, *at.toast]
    for node in nodes:
        if isinstance(node, Block):
            label = _block_label(node)
            if label:
                found.append(Body(f"{node.type} label", label))
        elif isinstance(node, Markdown):
            found.append(Body(node.type, node.value, bool(node.proto.allow_html)))
        elif isinstance(node, (HeadingBase, AlertBase, Toast)):
            found.append(Body(node.type, node.value))
        elif isinstance(node, Widget):
            found.extend(_widget_texts(node))
        elif isinstance(node, Element) and getattr(node.proto, "help", ""):
            found.append(Body(f"{node.type} help", node.proto.help))
    return found


def shown(body: str) -> str:
    """What a reader sees of an escaped body: backslash escapes undone, word joiners dropped."""
    return _ESCAPED.sub(lambda m: m.group(0)[1], body).replace(WORD_JOINER, "")


def _as_read(text: str, escaped: str) -> str:
    """``text`` with each backslash-escaped character replaced by ``escaped`` ("" keeps the
    character itself) and each code span by a space: a code span's content is shown literally
    (no markup, no auto-link), as an escaped character is."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(escaped or text[i + 1])
            i += 2
        elif text[i] == "`":
            run = len(text[i:]) - len(text[i:].lstrip("`"))
            end = re.compile(rf"(?<!`)`{{{run}}}(?!`)").search(text, i + run)
            out.append(" " if end else "`" * run)
            i = end.end() if end else i + run
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def unescaped_markup(body: Body, hostile: Iterable[str] = HOSTILE) -> list[str]:
    """What in ``body`` markdown would draw as markup rather than show: an image (``![``), a
    link (``](``), an ``<img``, an auto-linked address or e-mail, or one of the ``hostile`` texts
    with its markup unescaped. An escaped character and a code span are text, so they are put
    aside before looking for markup; auto-links are looked for in the text as read (a backslash
    does not stop them, a word joiner does), outside the tags of a body that allows raw HTML
    (our own pictures)."""
    markup, read = _as_read(body.text, " "), _as_read(body.text, "")
    if body.html:
        markup, read = _TAG.sub(" ", markup), _TAG.sub(" ", read)
    found = [s for s in ("![", "](") if s in markup]
    found += ["<img"] if "<img" in markup.lower() else []
    found += [m.group(0) for m in _AUTOLINK.finditer(read)]
    found += [t for t in hostile if t in markup]
    return found


def leaks(at: AppTest, hostile: Iterable[str] = HOSTILE) -> list[tuple[str, str, list[str]]]:
    """Each markdown body of the page that draws data as markup: (where, text, what)."""
    hostile = tuple(hostile)
    return [(b.where, b.text, bad) for b in markdown_bodies(at)
            if (bad := unescaped_markup(b, hostile))]
