"""The tactician: a heuristic bot that reads the position, not a temperament.

Where the aggressive and cautious bots (kept unchanged, since stored games name them and verify
re-chooses their orders) measure distance as the crow flies and attack by temperament, the
tactician
- walks distances over the real board (engine/paths.py: lakes, rivers, ground its type may not
  enter), so it does not pace a river bank;
- values an attack by its expected outcome: the exact mean hits it deals, less what the target
  deals back in its own turn, more when the target is close to breaking; it makes the attack
  only when that balance is in its favour (no archers charging armoured infantry on a hill);
- values ground by what a move changes: stepping onto a hill or into a village counts, standing
  on one does not (the cautious bot pivoted on its hill every turn);
- goes for the objectives, and leaves one it holds only to attack;
- keeps shooters in range and out of contact, and turns them to face an enemy in range but out
  of their arc.
Choices it has no special view on (formations, reforms, hit choices, bombardment) follow the
shared scoring of engine/bots.py.
"""

from __future__ import annotations

from dataclasses import replace

from warlog.engine import paths
from warlog.engine.bots import (_combat_table, _defensive_ground, _end_cell, _is_shooter,
                                _Scoring, _unit_free_orders, expected_shot)
from warlog.engine.dice import SplitMix64
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.state import GameState, Unit
from warlog.events.orders import (EndPhaseOrder, FightOrder, MeleeOrder, MoveOrder, Order,
                                  RouteOrder, ShootOrder)

ATTACK_BASE = 20.0  # an attack worth making outranks any move
SHOT_BASE = 10.0


def _limit(state: GameState, unit: Unit) -> int:
    full, _ = get_ruleset(state.rule_system).strength(state, unit)
    return max(1, full)


def melee_balance(state: GameState, attacker: Unit, end, target: Unit) -> float:
    """Expected hits ``attacker`` deals from ``end`` (exact over the die), counted twice since
    it strikes before the target can answer, less what ``target`` deals back in its own turn,
    each as a share of the victim's strength left; positive favours the attacker. One Hour
    Wargames' arithmetic (and the density system's, which borrows it) through ohw_combat.melee,
    the referee's own; other systems from their exact odds."""
    if state.rule_system not in ("ohw", "density"):
        return _odds_balance(state, attacker, target)
    period = _combat_table(state)
    mode = state.options.get("halving", "each")
    mover = replace(attacker, cell=end, facing=state.grid.facing_to(end, target.cell) or attacker.facing)
    dealt = ohw_combat.melee(state, period, mover, target, defending=True).expected(mode)
    back = ohw_combat.melee(state, period, target, mover, defending=False).expected(mode)
    left = max(1, _limit(state, target) - target.hits)
    own_left = max(1, _limit(state, attacker) - attacker.hits)
    return 2 * dealt / left - back / own_left  # the attacker strikes first: its blow counts twice


def _odds_balance(state: GameState, attacker: Unit, target: Unit) -> float:
    """The same balance from the exact odds (engine/odds.py) where both sides' dice fall in one
    resolution (the Portable Wargame's and Napoleonic melee): mean strength each loses, as a
    share of what it has left. Kept per game under the whole position, so a cached value is
    always the value (playouts in any order find the same)."""
    from warlog.engine import odds

    key = ("bots.odds", attacker.id, target.id, state.phase,
           tuple((u.id, u.cell, u.facing, u.hits, u.removed, u.formation, u.moved, u.disordered)
                 for u in state.units.values()))
    memo = state.memo.setdefault("bots.odds", {})
    if key not in memo:
        if len(memo) > 20_000:
            memo.clear()
        try:
            found = odds.attack(state, attacker.id, target.id, "melee", choice="lose")
        except odds.OddsError:
            memo[key] = 0.0
        else:
            left = max(1, _limit(state, target) - target.hits)
            own_left = max(1, _limit(state, attacker) - attacker.hits)
            back = found.on_attacker.mean_lost if found.on_attacker is not None else 0
            memo[key] = float(found.on_target.mean_lost) / left - float(back) / own_left
    return memo[key]


