"""Events and orders in plain words: one line per event, as a commentator would say it, with
each modifier's rule (``warlog log``, the dashboard's step list, the HTML report).

Like engine/analysis.py it reads only the log (and the state just before an event, for its
terrain and limits): the arithmetic is in the events, never re-run here.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from warlog.engine.flow import phase_name
from warlog.engine.fold import TAKEBACK, LiveLine
from warlog.engine.rules import catalogue
from warlog.engine.state import GameState
from warlog.engine.takeback import voided

Event = dict[str, Any]


def players_text(players: dict[str, str]) -> str:
    """Who played, red first (a stored game's players come back in key order, blue first)."""
    ordered = sorted(players.items(), key=lambda item: (item[0] != "red", item[0]))
    return " v ".join(f"{side}: {who}" for side, who in ordered)


def order_text(order: dict[str, Any], side: str | None, phase: str | None) -> str:
    kind = order["type"]
    if kind == "move":
        if order["distance"] == 0:
            text = f"{order['unit']} turns to face {order['facing']}"
        else:
            text = f"{order['unit']} moves {order['facing']} {order['distance']}"
            if order.get("end_facing") and order["end_facing"] != order["facing"]:
                text += f", then faces {order['end_facing']}"
        if order.get("attack"):
            text += f" and attacks {order['attack']}"
        return text
    if kind == "route":
        if not order["path"]:
            return f"{order['unit']} turns to face {order['facing']}"
        end = order["path"][-1]
        return (f"{order['unit']} moves {len(order['path'])} to {cell_text(end)}, "
                f"facing {order['facing']}")
    if kind == "formation":
        verb = "is" if order["formation"] in ("limbered", "unlimbered") else "forms"
        return f"{order['unit']} {verb} {order['formation']}"
    if kind == "reform":
        return f"{order['unit']} reforms"
    if kind == "roles":
        return f"{side} names {order['defender']} the defender"
    if kind == "barrage":
        return f"barrage on {', '.join(order['targets'])}"
    if kind == "melee":
        return f"{order['unit']} attacks {order['target']} in melee"
    if kind == "bombard":
        return f"{order['unit']} fires at {cell_text(order['cell'])}"
    if kind == "fight":
        return f"attack {order['target']}" + (" and advance" if order.get("advance") else "")
    if kind == "hit_choice":
        return (f"{order['unit']} retreats" if order["choice"] == "retreat"
                else f"{order['unit']} stands and loses a strength point")
    if kind == "shoot":
        return f"{order['unit']} shoots {order['target']}"
    if kind == "turn_to_face":
        return f"{order['unit']} turns to face {order['enemy']}"
    if kind == "end_phase":
        return f"{side} ends {phase_name(phase)}"
    return kind


def hits_text(n: int) -> str:
    return f"{n} hit" if n == 1 else f"{n} hits"


def modifiers_text(modifiers: Sequence[Sequence[Any]]) -> str:
    """Each modifier as its value, its few words where the catalogue has them, and its rule:
    " + 2 in line (napoleonic.fire.line)"."""
    rules = catalogue()
    out = []
    for rule, value in modifiers:
        short = rules[rule].short if rule in rules else None
        out.append(f" {signed(value)}" + (f" {short}" if short else "") + f" ({rule})")
    return "".join(out)


def signed(n: int) -> str:
    return f"+ {n}" if n >= 0 else f"- {-n}"


def cell_text(c: Sequence[int]) -> str:
    return f"({c[0]}, {c[1]})"


def narrate(event: Event, state_before: GameState | None) -> str:
    """One plain-English line for an event, as a commentator would say it. ``state_before`` is
    the state just before the event (None for game_started); it supplies terrain and limits."""
    k, s = event["kind"], state_before
    if k == "game_started":
        sc = event["scenario"]
        names = {side: spec["name"] for side, spec in sc.get("sides", {}).items()}
        players = ", ".join(f"{side}: {names[side]} ({who})" if side in names else f"{side}: {who}"
                            for side, who in event.get("players", {}).items())
        seed = f", seed {event['seed']}" if event.get("seed") is not None else ""
        return (f"{sc.get('title', event['game'])}: {event['rule_system']} {event['period']} on a "
                f"{sc['grid']['width']}×{sc['grid']['height']} {sc['grid']['kind']} grid, "
                f"{len(sc['units'])} units" + (f"; {players}" if players else "") + f"{seed}.")
    if k == "phase_started":
        if event["turn"] > 0 and event["side"] is None:
            return (f"Turn {event['turn']}: the {phase_name(event['phase'])} phase begins "
                    "(both sides).")
        if event["turn"] == 0:
            who = f" ({event['side']})" if event["side"] else ""
            return f"Before the first turn: the {phase_name(event['phase'])} phase{who}."
        return f"Turn {event['turn']}: {event['side']}'s {phase_name(event['phase'])} phase begins."
    if k == "order_given":
        by = f" ({event['by']})" if event.get("by") else ""
        if event["order"]["type"] == "end_phase":
            return f"{event['side']} ends the {phase_name(event['phase'])} phase{by}."
        order = order_text(event["order"], event["side"], event["phase"])
        return f"{event['side']} orders: {order}{by}."
    if k == "dice_rolled":
        faces = ", ".join(map(str, event["faces"]))
        who = f"{event['unit']} rolls" if event.get("unit") else "Rolled"
        return f"{who} {faces} for {event['purpose']}."
    if k == "unit_turned":
        pivot = " (a pivot: that is its move this turn)" if event.get("used_move") else ""
        return f"{event['unit']} turns from {event['from_facing']} to {event['to_facing']}{pivot}."
    if k == "unit_moved":
        n = len(event["path"])
        text = (f"{event['unit']} moves {n} cell{'s' * (n != 1)} from "
                f"{cell_text(event['from_cell'])} to {cell_text(event['to_cell'])}")
        if event.get("road_bonus"):
            text += ", with the road bonus"
        terrain = s.terrain.get(tuple(event["to_cell"]), "open") if s else "open"
        text += f", into {terrain}" if terrain not in ("open", "road") else ""
        if event.get("stopped_by"):
            text += ", where it stops: a unit entering a terrain feature goes no further"
        return text + "."
    if k == "unit_removed":
        if event["hits"]:
            return f"{event['unit']} is removed with {event['hits']} hits."
        return f"{event['unit']} is removed."
    if k == "note":
        by = f" ({event['author']})" if event.get("author") else ""
        return f"Note on event {event['about']}{by}: {event['text']}"
    if k == "order_retracted":
        by = f" ({event['by']})" if event.get("by") else ""
        order = order_text(event["order"], event["side"], event["phase"])
        return (f"{event['side']} takes back an order before its dice are rolled{by}: {order} "
                "(withdrawn; nothing happened).")
    if k == TAKEBACK:
        return takeback_text(event)
    if k == "seats_changed":
        by = f" ({event['by']})" if event.get("by") else ""
        return f"The seats change{by}: from here on {players_text(event['players'])}."
    if k == "side_conceded":
        by = f" ({event['by']})" if event.get("by") else ""
        return f"{event['side']} concedes{by}: the battle is given up."
    if k == "state_checksum":
        return f"End of turn {event['turn']}: state checksum {event['sha256'][:12]}…"
    if k == "game_ended":
        result = f"{event['winner']} wins" if event.get("winner") else "a draw"
        held = event.get("objectives") or {}
        extra = (" Objectives held: " + ", ".join(f"{k2} {v}" for k2, v in held.items()) + "."
                 if held else "")
        return f"Game over: {result} ({event['reason']}).{extra}"
    own = _package_narrations().get(k)  # a rule system's own kind: its package says it
    if own is not None:
        return own(event, s)
    return f"{k} (seq {event['seq']})."


def takeback_text(event: Event) -> str:
    """An ``orders_taken_back`` in words: whose orders, how many, from which event, and where
    the game stands again (the turn and phase of the first order taken back)."""
    side, n = str(event["side"]), event["orders"]
    by = f" ({event['by']})" if event.get("by") else ""
    where = f"turn {event['turn']}"
    if event.get("phase"):
        where += f", {side}'s {phase_name(event['phase'])} phase"
    return (f"{side.capitalize()}{by} takes back {n} order{'s' * (n != 1)} (from event "
            f"{event['back_to']}): the game goes back to {where}.")


def taken_back_mark(by: int) -> str:
    """What a voided event's line carries in plain text (``warlog log``, the report): the
    take-back that voided it."""
    return f"[taken back at event {by}]"


def states_before(events: Sequence[Event]) -> Iterator[tuple[Event, GameState | None]]:
    """Each event with the state just before it, folded as played (a LiveLine): a voided event
    sees the position as it stood then, and after a take-back the game stands where it went
    back to. A bare evolve cannot cross a take-back (fold.FoldError)."""
    line = LiveLine(check=False)
    for e in events:
        yield e, line.state
        line.push(e)


def narrate_log(events: Sequence[Event]) -> list[tuple[str, int | None]]:
    """A line for every event and, for an event a take-back voided, that take-back's seq (None
    for the live line): what a reader strikes through (engine/takeback.voided)."""
    gone = voided(events)
    return [(narrate(e, state), gone.get(e.get("seq"))) for e, state in states_before(events)]


def narrate_all(events: Sequence[Event]) -> list[str]:
    """A line for every event, each seeing the state before its event; a voided event's line
    ends with its mark (``taken_back_mark``), so a plain-text reader still sees it was taken
    back."""
    return [line if by is None else f"{line} {taken_back_mark(by)}"
            for line, by in narrate_log(events)]


def _package_narrations():
    """Every package's narration of its kinds (the registry's ``event_narrations``), read on
    first use: the registry is imported only when a system's own kind is told."""
    from warlog.engine.rulesets import event_narrations

    return event_narrations()
