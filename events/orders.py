"""What a player asks for: one pydantic model per order type, and the ``Order`` union.

An order is what a player (or bot, or a recorded tabletop move) asked for; the rules decide what
follows from it. It is not an event: it travels inside one (``order_given``, ``order_retracted``
in events/model.py), and the engine, the bots and the notation pass orders around on their own.
``StrictModel`` and (from events/fields.py, with every field's rule and cap) ``Cell``, ``Side``
and ``Facing`` are the vocabulary orders and events share.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from warlog.events.fields import MAX_UNITS, Cell, Facing, MovePath, Side, UnitId, items

Targets = items(UnitId, MAX_UNITS, "at most every unit on the board")


class StrictModel(BaseModel):
    # Unknown fields are refused and a made model is never changed: every order and event.
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)  # built on first use


class MoveOrder(StrictModel):
    """Turn to ``facing`` (the direction of travel), go ``distance`` cells straight ahead, then
    turn to ``end_facing``. With ``attack`` the move ends next to that enemy, facing it."""

    type: Literal["move"] = "move"
    unit: UnitId
    facing: Facing
    distance: int = Field(ge=0)
    end_facing: Facing | None = None
    attack: UnitId | None = None


class ShootOrder(StrictModel):
    type: Literal["shoot"] = "shoot"
    unit: UnitId
    target: UnitId


class TurnToFaceOrder(StrictModel):
    """A unit attacked in flank or rear turns, in its own turn, to face that attacker."""

    type: Literal["turn_to_face"] = "turn_to_face"
    unit: UnitId
    enemy: UnitId


class RouteOrder(StrictModel):
    """Free-turning movement (Machine Age, WWII): the cells entered, in order, each next to the
    one before, and the facing at the end. An empty path with a new facing is a pivot."""

    type: Literal["route"] = "route"
    unit: UnitId
    path: MovePath = ()
    facing: Facing


class FormationOrder(StrictModel):
    """Change a unit's formation at the start of its turn (Horse & Musket's square)."""

    type: Literal["formation"] = "formation"
    unit: UnitId
    formation: Literal["square", "line", "column", "limbered", "unlimbered"]


class RolesOrder(StrictModel):
    """The winner of the pre-game roll-off names the defending side (Machine Age trenches)."""

    type: Literal["roles"] = "roles"
    defender: Side


class BarrageOrder(StrictModel):
    """The attacker names the targets of the pre-game barrage (Machine Age trenches)."""

    type: Literal["barrage"] = "barrage"
    targets: Targets


class MeleeOrder(StrictModel):
    """A melee attack on an adjacent enemy (the Portable Wargame): resolved at once."""

    type: Literal["melee"] = "melee"
    unit: UnitId
    target: UnitId


class HitChoiceOrder(StrictModel):
    """The owner's choice for a hit unit (hit table 4-6): retreat a cell or lose a strength
    point. Given by the side that owns the unit, whoever's turn it is."""

    type: Literal["hit_choice"] = "hit_choice"
    unit: UnitId
    choice: Literal["retreat", "lose"]


class BombardOrder(StrictModel):
    """A battery fires at a cell (Frontier's artillery phase)."""

    type: Literal["bombard"] = "bombard"
    unit: UnitId
    cell: Cell


class FightOrder(StrictModel):
    """Frontier's combat: every unit of the side next to ``target`` and facing it attacks it;
    ``advance``: if they win, the faced attacker takes the vacated cell."""

    type: Literal["fight"] = "fight"
    target: UnitId
    advance: bool = False


class ReformOrder(StrictModel):
    """A unit's action to bring its figures out of formation back into the ranks (density)."""

    type: Literal["reform"] = "reform"
    unit: UnitId


class EndPhaseOrder(StrictModel):
    type: Literal["end_phase"] = "end_phase"


Order = Annotated[
    Union[MoveOrder, RouteOrder, ShootOrder, TurnToFaceOrder, FormationOrder, RolesOrder,
          BarrageOrder, MeleeOrder, HitChoiceOrder, BombardOrder, FightOrder, ReformOrder,
          EndPhaseOrder],
    Field(discriminator="type"),
]
# Built on first use (events/model.py's event_adapter says why).
ORDER_ADAPTER: TypeAdapter[Order] = TypeAdapter(Order, config=ConfigDict(defer_build=True))


def parse_order(data: dict[str, Any]) -> Order:
    return ORDER_ADAPTER.validate_python(data)
