"""The pages draw no emoji of their own: Debian's chromium has no colour emoji font, so a seat,
a bot or a note drawn as an emoji came out as an empty box. Words, or Streamlit's own icon font
(``:material/...:``), say it instead. (Symbols from the basic plane that common fonts carry,
such as the scales and the star, are kept.)"""

from __future__ import annotations

from pathlib import Path

DASHBOARD = Path(__file__).resolve().parents[2] / "dashboard"


def test_no_page_writes_an_emoji():
    found = [f"{path.relative_to(DASHBOARD)}:{n}: {line.strip()}"
             for path in sorted(DASHBOARD.rglob("*.py"))
             for n, line in enumerate(path.read_text("utf-8").splitlines(), 1)
             if any(ord(ch) >= 0x1F000 for ch in line)]
    assert not found, "\n".join(found)