class Tactician(_Scoring):
    name = "tactician"
    defends = True  # given a pre-game choice, it takes the defence (and keeps strength on a hit)

    def __init__(self) -> None:
        self._near: dict = {}
        self._fields: dict = {}
        self._sigs: dict = {}

    def fields(self, state: GameState, unit: Unit, objectives: bool = False):
        """The unit's walking field to the enemy (or to the objectives), for this decision."""
        key = (unit.side, unit.type, objectives)
        if key not in self._fields:
            self._fields[key] = (paths.objective_field(state, unit) if objectives
                                 else paths.enemy_field(state, unit))
        return self._fields[key]

    @staticmethod
    def in_arc(state: GameState, cell, facing: str, target) -> bool:
        """Whether ``target`` lies in the 90-degree arc ahead (geometry only: kept per game)."""
        memo = state.memo.setdefault("bots.arc", {})
        key = (cell, facing, target)
        if key not in memo:
            if len(memo) > 200_000:
                memo.clear()
            memo[key] = state.grid.in_arc(cell, facing, target, 90)
        return memo[key]

    @staticmethod
    def good_ground(state: GameState, cell) -> bool:
        memo = state.memo.setdefault("bots.good_ground", {})
        if cell not in memo:
            memo[cell] = _defensive_ground(state, cell)
        return memo[cell]

    def choose(self, state: GameState, rng: SplitMix64) -> Order:
        return self.ranked(state, rng)[0][1]

    def ranked(self, state: GameState, rng: SplitMix64) -> list[tuple[float, Order]]:
        """Every order worth considering, best first (end_phase scores 0), ties in a shuffled
        but seeded order."""
        self._near, self._fields, self._sigs = {}, {}, {}
        free = _unit_free_orders(state)
        if free:
            return sorted(((self.pregame_score(state, o), o) for o in free),
                          key=lambda p: -p[0])
        scored = list(self.scored(state))
        scored.append((0.0, EndPhaseOrder()))
        keys = [rng.next64() for _ in scored]
        order = sorted(range(len(scored)), key=lambda i: (-round(scored[i][0], 9), keys[i]))
        return [scored[i] for i in order]

    def score(self, state: GameState, unit: Unit, order: Order) -> float:
        if isinstance(order, MoveOrder) and order.attack is not None:
            return self.melee_score(state, unit, _end_cell(state, unit, order),
                                    state.units[order.attack])
        if isinstance(order, MeleeOrder):
            return self.melee_score(state, unit, unit.cell, state.units[order.target])
        if isinstance(order, ShootOrder):
            target = state.units[order.target]
            return SHOT_BASE + (expected_shot(state, unit, target) + target.hits) * 10 / _limit(state, target)
        if isinstance(order, (MoveOrder, RouteOrder)):
            return self.cached_move_score(state, unit, order)
        return super().score(state, unit, order)

    def side_score(self, state: GameState, order: Order) -> float:
        assert isinstance(order, FightOrder)
        target = state.units[order.target]
        return ATTACK_BASE + target.hits + (0.1 if not order.advance else 0.0)

    def melee_score(self, state: GameState, unit: Unit, end, target: Unit) -> float:
        balance = melee_balance(state, unit, end, target)
        if balance < -0.02:
            return -1.0
        return ATTACK_BASE + 20 * balance + 10 * target.hits / _limit(state, target)

    def cached_move_score(self, state: GameState, unit: Unit, order: MoveOrder | RouteOrder) -> float:
        """A move's worth depends on the unit, the order and where the enemy stands (never on
        friends, whose blocking legal_orders has already judged), so a phase's later decisions,
        and playouts from the same position, reuse it (kept per game, like the fields)."""
        sig = self._sigs.get(unit.side)
        if sig is None:
            sig = self._sigs[unit.side] = tuple(
                (e.cell, e.facing) for e in state.alive() if e.side != unit.side)
        key = (order, unit.cell, unit.facing, sig)
        memo = state.memo.setdefault("bots.move_scores", {})
        found = memo.get(key)
        if found is None:
            if len(memo) > 300_000:
                memo.clear()
            found = memo[key] = self.move_score(state, unit, order)
        return found

    def move_score(self, state: GameState, unit: Unit, order: MoveOrder | RouteOrder) -> float:
        end = _end_cell(state, unit, order)
        facing = getattr(order, "end_facing", None) or order.facing
        enemies = self.fields(state, unit)
        before, after = paths.walk(enemies, unit.cell), paths.walk(enemies, end)
        near, enemy = self.nearest(state, unit, end)
        shooter = _is_shooter(state, unit)
        score = -0.3  # moving for nothing is worse than standing
        if shooter:
            reach = _combat_table(state)["units"][unit.type].get("shoot_range", 0)
            now, _ = self.nearest(state, unit, unit.cell)
            if 2 <= now <= reach:
                in_arc = enemy is not None and self.in_arc(state, unit.cell, unit.facing, enemy.cell)
                if end == unit.cell and not in_arc and enemy is not None \
                        and self.in_arc(state, end, facing, enemy.cell):
                    return 4.0  # turn to shoot
                return -1.0  # in range: stay and shoot
            score += min(before, 30) - min(after, 30) if after >= 2 else -5.0
        else:
            score += min(before, 30) - min(after, 30)
        objectives = self.fields(state, unit, objectives=True)
        if objectives is not None:
            on_now = paths.walk(objectives, unit.cell) == 0
            if on_now and paths.walk(objectives, end) > 0:
                score -= 6.0
            score += 1.5 * (min(paths.walk(objectives, unit.cell), 30)
                            - min(paths.walk(objectives, end), 30))
        score += 1.5 * (self.good_ground(state, end) - self.good_ground(state, unit.cell))
        if enemy is not None and end != enemy.cell:  # facing the nearest enemy, compared with now
            now_facing = enemy.cell != unit.cell and self.in_arc(state, unit.cell, unit.facing, enemy.cell)
            score += 0.5 * (self.in_arc(state, end, facing, enemy.cell) - now_facing)
        return score
