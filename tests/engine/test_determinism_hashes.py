"""Seeded games stay byte for byte the same: a guard for speed work on the engine.

Speeding up the engine (state copies, geometry, the move generator, the referee) must not change
a single game. The golden games pin hand-checked positions; this file pins whole random games of
every bundled scenario (all five rule systems, all three grid kinds), and with them the exact
order of every ``legal_orders`` list (a bot picks by index, so reordering a list changes games),
the referee's verdict (rule and message) on a spread of orders legal and illegal, states scrubbed
from a Timeline, and a fingerprint of the grid geometry.

The games are played by a small driver here, not by engine/bots.py, so a change to a bot's
policy does not move these digests: only the engine's behaviour does.

How the digests were obtained: by running ``.venv/bin/python tests/engine/test_determinism_hashes.py``
(which prints them), first on the code of commit dda0180, before the speed work of issue 10 part 7
changed engine/state.py, geometry.py, fold.py and rulesets/ohw*.py; last after issue 18's rules
brought to the books (schema 3: every game records new options, and five rule systems play
otherwise), once its golden games were reviewed. A deliberate rules change regenerates them the
same way; games recorded before it keep verifying through the upcaster (tests/events/fixtures).
"""

from __future__ import annotations

import hashlib

import orjson
import pytest

from warlog.engine.dice import SplitMix64
from warlog.engine.fold import Timeline
from warlog.engine.game import Game, legal_orders
from warlog.engine.geometry import GRID_KINDS, make_grid
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.scenario import bundled_scenarios
from warlog.events.orders import EndPhaseOrder, MoveOrder, ShootOrder

MAX_ORDERS = 400  # per game: long enough to reach melee and removals, short enough to run fast
SEEDS = (1, 2)

# scenario id -> sha256 of its games (SEEDS), recorded as the module docstring says.
GAME_DIGESTS = {
    "ancients-battle-for-the-hill": "2b4acd7c6eef0ac9fdea7326ec5efd64aad91ee3951ed4098c0f6def8d379d02",
    "ancients-river-crossing": "0cef716b93a40df29a3a9c96ac32c610d5c241169e676879e587f77e01d1ab09",
    "ancients-village-between-marshes": "e59dd639a25dbd90a695ee0095cd821d49aceb377e0038dfb6ae641fd4de99fb",
    "dark-ages-causeway-at-maldon": "c5b4eba8d531aac0c02962dcf375068e62a795898918bb360e4f8fa03338a2a6",
    "density-granicus": "37c13ae7cbf3e6a1060cd7daeb5b75d9212e0dcade5edb040bc4cd21060ea071",
    "density-stamford-bridge": "9118432dab69ad110679dd28c11c69d2778dba78ff201fed279d7d45b9418bd8",
    "frontier-kandahar": "570d3818a57883b10aac2f955ee673dff5f977f244005a5df705104b5fcf21a2",
    "frontier-ulundi": "50aaaa0fd4ab51aa8adc1d2ad6218d78f11915a2b699533cc0caac967c822148",
    "horse-and-musket-koniggratz": "c75cf120e1c63e3a5425d7866aa0a8741949894f3bd43d580e4efff8a345024f",
    "horse-and-musket-quatre-bras": "a33d14c9ef05fd3712a89e9d973e9d85acbeb0787d04d5d51bd4291fe4bc7c12",
    "machine-age-flesquieres-ridge": "4bddc18b9f9c68bab7e6ba9679bb91777f2911673f3565b86b3a9c4679b75934",
    "machine-age-hill-sixty": "08d300cdf32574bfc15b6838f5f1108448f502b2dd3ffefab6e7af21ea746e3c",
    "medieval-between-the-woods": "a5462edc574c2961f5707d34ec6fcb6c999b4d571241cc33dbe9bd0c918821ac",
    "napoleonic-aspern": "44b2f487c86cc08a53f40a235abdc1b83b33e793127b17bc0a145751c8026719",
    "napoleonic-hougoumont": "7960b72c17f308892d955b546a5cf557ab21b7e48432b70ca4c7ec1d0bad777f",
    "pike-and-shot-auldearn": "0ba5627a7432d1b3b4349f493c126c6b326e47b95c4178c512368c0cf1c983bb",
    "portable-issus": "77ccb7b65c738d1526981641e890047434a4043d909a5d7151f6e03fadc6208e",
    "portable-the-axona": "ded3a600bbfec691b8c4ce81dfc05f2dfaf528c80f9a9e204197a8812a3b2c8b",
    "portable-zama": "9dfccd97fd10e5e09421c5a5d873884294c8af560310faa41ec3c2eaaf6709c4",
    "ww2-villers-bocage": "661ee546bea769233efbb76091e4d8102dd7286470aaa5bc146c44cfcaa366a1",
}
GEOMETRY_DIGEST = "27175a987bdf1016eb22cebb7abd35fa0926f36fb212ab98356e203eb1345ca6"
TIMELINE_DIGEST = "d311ea4b9e2d7a6a9c34c01daf2869f2142fd288654648b90747127bba0c4358"


def _dump(obj) -> bytes:
    return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS)


def _verdict(ruleset, state, order) -> bytes:
    try:
        ruleset.check(state, order)
    except IllegalOrder as exc:
        return _dump([exc.rule, str(exc)])
    return b"ok"


