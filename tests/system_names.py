"""Where the core names a rule system: the vocabulary, read from the rulesets, and the checker.

Issue 40 (a rule system is one folder) wants a core that picks no system by name. Before it can
say "none", it has to count: tests/test_core_names_no_system.py compares today's places with a
baseline that may only shrink. The words are never typed here: system ids come from the registry,
period ids and unit types from the rule tables, phases from the tables and the referees, attack
kinds from the rulesets (or the odds' table while they do not expose them yet), and the system
fields from the state's dataclasses. Typed lists would go stale the day a system is added, and
the test would pass while the core learnt a new name.

What counts as a place (docs/plan-rule-system-packages.md section 8):
- a string that names a system id, period id or unit type as a whole, case-sensitive word, or
  equals a phase or attack kind (f-strings: their literal parts);
- an import of a module of ``warlog.engine.rulesets`` other than the registry and the neutral
  modules (base, tables, common, order_kinds);
- an attribute access ``.field`` of a field that only some systems have.
Comments and docstrings are prose, not code: they are skipped. A docstring is any string that
stands alone as a statement (module, class, function and attribute docstrings alike), since such
a string is never a value the code acts on.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REGISTRY = "warlog.engine.rulesets"
RULESETS_DIR = ROOT / "engine" / "rulesets"
# Modules of the rulesets package that name no system: the core may import them.
NEUTRAL_MODULES = frozenset({"base", "tables", "common", "order_kinds"})
# Fields every system's units and games have (the identity, position and per-turn marks the
# common procedures read); what is left of the dataclasses is some systems' state.
COMMON_UNIT_FIELDS = frozenset({"id", "side", "type", "cell", "facing", "name", "quality", "hits",
                                "removed", "acted", "moved", "shot", "attacked"})
# ``pending`` (a choice owed by the other player) is the core's too (architecture decision 13;
# the plan's section 3 reads it as a core field), and every recorder has a ``.pending`` order.
COMMON_STATE_FIELDS = frozenset({
    "game", "rule_system", "period", "options", "scenario", "grid", "units", "terrain", "memo",
    "dice_mode", "seed", "players", "seq", "turn", "side", "phase", "dice_rolled", "first_side",
    "pending", "ended", "winner", "end_reason"})
# System fields whose name the rest of the tree uses for something else: ``.done`` is every
# job's and future's progress (warlog/app/jobs.py, dashboard/bot_runner.py), so an attribute
# check cannot tell it from the activation mark (the plan's section 8 leaves it out too).
AMBIGUOUS_FIELDS = frozenset({"done"})
# The folders scanned, relative to the repository, and the package each one is installed as
# (relative imports are resolved against it).
SCANNED = (("engine", "*.py"), ("events", "*.py"), ("warlog", "**/*.py"), ("dashboard", "**/*.py"))
PACKAGES = {"engine": "warlog.engine", "events": "warlog.events", "warlog": "warlog",
            "dashboard": "warlog.dashboard"}


@dataclass(frozen=True, order=True)
class Place:
    """One place that names a system: the file (relative, posix), its line, the word and why."""

    path: str
    line: int
    word: str
    kind: str  # "string", "import" or "field"


@dataclass(frozen=True)
class Vocabulary:
    """The words that name a system. ``words`` match as whole words inside any string, ``exact``
    only as a whole string (a phase or attack kind is an ordinary English word elsewhere),
    ``fields`` as attribute names."""

    systems: tuple[str, ...]
    words: frozenset[str]
    exact: frozenset[str]
    fields: frozenset[str]

    @property
    def pattern(self) -> re.Pattern[str]:
        # Longest first, so "European Infantry" is one place and not also "Infantry"; the
        # lookarounds (not \b) keep whole words whose ends are not word characters.
        ordered = sorted(self.words, key=lambda w: (-len(w), w))
        return re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, ordered)) + r")(?!\w)")


# -- the vocabulary, read from the code ----------------------------------------------------------


def _system_ids() -> tuple[str, ...]:
    """The registry's ids (``rulesets.systems()``), else the tables' (the layout before it)."""
    from warlog.engine import rulesets
    from warlog.engine.rulesets import tables

    listed = rulesets.systems() if hasattr(rulesets, "systems") else tables.systems()
    ids = [item if isinstance(item, str) else getattr(item, "id", getattr(item, "system", None))
           for item in listed]
    if not ids or not all(isinstance(i, str) and i for i in ids):
        raise AssertionError(f"the registry lists no rule system ids: {listed!r}")
    return tuple(ids)


def _record_fields(ruleset: Any) -> set[str]:
    """Fields of a ruleset's own unit and state records (the plan's subclasses), beyond the
    core's: once the legacy fields move out of engine/state.py, they are found here."""
    from warlog.engine import state

    found: set[str] = set()
    for attr, core in (("Unit", state.Unit), ("State", state.GameState)):
        record = getattr(ruleset, attr, None)
        if dataclasses.is_dataclass(record) and record is not core:
            found |= ({f.name for f in dataclasses.fields(record)}
                      - {f.name for f in dataclasses.fields(core)})
    return found


def _attack_kinds(rulesets: list[Any], systems: tuple[str, ...]) -> set[str]:
    """``rs.attacks`` and ``rs.odds.kinds``; while no ruleset exposes them, the odds' own table."""
    kinds = {kind for rs in rulesets for kind in getattr(rs, "attacks", ())}
    kinds |= {kind for rs in rulesets for kind in getattr(getattr(rs, "odds", None), "kinds", ())}
    if not kinds:
        from warlog.engine import odds

        kinds = {kind for system in systems for kind in getattr(odds, "KINDS", {}).get(system, ())}
    return kinds


