"""The ratchet of issue 40: the places outside engine/rulesets/ that name a rule system may only
go down.

tests/system_names.py counts every place in the core (engine/*.py, events, warlog, dashboard)
that picks a system by name: a system id, period id or unit type in a string, a phase or attack
kind as a string, an import of a referee's module, an access to a field only some systems have.
tests/system_names_baseline.json holds today's count for each (file, word). A new place fails
with its file, line and word; a place removed fails too until the baseline is lowered, so the
baseline always says how far the work has come. Done is an empty baseline.

Lower (or, after a move of files that changes only import paths, rewrite) the baseline with

    python tests/test_core_names_no_system.py --write

and review its diff: it should only ever lose lines.
"""

from __future__ import annotations

import json
import sys
from functools import cache
from pathlib import Path

import system_names
from system_names import Place, Vocabulary

BASELINE_FILE = Path(__file__).with_name("system_names_baseline.json")
WRITE = "python tests/test_core_names_no_system.py --write"
SEPARATOR = " :: "  # a key is "path :: word"; paths have no spaces, words may


def _key(path: str, word: str) -> str:
    return f"{path}{SEPARATOR}{word}"


def read_baseline(text: str) -> dict[tuple[str, str], int]:
    """{(path, word): count} from the baseline file's text."""
    return {tuple(key.split(SEPARATOR, 1)): count for key, count in json.loads(text).items()}


def baseline_text(counts: dict[tuple[str, str], int]) -> str:
    """The baseline as stored: a JSON object, sorted keys, one entry a line (a diff per place)."""
    lines = [f"  {json.dumps(_key(path, word))}: {count}"
             for (path, word), count in sorted(counts.items())]
    return "{\n" + ",\n".join(lines) + ("\n" if lines else "") + "}\n"


@cache
def _scan() -> tuple[Place, ...]:
    return tuple(system_names.all_places())


def ratchet_problems(places: tuple[Place, ...], baseline: dict[tuple[str, str], int]
                     ) -> tuple[list[str], list[str]]:
    """(what grew, what shrank), each a list of readable lines, sorted by file and word."""
    now = system_names.counts(places)
    grew, shrank = [], []
    for path, word in sorted(now.keys() | baseline.keys()):
        count, allowed = now.get((path, word), 0), baseline.get((path, word), 0)
        if count > allowed:
            lines = ", ".join(str(p.line) for p in places if (p.path, p.word) == (path, word))
            grew.append(f"{path}: {word!r} named {count} times (baseline {allowed}), "
                        f"at lines {lines}")
        elif count < allowed:
            now_text = "gone" if count == 0 else f"down to {count}"
            shrank.append(f"{path}: {word!r} {now_text} (baseline {allowed})")
    return grew, shrank


def test_the_core_names_no_system_in_a_new_place():
    grew, _ = ratchet_problems(_scan(), read_baseline(BASELINE_FILE.read_text("utf-8")))
    assert not grew, (
        "The core names a rule system in a new place (issue 40: ask the ruleset through a hook "
        "or the order vocabulary instead):\n  " + "\n  ".join(grew))


def test_the_baseline_is_lowered_when_a_place_goes():
    _, shrank = ratchet_problems(_scan(), read_baseline(BASELINE_FILE.read_text("utf-8")))
    assert not shrank, (
        f"Places that named a rule system are gone: well done. Lower the baseline with `{WRITE}` "
        "and commit its diff:\n  " + "\n  ".join(shrank))


def test_the_baseline_file_is_sorted_one_entry_a_line():
    text = BASELINE_FILE.read_text("utf-8")
    assert text == baseline_text(read_baseline(text)), f"rewrite it with `{WRITE}`"


