"""Regenerate the golden event files: ``.venv/bin/python tests/golden/regen.py [case ...]``.

Plays each case (all of them, or those named, by file name with or without ``.toml``) and writes
``<case>.events.jsonl``. Run it only after a deliberate rules change, then review every changed
file against the case's hand-worked ``why`` and ``expect`` before accepting it (``git diff``).
A case whose hand-written expectations disagree with the engine is reported and the script exits
with status 1 (its file is still written, for review). A case marked ``known_bug`` is played with
the wrongly accepted orders undone, so its file holds what the rules say should happen.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from golden_runner import (  # noqa: E402
    GOLDEN_DIR,
    GoldenError,
    case_paths,
    check_expect,
    event_lines,
    load_case,
    play,
)


def main(argv: list[str]) -> int:
    if argv:
        paths = [GOLDEN_DIR / (a.removesuffix(".toml") + ".toml") for a in argv]
        missing = [p.name for p in paths if not p.exists()]
        if missing:
            print(f"no such case: {', '.join(missing)}", file=sys.stderr)
            return 2
    else:
        paths = case_paths()
    status = 0
    for path in paths:
        case = load_case(path)
        try:
            game, deviations = play(case, tolerate=bool(case.known_bug))
        except GoldenError as exc:
            print(f"FAIL  {path.name}: {exc}")
            status = 1
            continue
        lines = event_lines(game.events)
        old = case.events_path.read_bytes() if case.events_path.exists() else None
        new = b"".join(line + b"\n" for line in lines)
        case.events_path.write_bytes(new)
        state = "unchanged" if old == new else ("written" if old is None else "CHANGED")
        print(f"{state:9} {case.events_path.name} ({len(lines)} events)")
        for text in deviations:
            print(f"    known bug: {text}")
        for problem in check_expect(case, game):
            print(f"    EXPECTATION MISMATCH: {problem}")
            status = 1
    return status


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
