"""The replay format, specified (docs/replay-format.md, docs/schema/) and kept true.

- The committed JSON Schemas are what ``warlog schema`` makes today, and real files match them.
- The spec states what the code does: its worked example is recomputed from a committed file, its
  limits are replay_input.py's and replay_file.py's constants, it names every field, kind and
  order type.
- Replays written today stay readable forever: tests/events/fixtures/v2-*.jsonl are bot games
  written once (never regenerated) by ``warlog.engine.bots.play_out`` and ``write_replay`` at
  schema version 2: three short ones on the scenario of the golden case of the same name
  (tests/golden/), policies aggressive (red) and cautious (blue), seed 2, game id
  ``<scenario>-aggressive-cautious-s2``; and six whole games of bundled scenarios whose rules
  schema 3 brought to the books, written by the code before that change (commit 7d2ef3a):
  ``<scenario>-tactician-tactician-s2`` of Aspern, Kandahar, Hill Sixty and the Granicus, and
  two Portable Wargame games (Issus, aggressive v cautious, seed 2; Zama with pila, seed 3).
  Each must keep parsing, validating, folding and re-deriving, and write back byte for byte.
  Re-deriving replays the bots, so a change to a bot's policy (or to the dice) fails here too:
  that is a change to what every shared bot game means, and must be a deliberate one.
- Older event versions load: every upcaster has a real event it raises, a version-1 file folds
  like its re-export at the current version, and an event from a newer warlog is refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import orjson
import pytest
from typer.testing import CliRunner

import warlog
from warlog import schema
from warlog.cli import app
from warlog.engine.dice import SplitMix64
from warlog.engine.fold import replay
from warlog.engine.verify import verify
from warlog.events import replay_file, replay_input
from warlog.events.chain import GENESIS, canonical, link
from warlog.events.model import (
    SCHEMA_VERSION,
    Envelope,
    event_kinds,
    event_models,
    parse_event,
    to_dict,
)
from warlog.events.replay_file import (
    HEADER_FIELDS,
    ReplayError,
    encode_replay,
    export_game,
    import_replay,
    parse_replay,
    read_replay,
    validate_replay,
)
from warlog.events.sqlite_store import SQLiteEventStore
from warlog.events.upcast import UPCASTERS

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "docs" / "replay-format.md"
SCHEMA_DIR = ROOT / "docs" / "schema"
FIXTURES = Path(__file__).resolve().parent / "fixtures"
V1 = FIXTURES / "v1-ancients-melee.jsonl"
V2 = sorted(FIXTURES.glob("v2-*.jsonl"))
EXAMPLE = FIXTURES / "v2-napoleonic-victory-turn-limit-square.jsonl"


def _spec() -> str:
    return SPEC.read_text("utf-8")


def _raw_lines(path: Path) -> list[dict]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def _order_types() -> list[str]:
    return [m.model_fields["type"].default for m in schema._order_models()]


# -- the committed JSON Schemas ----------------------------------------------------------------


def test_the_committed_schemas_are_what_warlog_schema_writes(tmp_path):
    """docs/schema/ is generated: after changing a model, run `warlog schema --out docs/schema`
    and commit the result."""
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    fresh = {p.relative_to(tmp_path).as_posix(): p.read_bytes() for p in tmp_path.rglob("*.json")}
    committed = {p.relative_to(SCHEMA_DIR).as_posix(): p.read_bytes()
                 for p in SCHEMA_DIR.rglob("*.json")}
    refresh = f"run `{schema.REFRESH}` and commit docs/schema/"
    problems = [f"docs/schema/{rel} is stale: {refresh}"
                for rel in sorted(fresh) if rel in committed and committed[rel] != fresh[rel]]
    problems += [f"docs/schema/{rel} is missing: {refresh}"
                 for rel in sorted(set(fresh) - set(committed))]
    problems += [f"docs/schema/{rel} is no longer generated: delete it, then {refresh}"
                 for rel in sorted(set(committed) - set(fresh))]
    assert not problems, "\n".join(problems)


def test_the_schema_files_are_deterministic_and_sorted():
    first, second = schema.files(), schema.files()
    assert first == second
    assert list(first) == sorted(first)
    for rel, text in first.items():
        data = json.loads(text)
        assert text == json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n", rel


def test_the_command_reports_and_keeps_files_it_no_longer_makes(tmp_path):
    (tmp_path / "events").mkdir()
    (tmp_path / "events" / "gone.json").write_text("{}")
    result = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "gone.json" in result.output and "no longer generated" in result.output
    assert (tmp_path / "events" / "gone.json").exists()  # reported, never deleted
    again = CliRunner().invoke(app, ["schema", "--out", str(tmp_path)])
    assert "(0 changed)" in again.output


def test_the_index_names_a_schema_for_every_event_kind_and_order_type():
    index = json.loads((SCHEMA_DIR / "index.json").read_text("utf-8"))
    assert index["format"] == replay_file.FORMAT
    assert index["format_version"] == replay_file.FORMAT_VERSION
    assert index["schema_version"] == SCHEMA_VERSION
    assert sorted(index["events"]) == sorted(event_kinds())
    assert sorted(index["orders"]) == sorted(_order_types())
    for rel in [index["header"], index["closing"], index["scenario"], *index["events"].values(),
                *index["orders"].values()]:
        assert (SCHEMA_DIR / rel).is_file(), rel
    unit_moved = json.loads((SCHEMA_DIR / index["events"]["unit_moved"]).read_text("utf-8"))
    assert unit_moved["properties"]["kind"]["const"] == "unit_moved"
    assert set(Envelope.model_fields) <= set(unit_moved["properties"])


@pytest.mark.parametrize("path", V2 + [V1], ids=lambda p: p.name)
def test_the_header_and_closing_models_are_what_the_writer_writes(path):
    events = validate_replay(read_replay(path), path)
    lines = encode_replay(events).splitlines()
    header, closing = orjson.loads(lines[0]), orjson.loads(lines[-1])
    assert set(header) == set(schema.ReplayHeader.model_fields)
    assert set(HEADER_FIELDS) < set(header)
    assert set(closing) == set(schema.ReplayClosing.model_fields)
    schema.ReplayHeader.model_validate(header)
    schema.ReplayClosing.model_validate(closing)


@pytest.mark.parametrize("path", V2 + [V1], ids=lambda p: p.name)
def test_every_line_of_a_real_file_matches_the_committed_json_schemas(path):
    """Checked with a JSON Schema validator against the files in docs/schema/, as a reader in
    another language would. A version-1 file's events are checked once upcast."""
    import jsonschema  # a test dependency (pyproject)

    def check(instance, rel):
        spec = json.loads((SCHEMA_DIR / rel).read_text("utf-8"))
        jsonschema.Draft202012Validator(spec).validate(instance)

    index = json.loads((SCHEMA_DIR / "index.json").read_text("utf-8"))
    raw = _raw_lines(path)
    check(raw[0], index["header"])
    check(raw[-1], index["closing"])
    check(raw[0]["scenario"], index["scenario"])
    for event in validate_replay(read_replay(path), path):
        check(event, index["events"][event["kind"]])
        if "order" in event:
            check(event["order"], index["orders"][event["order"]["type"]])