def test_the_vocabulary_is_read_from_the_rulesets():
    from warlog.engine.rulesets import tables

    vocab = system_names.vocabulary()
    assert len(vocab.systems) >= 5 and set(vocab.systems) <= vocab.words
    for system in vocab.systems:
        for period in tables.periods(system):
            assert period in vocab.words
            assert set(tables.unit_types(system, period)) <= vocab.words
    assert vocab.exact and vocab.fields
    assert "done" not in vocab.fields  # every job's progress too: see AMBIGUOUS_FIELDS


def _planted(vocab: Vocabulary) -> tuple[str, str, str]:
    """A system id, a referee module and a system field, all read from the code."""
    from warlog.engine.rulesets import get_ruleset

    system = vocab.systems[0]
    return system, type(get_ruleset(system)).__module__, sorted(vocab.fields)[0]


def test_the_checker_finds_planted_names():
    vocab = system_names.vocabulary()
    system, referee, field = _planted(vocab)
    phase = sorted(vocab.exact)[0]
    source = (f"import {referee}\n"
              f"def f(state, unit):\n"
              f"    if state.rule_system == {system!r}:\n"
              f"        return unit.{field}\n"
              f"    return f'rules of {system}: {{unit.id}}', {phase!r}\n")
    found = [(p.line, p.word, p.kind) for p in system_names.places_in(source, "engine/x.py", vocab)]
    assert found == sorted([(1, referee, "import"), (3, system, "string"),
                            (4, f".{field}", "field"), (5, system, "string"), (5, phase, "string")])


def test_the_checker_skips_comments_docstrings_and_neighbouring_words():
    vocab = system_names.vocabulary()
    system, referee, field = _planted(vocab)
    phase = sorted(vocab.exact)[0]
    source = (f'"""A module about {system!r}, {referee} and unit.{field}."""\n'
              f"import warlog.engine.rulesets.tables  # {referee}\n"
              f"from warlog.engine.rulesets import get_ruleset\n"
              f"def f(unit):\n"
              f"    '''Reads {system}.'''\n"
              f"    # if rule_system == {system!r}: unit.{field}\n"
              f"    return {system + '_x'!r}, {'x' + system!r}, {phase + ' phase'!r}, "
              f"unit.{field}_count\n")
    assert system_names.places_in(source, "engine/x.py", vocab) == []


def test_the_checker_follows_relative_imports_and_imported_submodules():
    vocab = system_names.vocabulary()
    _, referee, _ = _planted(vocab)
    package, name = referee.rsplit(".", 1)
    source = (f"from {package} import {name}\n"
              f"from ..engine.rulesets{referee.removeprefix(system_names.REGISTRY)} import x\n")
    found = [(p.line, p.word) for p in system_names.places_in(source, "events/x.py", vocab)]
    assert found == [(1, referee), (2, referee)]


def summary(places: tuple[Place, ...], top: int = 5) -> str:
    """Files, places and words, and the files with the most places."""
    by_file: dict[str, int] = {}
    for place in places:
        by_file[place.path] = by_file.get(place.path, 0) + 1
    kinds = {kind: sum(p.kind == kind for p in places) for kind in ("string", "import", "field")}
    most = sorted(by_file.items(), key=lambda item: (-item[1], item[0]))[:top]
    return "\n".join([
        f"{len(by_file)} files, {len(places)} places, {len({p.word for p in places})} words, "
        f"{len(system_names.counts(places))} (file, word) pairs",
        "by kind: " + ", ".join(f"{kind} {n}" for kind, n in kinds.items()),
        "most: " + ", ".join(f"{path} {n}" for path, n in most)])


if __name__ == "__main__":  # --write: the baseline is today's places (review the diff)
    found = _scan()
    if "--write" in sys.argv[1:]:
        BASELINE_FILE.write_text(baseline_text(system_names.counts(found)), "utf-8")
        print(f"wrote {BASELINE_FILE.relative_to(system_names.ROOT)}")
    else:
        grew, shrank = ratchet_problems(found, read_baseline(BASELINE_FILE.read_text("utf-8")))
        print("\n".join(["grew:", *grew, "shrank:", *shrank]))
    print(summary(found))
