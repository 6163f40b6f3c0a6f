"""Every field of every event, order and scenario model, walked: what test_field_rules checks
(each str, list, tuple or dict has a rule or a cap) and what docs/replay-format.md's table of
field rules is generated from, so the table lists every field and cannot drift from the code.

``python -m warlog.engine.field_table`` rewrites that table in the docs.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from warlog.engine.scenario import Scenario
from warlog.events.fields import FieldRule
from warlog.events.model import Envelope, event_models
from warlog.events.orders import Order

BEGIN, END = "<!-- field rules: begin -->", "<!-- field rules: end -->"
"""The markers around the generated table in docs/replay-format.md."""


@dataclass(frozen=True)
class Spot:
    """One type met in the walk: ``path`` names where (``unit_moved.path[]``: an item of it),
    ``kind`` is the type with its Annotated metadata taken off, ``rule`` the marker if any."""

    path: str
    kind: Any
    rule: FieldRule | None


def _unwrap(kind: Any, metadata: list[Any]) -> tuple[Any, list[Any]]:
    while get_origin(kind) is Annotated:
        metadata = [*metadata, *kind.__metadata__]
        kind = kind.__origin__
    return kind, metadata


def walk_type(path: str, kind: Any, metadata: list[Any], seen: set[type]) -> Iterator[Spot]:
    """Every type inside ``kind`` (a field's), depth first, in declaration order."""
    kind, metadata = _unwrap(kind, metadata)
    rule = next((m for m in metadata if isinstance(m, FieldRule)), None)
    yield Spot(path, kind, rule)
    origin, args = get_origin(kind), get_args(kind)
    if origin in (Union, types.UnionType):
        for arg in args:
            if arg is not type(None):
                yield from walk_type(path, arg, [], seen)
    elif origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            yield from walk_type(f"{path}[]", args[0], [], seen)
        else:
            for i, arg in enumerate(args):
                yield from walk_type(f"{path}[{i}]", arg, [], seen)
    elif origin in (list, dict) and args:
        if origin is dict:
            yield from walk_type(f"{path}{{key}}", args[0], [], seen)
        yield from walk_type(f"{path}[]" if origin is list else f"{path}{{}}", args[-1], [], seen)
    elif isinstance(kind, type) and issubclass(kind, BaseModel) and kind not in seen:
        yield from walk_model(path, kind, seen | {kind})


def walk_model(prefix: str, model: type[BaseModel], seen: set[type] = frozenset(),
               skip: tuple[str, ...] = ()) -> Iterator[Spot]:
    for name, info in model.model_fields.items():
        if name not in skip:
            yield from walk_type(f"{prefix}.{name}" if prefix else name, info.annotation,
                                 list(info.metadata), set(seen) | {model})


def every_field() -> Iterator[Spot]:
    """The envelope once, then each event kind's own fields, each order type's, the scenario's."""
    yield from walk_model("(every event)", Envelope)
    envelope = tuple(Envelope.model_fields)
    for model in event_models():
        yield from walk_model(model.model_fields["kind"].default, model, skip=envelope)
    for member in get_args(get_args(Order)[0]):
        yield from walk_model(f"order {member.model_fields['type'].default}", member)
    yield from walk_model("scenario", Scenario)


def needs_rule(kind: Any) -> bool:
    """Whether a type can hold an unbounded value: text, or a list, tuple or dict of any length
    (a Literal is its own rule; a fixed-length tuple, a cell, its own cap)."""
    origin, args = get_origin(kind), get_args(kind)
    if kind is str or kind in (list, tuple, dict) or origin in (list, dict):
        return True
    return origin is tuple and len(args) == 2 and args[1] is Ellipsis


def markdown_table() -> str:
    """One row per rule: the rule, why, and every field that follows it (in walk order)."""
    rows: dict[FieldRule, list[str]] = {}
    for spot in every_field():
        if ".order." in spot.path:  # an event's order: the order rows list its fields
            continue
        if spot.rule is not None and spot.path not in rows.setdefault(spot.rule, []):
            rows[spot.rule].append(spot.path)
    lines = ["| rule and cap | why | fields |", "|---|---|---|"]
    for rule, paths in rows.items():
        fields = ", ".join(f"`{p}`" for p in paths)
        lines.append(f"| {rule.rule} | {rule.reason} | {fields} |")
    return "\n".join(lines)


def with_table(doc: str) -> str:
    """``doc`` with the text between the markers replaced by the current table."""
    head, _, rest = doc.partition(BEGIN)
    _, _, tail = rest.partition(END)
    return f"{head}{BEGIN}\n{markdown_table()}\n{END}{tail}"


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "docs/replay-format.md")
    target.write_text(with_table(target.read_text("utf-8")), "utf-8")