def _probe_orders(state) -> list:
    """Orders to put to the referee: every straight move, pivot and attack of each unit of the
    side to move (One Hour Wargames' straight-moving periods), and every shot at every enemy."""
    grid, out = state.grid, []
    enemies = [u for u in state.units.values() if u.side != state.side]
    for u in state.units.values():
        if u.side != state.side:
            continue
        for f in grid.facings:
            for d in range(0, 5):
                out.append(MoveOrder(unit=u.id, facing=f, distance=d))
            out += [MoveOrder(unit=u.id, facing=f, distance=d, attack=e.id)
                    for e in enemies for d in range(0, 4)]
        out += [ShootOrder(unit=u.id, target=e.id) for e in enemies]
    return out


def _kind(order) -> str:
    if getattr(order, "attack", None) is not None:
        return "attack"
    return order.type


def play(scenario, seed: int, h) -> list[dict]:
    """A seeded random game of at most MAX_ORDERS orders, every decision folded into ``h``."""
    game = Game.new(f"det-{seed}", scenario, seed=seed, players={"red": "a", "blue": "b"})
    ruleset = get_ruleset(game.state.rule_system)
    units = list(game.state.units)
    for n in range(MAX_ORDERS):
        state = game.state
        if state.ended:
            break
        rng = SplitMix64(seed * 1_000_003 + state.seq)
        orders = legal_orders(state)
        h.update(b"L" + _dump([o.model_dump(mode="json") for o in orders]))
        one = units[rng.below(len(units))]
        h.update(b"U" + _dump([o.model_dump(mode="json") for o in legal_orders(state, one)]))
        if state.rule_system == "ohw" and n % 5 == 0 and state.phase in ("movement", "shooting"):
            for order in _probe_orders(state):
                h.update(b"V" + _verdict(ruleset, state, order))
        ends = [o for o in orders if isinstance(o, EndPhaseOrder)]
        others = [o for o in orders if not isinstance(o, EndPhaseOrder)]
        if ends and (not others or rng.below(20) == 0):
            order = ends[0]
        else:  # a kind of order first (attacks are rare among a hundred moves), then one of it
            kinds = list(dict.fromkeys(_kind(o) for o in others))
            kind = kinds[rng.below(len(kinds))]
            of_kind = [o for o in others if _kind(o) == kind]
            order = of_kind[rng.below(len(of_kind))]
        game.play(order, by=state.players[state.to_act])
    for event in game.events:
        h.update(b"E" + _dump(event))
    return game.events


def game_digest(scenario) -> str:
    h = hashlib.sha256()
    for seed in SEEDS:
        play(scenario, seed, h)
    return h.hexdigest()


def geometry_digest() -> str:
    """Every pure function of the grid on a small board of each kind, off-board cells included."""
    h = hashlib.sha256()
    for kind in GRID_KINDS:
        grid = make_grid(kind, 7, 6)
        cells = [(c, r) for r in range(-1, 7) for c in range(-1, 8)]
        blocked = {(2, 2), (3, 2), (4, 3), (1, 4), (5, 1)}
        for a in cells:
            h.update(_dump([grid.contains(a), grid.neighbours(a)]))
            for f in grid.facings:
                h.update(_dump([grid.step(a, f), grid.straight(a, f, 3), grid.opposite(f),
                                grid.facing_angle(f)]))
            for b in cells:
                row = [grid.distance(a, b), grid.facing_to(a, b)]
                if a != b:
                    row.append(grid.bearing(a, b))
                    row += [grid.in_arc(a, f, b, arc) for f in grid.facings for arc in (90, 180)]
                    if grid.contains(a) and grid.contains(b):
                        row += [grid.line(a, b), grid.line_of_sight(a, b, blocked.__contains__)]
                if grid.facing_to(a, b) is not None:
                    row += [grid.aspect(a, f, b) for f in grid.facings]
                h.update(_dump(row))
    return h.hexdigest()


def timeline_digest() -> str:
    """States scrubbed at seeded random steps of one game equal the states folded straight."""
    scenario = next(s for s in bundled_scenarios() if s.id == "ancients-battle-for-the-hill")
    events = play(scenario, 3, hashlib.sha256())
    timeline = Timeline(events)
    rng = SplitMix64(11)
    h = hashlib.sha256()
    for _ in range(60):
        state = timeline.state_at(rng.below(len(events)))
        h.update(_dump([state.seq, state.public(), state.checksum()]))
    return h.hexdigest()


@pytest.mark.slow
@pytest.mark.parametrize("scenario", bundled_scenarios(), ids=lambda s: s.id)
def test_seeded_games_are_unchanged(scenario):
    assert game_digest(scenario) == GAME_DIGESTS.get(scenario.id), (
        f"the seeded games of {scenario.id} changed: a speed change altered the engine's "
        "behaviour (or a rules change needs its digests regenerated, see the module docstring)")


def test_every_bundled_scenario_has_a_digest():
    assert sorted(GAME_DIGESTS) == sorted(s.id for s in bundled_scenarios())


def test_grid_geometry_is_unchanged():
    assert geometry_digest() == GEOMETRY_DIGEST


def test_scrubbed_states_are_unchanged():
    assert timeline_digest() == TIMELINE_DIGEST


if __name__ == "__main__":  # print the digests, to paste above after a deliberate rules change
    print("GAME_DIGESTS = {")
    for s in bundled_scenarios():
        print(f'    "{s.id}": "{game_digest(s)}",')
    print("}")
    print(f'GEOMETRY_DIGEST = "{geometry_digest()}"')
    print(f'TIMELINE_DIGEST = "{timeline_digest()}"')
