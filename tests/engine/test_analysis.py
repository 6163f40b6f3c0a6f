"""Projections (engine/analysis.py) on real games: bot games on every bundled scenario (square,
hex, brick), a random-bot game (reaches the rare orders), and the golden games' event files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from warlog.engine import analysis
from warlog.engine.fold import Timeline, replay
from warlog.engine.scenario import bundled_scenarios, load_scenario

GOLDEN = Path(__file__).resolve().parents[1] / "golden"
BUNDLED_MELEE = {sc.id for sc in bundled_scenarios() if sc.period == "ancients"}


@pytest.fixture
def games(bundled_games) -> dict[str, list[dict]]:
    return bundled_games


@pytest.fixture
def river(river_game) -> list[dict]:
    return river_game


def _side_of(events: list[dict]) -> dict[str, str]:
    """Unit id -> side, from the scenario and any army rolled at the start."""
    sides = {u["id"]: u["side"] for u in events[0]["scenario"]["units"]}
    for e in events:
        if e["kind"] == "army_rolled":
            sides.update({u["id"]: e["side"] for u in e["units"]})
    return sides


def _striker(e: dict, side_of: dict[str, str]) -> str:
    """The side that dealt a hits_inflicted event (a barrage: the side it did not hit)."""
    if e["source"] is not None:
        return side_of[e["source"]]
    return "blue" if side_of[e["target"]] == "red" else "red"


def test_steps_cover_every_event_once_in_order(games):
    for name, events in games.items():
        steps = analysis.steps(events)
        covered = [i for s in steps for i in range(s.first, s.last + 1)]
        assert covered == list(range(len(events))), name
        assert [s.index for s in steps] == list(range(len(steps)))
        assert steps[0].kind == "opening" and steps[0].turn == 0
        assert all(s.title.startswith(f"turn {s.turn} · ") for s in steps), name


def test_every_order_heads_its_own_step_with_what_it_caused(games):
    for name, events in games.items():
        steps = analysis.steps(events)
        step_of = {i: s for s in steps for i in range(s.first, s.last + 1)}
        orders = [i for i, e in enumerate(events) if e["kind"] == "order_given"]
        assert sum(s.kind == "order" for s in steps) == len(orders), name
        for i in orders:
            assert step_of[i].first == i
        seq_index = {e["seq"]: i for i, e in enumerate(events)}
        for i, e in enumerate(events):
            if e.get("cause") is not None:  # a consequence sits in the step of its cause
                assert step_of[i] is step_of[seq_index[e["cause"]]], (name, e["seq"])


def test_automatic_phases_that_resolve_something_are_steps(river):
    steps = analysis.steps(river)
    phases = [s for s in steps if s.kind == "phase"]
    assert {s.phase for s in phases} <= {"melee", "removal"}
    assert phases, "this game has melee"
    for s in phases:
        assert river[s.first]["kind"] == "phase_started"
        assert river[s.first + 1]["cause"] == river[s.first]["seq"]


def test_step_titles_read_like_the_game(river):
    titles = [s.title for s in analysis.steps(river)]
    assert "turn 2 · red movement · r-inf-1 moves E 2 and attacks b-inf-1" in titles
    assert "turn 2 · red shooting · r-arc-1 shoots b-skm-1: 4 hits" in titles
    assert titles[-1].endswith("game over: red wins")


def test_attrition_totals_equal_the_hits_inflicted_per_side(games):
    for name, events in games.items():
        side_of = _side_of(events)
        hits, lost = Counter(), Counter()
        for e in events:
            if e["kind"] == "hits_inflicted":
                hits[side_of[e["target"]]] += e["hits"]
            elif e["kind"] == "strength_lost":
                hits[side_of[e["unit"]]] += e["amount"]
            elif e["kind"] == "unit_removed":
                lost[side_of[e["unit"]]] += 1
        rows = analysis.attrition(events)
        last = max(e["turn"] for e in events)
        assert [(r["turn"], r["side"]) for r in rows] == [
            (t, s) for t in range(last + 1) for s in ("red", "blue")]
        before: Counter = Counter()  # turn 0 is the set-up: only a pre-game barrage hits there
        for e in events:
            if e["kind"] == "hits_inflicted" and e["turn"] == 0:
                before[side_of[e["target"]]] += e["hits"]
        assert all(r["hits_taken"] == before[r["side"]] and r["units_lost"] == 0
                   for r in rows if r["turn"] == 0)
        for side in ("red", "blue"):
            mine = [r for r in rows if r["side"] == side]
            assert mine[-1]["hits_taken"] == hits[side], name
            assert mine[-1]["units_lost"] == lost[side], name
            assert all(a["hits_taken"] <= b["hits_taken"] for a, b in zip(mine, mine[1:]))


def test_attrition_matches_the_folded_state_turn_by_turn(river):
    rows = analysis.attrition(river)
    for turn in range(1, max(e["turn"] for e in river) + 1):
        upto = max(e["seq"] for e in river if e["turn"] <= turn)
        state = replay(river, upto)
        for side in ("red", "blue"):
            row = next(r for r in rows if r["turn"] == turn and r["side"] == side)
            assert row["units_lost"] == sum(u.removed for u in state.units.values() if u.side == side)
            assert row["units_left"] == len(state.alive(side))


def test_unit_timeline_ends_at_the_final_state(games):
    for name, events in games.items():
        final = replay(events)
        rows = analysis.unit_timeline(events)
        last = max(r["turn"] for r in rows)
        for r in rows:
            if r["turn"] == last:
                u = final.units[r["unit"]]
                assert (r["hits"], r["removed"], r["side"]) == (u.hits, u.removed, u.side), name
        assert len(rows) == (last + 1) * len(final.units)


def test_luck_counts_dice_and_hits_per_side(games):
    for name, events in games.items():
        side_of = _side_of(events)
        rows = {r["side"]: r for r in analysis.luck(events)}
        for side in ("red", "blue"):
            faces = [f for e in events if e["kind"] == "dice_rolled" and side_of.get(e["unit"]) == side
                     for f in e["faces"]]
            assert rows[side]["dice"] == len(faces)
            assert rows[side]["mean_face"] == (round(sum(faces) / len(faces), 2) if faces else None)
            dealt = sum(e["hits"] for e in events
                        if e["kind"] == "hits_inflicted" and _striker(e, side_of) == side)
            dealt += sum(e["hit"] for e in events  # the Portable Wargame: a die hits or misses
                         if e["kind"] == "attack_rolled" and side_of[e["source"]] == side)
            dealt += sum(not e["hit"] for e in events  # a Napoleonic melee die that holds
                         if e["kind"] == "melee_rolled" and side_of[e["unit"]] == side)
            dealt += _frontier_dealt(events, side_of, side)
            assert rows[side]["hits"] == dealt
            assert rows[side]["luck"] == pytest.approx(dealt - rows[side]["expected_hits"], abs=0.02)


def _frontier_dealt(events: list[dict], side_of: dict[str, str], side: str) -> int:
    """What a side's Frontier dice gave: combats won (each side's die), shots on target, and
    effect dice that went the firer's way."""
    effect = {"direct": {2, 4, 6}, "direct_commander": {4, 6}, "indirect": {4, 6},
              "indirect_commander": {6}}  # frontier.effect, as the rule text gives them
    types = {u["id"]: u["type"] for u in events[0]["scenario"]["units"]}
    dealt, shell = 0, None
    for e in events:
        if e["kind"] == "combat_fought":
            dealt += e["target_destroyed"] * (side_of[e["faced"]] == side)
            dealt += e["attacker_destroyed"] * (side_of[e["target"]] == side)
        elif e["kind"] == "shell_landed":
            shell = e
            dealt += (e["fall"] == "on target") * (side_of[e["unit"]] == side)
        elif e["kind"] == "dice_rolled" and e["purpose"] == "artillery effect":
            firer = side_of[shell["unit"]]
            commander = types[e["unit"]] == "Commander"
            kind = ("direct" if shell["direct"] else "indirect") + "_commander" * commander
            destroys = e["faces"][0] in effect[kind]
            went_well = destroys if side_of[e["unit"]] != firer else not destroys
            dealt += went_well * (firer == side)
    return dealt


