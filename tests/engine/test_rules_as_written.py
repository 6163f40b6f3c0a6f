"""Rules as written, checked from the logs alone (issue 18): in seeded bot games of every rule
system, no unit breaking contact ends beside the enemy it left, no battery fires at the cell next
to it, and every shot at a Machine Age defender on open ground is halved for its trench.

Each game is read event by event with the fold (which knows no rules): the position before an
event is what the log says it was, so a referee that broke these rules would be caught here even
if its own checks agreed with it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from warlog.engine.bots import play_out
from warlog.engine.fold import evolve
from warlog.engine.scenario import bundled_scenarios, load_scenario
from warlog.engine.state import GameState

# (scenario, red, blue, seeds): the cheaper bots more often; about 25 s of games in all.
SWEEP = [(scenario, red, blue, seed)
         for scenario, red, blue, seeds in (
             ("napoleonic-aspern", "aggressive", "cautious", (1, 2)),
             ("napoleonic-aspern", "tactician", "tactician", (1,)),
             ("napoleonic-hougoumont", "aggressive", "cautious", (1, 2)),
             ("frontier-kandahar", "aggressive", "cautious", (1, 2)),
             ("frontier-kandahar", "tactician", "tactician", (1, 2)),
             ("frontier-ulundi", "tactician", "tactician", (1, 2)),
             ("machine-age-hill-sixty", "aggressive", "cautious", (1, 2, 3, 4)),
             ("machine-age-hill-sixty", "tactician", "tactician", (1, 2, 3, 4)))
         for seed in seeds]


@pytest.fixture(scope="module")
def games(bundled_games) -> dict[str, list[dict]]:
    """A game of every bundled scenario (bundled_games), and more seeds and bots where the
    rules checked here come into play."""
    out = {sc.id: bundled_games[sc.id] for sc in bundled_scenarios()}
    for scenario, red, blue, seed in SWEEP:
        out[f"{scenario}-{red}-{blue}-{seed}"] = play_out(
            "g", load_scenario(scenario), seed=seed, red=red, blue=blue).events
    return out


def positions(events: list[dict]) -> Iterator[tuple[GameState, dict]]:
    """(the state before each event, the event), the state folded from the log alone."""
    state = None
    for event in events:
        if state is not None:
            yield state, event
        state = evolve(state, event, check=False)


def systems(games) -> set[str]:
    return {events[0]["rule_system"] for events in games.values()}


@pytest.mark.slow
def test_the_sweep_covers_every_rule_system(games):
    assert systems(games) == {"ohw", "portable", "frontier", "napoleonic", "density"}


@pytest.mark.slow
def test_no_unit_breaking_contact_ends_beside_the_enemy_it_left(games):
    checked = 0
    for events in games.values():
        if events[0]["rule_system"] != "napoleonic":
            continue
        for state, event in positions(events):
            if event["kind"] != "unit_moved" or "napoleonic.move.break_contact" not in event["rules"]:
                continue
            unit = state.units[event["unit"]]
            ahead = state.grid.step(unit.cell, unit.facing)
            left = [e for e in state.alive() if e.side != unit.side and e.cell == ahead]
            assert left, f"seq {event['seq']}: a break-contact move that faced no enemy"
            end = tuple(event["to_cell"])
            assert state.grid.distance(end, left[0].cell) > 1, f"seq {event['seq']}"
            checked += 1
    print(f'break-contact moves checked: {checked}')
    assert checked >= 3  # the sweep does break contact


@pytest.mark.slow
def test_no_battery_fires_at_the_cell_next_to_it(games):
    shots = 0
    for events in games.values():
        if events[0]["rule_system"] != "frontier":
            continue
        for state, event in positions(events):
            if event["kind"] == "shell_landed":
                battery = state.units[event["unit"]]
                assert state.grid.distance(battery.cell, tuple(event["aimed"])) > 1, \
                    f"seq {event['seq']}: {battery.id} fired at the next cell"
                shots += 1
    print(f'shells checked: {shots}')
    assert shots >= 20


def on_open_ground(state: GameState, cell) -> bool:
    return state.terrain.get(tuple(cell)) in (None, "road")


@pytest.mark.slow
def test_every_shot_at_a_machine_age_defender_on_open_ground_is_halved_for_its_trench(games):
    halved = 0
    for events in games.values():
        first = events[0]
        if first["period"] != "machine_age" or not first["options"].get("trenches"):
            continue
        for state, event in positions(events):
            if event["kind"] != "hits_inflicted" or event["attack"] != "shooting":
                continue
            target = state.units[event["target"]]
            trench = "trench" in event["halvings"]
            if target.side == state.defender and on_open_ground(state, target.cell):
                assert trench, f"seq {event['seq']}: {target.id} on open ground, not halved"
                halved += 1
            else:
                assert not trench, f"seq {event['seq']}: {target.id} halved for a trench"
    print(f'shots at defenders on open ground: {halved}')
    assert halved >= 10
