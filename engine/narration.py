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


def _modifiers(modifiers: Sequence[Sequence[Any]]) -> str:
    """Each modifier as its value, its few words where the catalogue has them, and its rule:
    " + 2 in line (napoleonic.fire.line)"."""
    rules = catalogue()
    out = []
    for rule, value in modifiers:
        short = rules[rule].short if rule in rules else None
        out.append(f" {_signed(value)}" + (f" {short}" if short else "") + f" ({rule})")
    return "".join(out)


def _notional_commander(s: GameState | None, unit: str) -> bool:
    """A Portable Wargame Commander whose strength points are notional (portable.commander):
    a hit that would cost him a point means he is lost."""
    return (s is not None and s.options.get("commander_sp") == "notional" and unit in s.units
            and s.rule_system == "portable" and s.units[unit].type == "Commander")


def _signed(n: int) -> str:
    return f"+ {n}" if n >= 0 else f"- {-n}"


def cell_text(c: Sequence[int]) -> str:
    return f"({c[0]}, {c[1]})"


ATTACK_VERBS = {"melee": "attacks", "strike_back": "strikes back at", "shooting": "shoots at",
                "missile_machine": "hurls at", "pila": "throws pila at", "artillery": "fires on",
                "musketry": "fires a volley at", "pila_volley": "throws pila at"}


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
    if k == "melee_joined":
        return f"{event['attacker']} attacks {event['defender']} in the {event['aspect']}."
    if k == "hits_inflicted":
        verb = "shoots" if event["attack"] == "shooting" else "fights"
        who = (f"{event['source']} {verb} {event['target']}" if event["source"] is not None
               else f"The barrage strikes {event['target']}")
        why = ""
        if event["modifier"] and s is not None and event["source"] in s.units:
            kinds = (s.units[event["source"]].type, s.units[event["target"]].type)
            why = (f" ({kinds[0]} shooting at {kinds[1]})" if event["attack"] == "shooting"
                   else f" ({kinds[0]} in melee)")
        disorder = (f" {_signed(event['disorder'])} (figures out of formation)"
                    if event.get("disorder") else "")
        text = (f"{who}: die {event['die']}{disorder} {_signed(event['modifier'])}{why} = "
                f"{event['base']}")
        if event.get("doubled"):
            text += f", doubled (flank or rear) = {event['base'] * 2}"
        if event.get("halvings"):
            text += ", halved for " + " and ".join(event["halvings"])
        limit = f" of {s.options['hits_to_remove']}" if s else ""
        return text + f" -> {hits_text(event['hits'])} (total {event['total']}{limit})."
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
    if k == "shell_landed":
        where = cell_text(event["landed"]) if event["landed"] is not None else "off the board"
        how = "direct" if event["direct"] else "indirect"
        return (f"{event['unit']} fires ({how}) at {cell_text(event['aimed'])}: the shot falls "
                f"{event['fall']}, on {where}.")
    if k == "unit_marked":
        return (f"{event['unit']} is destroyed by the artillery (removed once every battery has "
                "fired).")
    if k == "combat_fought":
        def side(die, strength, mods):
            extra = "".join(f" {_signed(v)} ({r})" for r, v in mods)
            return f"die {die} against strength {strength}{extra and ' (' + extra.strip() + ')'}"
        result = []
        if event["target_destroyed"]:
            result.append(f"{event['target']} is destroyed")
        if event["attacker_destroyed"]:
            result.append(f"{event['faced']} is destroyed")
        who = ", ".join(event["attackers"])
        attacker = side(event["attacker_die"], event["attacker_strength"],
                        event["attacker_modifiers"])
        defender = side(event["defender_die"], event["defender_strength"],
                        event["defender_modifiers"])
        return (f"{who} fight {event['target']}: attacker {attacker}; defender {defender}: "
                + (" and ".join(result) if result else "both stand") + ".")
    if k == "melee_rolled":
        mods = _modifiers(event["modifiers"])
        role = "attacking" if event["attacking"] else "defending"
        result = "takes a hit" if event["hit"] else "holds"
        return (f"{event['unit']} ({role} against {event['opponent']}): die {event['die']}{mods}"
                f" = {event['total']}; {event['at_most']} or less takes a hit: it {result}.")
    if k == "advance_offered":
        return (f"{event['unit']} may advance into {cell_text(event['cell'])}, the cell its enemy "
                "left.")
    if k == "disorder_tested":
        why = {"terrain": "crossing rough ground", "friends": "passing through friends",
               "turn": "turning in place"}[event["reason"]]
        if event["figures"]:
            n = event["figures"]
            out = f"below it: {n} figure{'s fall' if n != 1 else ' falls'} out of formation"
        else:
            out = "not below it: the ranks hold"
        return (f"{event['unit']} tests its order ({why}): die {event['die']} against density "
                f"{event['density']}, {out}.")
    if k == "unit_reformed":
        n = event["figures"]
        return (f"{event['unit']} reforms: {n} figure{'s' * (n != 1)} rejoin the ranks." if n
                else f"{event['unit']} reforms.")
    if k == "initiative_won":
        return f"{event['winner']} wins the initiative and activates first this turn."
    if k == "unit_activated":
        return f"{event['unit']} is activated."
    if k == "attack_rolled":
        verb = ATTACK_VERBS[event["attack"]]
        mods = _modifiers(event["modifiers"])
        result = "a hit" if event["hit"] else "a miss"
        return (f"{event['source']} {verb} {event['target']}: die {event['die']}{mods} = "
                f"{event['total']}, needs {event['needed']}: {result}.")
    if k == "hit_taken":
        lose, lose_to = "loses a strength point", "lose a strength point"
        if _notional_commander(s, event["unit"]):  # portable.commander
            lose, lose_to = ("is lost (a Commander's strength points are notional)",
                             "let him be lost")
        outcome = {"lose": lose,
                   "lose_no_retreat": f"cannot retreat, so {lose}",
                   "choose": "its owner chooses: retreat to "
                             f"{cell_text(event['retreat_to'] or (0, 0))} or {lose_to}"
                   }[event["outcome"]]
        return f"{event['unit']} rolls {event['die']} on the hit table: {outcome}."
    if k == "strength_lost":
        return f"{event['unit']} loses {event['amount']} SP ({event['left']} left)."
    if k == "unit_retreated":
        return (f"{event['unit']} retreats from {cell_text(event['from_cell'])} to "
                f"{cell_text(event['to_cell'])}.")
    if k == "exhaustion_points":
        parts = [f"{side} {event['points'][side]} of {event['strength'][side]} SP"
                 for side in event["points"]]
        return "Exhaustion points: " + ", ".join(parts) + "."
    if k == "army_exhausted":
        return (f"{event['side']}'s army is exhausted: {event['lost']} SP lost, its point is "
                f"{event['point']}. From the next turn it may not attack or advance.")
    if k == "melee_ended":
        return f"{event['attacker']} falls back from {event['defender']}: the melee is over."
    if k == "out_of_ammo":
        return f"{event['unit']} is out of ammunition and may not shoot again."
    if k == "formation_changed":
        return f"{event['unit']} forms {event['to_formation']}."
    if k == "enemies_spotted":
        seen = sorted({b for _, b in event["seen"]})
        return (f"{event['side']} spots " + (", ".join(seen) if seen else "no enemy") + ".")
    if k == "roll_off":
        return f"{event['winner']} wins the roll-off and chooses the roles."
    if k == "roles_chosen":
        dug = len(event["trenches"])
        return (f"{event['attacker']} attacks, {event['defender']} defends"
                + (f", with {dug} unit{'s' * (dug != 1)} in trenches." if dug else "."))
    if k == "barrage_planned":
        n = event["targets"]
        return f"The barrage may strike {n} unit{'s' * (n != 1)}."
    if k == "army_rolled":
        counts = ", ".join(f"{n} {c}" for c, n in event["classes"].items() if n)
        types = ", ".join(u["type"] for u in event["units"])
        return (f"{event['side']} rolls {event['roll']} for an army of {event['size']}: "
                f"{counts} — {types}.")
    if k == "state_checksum":
        return f"End of turn {event['turn']}: state checksum {event['sha256'][:12]}…"
    if k == "game_ended":
        result = f"{event['winner']} wins" if event.get("winner") else "a draw"
        held = event.get("objectives") or {}
        extra = (" Objectives held: " + ", ".join(f"{k2} {v}" for k2, v in held.items()) + "."
                 if held else "")
        return f"Game over: {result} ({event['reason']}).{extra}"
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
