"""Bots: policies that play any rule set through legal_orders, and a loop that plays a game out.

A bot's randomness comes from the game's seed and the position in the log (never from a global
generator), so the same seed gives the same game, and `verify` can replay the bots' choices.
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Callable, Iterator
from typing import Protocol

from warlog.engine.dice import SplitMix64
from warlog.engine.game import Game, legal_orders
from warlog.engine.rulesets.density import combat as density_combat
from warlog.engine.rulesets.ohw import combat as ohw_combat
from warlog.engine.rulesets.tables import load_table
from warlog.engine.scenario import Scenario
from warlog.engine.state import GameState, Unit
from warlog.engine.rulesets import get_ruleset
from warlog.events.orders import (
    BarrageOrder,
    BombardOrder,
    EndPhaseOrder,
    FightOrder,
    FormationOrder,
    HitChoiceOrder,
    MeleeOrder,
    MoveOrder,
    Order,
    ReformOrder,
    RolesOrder,
    RouteOrder,
    ShootOrder,
    TurnToFaceOrder,
)

MAX_ORDERS = 20_000  # a game that needs more is a bug in a policy, not a long battle


def bot_rng(state: GameState) -> SplitMix64:
    """The generator for the decision at this point of the log."""
    return SplitMix64(((state.seed or 0) * 1_000_003 + state.seq * 7_919) & ((1 << 64) - 1))


class Policy(Protocol):
    name: str

    def choose(self, state: GameState, rng: SplitMix64) -> Order: ...


def _candidates(state: GameState) -> list[Unit]:
    """Units of the side to move that may still have something to do this phase."""
    if state.pending:  # a player owes a choice for one unit
        return [state.units[state.pending[0]["unit"]]]
    if state.rule_system != "ohw":  # activation systems: every unit not yet done
        return [u for u in state.alive(state.side) if not u.done]
    period = load_table(state.rule_system)["periods"][state.period]
    table = period["units"]
    out = []
    for u in state.alive(state.side):
        if state.phase == "movement" and (not u.acted or state.in_melee(u.id)
                                          or ("square" in period and not u.reformed)):
            out.append(u)
        elif (state.phase == "shooting" and not u.shot and not u.out_of_ammo
              and table[u.type]["shoot_range"] > 0):
            out.append(u)
    return out


def _unit_free_orders(state: GameState) -> list[Order]:
    """The orders of a choice that is not a unit's activation (the pre-game roles and barrage,
    a choice owed for a hit unit), if one is due: nothing else may be ordered then."""
    if state.phase in ("roles", "barrage") or state.pending:
        return [o for o in legal_orders(state) if not isinstance(o, EndPhaseOrder)]
    return []


def _side_orders(state: GameState) -> list[Order]:
    """Orders a side gives as a whole, not through one unit (Frontier's combats)."""
    if state.phase in getattr(get_ruleset(state.rule_system), "side_order_phases", ()):
        return [o for o in legal_orders(state) if not isinstance(o, EndPhaseOrder)]
    return []


def _order_kind(order: Order) -> str:
    if isinstance(order, MoveOrder):
        return "attack" if order.attack else ("pivot" if order.distance == 0 else "move")
    if isinstance(order, RouteOrder):
        return "move" if order.path else "pivot"
    return order.type


class RandomLegal:
    """Any legal order, at random: a unit (or ending the phase), then a kind of order that unit
    may give (move, pivot, attack, shoot, turn to face), then one order of that kind. Choosing
    the kind first keeps the rare orders (attacks) from drowning among a hundred moves, so random
    games reach every rule."""

    name = "random"

    def choose(self, state: GameState, rng: SplitMix64) -> Order:
        free = _unit_free_orders(state)
        if free:
            return free[rng.below(len(free))]
        side = _side_orders(state)
        if side:  # as likely as ending the phase
            return side[rng.below(len(side))] if rng.below(2) else EndPhaseOrder()
        units = _candidates(state)
        k = rng.below(len(units) + 1)
        for i in range(len(units) if k < len(units) else 0):
            orders = legal_orders(state, units[(k + i) % len(units)].id)
            if orders:
                marked = [(_order_kind(o), o) for o in orders]
                kinds = list(dict.fromkeys(k for k, _ in marked))
                kind = kinds[rng.below(len(kinds))]
                of_kind = [o for k, o in marked if k == kind]
                return of_kind[rng.below(len(of_kind))]
        return EndPhaseOrder()


class _Scoring:
    """Score every legal order; play the best one if it beats ending the phase (score 0).
    Ties go to the generator, so two equal choices are not always resolved the same way."""

    name = "scoring"

    defends = False  # given the choice (Machine Age trenches), does it take the defence?

    def nearest(self, state: GameState, unit: Unit, cell) -> tuple[int, Unit | None]:
        """The nearest enemy of ``unit``'s side to ``cell``, remembered for this decision."""
        key = (cell, unit.side)
        if key not in self._near:
            self._near[key] = _nearest(state, unit, cell)
        return self._near[key]

    def scored(self, state: GameState) -> Iterator[tuple[float, Order]]:
        """Every order the side may give now (but ending the phase) with its score: the side's
        own orders first, then each candidate unit's, in legal_orders' order."""
        for order in _side_orders(state):
            yield self.side_score(state, order), order
        for unit in _candidates(state):
            for order in legal_orders(state, unit.id):
                yield self.score(state, unit, order), order

    def choose(self, state: GameState, rng: SplitMix64) -> Order:
        self._near: dict = {}  # one decision's memo: the position does not change within it
        free = _unit_free_orders(state)
        if free:
            return max(free, key=lambda o: self.pregame_score(state, o))
        best: list[Order] = []
        best_score = 0.0
        for score, order in self.scored(state):
            if score > best_score + 1e-9:
                best, best_score = [order], score
            elif abs(score - best_score) <= 1e-9 and best:
                best.append(order)
        if not best:
            return EndPhaseOrder()
        return best[rng.below(len(best))]

    def pregame_score(self, state: GameState, order: Order) -> float:
        if isinstance(order, HitChoiceOrder):
            return self.score(state, state.units[order.unit], order)
        if isinstance(order, RolesOrder):
            mine = order.defender == state.side
            return 1.0 if mine == self.defends else 0.0
        assert isinstance(order, BarrageOrder)  # strike units without cover first
        return sum(-1.0 * (state.terrain.get(state.units[t].cell, "open") != "open")
                   for t in order.targets)

    def side_score(self, state: GameState, order: Order) -> float:
        assert isinstance(order, FightOrder)  # the bold follow up a win, the careful stay
        score = self.attack_score(state, state.units[order.target], False)
        return score + (0.1 if order.advance != self.defends else 0.0)

    def score(self, state: GameState, unit: Unit, order: Order) -> float:
        if isinstance(order, BombardOrder):  # a shell aimed at an enemy, seen if possible
            there = state.unit_at(tuple(order.cell))
            return 5.0 if there is not None and there.side != unit.side else -1.0
        if isinstance(order, HitChoiceOrder):  # the cautious keep their strength, the bold their ground
            return 2.0 if (order.choice == "retreat") == self.defends else 1.0
        if isinstance(order, MeleeOrder):
            target = state.units[order.target]
            flank = state.grid.aspect(target.cell, target.facing, unit.cell) != "front"
            return self.attack_score(state, target, flank)
        if isinstance(order, ShootOrder):
            return 1 + expected_shot(state, unit, state.units[order.target])
        if isinstance(order, TurnToFaceOrder):
            return 50.0
        if isinstance(order, FormationOrder):
            return self.formation_score(state, unit, order)
        if isinstance(order, RouteOrder):
            return self.move_score(state, unit, order)
        if isinstance(order, ReformOrder):
            return self.reform_score(state, unit)
        assert isinstance(order, MoveOrder)
        if order.attack is not None:
            target = state.units[order.attack]
            end = _end_cell(state, unit, order)
            flank = state.grid.aspect(target.cell, target.facing, end) != "front"
            return self.attack_score(state, target, flank)
        return self.move_score(state, unit, order)

    def formation_score(self, state: GameState, unit: Unit, order: FormationOrder) -> float:
        """Form square when enemy cavalry is close; leave it when none is."""
        near = min((state.grid.distance(unit.cell, e.cell) for e in state.alive()
                    if e.side != unit.side and e.type == "Cavalry"), default=99)
        if order.formation == "square":
            return 40.0 if near <= self.square_when else -1.0
        return 5.0 if near > self.square_when + 1 else -1.0

    square_when = 3  # enemy cavalry this close: form square

    def reform_score(self, state: GameState, unit: Unit) -> float:
        """Bring figures back into the ranks (density) once they cost the die more than one:
        a second figure out outweighs a cell's advance."""
        return 2.0 * min(unit.disordered, 2)

    def attack_score(self, state: GameState, target: Unit, flank: bool) -> float:
        raise NotImplementedError

    def move_score(self, state: GameState, unit: Unit, order: MoveOrder) -> float:
        raise NotImplementedError


def expected_shot(state: GameState, shooter: Unit, target: Unit) -> float:
    """Expected hits of a shot (exact over the die's faces), plus a little for a target already
    worn down (for ranking targets)."""
    if state.rule_system == "density":  # One Hour Wargames' arithmetic, less the disorder
        return density_combat.expected_shot(state, shooter, target) + target.hits / 10
    if state.rule_system != "ohw":  # one die that hits on hit_on or more
        return (7 - state.options.get("hit_on", 5)) / 6 * 3 + target.hits / 10
    period = load_table(state.rule_system)["periods"][state.period]
    attack = ohw_combat.shooting(state, period, shooter, target)
    return attack.expected(state.options["halving"]) + target.hits / 10


def _combat_table(state: GameState):
    """The period table whose rows give ranges and halvings: the game's own, or for the density
    system the One Hour Wargames period it fights by (option combat). Kept in the game's memo
    (it depends on the rule system, period and options alone): bots ask it for every order."""
    found = state.memo.get("bots.combat_table")
    if found is None:
        if state.rule_system == "density":
            found = load_table("ohw")["periods"][state.options["combat"]]
        else:
            found = load_table(state.rule_system)["periods"][state.period]
        state.memo["bots.combat_table"] = found
    return found


def _defensive_ground(state: GameState, cell) -> bool:
    """Whether ``cell`` would protect a unit defending on it (for the cautious bot). Per cell in
    the game's memo: it depends on the terrain and the table alone, and is asked of every move."""
    memo = state.memo.setdefault("bots.defensive_ground", {})
    found = memo.get(cell)
    if found is None:
        period = _combat_table(state)
        terrain = state.terrain.get(cell, "open")
        found = memo[cell] = any(h.get("defending") and terrain in h.get("terrain", ())
                                 for h in period.get("halvings", ()))
    return found


def _end_cell(state: GameState, unit: Unit, order: MoveOrder | RouteOrder):
    if isinstance(order, RouteOrder):
        return tuple(order.path[-1]) if order.path else unit.cell
    cells = state.grid.straight(unit.cell, order.facing, order.distance)
    return cells[-1] if cells else unit.cell


def _nearest(state: GameState, unit: Unit, cell) -> tuple[int, Unit | None]:
    best, who = 10**6, None
    for e in state.alive():
        if e.side != unit.side:
            d = state.grid.distance(cell, e.cell)
            if d < best:
                best, who = d, e
    return best, who


def _is_shooter(state: GameState, unit: Unit) -> bool:
    """Whether the unit's type shoots (reach beyond the next cell); per type, in the game's memo
    (the table never changes within a game)."""
    memo = state.memo.setdefault("bots.shooter", {})
    found = memo.get(unit.type)
    if found is None:
        row = _combat_table(state)["units"][unit.type]
        found = memo[unit.type] = row.get("shoot_range", row.get("range", 0)) > 1
    return found


def _facing_score(state: GameState, cell, facing: str, enemy: Unit | None) -> float:
    if enemy is None or cell == enemy.cell:
        return 0.0
    return 1.0 if state.grid.in_arc(cell, facing, enemy.cell, 90) else 0.0


class Aggressive(_Scoring):
    """Closes with the enemy and attacks whenever it can; shooters shoot rather than move."""

    name = "aggressive"

    def attack_score(self, state, target, flank):
        return 100 + 30 * flank + target.hits

    def move_score(self, state, unit, order):
        before, _ = self.nearest(state, unit, unit.cell)
        end = _end_cell(state, unit, order)
        after, enemy = self.nearest(state, unit, end)
        final = getattr(order, "end_facing", None) or order.facing
        if _is_shooter(state, unit) and 2 <= before <= 4:
            return -1.0  # already in range: stay and shoot
        return 3 * (before - after) + _facing_score(state, end, final, enemy) - 0.5


class Cautious(_Scoring):
    """Holds good ground, shoots, and attacks only a weakened enemy or one taken in flank."""

    name = "cautious"
    defends = True
    square_when = 4

    def attack_score(self, state, target, flank):
        weak = target.hits >= state.options.get("hits_to_remove", 4) // 2
        return 60 + target.hits if (flank or weak) else -1.0

    def to_objective(self, state: GameState, cell) -> int:
        """Distance from ``cell`` to the nearest objective, remembered for this decision (every
        move of a unit starts from the same cell, and many end on the same cells)."""
        key = ("objective", cell)
        found = self._near.get(key)
        if found is None:
            objectives = [tuple(c) for c in state.scenario.victory.objectives]
            found = self._near[key] = min(state.grid.distance(cell, c) for c in objectives)
        return found

    def move_score(self, state, unit, order):
        end = _end_cell(state, unit, order)
        before, _ = self.nearest(state, unit, unit.cell)
        after, enemy = self.nearest(state, unit, end)
        if _is_shooter(state, unit) and 2 <= before <= 4:
            return -1.0
        good_ground = _defensive_ground(state, end)
        score = 2.0 * good_ground - 0.5
        if after <= 2 and not _is_shooter(state, unit):
            score -= 3
        if state.scenario.victory.objectives:
            score += 1.5 * (self.to_objective(state, unit.cell) - self.to_objective(state, end))
        elif after > 4:
            score += before - after
        final = getattr(order, "end_facing", None) or order.facing
        return score + _facing_score(state, end, final, enemy)


def _tactician() -> Policy:
    from warlog.engine.tactician import Tactician

    return Tactician()


def _search() -> Policy:
    from warlog.engine.search_bot import Search

    return Search()


def _deep_search() -> Policy:
    from warlog.engine.search_bot import DeepSearch

    return DeepSearch()


@dataclass(frozen=True)
class Bot:
    """A released policy: how to make it, and one line on its strength and speed (how the seat
    pickers and docs/bots.md describe it), kept together so a new bot cannot lack its words."""

    make: Callable[[], Policy]
    words: str
    searches: bool = False  # plays playouts of its own at every decision


# A stored game names its bots and verify re-chooses their orders, so a released policy never
# changes what it plays: a better bot comes under a new name.
POLICIES: dict[str, Bot] = {
    "aggressive": Bot(Aggressive, "closes with the enemy and attacks whenever it can, a fair "
                                  "opponent; fast"),
    "cautious": Bot(Cautious, "holds good ground and attacks only the weak or a flank, the "
                              "weakest of the heuristics; fast"),
    "random": Bot(RandomLegal, "any legal order at random, the weakest; instant"),
    "tactician": Bot(_tactician, "reads the position (walking distances, attack odds, ground), "
                                 "the strongest heuristic; fast"),
    "search": Bot(_search, "playouts over the tactician's best orders, one exchange deep, "
                           "stronger than the tactician; slow (about a hundred times its work "
                           "a move)", searches=True),
    "deep-search": Bot(_deep_search, "the same search two exchanges deep, the strongest bot; "
                                     "slowest (about 2.8 times the search, seconds a decision)",
                       searches=True),
}

# The policies that play playouts of their own at every decision: a hundred times the
# tactician's work a move, which a what-if multiplies by its playouts.
SEARCH_POLICIES = tuple(name for name, bot in POLICIES.items() if bot.searches)


def get_policy(name: str) -> Policy:
    try:
        return POLICIES[name].make()
    except KeyError:
        raise ValueError(f"unknown policy {name!r}; choose one of {', '.join(POLICIES)}") from None


def next_order(state: GameState) -> Order:
    """What the bot playing the side to move orders now."""
    policy = get_policy(state.players[state.to_act])
    return policy.choose(state, bot_rng(state))


def play_out(game_id: str, scenario: Scenario, *, seed: int, red: str = "aggressive",
             blue: str = "cautious",
             watch: Callable[[GameState], None] | None = None) -> Game:
    """Play a whole game between two bots. Same arguments, same game, byte for byte.
    ``watch`` sees the state after every order (a progress bar: it changes nothing)."""
    get_policy(red), get_policy(blue)  # fail early on a bad name
    game = Game.new(game_id, scenario, seed=seed, players={"red": red, "blue": blue})
    for _ in range(MAX_ORDERS):
        if game.state.ended:
            return game
        game.play(next_order(game.state), by=game.state.players[game.state.to_act])
        if watch is not None:
            watch(game.state)
    raise RuntimeError(f"{game_id}: no result after {MAX_ORDERS} orders (a policy loops)")
