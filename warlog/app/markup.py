"""Text from a game, a file or an address, made safe for a Markdown renderer: Streamlit's pages
(dashboard/) and the Markdown files warlog writes (a review for a club forum) escape it alike,
so a player name like ``![i](http://host/x)`` is shown as written, never fetched or linked.
"""

from __future__ import annotations

import re

_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
# GFM's autolink literals (http://..., www...., name@host.tld) are found in the text after the
# markdown is parsed, so a backslash does not stop them: a word joiner (U+2060: no width, no line
# break, not a word character) inside "http:", "www." and after "@" does (checked in chromium).
_AUTOLINK = re.compile(r"(?i)(https?(?=:)|ftp(?=:)|www(?=\.)|mailto(?=:)|xmpp(?=:)|@)")
WORD_JOINER = "\u2060"


def markdown_text(text: str) -> str:
    """``text`` (an id, a name, a title, a message quoting a file or an address: data, never
    markup) as Streamlit's markdown shows it as written: every character markdown would read
    as markup escaped, lines joined, and a word joiner keeping a bare address or e-mail from
    becoming a link (a tracking pixel or a disguised link in a shared replay file otherwise)."""
    joined = _AUTOLINK.sub(lambda m: m.group(0) + WORD_JOINER, " ".join(str(text).splitlines()))
    return _MARKDOWN.sub(r"\\\1", joined)


def code_span(text: str) -> str:
    """An id, a path or an address as a Markdown code span (nothing in one is read as markup,
    nor linked), or escaped text when it holds a backtick that would end the span early."""
    text = " ".join(str(text).splitlines())
    return f"`{text}`" if "`" not in text and text.strip() else markdown_text(text)