@cache
def vocabulary() -> Vocabulary:
    """Every word that names a built-in system, read from the registry, tables and records."""
    from warlog.engine import state
    from warlog.engine.rulesets import get_ruleset, tables

    systems = _system_ids()
    words: set[str] = set(systems)
    phases: set[str] = set()
    fields = ({f.name for f in dataclasses.fields(state.Unit)} - COMMON_UNIT_FIELDS) | (
        {f.name for f in dataclasses.fields(state.GameState)} - COMMON_STATE_FIELDS)
    rulesets = [get_ruleset(system) for system in systems]
    for system, ruleset in zip(systems, rulesets, strict=True):
        for period, table in tables.load_table(system)["periods"].items():
            words.add(period)
            words.update(tables.unit_types(system, period))
            phases.update(table.get("phases", ()))
            phases.update(step[0] for step in table.get("steps", ()))
        phases.update(getattr(ruleset, "automatic_phases", ()))
        phases.update(getattr(ruleset, "side_order_phases", ()))
        fields |= _record_fields(ruleset)
    return Vocabulary(systems=systems, words=frozenset(words),
                      exact=frozenset(phases | _attack_kinds(rulesets, systems)),
                      fields=frozenset(fields - AMBIGUOUS_FIELDS))


# -- the checker ----------------------------------------------------------------------------------


def _docstring_spans(tree: ast.AST) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """(start, end) of every string that stands alone as a statement."""
    return [((node.lineno, node.col_offset), (node.end_lineno, node.end_col_offset))
            for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)]


def _literal_parts(token: str) -> Iterator[str]:
    """The text of a STRING token: an f-string's literal parts (and the strings inside its
    expressions); nothing for bytes."""
    for node in ast.walk(ast.parse(token, mode="eval")):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            yield node.value


def _string_places(source: str, path: str, vocab: Vocabulary, spans: list) -> Iterator[Place]:
    pattern = vocab.pattern
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type != tokenize.STRING:
            continue
        if any(start <= tok.start and tok.end <= end for start, end in spans):
            continue
        for text in _literal_parts(tok.string):
            found = [m.group() for m in pattern.finditer(text)]
            if text in vocab.exact and text not in found:
                found.append(text)
            for word in found:
                yield Place(path, tok.start[0], word, "string")


def _module_of(path: str) -> str:
    """The dotted package a scanned file belongs to (for relative imports)."""
    top, *rest = path.split("/")
    return ".".join([PACKAGES[top], *rest[:-1]])


def _is_module(dotted: str) -> bool:
    """Whether ``dotted`` is a module or package of the rulesets on disk (so it works on the
    layout of the day: ohw_combat.py or ohw/combat.py)."""
    if not dotted.startswith(REGISTRY + "."):
        return False
    where = RULESETS_DIR.joinpath(*dotted.split(".")[3:])
    return where.with_suffix(".py").is_file() or where.is_dir()


def _system_module(dotted: str) -> bool:
    """A module of the rulesets package that is neither the registry nor a neutral module."""
    return _is_module(dotted) and dotted.split(".")[3] not in NEUTRAL_MODULES


def _import_places(tree: ast.AST, path: str) -> Iterator[Place]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            named = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:
                base = _module_of(path).split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join([*base, module] if module else base)
            named = {f"{module}.{alias.name}" if _is_module(f"{module}.{alias.name}") else module
                     for alias in node.names}
        else:
            continue
        for word in sorted(named):
            if _system_module(word):
                yield Place(path, node.lineno, word, "import")


def _field_places(tree: ast.AST, path: str, vocab: Vocabulary) -> Iterator[Place]:
    """Attribute accesses of system fields; a field is never called, so ``x.attr(...)`` is a
    method or function of the same name (``analysis.exhaustion(events)``) and not counted."""
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in vocab.fields and id(node) not in called:
            yield Place(path, node.end_lineno or node.lineno, f".{node.attr}", "field")


def places_in(source: str, path: str, vocab: Vocabulary | None = None) -> list[Place]:
    """Every place in ``source`` (the file at ``path``) that names a system, sorted."""
    vocab = vocab or vocabulary()
    tree = ast.parse(source, filename=path)
    spans = _docstring_spans(tree)
    return sorted([*_string_places(source, path, vocab, spans), *_import_places(tree, path),
                   *_field_places(tree, path, vocab)])


def scanned_files(root: Path = ROOT) -> list[str]:
    """The core's files, relative and sorted: engine/*.py (not the rulesets), events/*.py,
    warlog/**/*.py and dashboard/**/*.py."""
    return sorted(p.relative_to(root).as_posix() for folder, glob in SCANNED
                  for p in (root / folder).glob(glob) if "__pycache__" not in p.parts)


def all_places(root: Path = ROOT) -> list[Place]:
    """Every place in the core that names a system, sorted by file and line."""
    return [place for path in scanned_files(root)
            for place in places_in((root / path).read_text("utf-8"), path)]


def counts(places: Iterable[Place]) -> dict[tuple[str, str], int]:
    """{(path, word): how many places}, sorted."""
    return dict(sorted(Counter((p.path, p.word) for p in places).items()))
