"""A short text notation for orders, so a tabletop game can be recorded from the command line.

    move UNIT FACING [DISTANCE] [then FACING] [attack ENEMY]
    turn UNIT FACING                 (a pivot in place: move UNIT FACING 0)
    route UNIT C,R [C,R ...] then FACING   (free-turning periods: the cells entered, in order;
                                      `route UNIT then FACING` is a pivot in place)
    shoot UNIT TARGET
    face UNIT ENEMY                  (turn to face an enemy that attacked in flank or rear)
    square UNIT | line UNIT          (form square, or leave it: Horse & Musket's optional square)
    column UNIT | limbered UNIT | unlimbered UNIT   (Napoleonic formations)
    reform UNIT                      (density: figures out of formation rejoin)
    defend SIDE                      (the roll-off winner names the defender: Machine Age trenches)
    barrage UNIT [UNIT ...]          (the attacker names the barrage's targets)
    melee UNIT TARGET                (the Portable Wargame: a melee attack on an adjacent enemy)
    retreat UNIT | lose UNIT         (the owner's choice for a hit unit: hit table 4-6)
    bombard UNIT C,R                 (Frontier: a battery fires at a cell)
    fight TARGET [advance]           (Frontier: every unit facing TARGET attacks it)
    end                              (end the current phase)

``format_order`` writes the same notation, so the legal orders a player is shown can be typed
back as they are.
"""

from __future__ import annotations

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

USAGE = ("move UNIT FACING [DISTANCE] [then FACING] [attack ENEMY] | turn UNIT FACING | "
         "route UNIT C,R ... then FACING | shoot UNIT TARGET | face UNIT ENEMY | square UNIT | "
         "line UNIT | column UNIT | limbered UNIT | unlimbered UNIT | reform UNIT | defend SIDE | barrage UNIT ... | melee UNIT TARGET | retreat UNIT | "
         "lose UNIT | bombard UNIT C,R | fight TARGET [advance] | end")


FORMATIONS = ("square", "line", "column", "limbered", "unlimbered")


class NotationError(ValueError):
    """Words that are not an order; the message shows what was expected."""


def _fail(words: list[str], problem: str) -> NotationError:
    return NotationError(f"'{' '.join(words)}': {problem} (orders: {USAGE})")


def parse_order(words: list[str]) -> Order:
    """The order the words describe (facings are case-insensitive: e, ne, ...)."""
    if not words:
        raise _fail(words, "no order given")
    verb, args = words[0].lower(), words[1:]
    if verb == "end" and not args:
        return EndPhaseOrder()
    if verb in ("shoot", "face") and len(args) == 2:
        if verb == "shoot":
            return ShootOrder(unit=args[0], target=args[1])
        return TurnToFaceOrder(unit=args[0], enemy=args[1])
    if verb == "turn" and len(args) == 2:
        return MoveOrder(unit=args[0], facing=args[1].upper(), distance=0)
    if verb == "bombard" and len(args) == 2:
        return BombardOrder(unit=args[0], cell=_cell(words, args[1]))
    if verb == "fight" and len(args) in (1, 2) and (len(args) == 1 or args[1].lower() == "advance"):
        return FightOrder(target=args[0], advance=len(args) == 2)
    if verb == "melee" and len(args) == 2:
        return MeleeOrder(unit=args[0], target=args[1])
    if verb in ("retreat", "lose") and len(args) == 1:
        return HitChoiceOrder(unit=args[0], choice=verb)
    if verb in FORMATIONS and len(args) == 1:
        return FormationOrder(unit=args[0], formation=verb)
    if verb == "reform" and len(args) == 1:
        return ReformOrder(unit=args[0])
    if verb == "defend" and len(args) == 1 and args[0].lower() in ("red", "blue"):
        return RolesOrder(defender=args[0].lower())
    if verb == "barrage" and args:
        return BarrageOrder(targets=tuple(args))
    if verb == "route" and len(args) >= 3 and args[-2].lower() == "then":
        return RouteOrder(unit=args[0], path=tuple(_cell(words, c) for c in args[1:-2]),
                          facing=args[-1].upper())
    if verb == "move" and len(args) >= 2:
        unit, facing, rest = args[0], args[1].upper(), args[2:]
        distance = 0
        if rest and rest[0].isdigit():
            distance, rest = int(rest[0]), rest[1:]
        end_facing = attack = None
        while rest:
            if len(rest) < 2 or rest[0].lower() not in ("then", "attack"):
                raise _fail(words, f"did not understand '{' '.join(rest)}'")
            if rest[0].lower() == "then":
                end_facing = rest[1].upper()
            else:
                attack = rest[1]
            rest = rest[2:]
        return MoveOrder(unit=unit, facing=facing, distance=distance, end_facing=end_facing,
                         attack=attack)
    raise _fail(words, "not an order")


def parse_cell(text: str) -> tuple[int, int] | None:
    """A cell written COL,ROW (two whole numbers), or None when ``text`` is not one: the one way
    a cell is typed on the command line, in orders and elsewhere (warlog odds --cell)."""
    parts = text.split(",")
    if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
        return None
    return int(parts[0]), int(parts[1])


def _cell(words: list[str], text: str) -> tuple[int, int]:
    cell = parse_cell(text)
    if cell is None:
        raise _fail(words, f"{text!r} is not a cell: write COL,ROW, e.g. 3,4")
    return cell


def format_order(order: Order) -> str:
    """The notation of ``order`` (parse_order(format_order(o).split()) == o)."""
    if isinstance(order, EndPhaseOrder):
        return "end"
    if isinstance(order, RouteOrder):
        cells = " ".join(f"{c},{r}" for c, r in order.path)
        return f"route {order.unit} {cells} then {order.facing}".replace("  ", " ")
    if isinstance(order, FormationOrder):
        return f"{order.formation} {order.unit}"
    if isinstance(order, ReformOrder):
        return f"reform {order.unit}"
    if isinstance(order, MeleeOrder):
        return f"melee {order.unit} {order.target}"
    if isinstance(order, BombardOrder):
        return f"bombard {order.unit} {order.cell[0]},{order.cell[1]}"
    if isinstance(order, FightOrder):
        return f"fight {order.target}" + (" advance" if order.advance else "")
    if isinstance(order, HitChoiceOrder):
        return f"{order.choice} {order.unit}"
    if isinstance(order, RolesOrder):
        return f"defend {order.defender}"
    if isinstance(order, BarrageOrder):
        return "barrage " + " ".join(order.targets)
    if isinstance(order, ShootOrder):
        return f"shoot {order.unit} {order.target}"
    if isinstance(order, TurnToFaceOrder):
        return f"face {order.unit} {order.enemy}"
    if order.distance == 0 and order.attack is None:
        return f"turn {order.unit} {order.facing}"
    text = f"move {order.unit} {order.facing} {order.distance}"
    if order.end_facing is not None:
        text += f" then {order.end_facing}"
    if order.attack is not None:
        text += f" attack {order.attack}"
    return text
