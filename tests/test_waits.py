"""tests/waits.py: one limit for every wait, scaled by WARLOG_TEST_SLOWDOWN, and a guard that no
test brings a number of its own (a 30 s wait for a browser's first chart failed on a busy
machine; a literal limit anywhere is the next such failure)."""

from __future__ import annotations

import ast
import itertools
import subprocess
import sys
from pathlib import Path

import pytest

import waits

TESTS = Path(__file__).resolve().parent

# Numbers that are not a wait for a condition: the code under test's own setting, which the
# test means to run out (a lock is held throughout).
NOT_WAITS = {  # (file, how the line starts): why
    ("events/test_sqlite_store.py", "with SQLiteEventStore(db_path, timeout=0.05)"):
        "the store's busy timeout, held busy: the test wants it to run out",
    ("events/test_store_guards.py", "SQLiteEventStore(path, timeout=0.2)"):
        "the store's busy timeout, held busy: the test wants it to run out",
}

# Waits in files other helpers of issue 19 own, each with its change in the busy-machine report
# (for the lead): delete each entry as the change is made; a stale entry fails the guard.
ELSEWHERE: set[tuple[str, str]] = set()  # (file, how the line starts): none left


def _literal(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _name(func: ast.AST) -> str:
    """``a.b.c`` for a call's function, or its last attribute when the base is an expression."""
    parts = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if isinstance(func, ast.Name):
        parts.append(func.id)
    return ".".join(reversed(parts))


_LIMIT_WORDS = ("WAIT", "TIMEOUT", "DEADLINE", "LIMIT")


def _findings(tree: ast.AST) -> list[tuple[int, str]]:
    """(line, rule) for every wait in ``tree`` that brings its own number or has no limit."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add) and any(
                isinstance(side, ast.Call) and _name(side.func) in ("time.monotonic", "time.time")
                and _literal(other) for side, other in ((node.left, node.right),
                                                        (node.right, node.left))):
            found.append((node.lineno, "a deadline of its own: use waits.wait_until"))
        if isinstance(node, ast.Assign) and _literal(node.value) and any(
                isinstance(t, ast.Name) and any(w in t.id.upper() for w in _LIMIT_WORDS)
                for t in node.targets):
            found.append((node.lineno, "a limit of its own: use waits.LIMIT"))
        if not isinstance(node, ast.Call):
            continue
        name, last = _name(node.func), _name(node.func).rpartition(".")[2]
        keywords = {k.arg: k.value for k in node.keywords}
        for key in ("timeout", "default_timeout"):
            if key in keywords and _literal(keywords[key]):
                found.append((node.lineno, f"{key}= a number of its own: use waits.LIMIT"))
        if last in ("wait", "join", "result", "poll") and node.args and _literal(node.args[0]):
            found.append((node.lineno, f".{last}(a number of its own): use waits.LIMIT"))
        if name in ("time.sleep", "sleep"):
            found.append((node.lineno, "a fixed sleep: wait for a condition (waits.wait_until)"))
        if (name in ("subprocess.run", "subprocess.check_output", "subprocess.check_call",
                     "subprocess.call") or last == "communicate") and "timeout" not in keywords:
            found.append((node.lineno, "no limit: pass timeout=waits.LIMIT"))
        if last in ("wait", "join") and not node.args and not node.keywords \
                and isinstance(node.func, ast.Attribute):
            found.append((node.lineno, f".{last}() with no limit: pass waits.LIMIT"))
    return found


def _suite_findings() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        rel = path.relative_to(TESTS).as_posix()
        if rel in ("waits.py", "test_waits.py"):
            continue
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        for line, rule in _findings(ast.parse(source)):
            out.setdefault((rel, lines[line - 1].strip()), []).append(f"{rel}:{line}: {rule}")
    return out


def test_every_wait_in_the_suite_uses_the_shared_limit():
    found = _suite_findings()
    known = set(NOT_WAITS) | ELSEWHERE

    def excused(key: tuple[str, str]) -> bool:
        return any(key[0] == path and key[1].startswith(start) for path, start in known)

    stale = [(path, start) for path, start in known if (TESTS / path).exists()  # not merged yet
             and not any(p == path and line.startswith(start) for p, line in found)]
    assert not stale, f"NOT_WAITS or ELSEWHERE names lines that are gone: {stale}"
    bad = list(itertools.chain.from_iterable(v for k, v in found.items() if not excused(k)))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("source, rule", [
    ("page.wait_for_selector('x', timeout=30_000)", "timeout= a number"),
    ("AppTest.from_file(APP, default_timeout=30)", "default_timeout= a number"),
    ("proc.wait(timeout=10)", "timeout= a number"),
    ("release.wait(60)", ".wait(a number"),
    ("future.result(60)", ".result(a number"),
    ("time.sleep(0.2)", "a fixed sleep"),
    ("deadline = time.monotonic() + 30", "a deadline of its own"),
    ("subprocess.run(['ps'], capture_output=True)", "no limit"),
    ("thread.join()", ".join() with no limit"),
    ("WAIT = 120.0", "a limit of its own"),
])
def test_the_guard_finds_each_kind_of_wait_with_a_number_of_its_own(source, rule):
    assert [r for _, r in _findings(ast.parse(source)) if r.startswith(rule)], source


@pytest.mark.parametrize("source", [
    "page.wait_for_selector('x', timeout=waits.LIMIT_MS)",
    "proc.wait(timeout=LIMIT)",
    "subprocess.run(['ps'], timeout=LIMIT)",
    "', '.join(names)",
    "deadline = time.monotonic() + LIMIT",
])
def test_the_guard_lets_the_shared_limit_pass(source):
    assert _findings(ast.parse(source)) == []


def test_the_limit_is_generous_and_scales_with_the_slowdown():
    assert waits.BASE_LIMIT >= 120
    assert waits.slowdown({}) == 1.0
    assert waits.slowdown({"WARLOG_TEST_SLOWDOWN": " 2.5 "}) == 2.5
    for bad in ("0", "-1", "slow", "nan", "inf"):
        with pytest.raises(ValueError, match="WARLOG_TEST_SLOWDOWN must be a positive number"):
            waits.slowdown({"WARLOG_TEST_SLOWDOWN": bad})


def test_a_bad_slowdown_stops_pytest_with_one_line(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           str(TESTS / "test_waits.py"), "-k", "scales"],
                          capture_output=True, text=True, timeout=waits.LIMIT, cwd=TESTS.parent,
                          env={"PATH": "/usr/bin:/bin", "WARLOG_TEST_SLOWDOWN": "fast"})
    assert done.returncode == 4, done.stdout + done.stderr
    assert "WARLOG_TEST_SLOWDOWN must be a positive number, not 'fast'" in done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_wait_until_returns_the_condition_or_fails_naming_what(monkeypatch):
    looks = iter([0, None, "ready"])
    assert waits.wait_until(lambda: next(looks), "the thing") == "ready"
    with pytest.raises(AssertionError, match=r"the server answered: not within 0.2 s"):
        waits.wait_until(lambda: False, "the server answered", limit=0.2)
    with pytest.raises(AssertionError, match=r"^log: 2 lines: not within 0.1 s$"):
        waits.wait_until(lambda: False, lambda: "log: 2 lines", limit=0.1)


def _child(code: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)


def test_lines_waits_for_a_line_then_reads_the_rest():
    proc = _child("print('starting'); print('progress 3'); print('done')")
    lines = waits.Lines(proc.stdout)
    assert lines.until(lambda line: line.startswith("progress"), "no progress") == \
        ["starting\n", "progress 3\n"]
    assert lines.rest() == "done\n"
    assert proc.wait(timeout=waits.LIMIT) == 0


def test_lines_fails_naming_what_when_the_stream_ends_first():
    proc = _child("print('starting')")
    with pytest.raises(AssertionError, match="no progress shown: starting"):
        waits.Lines(proc.stdout).until(lambda line: line.startswith("progress"),
                                       "no progress shown")
    assert proc.wait(timeout=waits.LIMIT) == 0


def test_lines_fails_within_its_limit_when_a_process_hangs_silently():
    """Before, a blocking read of a process that printed nothing more waited forever."""
    proc = _child("import sys; print('starting', flush=True); sys.stdin.read()")  # blocks
    try:
        with pytest.raises(AssertionError, match=r"no progress shown: not within 0.5 s: start"):
            waits.Lines(proc.stdout).until(lambda line: line.startswith("progress"),
                                           "no progress shown", limit=0.5)
    finally:
        proc.kill()
        proc.wait(timeout=waits.LIMIT)


def test_property_tests_have_no_deadline_and_no_too_slow_check():
    """Hypothesis fails an example slower than 200 ms, and a too-slow generation: timings."""
    from hypothesis import HealthCheck, settings

    assert settings.default.deadline is None
    assert HealthCheck.too_slow in settings.default.suppress_health_check
