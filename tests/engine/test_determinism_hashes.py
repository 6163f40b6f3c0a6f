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
(which prints them) on the code of commit dda0180, before the speed work of issue 10 part 7
changed engine/state.py, geometry.py, fold.py and rulesets/ohw*.py. A deliberate rules change
regenerates them the same way, after its golden games have been reviewed.
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
    "ancients-battle-for-the-hill": "1fee3b25b14efed3d9359975b063fa3564f6a4c068b9d49e655f1dbcbdd46c37",
    "ancients-river-crossing": "a50ab3644df42979e1cb46f1c8a5c1ad562a58399f3060c38cce5e5ed5552aae",
    "ancients-village-between-marshes": "c95a974ff4467b9403ccfac6c488e72308c6dfa8584b36554abf6f320231730b",
    "dark-ages-causeway-at-maldon": "3d4852193de232e083247b62570b3c6fc558e219d01e0934b1a4e24658985d76",
    "density-granicus": "8b3c43f596e6d7d24ab66d11f1e4d0b7f640d5f4daa6673e46c3eeb3e760eb28",
    "density-stamford-bridge": "966d2499133270769a295c15abbf62fd279f30b0a4a1e6606159fbb542947803",
    "frontier-kandahar": "49559ce574957b89eea29c6aabd288debb22a5e3f461c471a676c10501b10aaa",
    "frontier-ulundi": "98392eaad4513808a56fe3ac0a7e46fbe4eacf980febd482068adc3b96f64bdd",
    "horse-and-musket-koniggratz": "ea99144a5c43a53324bfd9ef27b86eae8cb7838ee2c0b0abebc208e0829c93e1",
    "horse-and-musket-quatre-bras": "553c67629bdbb53dfdb5c42668ce19873a75ef5691ed1b4405bf8ce06265c800",
    "machine-age-flesquieres-ridge": "755b90707c3f0e251f2b7c13ea70bbceead968352144179f3cbf3370dcab07ee",
    "machine-age-hill-sixty": "f9468b935cb565e3e5b7855772f254bad35fb558081b8ca556551d6165f21673",
    "medieval-between-the-woods": "d2a350ff38bc0906ec45748f73114e11867ff6a5b1dbba28333f23c4c04470e1",
    "napoleonic-aspern": "f43aa8f8f4b6f7281f596fc478f6e62bd8ff730353746685a96cc195264c605c",
    "napoleonic-hougoumont": "c2ce415e03badca6805aa18d2fc4d557e43d15df181dd0226eacedb01218e0a5",
    "pike-and-shot-auldearn": "4f190d678b32b95351e59695e9b2f349f65cdf1af4876ba9a9187a5b7b136b97",
    "portable-issus": "3bcbaab8c3b32aa9556844b2075551f91e296e138bb2e9c50f1888e82d1ef330",
    "portable-the-axona": "6ede941ad8ab5b424bdc063271eb77204bd8d29f5b4771de24a4ad91357a65db",
    "portable-zama": "2025922a4b64c204bc2068c523bcd374539e945a6bbfbc00ab9a31111190ee8a",
    "ww2-villers-bocage": "c2653d73f40f0211e906791a3e6e356a750a50d44966104d450ba816428e63ab",
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