# -- the spec says what the code does ----------------------------------------------------------


def test_the_spec_names_every_header_field_envelope_field_kind_and_order_type():
    text = _spec()
    names = [*schema.ReplayHeader.model_fields, *schema.ReplayClosing.model_fields,
             *Envelope.model_fields, "kind", *event_kinds(), *_order_types()]
    missing = [n for n in names if f"`{n}`" not in text]
    assert not missing, f"docs/replay-format.md does not describe: {missing}"


def test_the_spec_states_the_limits_replay_file_enforces():
    """Every MAX_* and MIN_* constant of events/replay_input.py and events/replay_file.py, with
    its value, in the Limits table (a row names its constants in its first cell and their values
    in its second)."""
    text = _spec()
    limits = text.split("## Limits", 1)[1].split("\n## ", 1)[0]
    constants = {name: value for module in (replay_input, replay_file)
                 for name, value in vars(module).items()
                 if name.startswith(("MAX_", "MIN_")) and type(value) is int}
    assert {"MAX_FILE_BYTES", "MAX_LINE_BYTES", "MAX_INT", "MAX_EVENTS"} <= set(constants)
    rows = [line.split("|")[1:3] for line in limits.splitlines() if line.startswith("| `")]
    wrong = [f"{name} = {value:,}" for name, value in constants.items()
             if not any(f"`{name}`" in names and f"{value:,}" in values for names, values in rows)]
    assert not wrong, f"docs/replay-format.md, Limits: state {wrong} (events/replay_*.py)"


