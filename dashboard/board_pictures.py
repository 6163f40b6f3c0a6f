"""Pictures of the board, one per rule system, for the README: docs/boards/<system>.png.

Run ``python -m warlog.dashboard.board_pictures`` (``--out FOLDER`` to write elsewhere). Each
picture is a bundled scenario of the system played by the engine's bots (seeded, so the same
picture every time) and drawn at a step in the thick of it, with that step's moves and attacks,
so a reader sees the counters as a game shows them. kaleido draws them with the system's
chromium, one browser for all of them (a browser a picture costs about 3 s each).
"""

from __future__ import annotations

import argparse
import html
import warnings
from pathlib import Path

import plotly.graph_objects as go

from warlog.app.pictures.board import BOARD_PX, board_figure
from warlog.engine import analysis
from warlog.engine.bots import play_out
from warlog.engine.fold import Timeline
from warlog.engine.rulesets import showcase, systems
from warlog.engine.scenario import bundled_scenarios

SEED = 7
PART_WAY = 0.4  # how far into the game's steps the picture is taken
OUT = Path("docs/boards")


def picture(system: str) -> go.Figure:
    """The board of ``system``'s scenario, part way through a seeded bot game."""
    scenario = next(sc for sc in bundled_scenarios() if sc.id == showcase(system))
    events = play_out(f"picture-{scenario.id}", scenario, seed=SEED).events
    timeline = Timeline(events)
    steps = analysis.steps(events)
    step = steps[int(len(steps) * PART_WAY)]
    state = timeline.state_at(step.last)
    marks = analysis.highlights(events[step.first : step.last + 1], state)
    fig = board_figure(state, highlight=marks)
    title = html.escape(f"{analysis.system_name(state)}: {scenario.title}, turn {state.turn}")
    fig.update_layout(title={"text": title, "x": 0.01, "font": {"size": 15}}, margin={"t": 60})
    return fig


def write_all(out: Path = OUT) -> list[Path]:
    """Every system's picture as PNG under ``out``; the paths written, in the registry's order."""
    import kaleido
    import plotly.io as pio

    out.mkdir(parents=True, exist_ok=True)
    paths = []
    kaleido.start_sync_server(silence_warnings=True)
    try:
        with warnings.catch_warnings():
            # plotly warns on every picture that kaleido's options went to the server once
            warnings.filterwarnings("ignore", message="The kopts argument is ignored")
            for system in systems():
                fig = picture(system)
                path = out / f"{system}.png"
                pio.write_image(fig, path, format="png", width=BOARD_PX + 60,
                                height=int(fig.layout.height) + 50, scale=1.5)
                paths.append(path)
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the pictures")
    for path in write_all(parser.parse_args().out):
        print(path)


if __name__ == "__main__":
    main()
