"""Exact odds of an attack: every way the dice can fall, with its probability, computed by the
rule system's own resolution code.

Nothing here re-implements combat arithmetic. The attack is resolved by the functions the referee
calls (``Ruleset.apply`` for an order, or the melee phase's own functions for one pair: see
odds_systems.py, and odds_position.py for a hypothetical attack's minimal board) on a
:class:`~warlog.engine.flow.Context` whose dice source is scripted: it replays a prefix of faces
and signals when it runs out, and the walk branches on every face of that die, depth first. Each
leaf is one complete resolution with an exact probability (a ``Fraction``) and the events it
emitted, folded into its state; a leaf is summarised by what happened to every unit involved
(strength lost as the system counts it, hits where the system has them, removed, retreated, a
choice owed). Pure and deterministic: no I/O, no randomness.

An owed choice (the Portable Wargame's and the Napoleonic hit table, 4-6: retreat or lose a
point) is a player's decision, not a die: it is reported as owed unless ``choice`` settles it
("lose" or "retreat"), through the referee's own handling of that order.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Any

from warlog.engine.flow import Context
from warlog.engine.rules import IllegalOrder
from warlog.engine.rulesets import get_ruleset
from warlog.engine.state import GameState, Unit

MAX_LEAVES = 6 ** 6
"""More ways for the dice to fall than this and the enumeration stops with an OddsError."""
MAX_DICE = 12
"""More dice than this in one resolution (a tie rolled again and again) stops it too."""
KINDS: dict[str, tuple[str, ...]] = {
    "ohw": ("shoot", "melee", "barrage"),
    "portable": ("shoot", "melee"),
    "frontier": ("melee", "bombard"),
    "napoleonic": ("bombard", "shoot", "melee"),
    "density": ("shoot", "melee"),
}
"""The attacks each rule system has (frontier: melee is its combat, bombard its artillery; ohw:
the barrage is Machine Age's pre-game barrage, with no attacking unit)."""
NO_ATTACKER = ("barrage",)
"""Kinds with no attacking unit: the source is None."""
CHOICES = ("lose", "retreat")


class OddsError(ValueError):
    """An attack the rules do not allow from this position, or a question that cannot be
    answered (an unknown unit, kind or option); the message names the field or the rule."""


# -- results -------------------------------------------------------------------------------------


def _mean(dist: dict[int, Fraction]) -> Fraction:
    return sum((value * p for value, p in dist.items()), Fraction(0))


@dataclass(frozen=True)
class Effect:
    """What the attack does to one unit, over every way the dice fall. ``distribution`` is the
    system's own measure: the raw hits of the hits events where the system counts hits (One
    Hour Wargames, density), else strength lost; ``lost`` is strength lost as the system's
    ``strength`` counts it (hits past the removal limit count no further)."""

    unit: str
    side: str
    type: str
    measure: str  # "hits" or "strength"
    distribution: dict[int, Fraction]
    lost: dict[int, Fraction]
    p_hit: Fraction  # at least one hit (hits > 0, an attack die that hit, a unit destroyed)
    p_removed: Fraction  # removed, or (Frontier's artillery) marked for removal
    p_retreated: Fraction
    p_choice: Fraction  # a hit left its owner to choose: retreat or lose a point (not settled)

    @property
    def mean(self) -> Fraction:
        return _mean(self.distribution)

    @property
    def mean_float(self) -> float:
        return float(self.mean)

    @property
    def mean_lost(self) -> Fraction:
        return _mean(self.lost)

    def as_dict(self) -> dict[str, Any]:
        def both(p: Fraction) -> dict[str, Any]:
            return {"fraction": str(p), "float": float(p)}

        return {"unit": self.unit, "side": self.side, "type": self.type, "measure": self.measure,
                "distribution": {str(k): both(p) for k, p in self.distribution.items()},
                "mean": both(self.mean), "lost": {str(k): both(p) for k, p in self.lost.items()},
                "mean_lost": both(self.mean_lost), "p_hit": both(self.p_hit),
                "p_removed": both(self.p_removed), "p_retreated": both(self.p_retreated),
                "p_choice": both(self.p_choice)}


@dataclass(frozen=True)
class Odds:
    """The exact result of one attack. ``outcomes``: what can happen, in words, with its
    probability (they add up to 1); ``on_target`` and ``on_attacker`` (None where the
    resolution cannot hurt the attacker): the numbers; ``others``: any other unit it can hurt.
    A bombardment of a cell (odds_cell.py) sets ``cell``; its target is the unit standing there,
    or None (and ``on_target`` None) for an empty cell, whose every victim is in ``others``."""

    system: str
    period: str
    kind: str
    source: str | None  # None: an attack with no attacking unit (the barrage)
    target: str | None  # None: a bombardment of an empty cell
    outcomes: tuple[tuple[str, Fraction], ...]
    on_target: Effect | None
    on_attacker: Effect | None
    others: tuple[Effect, ...] = ()
    leaves: int = 0  # ways for the dice to fall (a leaf walked once for faces alike counts each)
    dice: int = 0  # the most dice one resolution rolled
    choice: str | None = None
    notes: tuple[str, ...] = ()
    cell: tuple[int, int] | None = None  # the cell aimed at, for a bombardment of a cell

    @property
    def headline(self) -> Effect:
        """The target's numbers; an empty cell has none (its victims are ``others``)."""
        if self.on_target is None:
            raise OddsError(f"target: no unit stands on {self.cell}; each unit the shell can "
                            "strike is in others")
        return self.on_target

    @property
    def distribution(self) -> dict[int, Fraction]:
        return self.headline.distribution

    @property
    def mean(self) -> Fraction:
        return self.headline.mean

    @property
    def mean_float(self) -> float:
        return self.headline.mean_float

    @property
    def p_hit(self) -> Fraction:
        return self.headline.p_hit

    def as_dict(self) -> dict[str, Any]:
        return {"system": self.system, "period": self.period, "kind": self.kind,
                "source": self.source, "target": self.target, "choice": self.choice,
                "outcomes": [{"outcome": label, "fraction": str(p), "float": float(p)}
                             for label, p in self.outcomes],
                "cell": list(self.cell) if self.cell is not None else None,
                "target_effect": self.on_target.as_dict() if self.on_target else None,
                "attacker_effect": self.on_attacker.as_dict() if self.on_attacker else None,
                "others": [e.as_dict() for e in self.others],
                "leaves": self.leaves, "dice": self.dice, "notes": list(self.notes)}


# -- the enumeration -------------------------------------------------------------------------


class _NeedDie(BaseException):
    """The scripted faces ran out: the walk branches here. A BaseException, so that no rule's
    own error handling can swallow it. ``decides``: what the rule reads from the die, where it
    said so (flow.Context.roll), for a walk that groups the faces deciding alike."""

    def __init__(self, sides: int, decides: Callable[[int], Hashable] | None = None) -> None:
        super().__init__(sides)
        self.sides, self.decides = sides, decides


Face = tuple[int, int, int]  # (face, sides, ways: how many faces it stands for)


class _Scripted:
    """A dice source that replays ``faces`` and then asks for a branch."""

    mode = "odds"

    def __init__(self, faces: tuple[Face, ...]) -> None:
        self.faces, self.rolled = faces, 0

    def roll(self, sides: int = 6) -> int:
        return self.roll_deciding(sides, None)

    def roll_deciding(self, sides: int, decides: Callable[[int], Hashable] | None) -> int:
        if self.rolled == len(self.faces):
            raise _NeedDie(sides, decides)
        face = self.faces[self.rolled][0]
        self.rolled += 1
        return face


def _branches(need: _NeedDie, grouped: bool) -> list[tuple[int, int]]:
    """(face, ways) to walk for a die: every face, or (``grouped``, where the rule said what the
    die decides) the lowest face of each set of faces deciding alike, standing for the set."""
    faces = range(1, need.sides + 1)
    if not grouped or need.decides is None:
        return [(face, 1) for face in faces]
    first: dict[Hashable, list[int]] = {}
    for face in faces:
        first.setdefault(need.decides(face), []).append(face)
    return [(alike[0], len(alike)) for alike in first.values()]


@dataclass(frozen=True)
class Leaf:
    """One complete resolution: the faces rolled, their probability, what it emitted and the
    state those events lead to. ``ways``: how many ways for the dice to fall it stands for
    (1, unless faces deciding alike were walked once)."""

    faces: tuple[int, ...]
    probability: Fraction
    state: GameState
    events: list[dict[str, Any]]
    ways: int = 1


def leaves(state: GameState, resolve: Callable[[Context], None], *,
           cap: int = MAX_LEAVES, grouped: bool = False) -> list[Leaf]:
    """Every complete resolution of ``resolve`` from ``state``, depth first, faces in order.

    ``grouped``: a die whose rule said what it decides (flow.Context.roll's ``decides``: hit or
    miss, 1-3 or 4-6) is walked once per distinct decision, not once per face; each leaf then
    stands for ``ways`` resolutions with the same play and the same probability in all. The
    sums are the same exact fractions (tests/engine/test_odds_grouped.py compares every kind
    both ways); the walk is many times shorter (a Portable melee: 9 leaves, not 256)."""
    out: list[Leaf] = []
    stack: list[tuple[Face, ...]] = [()]
    while stack:
        prefix = stack.pop()
        ctx = Context(state, _Scripted(prefix))
        try:
            resolve(ctx)
        except _NeedDie as need:
            if len(prefix) == MAX_DICE:
                raise OddsError(f"this attack rolls more than {MAX_DICE} dice: too many to "
                                "enumerate") from None
            stack.extend(prefix + ((face, need.sides, ways),)
                         for face, ways in reversed(_branches(need, grouped)))
            continue
        except IllegalOrder as refused:
            raise OddsError(str(refused)) from None
        p, ways = Fraction(1), 1
        for _, sides, n in prefix:
            p *= Fraction(n, sides)
            ways *= n
        out.append(Leaf(tuple(face for face, _, _ in prefix), p, ctx.state, ctx.events, ways))
        if len(out) > cap:
            raise OddsError(f"this attack has more than {cap:,} ways for the dice to fall: too "
                            "many to enumerate")
    return out


# -- summaries ---------------------------------------------------------------------------------


def _lost(ruleset: Any, state: GameState, uid: str) -> int:
    unit = state.units[uid]
    if uid in state.marked and not unit.removed:  # Frontier: destroyed, removed after the fire
        unit = replace(unit, removed=True)
    return ruleset.strength(state, unit)[1]


def _hits_on(event: dict[str, Any]) -> list[str]:
    """The units ``event`` records a hit on, in any system's words."""
    k = event["kind"]
    if k == "hits_inflicted":
        return [event["target"]] if event["hits"] > 0 else []
    if k == "attack_rolled":
        return [event["target"]] if event["hit"] else []
    if k == "melee_rolled":  # its own die: 2 or less and it takes the hit
        return [event["unit"]] if event["hit"] else []
    if k == "combat_fought":
        return ([event["target"]] if event["target_destroyed"] else []) + (
            [event["faced"]] if event["attacker_destroyed"] else [])
    return [event["unit"]] if k == "unit_marked" else []


_UNIT_FIELDS = ("unit", "target", "source", "faced", "attacker", "defender")


def _named(event: dict[str, Any]) -> list[str]:
    """The units an event names: only a unit an event names can have changed."""
    out = [event[f] for f in _UNIT_FIELDS if isinstance(event.get(f), str)]
    return out + list(event.get("attackers", ()))


@dataclass
class _Tally:
    """One unit's numbers in one leaf."""

    hits: int = 0
    hit: bool = False
    retreated: bool = False
    out_of_ammo: bool = False
    fell_back: bool = False
    lost: int = 0
    removed: bool = False
    owed: bool = False
    value: int = 0
    words: tuple[str, ...] = ()

    @property
    def harmed(self) -> bool:
        return bool(self.lost or self.hit or self.removed or self.retreated or self.owed)


def _tallies(ruleset: Any, before: GameState, leaf: Leaf, units: list[str],
             target: str | None) -> dict[str, _Tally]:
    """Each unit's numbers in one leaf, from one pass over its events and its end state."""
    out = {uid: _Tally() for uid in units}
    for e in leaf.events:
        kind = e["kind"]
        for uid in _hits_on(e):
            if uid in out:
                out[uid].hit = True
        if kind == "hits_inflicted" and e["target"] in out:
            out[e["target"]].hits += e["hits"]
        elif kind == "unit_retreated" and e["unit"] in out:
            out[e["unit"]].retreated = True
        elif kind == "out_of_ammo" and e["unit"] in out:
            out[e["unit"]].out_of_ammo = True
        elif kind == "melee_ended" and e["attacker"] in out:
            out[e["attacker"]].fell_back = True
    after = leaf.state
    owing = {p["unit"] for p in after.pending}
    for uid, t in out.items():
        t.lost = _lost(ruleset, after, uid) - _lost(ruleset, before, uid)
        was_gone = before.units[uid].removed or uid in before.marked
        t.removed = not was_gone and (after.units[uid].removed or uid in after.marked)
        t.owed = uid in owing
        t.value = t.hits if ruleset.measure == "hits" else t.lost
        words = []
        if ruleset.measure == "hits":
            if t.hits or uid == target:  # the target's hits always, even none
                words.append(f"{t.hits} hit" + "s" * (t.hits != 1))
        elif t.lost and not (t.removed and ruleset.system == "frontier"):
            words.append(f"-{t.lost} SP")
        for flag, said in ((t.removed, "destroyed"), (t.retreated, "retreats"),
                           (t.owed, "owner chooses: retreat or -1 SP"),
                           (t.out_of_ammo, "out of ammunition"), (t.fell_back, "falls back")):
            if flag:
                words.append(said)
        t.words = tuple(words)
    return out


def _effect(state: GameState, ruleset: Any, uid: str, denominator: int,
            weighted: list[tuple[int, _Tally]]) -> Effect:
    """One unit's Effect from (weight, tally) pairs; a weight is a probability times
    ``denominator``, so the sums are exact whole numbers until the end."""
    dist: dict[int, int] = {}
    lost: dict[int, int] = {}
    sums = [0, 0, 0, 0]
    for w, t in weighted:
        dist[t.value] = dist.get(t.value, 0) + w
        lost[t.lost] = lost.get(t.lost, 0) + w
        for i, flag in enumerate((t.hit, t.removed, t.retreated, t.owed)):
            sums[i] += w if flag else 0

    def exact(counts: dict[int, int]) -> dict[int, Fraction]:
        return {k: Fraction(v, denominator) for k, v in sorted(counts.items())}

    unit = state.units[uid]
    return Effect(uid, unit.side, unit.type, ruleset.measure, exact(dist), exact(lost),
                  *(Fraction(x, denominator) for x in sums))


def summarise(state: GameState, found: list[Leaf], source: str | None, target: str | None,
              kind: str, two_way: bool, choice: str | None, *,
              cell: tuple[int, int] | None = None) -> Odds:
    """The leaves, summed: per unit involved, and the joint outcomes in words (``source`` None:
    an attack with no attacking unit; ``target`` None: a bombardment of the empty ``cell``)."""
    ruleset = get_ruleset(state.rule_system)
    named = {uid for leaf in found for e in leaf.events for uid in _named(e)}
    own = [uid for uid in (target, source) if uid is not None]
    units = own + [u for u in state.units if u in named and u not in own]
    denominator = math.lcm(*(leaf.probability.denominator for leaf in found))
    per_leaf = [(leaf.probability.numerator * (denominator // leaf.probability.denominator),
                 _tallies(ruleset, state, leaf, units, target)) for leaf in found]
    k = len(own)
    shown = units[:k] + [u for u in units[k:] if any(t[u].harmed for _, t in per_leaf)]
    outcomes: dict[str, tuple[tuple[int, int, int], int]] = {}
    for w, tallies in per_leaf:
        parts = [f"{uid}: {', '.join(tallies[uid].words)}" for uid in shown if tallies[uid].words]
        label = "; ".join(parts) or "no effect"
        key = (tallies[target].value if target else 0, tallies[source].value if source else 0,
               len(parts))
        old = outcomes.get(label, (key, 0))
        outcomes[label] = (min(old[0], key), old[1] + w)
    ordered = sorted(outcomes.items(), key=lambda item: (item[1][0], item[0]))
    effect = {uid: _effect(state, ruleset, uid, denominator, [(w, t[uid]) for w, t in per_leaf])
              for uid in shown}
    hurt = source is not None and (two_way or any(t[source].harmed for _, t in per_leaf))
    notes = []
    if any(e.p_choice for e in effect.values()):
        notes.append("a hit that leaves its owner the choice (retreat or lose a strength point) is "
                     "counted as owed, not lost; choice lose or choice retreat settles it")
    return Odds(state.rule_system, state.period, kind, source, target,
                tuple((label, Fraction(w, denominator)) for label, (_, w) in ordered),
                effect[target] if target else None, effect[source] if hurt else None,
                tuple(effect[u] for u in shown[k:]), sum(leaf.ways for leaf in found),
                max((len(leaf.faces) for leaf in found), default=0), choice, tuple(notes), cell)


# -- the API -------------------------------------------------------------------------------------


def _unit(state: GameState, uid: str, field: str) -> Unit:
    unit = state.units.get(uid)
    if unit is None or unit.removed:
        known = ", ".join(u.id for u in state.alive())
        raise OddsError(f"{field}: no unit {uid!r} on the board (on it: {known})")
    return unit


def plan(state: GameState, source_id: str | None, target_id: str, kind: str, *,
         choice: str | None = None) -> tuple[GameState, Callable[[Context], None], bool]:
    """The position an attack's dice are rolled from and its resolution (OddsError if the
    rules do not allow it here). ``source_id`` is None for a kind with no attacking unit."""
    kinds = KINDS[state.rule_system]
    if kind not in kinds:
        raise OddsError(f"kind: {state.rule_system} has no attack {kind!r}; its kinds: "
                        f"{', '.join(kinds)}")
    if choice is not None and choice not in CHOICES:
        raise OddsError(f"choice: {choice!r} is not an answer to the hit table; use "
                        f"{' or '.join(CHOICES)}")
    if kind in NO_ATTACKER:
        if source_id is not None:
            raise OddsError(f"attacker: the {kind} has no attacking unit; name only its target")
        src = None
    elif source_id is None:
        raise OddsError(f"attacker: a {kind} needs an attacking unit")
    else:
        src = _unit(state, source_id, "attacker")
    tgt = _unit(state, target_id, "target")
    if src is not None and src.side == tgt.side:
        raise OddsError(f"target: {tgt.id} is {src.id}'s own side ({src.side})")
    from warlog.engine.odds_systems import SYSTEMS

    return SYSTEMS[state.rule_system](state, src, tgt, kind, choice)


def attack(state: GameState, source_id: str | None, target_id: str, kind: str, *,
           choice: str | None = None) -> Odds:
    """The exact odds of ``source_id`` attacking ``target_id`` (``kind``: one of the system's
    KINDS) from this position, at the phase that attack belongs to (``source_id`` None for the
    barrage, which has no attacking unit). ``choice``: how an owed hit-table choice is answered
    (None: left owed and reported as such)."""
    view, resolve, two_way = plan(state, source_id, target_id, kind, choice=choice)
    found = leaves(view, resolve, grouped=True)
    return summarise(view, found, source_id, target_id, kind, two_way, choice)


def bombard_cell(state: GameState, source_id: str, cell: Any) -> Odds:
    """The exact odds of the battery ``source_id`` firing at ``cell`` (x, y), a unit there or
    not: every unit the shell can strike, wherever it falls (odds_cell.py)."""
    from warlog.engine.odds_cell import bombard_cell as at_cell

    return at_cell(state, source_id, cell)


def hypothetical(system: str, period: str | None, attacker_type: str | None, target_type: str, *,
                 kind: str, terrain: str = "open", aspect: str = "front",
                 options: dict[str, Any] | None = None, grid: str = "square",
                 distance: int | None = None, choice: str | None = None,
                 **extras: Any) -> Odds:
    """The odds of an attack between two unit types on a minimal legal board: the target on
    ``terrain`` and facing so that the attack lands on ``aspect``, the attacker next to it for
    a melee or ``distance`` cells away (default 2) to shoot. ``extras``: each system's own
    (see odds_position.EXTRAS: formation, density, disorder, same_cell, year, ...).
    ``attacker_type`` is None for the barrage (kind "barrage"), which has no attacking unit."""
    from warlog.engine.odds_position import position

    state = position(system, period, attacker_type, target_type, kind=kind, terrain=terrain,
                     aspect=aspect, options=options or {}, grid=grid, distance=distance,
                     extras=extras)
    source = None if kind in NO_ATTACKER else "attacker"
    return attack(state, source, "target", kind, choice=choice)
