"""The Play page's widgets for giving orders and writing on the game: the header line, the
person's orders panel (the selected unit, what a click offered, the unit's and the side's
buttons, every legal order), the dice an order waits for, the plan and note boxes, conceding,
and the form that seats a continued game afresh.

Widgets only: what an input means is dashboard/play_flow.py's (the page's session state) and the
Session's (the game and its seats); the callbacks here hand each input to them. Every text that
comes from a game is data and goes through ``markdown_text`` before Streamlit's Markdown.
"""

from __future__ import annotations

import hashlib

import streamlit as st

from warlog.app.session import Session, fallback_orders
from warlog.app.table_dice import DiceNeeded
from warlog.dashboard import data, play_flow, play_panels, play_start
from warlog.dashboard.data import markdown_text as md
from warlog.engine.flow import phase_name

_SHOWN_AS = {"warning": st.warning, "info": st.info, "success": st.success}


def give(table: Session, order, seen: int | None = None) -> None:
    """A button's order (the page's ``give``, as review_try.offer calls it too)."""
    play_flow.give(st.session_state, table, order, seen)


def _act(table: Session, action) -> None:
    play_flow.act(st.session_state, table, action)


def message() -> None:
    """The page's one line about the last input, shown once."""
    said = st.session_state.pop("play_message", None)
    if said is not None:
        _SHOWN_AS.get(said[0], st.error)(md(said[1]))


def header(table: Session) -> None:
    """The game in one line: its title, id, turn and phase, and who is to act (or its end)."""
    state, seat = table.state, table.seat_to_act
    where = f"turn {state.turn}"
    if state.ended:
        where += " · the game has ended"
    else:
        who = "" if seat is None else f" ({md(seat.name)}, bot)" if seat.bot else \
            f" ({md(seat.name)})"
        where += f" · {state.side or 'both sides'} {phase_name(state.phase)} · " \
                 f"to act: {state.to_act}{who}"
    st.markdown(f"**{md(state.scenario.title)}** · {data.code_span(table.game_id)} · {where}")


def order_buttons(table: Session, orders, prefix: str) -> None:
    """A button an order, keyed by the board it was drawn with and by the order itself: a
    click on a button of an earlier board is refused as moved on (``play_flow.stale``), never
    given in a later phase, and a button drawn for one unit never gives another unit's order
    that a later run put in its place (a new unit selected, no event between)."""
    seen = table.last_seq()
    for i, order in enumerate(orders):
        mark = hashlib.blake2b(order.model_dump_json().encode(), digest_size=4).hexdigest()
        st.button(md(table.label(order)), key=f"{prefix}_{seen}_{i}_{mark}", on_click=give,
                  args=(table, order, seen), use_container_width=True)


def dice_panel(table: Session, needed: DiceNeeded) -> None:
    """A face button per face of each die the order waits for (a number for a big die), and
    the order taken back."""
    st.info(needed.prompt())
    for die in needed.dice:
        st.caption(f"Die {die.number} (d{die.sides})" + (f": {die.purpose}" if die.purpose else ""))
        if die.sides <= 6:
            for face, column in zip(range(1, die.sides + 1), st.columns(die.sides)):
                column.button(str(face), key=f"play_face_{die.number}_{face}", on_click=_act,
                              args=(table, lambda f=face: table.dice([f])))
        else:
            face = st.number_input("Face", 1, die.sides, key=f"play_face_{die.number}")
            st.button("Roll given", key=f"play_face_go_{die.number}", on_click=_act,
                      args=(table, lambda: table.dice([int(face)])))
    st.button("Undo this order", key="play_undo", on_click=_act, args=(table, table.undo))


def orders_panel(table: Session, unit: str | None) -> None:
    """The person to act's side panel: the selected unit, what its last click offered, its own
    buttons (with the attack behind a choice it must make), the side's, and every legal order."""
    units = table.units_to_act()
    if units:
        picked = st.selectbox("Selected unit", ["—"] + units,
                              index=(units.index(unit) + 1) if unit in units else 0,
                              # a fresh widget when a board click changed the unit: the old
                              # one would keep (and restore) its own pick
                              key=f"play_unit_pick_{len(table.events)}_{unit}")
        if (picked if picked != "—" else None) != unit:
            play_flow.pick_unit(st.session_state, None if picked == "—" else picked)
            st.rerun()
    offer = st.session_state.get("play_offer")
    if offer:
        st.write("That click offers (the plain order first):")
        order_buttons(table, offer, "play_offer")
    choices = table.choices(unit)
    if unit is not None and choices.buttons:
        play_panels.cause_of_choice(table, unit)
        st.write(f"{md(unit)}:")
        order_buttons(table, choices.buttons, "play_unit_order")
    order_buttons(table, choices.side, "play_side")
    st.toggle("Ask which order on every click", key="play_ask",
              help="A click on a cell or an enemy then lists every order it could give "
                   "(other facings, an attack on arrival) instead of giving the plain one.")
    with st.expander("Every legal order", expanded=False):
        _fallback(table)


