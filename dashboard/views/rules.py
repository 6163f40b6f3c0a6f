"""The rule catalogue: every rule the engine can cite, searchable.

Events cite rule ids; this page is where a player reads them all, with their source and whether
warlog had to interpret the book (and the scenario option that switches the interpretation).
"""

from __future__ import annotations

import streamlit as st

from warlog.engine.rules import Rule, catalogue


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


st.title("Rules")
st.caption("Every rule the engine applies. Events cite these ids; the replay page shows the text.")
search, only = st.columns([3, 1], vertical_alignment="bottom")
query = search.text_input("Search", key="rule_search", placeholder="e.g. cavalry, melee, arc")
interpretations = only.checkbox("Only interpretations", key="rule_interpretations")
rules = [r for r in catalogue().values()
         if matches(r, query) and (r.interpretation or not interpretations)]
st.caption(f"{len(rules)} of {len(catalogue())} rules")
for rule in rules:
    show(rule)
