"""The JSON Schemas of a replay file, generated from the pydantic models (`warlog schema`).

One schema a line type: the header, every event kind (``events/<kind>.json``), every order type
(``orders/<type>.json``, the ``order`` of an ``order_given`` event), the scenario a header and a
``game_started`` event carry, and the closing line; plus ``index.json``, which names them all.
docs/replay-format.md is the prose around them. The output is deterministic (sorted keys, two-space
indent, UTF-8, a newline at the end), so the copy committed in docs/schema/ can be compared with a
fresh one; a test does, and says to run ``warlog schema --out docs/schema`` when they differ.

The event and order schemas describe the current schema version (``SCHEMA_VERSION``): what an
event is after upcasting. An event *line* also carries its ``chain`` key, which is not part of
the event: take it off before validating (the replay file's reader does the same).

The header and the closing line have no models of their own in the replay-file module (they are
written as plain dicts); the two below state them, and a test checks them against what the
writer makes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from warlog.engine.scenario import Scenario
from warlog.events import replay_file
from warlog.events.model import SCHEMA_VERSION, event_models
from warlog.events.orders import Order
from warlog.events.safe_files import FileKind, FileRefused, read_bytes

DIALECT = "https://json-schema.org/draft/2020-12/schema"
"""The JSON Schema dialect pydantic writes (draft 2020-12: tuples are ``prefixItems``)."""

REFRESH = "warlog schema --out docs/schema"
"""The command that regenerates the committed copy."""

_HEX64 = r"^[0-9a-f]{64}$"


class _Line(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ReplayHeader(_Line):
    """Line 1 of a replay file: the format, and everything needed to rebuild the game, copied
    from its game_started event (``game``, ``rule_system``, ``period``, ``options``,
    ``scenario``, ``seed`` are that event's fields, as written; a reader checks they agree)."""

    format: Literal["warlog-replay"] = Field(description="Always \"warlog-replay\".")
    format_version: int = Field(
        ge=1, description="The version of the file layout (header, chain, closing line); a "
        "reader refuses versions newer than it knows.")
    warlog_version: str = Field(description="The version of warlog that wrote the file "
                                "(informative only).")
    game: str = Field(min_length=1, max_length=replay_file.MAX_GAME_ID_CHARS,
                      description="The game id; every event line carries it. Printable: no "
                      "control, format or separator character other than the space.")
    rule_system: str = Field(description="The rule system (e.g. ohw, portable, napoleonic).")
    period: str = Field(description="The period (or army list) within the rule system.")
    options: dict[str, Any] = Field(description="Every option in force, defaults filled in.")
    scenario: dict[str, Any] = Field(description="The whole scenario (see scenario.json).")
    seed: int | None = Field(description="The dice seed of a seeded game; null when the dice "
                             "were rolled at a table and recorded.")
    chain: str = Field(pattern=_HEX64, description="sha256 (lowercase hex) of 64 ASCII zeros "
                       "followed by the canonical JSON of this object without its chain key.")


class ReplayClosing(_Line):
    """The last line of a replay file: without it a file is refused as cut short."""

    end: Literal["warlog-replay"] = Field(description="Always \"warlog-replay\".")
    events: int = Field(ge=1, description="How many event lines the file holds.")
    chain: str = Field(pattern=_HEX64, description="sha256 (lowercase hex) of the last event "
                       "line's chain followed by the canonical JSON of this object without its "
                       "chain key.")


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return {"$schema": DIALECT, **model.model_json_schema()}


def _order_models() -> list[type[BaseModel]]:
    """The order models, in the union's order (what ``order_given.order`` may be)."""
    union = get_args(Order)[0]  # Order is Annotated[Union[...], Field(discriminator="type")]
    return list(get_args(union))


def schemas() -> dict[str, dict[str, Any]]:
    """Every schema file, by its path relative to the output folder (``index.json`` included)."""
    out: dict[str, dict[str, Any]] = {
        "header.json": _schema(ReplayHeader),
        "closing.json": _schema(ReplayClosing),
        "scenario.json": _schema(Scenario),
    }
    events: dict[str, str] = {}
    for model in event_models():
        kind = model.model_fields["kind"].default
        events[kind] = f"events/{kind}.json"
        out[events[kind]] = _schema(model)
    orders: dict[str, str] = {}
    for model in _order_models():
        kind = model.model_fields["type"].default
        orders[kind] = f"orders/{kind}.json"
        out[orders[kind]] = _schema(model)
    out["index.json"] = {
        "description": (
            "The JSON Schemas of a warlog replay file (docs/replay-format.md). Line 1 follows "
            "header; each event line, without its chain key, follows events[its kind]; the "
            "last line follows closing. Event schemas are those of schema_version: upcast an "
            "older event (a smaller v) first. Generated by: " + REFRESH
        ),
        "format": replay_file.FORMAT,
        "format_version": replay_file.FORMAT_VERSION,
        "schema_version": SCHEMA_VERSION,
        "header": "header.json",
        "closing": "closing.json",
        "scenario": "scenario.json",
        "events": events,
        "orders": orders,
    }
    return out


def render(schema: dict[str, Any]) -> str:
    """The text of one schema file: sorted keys, two-space indent, UTF-8, a final newline."""
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def files() -> dict[str, str]:
    """Every file's text, by relative path, sorted by path."""
    return {path: render(schema) for path, schema in sorted(schemas().items())}


def stale_files(out: str | Path) -> list[Path]:
    """``.json`` files under ``out`` that the generator no longer makes (a kind that was
    removed or renamed): reported, never deleted."""
    out = Path(out)
    made = set(files())
    return sorted(p for p in out.rglob("*.json") if p.relative_to(out).as_posix() not in made)


SCHEMA_FILE = FileKind("a schema file", "schema files", 1024 * 1024)
"""A schema file read back to compare (the largest is a few dozen KB)."""


def _already(path: Path, data: bytes) -> bool:
    """Whether ``path`` is a regular file holding ``data`` (read by the guarded reader: a pipe
    where a schema file should be is never opened, and then refused by the writer)."""
    try:
        return read_bytes(path, SCHEMA_FILE) == data
    except FileRefused:
        return False


def write(out: str | Path) -> list[Path]:
    """Write every schema file under ``out`` (created if need be); return the paths written.
    A file whose text is already right is left alone (its modification time too). Each is
    written whole or not at all, onto a regular file only (write_bytes_atomic)."""
    out = Path(out)
    written: list[Path] = []
    for rel, text in files().items():
        path = out / rel
        data = text.encode("utf-8")
        if _already(path, data):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        replay_file.write_bytes_atomic(path, data)
        written.append(path)
    return written
