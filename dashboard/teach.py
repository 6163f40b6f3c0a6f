"""Teaching mode on the replay page: each step that resolves something asks its question
(engine/teaching.py) before showing what happened, then gives the answer with the arithmetic and
the rules, and keeps a score for the game.

Answers live in session state under ``teach_answers``: {(game identity, step index): what the
learner said}, so stepping back shows an answered question as answered, and the score counts each
question once.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from warlog.dashboard.data import markdown_text as md
from warlog.engine.rules import catalogue
from warlog.engine.teaching import Question, is_right


def enabled() -> bool:
    return st.sidebar.toggle(
        "Teaching mode", key="teaching",
        help="Each shot, attack, combat or order is a question first: answer it, then see "
             "what the rules say and why.")


def _answers() -> dict[tuple[str, int], Any]:
    return st.session_state.setdefault("teach_answers", {})


def answered(identity: str, q: Question | None) -> bool:
    return q is None or (identity, q.step) in _answers()


def _submit(identity: str, q: Question) -> None:
    _answers()[(identity, q.step)] = st.session_state.get(f"teach_given_{q.step}")


def score(identity: str, questions: dict[int, Question]) -> tuple[int, int]:
    """(right, asked) for this game's answered questions."""
    given = {step: a for (who, step), a in _answers().items() if who == identity}
    right = sum(is_right(questions[s], a) for s, a in given.items() if s in questions)
    return right, len(given)


def show_score(identity: str, questions: dict[int, Question]) -> None:
    right, asked = score(identity, questions)
    st.sidebar.metric("Score", f"{right} of {asked}" if asked else "—",
                      help=f"{len(questions)} questions in this game.")


def _rule_text(rule_id: str) -> str:
    r = catalogue().get(rule_id)
    if r is None:  # an id from the log, not from the catalogue: data
        return md(rule_id)
    flag = " — ⚖️ *interpretation*" if r.interpretation else ""
    return f"`{rule_id}` {r.text}{flag}"


def panel(identity: str, q: Question) -> None:
    """The question (before an answer) or the verdict, the arithmetic and the rules (after).
    The question, the answer and the explanation quote unit ids from the log: escaped."""
    with st.container(border=True, key="teach_panel"):
        st.markdown(f"**Question:** {md(q.prompt)}")
        if not answered(identity, q):
            key = f"teach_given_{q.step}"
            if q.choices:
                st.radio("Your answer", q.choices, key=key, index=None, horizontal=True)
            else:
                st.number_input("Your answer (hits)", min_value=0, max_value=99, step=1,
                                key=key, value=None)
            st.button("Answer", key="teach_answer", on_click=_submit, args=(identity, q),
                      disabled=st.session_state.get(key) is None, type="primary")
            return
        given = _answers()[(identity, q.step)]
        if is_right(q, given):
            st.success(f"Right: {md(str(q.answer))}.")
        else:
            st.error(f"Not quite: you said {md(str(given))}; the answer is {md(str(q.answer))}.")
        st.markdown(md(q.explanation))
        if q.rules:
            st.caption("\n".join(f"- {_rule_text(r)}" for r in q.rules))


def untold(title: str, question) -> str:
    """A step's title with what the learner is asked left out: the outcome (after the colon),
    and for a legality question the order itself."""
    if question.kind == "legal":
        return " · ".join(title.split(" · ")[:2]) + " · an order (answer the question)"
    return title.split(": ")[0] + " (answer to see what happens)"