def test_frontier_combat_dice_are_each_sides_roll_at_or_under_its_strength():
    from warlog.engine.game import start

    base = start("g", load_scenario("frontier-ulundi"), seed=1)[0]
    fight = {"kind": "combat_fought", "turn": 3, "target": "b-inf-1", "attackers": ["r-inf-1"],
             "faced": "r-inf-1", "attacker_die": 6, "attacker_strength": 5,
             "attacker_modifiers": [], "defender_die": 3, "defender_strength": 4,
             "defender_modifiers": [], "target_destroyed": False, "attacker_destroyed": True}
    # red's die 6 against strength 5 fails (5 faces of 6 would have won: expected 5/6);
    # blue's die 3 is at or under 4 and destroys r-inf-1 (4 faces of 6: expected 4/6)
    assert list(analysis.resolutions([base, fight])) == [(3, "red", 0, 5 / 6),
                                                          (3, "blue", 1, 4 / 6)]
    # a strength above 6 wins on every face: nothing to be lucky about
    strong = dict(fight, attacker_strength=7, attacker_die=6, target_destroyed=True)
    assert list(analysis.resolutions([base, strong]))[0] == (3, "red", 1, 1.0)


def test_frontier_fall_of_shot_and_effect_dice_count_for_the_firer():
    from warlog.engine.game import start

    base = start("g", load_scenario("frontier-kandahar"), seed=1)[0]
    shot = {"kind": "shell_landed", "turn": 2, "unit": "r-fld-1", "aimed": [5, 5],
            "fall": "on target", "landed": [5, 5], "direct": True}
    effect = {"kind": "dice_rolled", "turn": 2, "purpose": "artillery effect", "faces": [2],
              "unit": "b-inf-1"}
    # on target: 5 or 6 (2 faces of 6); direct fire destroys a unit on 2, 4, 6 (3 of 6)
    assert list(analysis.resolutions([base, shot, effect])) == [(2, "red", 1, 2 / 6),
                                                                 (2, "red", 1, 3 / 6)]
    # short, indirect, onto red's own infantry: effect 4 destroys it (4 or 6 indirect), which
    # went against red: 0 where an average die spares the friend 4 times in 6
    short = dict(shot, fall="short", landed=[5, 6], direct=False)
    friend = dict(effect, faces=[4], unit="r-inf-1")
    got = list(analysis.resolutions([base, short, friend]))
    assert [g[:3] for g in got] == [(2, "red", 0), (2, "red", 0)]
    assert [g[3] for g in got] == pytest.approx([2 / 6, 4 / 6])
    # a Commander hit directly is destroyed only on 4 or 6 (2 faces of 6)
    commander = dict(effect, faces=[2], unit="b-cmd")
    assert list(analysis.resolutions([base, shot, commander]))[1] == (2, "red", 0, 2 / 6)


