"""The engine's visible surface is unchanged: the safety net of issue 20's refactor.

tests/engine/surface.py reduces every output a player, a file or a tool sees to one sha256 an item
(the bytes, public() and checksum() of seeded bot games of every bundled scenario, their
narration, analysis rows, teaching questions, the notation of legal orders, reach, text board,
board figure, odds and what-ifs; the same over the golden games and the replay fixtures;
hypothetical odds of each system; `warlog schema`'s files and `warlog rules --markdown`), and
tests/engine/surface_digest.json holds the digest as committed. A moving piece of code (a rule
system into its package, a field into a subclass, an event registered by its ruleset) must
leave every item as it is; a failure names each item that changed, appeared or vanished.

Regenerate the digest only when an output is meant to change (a rules change, new narration),
and say in the commit which items moved and why:

    .venv/bin/python tests/engine/surface.py                      # prints what moved
    WARLOG_WRITE_SURFACE=1 .venv/bin/python -m pytest -q tests/engine/test_surface.py

(with the variable set, one test writes the whole file and the comparisons are skipped).
"""

from __future__ import annotations

import os

import pytest

import surface

WRITE = os.environ.get("WARLOG_WRITE_SURFACE") == "1"
REGENERATE = ("if the change is meant, regenerate the digest as tests/engine/test_surface.py's "
              "docstring says")


@pytest.mark.slow
@pytest.mark.skipif(WRITE, reason="WARLOG_WRITE_SURFACE=1: the digest is being written")
@pytest.mark.parametrize("group", surface.groups())
def test_the_surface_is_unchanged(group):
    expected = {k: v for k, v in surface.read_digest().items() if surface.group_of(k) == group}
    assert expected, f"{surface.DIGEST_FILE.name} has no items of {group}; {REGENERATE}"
    moved = surface.differences(expected, surface.group_items(group))
    assert not moved, (f"{len(moved)} item(s) of {group} moved:\n  " + "\n  ".join(moved)
                       + f"\n{REGENERATE}")


@pytest.mark.skipif(WRITE, reason="WARLOG_WRITE_SURFACE=1: the digest is being written")
def test_every_item_of_the_digest_belongs_to_a_group():
    known = set(surface.groups())
    strays = sorted(k for k in surface.read_digest() if surface.group_of(k) not in known)
    assert not strays, f"items of no group (a scenario gone?): {strays[:20]}; {REGENERATE}"


def test_the_reduction_is_order_and_byte_sensitive():
    """What makes the net catch anything: key order and every byte count, sets do not."""
    assert surface.dump({"a": 1, "b": 2}) != surface.dump({"b": 2, "a": 1})
    assert surface.dump((1, 2)) == surface.dump([1, 2])
    assert surface.dump({"x", "y"}) == surface.dump({"y", "x"})
    assert surface.differences({"k": "1", "gone": "2"}, {"k": "3", "new": "4"}) == [
        "missing: gone", "changed: k", "new (not in the digest): new"]
    assert surface.group_of("ohw/ancients-river-crossing/s1/aggressive-cautious/narration") == \
        "ancients-river-crossing"
    assert surface.group_of("golden/attack-front-square/views") == "golden"
    assert surface.group_of("schema/orders/move.json") == "docs"


@pytest.mark.skipif(not WRITE, reason="set WARLOG_WRITE_SURFACE=1 to regenerate the digest")
def test_write_the_digest():
    surface.write_digest(surface.surface())
