"""Canonical JSON and the sha256 hash chain, shared by the store and replay files.

One implementation, so that a chain computed when an event is stored and a chain computed when a
replay file is written can never disagree about what "the same bytes" means: keys sorted at every
level, no spaces, UTF-8, tuples as lists (orjson's compact output with ``OPT_SORT_KEYS``).

Each link is ``sha256(prev_hex + body)``: changing any byte of any body, or removing or reordering
a body, changes that link and every later one. A prefix of a chain is still a valid chain; the
chain proves that nothing was edited, not that nothing was cut off the end.
"""

from __future__ import annotations

from hashlib import sha256
from typing import Any

import orjson

GENESIS = "0" * 64
"""The link before the first one: 64 hex zeros, the size of a sha256 digest."""

_OPTIONS = orjson.OPT_SORT_KEYS


class CanonicalError(ValueError):
    """A value that has no canonical JSON form (a set, an object, a non-string key, a huge int)."""


def canonical(obj: Any) -> bytes:
    """The canonical JSON bytes of ``obj``: sorted keys, no whitespace, UTF-8."""
    try:
        return orjson.dumps(obj, option=_OPTIONS)
    except orjson.JSONEncodeError as exc:
        raise CanonicalError(f"cannot be written as canonical JSON: {exc}") from None


def link(prev_hex: str, body: bytes) -> str:
    """The next link: sha256 hex digest of ``prev_hex`` (as ASCII) followed by ``body``."""
    return sha256(prev_hex.encode("ascii") + body).hexdigest()


def chain_of(bodies: list[bytes], prev_hex: str = GENESIS) -> list[str]:
    """The links of ``bodies`` in order, starting from ``prev_hex``."""
    links: list[str] = []
    for body in bodies:
        prev_hex = link(prev_hex, body)
        links.append(prev_hex)
    return links