def test_a_napoleonic_melee_die_is_lucky_when_it_holds_against_the_odds():
    from warlog.engine.game import start

    base = start("g", load_scenario("napoleonic-hougoumont"), seed=1)[0]
    roll = {"kind": "melee_rolled", "turn": 1, "unit": "r-inf-1", "opponent": "b-inf-1",
            "attacking": True, "die": 2, "modifiers": [["napoleonic.melee.attacked_flank", -1]],
            "total": 1, "at_most": 2, "hit": True}
    # holds on 4, 5, 6 (f - 1 > 2): 1/2 expected; it took a hit: luck -0.5 for red
    assert list(analysis.resolutions([base, roll])) == [(1, "red", 0, 0.5)]
    held = dict(roll, die=5, total=4, hit=False)
    assert list(analysis.resolutions([base, held])) == [(1, "red", 1, 0.5)]


def test_expected_hits_uses_the_rules_rounding():
    from warlog.engine.rulesets.common.luck import expected_hits

    shot = {"modifier": 0, "doubled": False, "halvings": ["armour"]}
    assert expected_hits(shot) == pytest.approx(2.0)  # ceil(f/2): 1 1 2 2 3 3
    melee = {"modifier": 2, "doubled": True, "halvings": []}
    assert expected_hits(melee) == pytest.approx(11.0)  # (3..8) * 2 -> mean 11
    weak = {"modifier": -2, "doubled": False, "halvings": []}
    assert expected_hits(weak) == pytest.approx((0 + 0 + 1 + 2 + 3 + 4) / 6)
    disordered = {"modifier": 1, "disorder": -2, "doubled": False, "halvings": []}
    assert expected_hits(disordered) == pytest.approx((0 + 1 + 2 + 3 + 4 + 5) / 6)


