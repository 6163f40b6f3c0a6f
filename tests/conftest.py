"""The whole suite: the long seeded sweeps (marked ``slow``) are collected first.

``./dev test`` runs two pytest-xdist workers with ``--dist worksteal``: each takes half the
tests, and one that runs out takes half of what the other has left. With xdist's default
``load`` scheduling, tests already queued on a busy worker stay there: measured here, one worker
finished after 107 s and the other after 287 s. Collected first, the sweeps of many seconds are
split between the workers at the start, and the short tests stolen at the end even things out
(both finish within seconds of each other).

Every wait in the suite waits for a condition, up to tests/waits.py's one limit (sized for a
loaded machine, scaled by WARLOG_TEST_SLOWDOWN); Hypothesis's own per-example deadline and its
too-slow health check, timings that a busy machine fails, are off for every property test.

typer's CliRunner builds the click command of the app it is given on every ``invoke`` (every
command's signature read and its annotations evaluated again): 90% of an in-process ``warlog``
run here. Each app's command is built once a process instead, as ``warlog`` itself builds it
once, and again whenever the app's commands change (tests/cli/test_odds_cmd.py adds one). Each
new AppTest's scan of the installed packages for Streamlit components is made once too."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


def pytest_configure(config):
    try:
        import waits  # noqa: F401 - reads WARLOG_TEST_SLOWDOWN
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    from hypothesis import HealthCheck, settings

    settings.register_profile("warlog", deadline=None,
                              suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile("warlog")
    # As `warlog dashboard` runs it (warlog/cli.py): the pages use no magic, and AppTest would
    # otherwise rewrite each page's syntax tree for it on every run (a third of a step's cost).
    from streamlit import config as streamlit_config

    streamlit_config.set_option("runner.magicEnabled", False)
    _scan_for_components_once()
    _build_each_cli_once()


def _scan_for_components_once() -> None:
    """Every new AppTest scans the metadata of every installed distribution for Streamlit
    component manifests (0.4 s of CPU here, the better part of opening a page): the installed
    packages do not change during a run, so the scan's answer is kept."""
    import functools

    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests  # AttributeError if it moves: loud
    manifest_scanner.scan_component_manifests = functools.cache(scan)


def _build_each_cli_once() -> None:
    import typer.testing

    build = typer.testing._get_command  # AttributeError on a typer that no longer has it: loud
    built: dict[int, tuple[list, object]] = {}  # id(app) -> (what it was built from, command)

    def get_command(app):
        parts = [app, app.registered_callback, app.info.callback, *app.registered_commands,
                 None, *app.registered_groups]  # the objects themselves: no id is reused
        held = built.get(id(app))
        if held is None or len(held[0]) != len(parts) or any(
                a is not b for a, b in zip(held[0], parts)):
            held = built[id(app)] = (parts, build(app))
        return held[1]

    typer.testing._get_command = get_command


def pytest_collection_modifyitems(config, items):
    items.sort(key=lambda item: item.get_closest_marker("slow") is None)  # stable: slow first


@pytest.fixture(scope="session")
def bundled_games(tmp_path_factory, worker_id) -> dict[str, list[dict]]:
    """The event logs of a bot game of every bundled scenario (seed 7), a random game, and every
    golden game: played once a run (tests/run_once.py), read by the analysis and the narration
    tests."""
    from run_once import built_once

    def play(path: Path) -> None:
        from warlog.engine.bots import play_out
        from warlog.engine.scenario import bundled_scenarios, load_scenario

        out = {sc.id: play_out(f"g-{sc.id}", sc, seed=7).events for sc in bundled_scenarios()}
        out["random"] = play_out("g-random", load_scenario("ancients-river-crossing"), seed=3,
                                 red="random", blue="random").events
        path.write_bytes(orjson.dumps(out))

    out = orjson.loads(built_once(tmp_path_factory, worker_id, "bundled_games.json", play)
                       .read_bytes())
    for path in sorted(GOLDEN.glob("*.events.jsonl")):
        out[path.name] = [orjson.loads(line) for line in path.read_bytes().splitlines() if line]
    return out


@pytest.fixture(scope="session")
def demo_db_file(tmp_path_factory, worker_id) -> Path:
    """A database seeded with warlog's demo games (warlog/app/demo.py), built once a run: copy it
    (run_once.copied) before writing to it."""
    from run_once import built_once

    def seed(path: Path) -> None:
        from warlog.app.demo import ensure_demo_games
        from warlog.events.sqlite_store import SQLiteEventStore

        with SQLiteEventStore(path) as store:
            ensure_demo_games(store)

    return built_once(tmp_path_factory, worker_id, "demo.db", seed)


@pytest.fixture(scope="session")
def river_game(bundled_games) -> list[dict]:
    """The river crossing's game of bundled_games (seed 7, the tactician on both sides)."""
    return bundled_games["ancients-river-crossing"]