def test_the_spec_states_the_versions_the_code_uses():
    text = _spec()
    assert f"**format version {replay_file.FORMAT_VERSION}**" in text
    assert f"**schema version {SCHEMA_VERSION}**" in text
    assert f'"{GENESIS}"' in text
    for kind, version in UPCASTERS:
        assert f"| `{kind}` | {version} | {version + 1} |" in text


def test_the_worked_example_is_what_the_code_computes():
    section = _spec().split("## Worked example", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```(?:json|text)\n(.*?)\n```", section, re.S)
    header_body, link1, event_body, link2, line3, closing_line = blocks
    lines = EXAMPLE.read_bytes().splitlines()
    header, first = orjson.loads(lines[0]), orjson.loads(lines[1])
    assert header_body.encode() == canonical({k: v for k, v in header.items() if k != "chain"})
    assert link1 == header["chain"] == link(GENESIS, header_body.encode())
    assert event_body.encode() == canonical({k: v for k, v in first.items() if k != "chain"})
    assert link2 == first["chain"] == link(link1, event_body.encode())
    assert line3.encode() == lines[2]
    third = orjson.loads(line3)
    assert third["chain"] == link(link2, canonical({k: v for k, v in third.items()
                                                    if k != "chain"}))
    assert closing_line.encode() == lines[-1]
    assert f"({len(header_body.encode()):,} bytes)" in section
    assert f"({len(event_body.encode()):,} bytes)" in section
    assert f"line {len(lines)}: the header, {len(lines) - 2} events" in section


def test_the_spec_canonical_json_example_is_canonical():
    assert b'{"a":{"c":null,"d":[1,2]},"b":1}' == canonical({"b": 1, "a": {"d": [1, 2], "c": None}})
    assert '`{"a":{"c":null,"d":[1,2]},"b":1}`' in _spec()
    # the string rules the spec states
    assert canonical({"s": "\x1f\t/\x7f\u2028é"}) == '{"s":"\\u001f\\t/\x7f\u2028é"}'.encode()
    assert list(orjson.loads(canonical({"\U0001F600": 1, "\uff01": 2}))) == ["\uff01", "\U0001F600"]


@pytest.mark.parametrize("path", V2, ids=lambda p: p.name)
def test_the_dice_of_a_seeded_game_are_splitmix64_of_its_seed_as_the_spec_says(path):
    events = _raw_lines(path)[1:-1]
    assert events[0]["dice"] == "seeded"
    rng, faces = SplitMix64(events[0]["seed"]), 0
    for event in events:
        if event["kind"] == "dice_rolled":
            for face in event["faces"]:
                assert face == rng.below(event["sides"]) + 1, f"event seq {event['seq']}"
                faces += 1
    assert faces > 0


# -- replays written today keep loading --------------------------------------------------------


def test_the_v2_fixtures_are_games_of_several_rule_systems():
    systems = {_raw_lines(path)[0]["rule_system"] for path in V2}
    assert len(V2) >= 3 and len(systems) >= 3, systems


@pytest.mark.parametrize("path", V2, ids=lambda p: p.name)
def test_a_v2_replay_parses_validates_folds_and_re_derives(path):
    parsed = read_replay(path)  # limits, header, every link, the closing line
    assert {e["v"] for e in parsed.events} == {2}
    events = validate_replay(parsed, path)  # raised to the current version
    assert {e["v"] for e in events} == {SCHEMA_VERSION}
    strip = [{k: v for k, v in e.items() if k != "v"} for e in parsed.events[1:]]
    assert [{k: v for k, v in e.items() if k != "v"} for e in events[1:]] == strip
    state = replay(events)  # every state_checksum checked
    assert state.ended and state.end_reason
    assert any(e["kind"] == "state_checksum" for e in events)
    report = verify(events)
    assert report.ok, report.mismatch
    assert report.finished and report.orders > 0
    assert report.events == len(events)


# The v2 games whose rules schema 3 changed: each plays otherwise under today's defaults.
CHANGED_BY_V3 = [p for p in V2 if p.name.endswith("-tactician-tactician-s2.jsonl")
                 or p.name.startswith("v2-portable-") and "commander-left" not in p.name]


@pytest.mark.parametrize("path", CHANGED_BY_V3, ids=lambda p: p.name)
def test_a_v2_game_keeps_the_reading_it_was_played_by(path):
    """Upcast, a version-2 game gains each version-3 option at its ``before`` value and
    re-derives; given today's defaults instead, its bots would have played otherwise, so the
    upcaster is what keeps it verifying (and what every released bot played stays theirs)."""
    from warlog.engine.rulesets.tables import option_specs, options_added

    events = validate_replay(read_replay(path), path)
    first = events[0]
    added = options_added(first["rule_system"], first["period"], 3)
    assert added and all(first["options"][name] == value for name, value in added.items())
    assert verify(events).ok
    specs = option_specs(first["rule_system"], first["period"])
    today = {**first["options"], **{name: specs[name]["default"] for name in added}}
    forged = [{**first, "options": today, "scenario": {**first["scenario"], "options": today}},
              *events[1:]]
    report = verify(forged)
    assert not report.ok and report.mismatch is not None


@pytest.mark.parametrize("path", V2, ids=lambda p: p.name)
def test_a_v2_replay_imports_as_the_same_game_and_its_export_is_stable(path, tmp_path,
                                                                      monkeypatch):
    """Imported, a version-2 file is stored at the current version (raised as the spec says:
    other bytes, other links, the same game); written again, that game is the same file every
    time. The header records the warlog version that wrote it (and that version is hashed), so
    the export is made as that version."""
    data = path.read_bytes()
    written_by = orjson.loads(data.splitlines()[0])["warlog_version"]
    monkeypatch.setattr(warlog, "__version__", written_by)
    out, again = tmp_path / path.name, tmp_path / f"again-{path.name}"
    with SQLiteEventStore(tmp_path / "games.db") as store:
        game = import_replay(store, path, check=replay)
        export_game(store, game, out)
    events = validate_replay(parse_replay(data, path), path)
    assert out.read_bytes() == encode_replay(events)
    assert replay(validate_replay(read_replay(out), out)).checksum() == replay(events).checksum()
    with SQLiteEventStore(tmp_path / "again.db") as store:
        export_game(store, import_replay(store, out, check=replay), again)
    assert again.read_bytes() == out.read_bytes()


def test_a_jsonl_gz_is_the_gzip_of_the_same_bytes(tmp_path, monkeypatch):
    """As the spec says: decompressed, a .jsonl.gz is the .jsonl byte for byte; warlog writes it
    the same way every time, and reads gzip by its first bytes whatever the file's name."""
    import gzip

    data = EXAMPLE.read_bytes()
    monkeypatch.setattr(warlog, "__version__", orjson.loads(data.splitlines()[0])["warlog_version"])
    events = validate_replay(read_replay(EXAMPLE), EXAMPLE)
    packed = tmp_path / "game.jsonl.gz"
    replay_file.write_replay(packed, events)
    assert packed.read_bytes()[:2] == b"\x1f\x8b"
    assert gzip.decompress(packed.read_bytes()) == encode_replay(events)
    again = tmp_path / "again.jsonl.gz"
    replay_file.write_replay(again, events)
    assert again.read_bytes() == packed.read_bytes()
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_bytes(packed.read_bytes())
    for path in (packed, renamed):
        assert validate_replay(read_replay(path), path) == events


# -- older versions load; newer ones are refused -----------------------------------------------


def _fixture_events() -> list[dict]:
    return [event for path in [V1, *V2] for event in _raw_lines(path)[1:-1]]


@pytest.mark.parametrize("step", sorted(UPCASTERS), ids=lambda s: f"{s[0]}-v{s[1]}")
def test_every_upcaster_raises_a_real_event_to_the_current_model(step):
    """Each (kind, version) an upcaster handles has an event of that kind and version in a
    committed fixture (add one when you add an upcaster), and it validates, once raised, as the
    current model of its kind."""
    kind, version = step
    found = [e for e in _fixture_events() if e["kind"] == kind and e.get("v") == version]
    assert found, f"no v{version} {kind} event in tests/events/fixtures/: commit a file with one"
    model = next(m for m in event_models() if m.model_fields["kind"].default == kind)
    changed = []
    for raw in found:
        event = {k: v for k, v in raw.items() if k != "chain"}
        parsed = parse_event(event)
        assert type(parsed) is model
        assert parsed.v == SCHEMA_VERSION
        changed.append({k: v for k, v in to_dict(parsed).items() if k != "v"} != {
            k: v for k, v in event.items() if k != "v"})
    # The step changes something beyond v in a real event (not in every one: a step may concern
    # only some rule systems, as version 3's options do).
    assert any(changed), f"no committed v{version} {kind} event is changed by its upcaster"


def test_the_v1_file_folds_like_its_re_export_at_the_current_version(tmp_path):
    v1_events = validate_replay(read_replay(V1), V1)
    again_path = tmp_path / "again.jsonl"
    again_path.write_bytes(encode_replay(v1_events))
    again = read_replay(again_path)
    assert {e["v"] for e in again.events} == {SCHEMA_VERSION}
    assert again.header["options"]["terrain_feature"] == "cell"  # version 1's reading, recorded
    v2_events = validate_replay(again, again_path)
    assert v2_events == v1_events
    before, after = replay(v1_events), replay(v2_events)
    assert before.public() == after.public()
    assert before.checksum() == after.checksum()
    assert before.options == after.options
    assert verify(v2_events).ok
    assert again_path.read_bytes() != V1.read_bytes()  # a new file of the same game


def test_an_event_from_a_newer_schema_is_refused_naming_its_line(tmp_path, build):
    lines = _raw_lines(EXAMPLE)
    header, events = lines[0], [{k: v for k, v in e.items() if k != "chain"} for e in lines[1:-1]]
    events[4] = {**events[4], "v": SCHEMA_VERSION + 1}
    path = tmp_path / "newer.jsonl"
    path.write_bytes(build.chained_lines(header, events))  # well chained: only the version is new
    with pytest.raises(ReplayError) as caught:
        validate_replay(read_replay(path), path)
    message = str(caught.value)
    assert f"line 6: event seq 5: schema version {SCHEMA_VERSION + 1} is newer than this warlog " \
           f"understands ({SCHEMA_VERSION}); upgrade warlog" in message
    with SQLiteEventStore(tmp_path / "games.db") as store:
        with pytest.raises(ReplayError, match="upgrade warlog"):
            import_replay(store, path)
        assert not store.has_game(header["game"])
