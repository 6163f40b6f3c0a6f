"""The search bots (``search``, ``deep-search``): Monte Carlo playouts over the tactician's best
few orders, one exchange deep or two.

At each decision the tactician ranks the legal orders and names the unit it would order next;
the search weighs what that unit should do. It plays each of the unit's best few outcomes (a
place to end, an enemy to attack) forward a fixed number of times (the tactician moving both
sides, fresh dice) until the enemy has had its answer, and takes the one whose playouts end in
the better position for its side: a won or lost battle outright, else the share of strength each
side has lost and the objectives held. Every candidate meets the same dice in its n-th playout
(common random numbers), so what differs between them is the order, not the luck.

The budget is counted in playouts, never in seconds: the same position gives the same choice on
any machine, and `verify` can re-choose a search bot's orders like any other bot's.
"""

from __future__ import annotations

from warlog.engine.bots import _end_cell
from warlog.engine.dice import SeededDice, SplitMix64
from warlog.engine.game import successor
from warlog.engine.rulesets import get_ruleset
from warlog.engine.rulesets.common import objectives_held
from warlog.engine.state import GameState, other_side
from warlog.engine.tactician import Tactician
from warlog.events.orders import MoveOrder, Order, RouteOrder

_MASK = (1 << 64) - 1
MAX_PLAYOUT_ORDERS = 2_000  # a playout that needs more is a policy looping, not a long turn
GROUND_WORTH = 0.3  # a unit standing on ground that would halve an attack on it, in units' worth


def _mix(*parts: int) -> int:
    """One well-spread 64-bit seed from several integers (SplitMix64 over their sum chain)."""
    rng = SplitMix64(0)
    for p in parts:
        rng = SplitMix64((rng.next64() ^ (p & _MASK)) & _MASK)
    return rng.next64()


def evaluate(state: GameState, side: str) -> float:
    """How good ``state`` is for ``side``, from -10 (lost) to 10 (won): a finished battle by its
    result; otherwise the share of its strength the enemy has lost, less its own, a fifth of a
    unit's worth for each objective held more than the enemy, and a little for each unit more
    standing on defensive ground (a hill, a village: it halves the blow of an attack), which a
    look ahead of one exchange would otherwise never see the worth of."""
    if state.ended:
        return 0.0 if state.winner is None else (10.0 if state.winner == side else -10.0)
    ruleset = get_ruleset(state.rule_system)
    lost = {"red": 0.0, "blue": 0.0}
    for u in state.units.values():
        full, gone = ruleset.strength(state, u)
        lost[u.side] += 1.0 if u.removed else gone / max(1, full)
    held = objectives_held(state)
    enemy = other_side(side)
    ground = {"red": 0, "blue": 0}
    for u in state.alive():
        ground[u.side] += Tactician.good_ground(state, u.cell)
    return (lost[enemy] - lost[side] + 0.2 * (held[side] - held[enemy])
            + GROUND_WORTH * (ground[side] - ground[enemy]))


def _outcome_key(state: GameState, order: Order):
    """Where an order leaves its unit (or whom it attacks): orders alike in that are alike."""
    if isinstance(order, (MoveOrder, RouteOrder)):
        unit = state.units[order.unit]
        return ("move", _end_cell(state, unit, order), getattr(order, "attack", None))
    return (order.type, getattr(order, "target", None), getattr(order, "cell", None),
            getattr(order, "formation", None), getattr(order, "choice", None))


class Search:
    name = "search"
    candidates = 3  # the outcomes (places, targets) weighed against each other
    playouts = 4  # playouts per candidate
    answers = 1  # a playout ends when the enemy has answered this many times

    def __init__(self) -> None:
        self.base = Tactician()

    def choose(self, state: GameState, rng: SplitMix64) -> Order:
        ranked = self.base.ranked(state, rng)
        if state.pending or state.phase in ("roles", "barrage"):
            return ranked[0][1]
        # The unit the tactician would order next; weigh what that unit should do (each unit
        # gets its turn this phase anyway: the question is what, not who), one candidate per
        # place it could end up or enemy it could attack (the best facing there stands for it).
        who = getattr(ranked[0][1], "unit", None)
        top: list[Order] = []
        seen = set()
        for score, order in ranked:
            if getattr(order, "unit", None) != who:
                continue
            if top and score < -0.5:
                break
            where = _outcome_key(state, order)
            if where not in seen:
                seen.add(where)
                top.append(order)
                if len(top) == self.candidates:
                    break
        if len(top) == 1:
            return top[0]
        side = state.to_act
        seeds = [_mix(state.seed or 0, state.seq, j) for j in range(self.playouts)]
        best, best_value = top[0], None
        for order in top:
            value = sum(evaluate(self.playout(state, order, s), side) for s in seeds)
            if best_value is None or value > best_value + 1e-9:
                best, best_value = order, value
        return best

    def playout(self, state: GameState, order: Order, seed: int) -> GameState:
        """Play ``order``, then the tactician for both sides until the enemy has had its answer
        ``answers`` times: the rest of this side's player turn and the enemy's next one, then (for
        two answers) our next turn and theirs again (in systems where both sides act within one
        phase, until ``answers`` more turns have begun)."""
        side, turn = state.to_act, state.turn
        dice = SeededDice(seed)
        state = successor(state, order, dice)
        policy = Tactician()
        answered, answering = 0, False  # enemy player turns begun; are we in one now
        for _ in range(MAX_PLAYOUT_ORDERS * self.answers):
            if state.ended or state.turn > turn + self.answers:
                return state
            if state.side is not None and state.side != side:
                if not answering:
                    answering, answered = True, answered + 1
            elif answering and state.side == side:
                answering = False  # back to us
                if answered == self.answers:
                    return state
            move = policy.choose(state, SplitMix64(_mix(seed, state.seq)))
            state = successor(state, move, dice)
        raise RuntimeError(f"{state.game}: a playout found no end after "
                           f"{MAX_PLAYOUT_ORDERS * self.answers} orders")


class DeepSearch(Search):
    """The search with playouts two exchanges long: our turn, the enemy's answer, our next turn
    and the enemy's answer to that. One exchange shows what an order wins or risks at once;
    two also show what it sets up for the turn after. Against the tactician it wins more often
    in five of the six seats of the bundled Ancients scenarios, on two sets of 100 seeds (four
    of them beyond chance in a paired test over 200), and ties in the sixth, where the tactician
    already wins 98% (benchmarks/bots_league.py; docs/bots.md has the tables). About 2.8 times
    the search's work."""

    name = "deep-search"
    answers = 2
