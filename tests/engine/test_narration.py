"""Narration: every event of every game in words, the arithmetic and rules shown, each line
seeing the state just before its event."""

from __future__ import annotations

from warlog.engine import narration
from warlog.engine.bots import play_out
from warlog.engine.fold import evolve, replay
from warlog.engine.scenario import load_scenario


def test_narrate_explains_the_arithmetic(river_game):
    state = replay(river_game)
    shot = {"kind": "hits_inflicted", "seq": 99, "attack": "shooting", "source": "r-arc-1",
            "target": "b-skm-1", "die": 4, "modifier": 0, "base": 4, "doubled": False,
            "halvings": ["armour"], "hits": 2, "total": 5}
    assert narration.narrate(shot, state) == (
        "r-arc-1 shoots b-skm-1: die 4 + 0 = 4, halved for armour -> 2 hits (total 5 of 10).")
    melee = dict(shot, attack="melee", die=3, modifier=1, doubled=True, halvings=[], hits=8)
    assert "fights" in narration.narrate(melee, state)
    assert "doubled (flank or rear) = 8 -> 8 hits" in narration.narrate(melee, state)


def test_every_event_of_every_game_narrates(bundled_games):
    for name, events in bundled_games.items():
        lines = narration.narrate_all(events)
        assert len(lines) == len(events)
        for line, e in zip(lines, events):
            assert line and not line.startswith(e["kind"]), (name, e["seq"], line)
        assert "Game over" in lines[-1] or events[-1]["kind"] != "game_ended"


def test_narrate_sees_the_state_before_the_event(river_game):
    state = None
    for e in river_game[:12]:
        line = narration.narrate(e, state)
        if e["kind"] == "unit_moved":
            assert f"({e['to_cell'][0]}, {e['to_cell'][1]})" in line
        state = evolve(state, e)


def test_a_hits_line_names_whose_modifier_it_adds():
    events = play_out("mods", load_scenario("ww2-villers-bocage"), seed=4).events
    state, seen = None, 0
    for e in events:
        if e["kind"] == "hits_inflicted" and e["modifier"] and e["source"]:
            line = narration.narrate(e, state)
            source, target = state.units[e["source"]].type, state.units[e["target"]].type
            sign = f"+ {e['modifier']}" if e["modifier"] > 0 else f"- {-e['modifier']}"
            assert f"die {e['die']} {sign} ({source} shooting at {target}) = {e['base']}" in line
            seen += 1
        state = evolve(state, e, check=False)
    assert seen


def test_phases_are_named_in_words_not_by_their_ids(bundled_games):
    from warlog.engine.analysis import steps

    named = set()
    for events in bundled_games.values():
        for line, e in zip(narration.narrate_all(events), events):
            if e["kind"] == "phase_started" and "_" in e["phase"]:
                assert f"{e['phase'].replace('_', ' ')} phase" in line, line
                named.add(e["phase"])
        ids = {e["phase"] for e in events if "_" in (e.get("phase") or "")}
        for step in steps(events):
            assert not any(phase in step.title for phase in ids), step.title
    assert named == {"missile_machines", "artillery_losses"}


def test_players_are_named_red_first_whatever_order_they_come_in():
    assert narration.players_text({"blue": "Bo", "red": "Ann"}) == "red: Ann v blue: Bo"
    assert narration.players_text({"blue": "tactician"}) == "blue: tactician"
    assert narration.players_text({}) == ""