def test_highlights_mark_paths_attacks_and_removals(games):
    for name, events in games.items():
        tl = Timeline(events)
        kinds = Counter()
        for step in analysis.steps(events):
            group = events[step.first : step.last + 1]
            state = tl.state_at(step.last)
            for h in analysis.highlights(group, state):
                kinds[h["kind"]] += 1
                if h["kind"] == "path":
                    moved = next(e for e in group if e["kind"] in ("unit_moved", "unit_retreated")
                                 and e["unit"] == h["unit"] and tuple(e["to_cell"]) == h["cells"][-1])
                    if moved["kind"] == "unit_retreated":
                        assert h["cells"] == [tuple(moved["from_cell"]), tuple(moved["to_cell"])]
                        continue
                    assert h["cells"][0] == tuple(moved["from_cell"])
                    assert len(h["cells"]) == len(moved["path"]) + 1
                elif h["kind"] in ("shooting", "melee", "contact"):
                    assert h["from"] == state.units[h["source"]].cell
                    assert h["to"] == state.units[h["target"]].cell
        if name in BUNDLED_MELEE:  # bot games on the melee periods' bundled scenarios
            assert kinds["path"] and kinds["melee"] and kinds["removed"], name


def test_exhaustion_adds_up_strength_lost_against_a_one_third_reference(games):
    """One Hour Wargames has no exhaustion rule: each side's lost strength (hits a unit can take,
    never more than hits_to_remove a unit) is measured against one third of its starting
    strength, labelled a reference."""
    for name, events in games.items():
        if events[0]["rule_system"] != "ohw":
            continue
        rows = analysis.exhaustion(events)
        last = max(e["turn"] for e in events)
        assert [(r["turn"], r["side"]) for r in rows] == [
            (t, s) for t in range(last + 1) for s in ("red", "blue")], name
        final = replay(events)
        limit = final.options["hits_to_remove"]
        for side in ("red", "blue"):
            mine = [r for r in rows if r["side"] == side]
            units = [u for u in final.units.values() if u.side == side]
            assert mine[-1]["start"] == limit * len(units), name
            assert mine[-1]["lost"] == sum(min(u.hits, limit) for u in units), name
            assert all(r["basis"] == "reference" and r["rule"] is None for r in mine)
            assert all(r["threshold"] == round(r["start"] / 3, 2) for r in mine)
            assert all(a["lost"] <= b["lost"] for a, b in zip(mine, mine[1:])), name
            assert all(r["exhausted"] == (r["lost"] >= r["start"] / 3) for r in mine), name
        reached = analysis.exhausted_turns(rows)
        for side, turn in reached.items():
            first = next(r for r in rows if r["side"] == side and r["exhausted"])
            assert first["turn"] == turn


