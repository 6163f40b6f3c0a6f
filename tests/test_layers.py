"""The layers hold (issue 39): the faces (the dashboard, and the command line's modules at
warlog/*.py) over the application (warlog/app) over the engine over the events, the dashboard
importing no command-line module and the command line no dashboard module: import-linter's
contracts in pyproject.toml, run here on every test run.

import-linter finds a package's modules under its folder, and warlog's subpackages live in
folders of their own (engine/, events/, dashboard/: pyproject's package-dir), so the contracts
are checked on a copy of the Python files laid out as the installed package is.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from waits import LIMIT

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"
LINT = Path(sys.executable).with_name("lint-imports")


def _config() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def laid_out(into: Path) -> Path:
    """A copy of every Python file of warlog, at the place its module name says."""
    dirs = _config()["tool"]["setuptools"]["package-dir"]
    out = into / "warlog"
    for package, folder in sorted(dirs.items(), key=lambda kv: len(kv[0])):
        source = ROOT / folder
        target = out.joinpath(*package.split(".")[1:])
        for file in source.rglob("*.py"):
            rel = file.relative_to(source)
            if "__pycache__" in rel.parts:
                continue
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, target / rel)
    return into


def lint(tree: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run([str(LINT), str(PYPROJECT), "--no-cache"], cwd=tree, env=env,
                          capture_output=True, text=True, timeout=LIMIT)


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    return laid_out(tmp_path_factory.mktemp("layout"))


def test_the_contracts_are_kept(tree):
    result = lint(tree)
    assert result.returncode == 0, result.stdout + result.stderr
    contracts = _config()["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept, 0 broken" in result.stdout


def test_an_application_module_importing_a_face_breaks_them(tree, tmp_path):
    """The check can fail: the same tree with one application module reaching into the
    dashboard, and one dashboard module into the command line, is refused, naming both."""
    broken = tmp_path / "broken"
    shutil.copytree(tree, broken)
    with (broken / "warlog" / "app" / "seats.py").open("a", encoding="utf-8") as f:
        f.write("\nfrom warlog.dashboard import data  # planted\n")
    with (broken / "warlog" / "dashboard" / "scrub.py").open("a", encoding="utf-8") as f:
        f.write("\nfrom warlog.record import prepare  # planted\n")
    result = lint(broken)
    assert result.returncode != 0
    assert "warlog.app.seats -> warlog.dashboard.data" in result.stdout
    assert "warlog.dashboard.scrub -> warlog.record" in result.stdout


def test_every_module_of_warlog_is_in_a_layer_and_the_lists_agree():
    """A new module at warlog/*.py must be placed: in the faces' layer (and then in both
    forbidden lists) or the application's."""
    contracts = {c["id"]: c for c in _config()["tool"]["importlinter"]["contracts"]}
    faces, app = (layer.split(" : ") for layer in contracts["layers"]["layers"][:2])
    cli = [m for m in faces if m != "warlog.dashboard"]
    modules = {f"warlog.{p.stem}" for p in (ROOT / "warlog").glob("*.py") if p.stem != "__init__"}
    assert modules == set(cli) | (set(app) - {"warlog.app"})
    assert sorted(contracts["dashboard-not-cli"]["forbidden_modules"]) == sorted(cli)
    assert sorted(contracts["cli-not-dashboard"]["source_modules"]) == sorted(cli)