def _fallback(table: Session) -> None:
    listed = fallback_orders(table)
    if not listed:
        return
    notations = [n for n, _ in listed]
    chosen = st.selectbox("Every legal order (type to search)", notations, key="play_fallback")
    by_notation = dict(listed)
    st.button("Give", key="play_fallback_go", on_click=give,
              args=(table, by_notation[chosen], table.last_seq()))


def plan_box(table: Session) -> None:
    """Before a side's first order, its player may write the plan (what was meant, for the
    after-action report): offered once, until that side gives an order."""
    for side in table.plannable():
        with st.expander(f"{side}'s plan for the battle (before its first order)",
                         expanded=False):
            st.text_area("What is the plan? (kept in the game; the review compares the battle "
                         "with it)", key=f"play_plan_{side}", height=80)
            st.button("Save the plan", key=f"play_plan_go_{side}", on_click=play_flow.plan,
                      args=(st.session_state, table, side))


def note_box(table: Session) -> None:
    """A note on the game, from any page that may write one (never a watcher's)."""
    if table.watches:
        return
    st.text_input("A note on the game", key="play_note")
    st.button("Add note", key="play_note_go", on_click=play_flow.note,
              args=(st.session_state, table))


def concede(table: Session) -> None:
    """Giving the battle up, for each side this page may concede for."""
    sides = table.concedable()
    if not sides:
        return
    with st.popover("Concede", key="play_concede"):
        st.caption("The battle is given up: the other side wins, and the game ends.")
        for side in sides:
            st.button(f"{side} concedes the battle", key=f"play_concede_{side}",
                      on_click=_act, args=(table, lambda s=side: table.concede(s)))


TAKE_BACK_RULE = ("A side takes back its own last orders as long as nothing else has decided "
                  "the game since (an order of the other side, a change of seats, a "
                  "concession), and a bot's orders are never taken back.")


def take_back_box(table: Session) -> None:
    """Taking orders back: a standing request from the other browser with Agree and Refuse, the
    asker's wait or the refusal it got, and for each side this page may take back for, how many
    orders (at most what the rule allows) and the button (or, between two browsers, the ask)."""
    asked, mine = table.take_back_asked(), table.holds
    if asked is not None and mine is not None and asked.side != mine:
        st.warning(f"{md(asked.side)} asks to take back its last {asked.orders} "
                   f"order{'s' if asked.orders != 1 else ''}.")
        agree, refuse = st.columns(2)
        agree.button("Agree", key="play_takeback_agree", type="primary",
                     on_click=play_flow.answer_take_back, args=(st.session_state, table, True))
        refuse.button("Refuse", key="play_takeback_refuse",
                      on_click=play_flow.answer_take_back, args=(st.session_state, table, False))
    elif asked is not None and asked.side == mine:
        st.info("Waiting for the other seat to agree to take back your last "
                f"{asked.orders} order{'s' if asked.orders != 1 else ''}.")
    if table.take_back_refused() is not None:
        st.warning("The other seat refused to take back your orders: they stand.")
    asking = table.take_back_needs_asking()
    for side, most in table.take_back_sides().items():
        key = f"play_takeback_n_{side}_{table.last_seq()}"  # back to 1 at each new position
        if most > 1:
            st.number_input(f"{side}'s orders to take back", 1, most, 1, key=key,
                            help=TAKE_BACK_RULE)
        verb = "Ask to take back" if asking else "Take back"
        st.button(md(f"{verb} {side}'s last order{'s' if most > 1 else ''}"),
                  key=f"play_takeback_{side}", help=TAKE_BACK_RULE, on_click=_take_back,
                  args=(table, side, key))


def _take_back(table: Session, side: str, key: str) -> None:
    play_flow.take_back(st.session_state, table, side, int(st.session_state.get(key, 1)))


def reseat_form(table: Session) -> None:
    """A game continued from a replay step (a fork): who plays each side from here on, chosen
    afresh, recorded as a seats_changed event; or the seats kept as they were."""
    state = table.state
    st.subheader("Continue from here: who plays each side now?")
    st.caption(f"Turn {state.turn}, {state.side or 'both sides'} {phase_name(state.phase)}. "
               "Until now: " + " v ".join(f"{side}: {md(state.players.get(side, side))}"
                                          for side in state.scenario.sides))
    seats = play_start.seat_pickers(list(state.scenario.sides), "play_reseat",
                                    dict(state.players))
    keep, change = st.columns(2)
    if change.button("Play on with these seats", type="primary", key="play_reseat_go"):
        refused = play_flow.reseat(st.session_state, table, seats)
        if refused is not None:
            st.error(md(refused))
            return
        st.rerun()
    if keep.button("Keep the seats as they were", key="play_reseat_keep"):
        play_flow.reseat(st.session_state, table, None)
        st.rerun()