def test_exhaustion_counts_a_rolled_army():
    events = [orjson.loads(line) for line in
              (GOLDEN / "army-dark-ages-6-hex.events.jsonl").read_bytes().splitlines()]
    red = [r for r in analysis.exhaustion(events) if r["side"] == "red"]
    assert red[0]["turn"] == 0 and red[0]["start"] == 60  # six rolled units of 10 hits


def test_portable_exhaustion_follows_the_recorded_points_and_the_army_exhausted_events(games):
    """The Portable Wargame's own rule: the threshold is the exhaustion point recorded before the
    first turn, lost strength counts a Commander only once lost, and an army is exhausted from
    the turn its army_exhausted event says."""
    portable = {n: e for n, e in games.items() if e[0]["rule_system"] == "portable"}
    assert portable
    for name, events in portable.items():
        points = next(e for e in events if e["kind"] == "exhaustion_points")
        declared = {e["side"]: e["turn"] for e in events if e["kind"] == "army_exhausted"}
        for r in analysis.exhaustion(events):
            assert r["basis"] == "rule" and r["rule"] == "portable.exhaustion"
            assert r["threshold"] == points["points"][r["side"]]
            assert r["start"] == points["strength"][r["side"]]
            assert r["exhausted"] == (r["side"] in declared and declared[r["side"]] <= r["turn"])
            if r["exhausted"]:
                assert r["lost"] >= r["threshold"], name


def test_luck_over_time_ends_at_the_luck_of_the_whole_game(games):
    for name, events in games.items():
        rows = analysis.luck_by_turn(events)
        whole = {r["side"]: r["luck"] for r in analysis.luck(events)}
        last = max(e["turn"] for e in events)
        assert [(r["turn"], r["side"]) for r in rows] == [
            (t, s) for t in range(last + 1) for s in ("red", "blue")], name
        for side in ("red", "blue"):
            final = [r for r in rows if r["side"] == side][-1]["luck"]
            assert abs(final - whole[side]) < 0.02, (name, side)


def test_systems_and_sides_are_named_for_people(bundled_games):
    names = {}
    for sc in bundled_scenarios():
        final = replay(bundled_games[sc.id])
        names[sc.id] = analysis.system_name(final)
        # the scenario comes back from the first event with its sides in key order, blue first
        assert list(final.scenario.side_names) == ["red", "blue"]
    assert names["ancients-river-crossing"] == "One Hour Wargames: Ancients"
    assert names["pike-and-shot-auldearn"] == "One Hour Wargames: Pike & Shot"
    assert names["portable-zama"] == "The Portable Wargame: Ancient Battles"
    assert names["frontier-ulundi"] == "Frontier (Joseph Morschauser)"
    assert names["napoleonic-aspern"] == "Napoleonic battles on a grid"
    assert names["density-granicus"] == "Ancient battles with formation density"


def test_rules_are_titled_for_people_even_when_unknown():
    from warlog.engine.rulesets.tables import rules_title

    assert rules_title("ohw", "horse_and_musket") == "One Hour Wargames: Horse & Musket"
    assert rules_title("density", "density") == "Ancient battles with formation density"
    assert rules_title("chess", "modern") == "chess modern"  # a system this version lacks


def test_a_note_on_an_early_turn_changes_no_exhaustion_row(river_game):
    """Issue 22: a note carries the turn of the moment it is about; appended after the last
    turn, it gave the chart a point at that turn with the final totals (and flat lines)."""
    from warlog.events.model import make_note

    early = next(e["seq"] for e in river_game if e["turn"] == 2)
    noted = [*river_game, make_note(river_game, early, "the ford was the key")]
    assert noted[-1]["turn"] == 2
    assert analysis.exhaustion(noted) == analysis.exhaustion(river_game)
