"""The rule catalogue: every rule the engine can cite, searchable.

Events cite rule ids; this page is where a player reads them all, with their source and whether
warlog had to interpret the book (and the scenario option that switches the interpretation).
"""

from __future__ import annotations

import streamlit as st

from warlog.engine.rules import Rule, catalogue
from warlog.engine.rulesets.tables import periods, rules_title, systems


def matches(rule: Rule, query: str) -> bool:
    """Case-insensitive search over everything shown for a rule; every word must match."""
    text = " ".join(str(v) for v in (rule.id, rule.text, rule.citation, rule.option, rule.note) if v)
    return all(word in text.lower() for word in query.lower().split())


def show(rule: Rule) -> None:
    flag = " · ⚖️ interpretation" if rule.interpretation else ""
    st.markdown(f"#### `{rule.id}`{flag}")
    st.markdown(rule.text)
    details = [f"Source: {rule.citation}"]
    if rule.option:
        details.append(f"switched by the scenario option `{rule.option}`")
    st.caption(" · ".join(details))
    if rule.note:
        st.caption(f"Note: {rule.note}")


def in_period(rule: Rule, chosen: str) -> bool:
    """Whether a rule belongs to a game of the ``chosen`` period ("<system>.<period>", of a
    system with several): the grid's, every system's common rules and the other systems' rules
    do; another period's own rules do not."""
    system, period = chosen.split(".", 1)
    parts = rule.id.split(".")
    if parts[0] != system or len(parts) < 2 or parts[1] not in periods(system):
        return True
    return parts[1] == period


PERIODS = {f"{system}.{p}": rules_title(system, p) for system in systems()
           if len(periods(system)) > 1 for p in periods(system)}
"""The periods a player may narrow the rules to, of every rule system that has several, in
words ("One Hour Wargames: Ancients")."""

st.title("Rules")
st.caption("Every rule the engine applies. Events cite these ids; the replay page shows the text. "
           "The same reference, with its sources, is docs/rules.md.")
search, era, only = st.columns([3, 2, 1], vertical_alignment="bottom")
query = search.text_input("Search", key="rule_search", placeholder="e.g. cavalry, melee, arc")
period = era.selectbox("Period", ["all", *PERIODS], key="rule_period",
                       format_func=lambda p: "All periods" if p == "all" else PERIODS[p])
interpretations = only.checkbox("Only interpretations", key="rule_interpretations")
rules = [r for r in catalogue().values()
         if matches(r, query) and (r.interpretation or not interpretations)
         and (period == "all" or in_period(r, period))]
st.caption(f"{len(rules)} of {len(catalogue())} rules")
for rule in rules:
    show(rule)
