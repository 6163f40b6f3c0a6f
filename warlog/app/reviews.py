"""Reviews stored beside their games: the key a review is stored under, the stored review a
face shows at once, why a stored one does not answer a request, and storing a finished one.
`warlog review`, `warlog report` and the Review page all go through here, so each finds what
the others stored (events/analysis_store.py holds them).
"""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Any

from warlog.engine.evaluator import load_weights
from warlog.engine.review import Budget, readable
from warlog.events.analysis_store import AnalysisStore
from warlog.events.store import StoreError

Event = dict[str, Any]
DEFAULT_SEED = 0  # `warlog review` without --seed, and the Review page


def review_params(budget: Budget | None = None, seed: int = DEFAULT_SEED,
                  evaluator: str | None = None) -> dict[str, Any]:
    """What a stored review is keyed by beside its game and length: everything its numbers
    depend on (the search's budget, the seed of its sampled dice, the evaluator's version;
    by default the review `warlog review` makes with no option, by this warlog's evaluator)."""
    return {"budget": asdict(budget or Budget()), "seed": seed,
            "evaluator": evaluator or load_weights()["version"]}


def stored_review(db: str | Path, events: list[Event]) -> dict[str, Any] | None:
    """The review stored in ``db`` for this game at its present length (one by the current
    evaluator first), or None: no database, none stored, or one that is not a readable review
    of this game (edited outside warlog: a face goes on without it, as `warlog review` would
    review again). For a stored game only: a replay file's review is never stored."""
    if not events or not Path(db).is_file():  # reading must not create a database
        return None
    game, last = events[0]["game"], events[-1]["seq"]
    try:
        with AnalysisStore(db) as store:
            data = store.latest_review(game, last, evaluator=load_weights()["version"])
    except StoreError:
        return None
    if data is None or not readable(data) or data.get("game") != game:
        return None
    return data


def exact_review(db: str | Path, game: str, params: dict[str, Any], last: int
                 ) -> tuple[dict[str, Any] | None, str | None]:
    """(the review stored for exactly this request, or None; and when one stored for this
    game does not fit, one line saying why it is reviewed again)."""
    with AnalysisStore(db) as store:
        data = store.load_review(game, params, last)
        if data is not None and readable(data) and data["evaluator"] == params["evaluator"]:
            return data, None
        why = ("the stored review could not be read (made by another version of warlog, or "
               "changed outside it): reviewed again"
               if data is not None else why_again(store.review_keys(game), params, last))
    return None, why


def why_again(keys: list[tuple[dict[str, Any], int]], params: dict[str, Any],
              last: int) -> str | None:
    """One line saying why the stored reviews of a game (``keys``: their parameters and last
    seq, the latest stored first) do not answer this request, or None if none is stored. Of
    those of this length, the nearest (the same evaluator, then the fewest settings apart, then
    the latest) is explained by its evaluator, else its budget and seed; else the game grew."""
    if not keys:
        return None
    same_length = [p for p, seq in keys if seq == last]
    if not same_length:
        return (f"the stored review covers the game to step {keys[0][1]} and it now ends at "
                f"step {last}: reviewed again")
    stored = min(same_length, key=lambda p: (p.get("evaluator") != params["evaluator"],
                                             (p.get("budget") != params["budget"])
                                             + (p.get("seed") != params["seed"])))
    if stored.get("evaluator") != params["evaluator"]:
        return f"the stored review was made by evaluator {stored.get('evaluator')}: reviewed again"
    said = []
    budget = stored.get("budget")
    if budget != params["budget"]:
        candidates = budget.get("candidates") if isinstance(budget, dict) else None
        said.append(f"budget {candidates}" if candidates != params["budget"]["candidates"]
                    else "another search budget")
    if stored.get("seed") != params["seed"]:
        said.append(f"seed {stored.get('seed')}")
    return f"the stored review was made with {', '.join(said) or 'other settings'}: reviewed again"


def store_review(db: str | Path, game: str, params: dict[str, Any], last: int,
                 data: dict[str, Any]) -> None:
    """Keep a finished review beside its game (one transaction). StoreError when the database
    refuses it (read-only, altered outside warlog): a face shows the review anyway."""
    with AnalysisStore(db) as store:
        store.save_review(game, params, last, data)
