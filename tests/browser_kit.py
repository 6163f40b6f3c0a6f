"""What every browser test needs: `streamlit run` on a free port over a given database, Debian's
chromium driven by Playwright, pages whose every wait has the suite's one limit, and the board's
points found where plotly.js drew them. (Playwright's own browser download is not used; CI
installs chromium with apt-get.)"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from waits import LIMIT, LIMIT_MS, wait_until

from warlog.server_options import STREAMLIT_OPTIONS

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
LAUNCH_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def streamlit_server(db: Path, tmp: Path) -> Iterator[str]:
    """The dashboard served over ``db``; its address. Stopped (by its pid) however the block
    ends; its output kept in ``tmp``/streamlit.log and shown if it does not start."""
    with streamlit_process(db, tmp) as (_, url):
        yield url


@contextmanager
def streamlit_process(db: Path, tmp: Path) -> Iterator[tuple[subprocess.Popen, str]]:
    """``streamlit_server``, with its process (a test that reads the server's own /proc)."""
    port = free_port()
    env = {**os.environ, "WARLOG_DB": str(db), "HOME": str(tmp)}
    log_path = tmp / "streamlit.log"
    log = log_path.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "dashboard/app.py", *STREAMLIT_OPTIONS,
         "--server.port", str(port), "--server.address", "127.0.0.1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"

        def healthy() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"streamlit did not start: {log_path.read_text()}")
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=LIMIT) as r:
                    return r.status == 200
            except OSError:
                return False

        wait_until(healthy, lambda: f"streamlit did not start: {log_path.read_text()}")
        yield proc, url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=LIMIT)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=LIMIT)
        log.close()


@contextmanager
def chromium(tmp: Path):
    """Debian's chromium under Playwright, its files kept in ``tmp``."""
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: apt-get install -y chromium"
    from playwright.sync_api import sync_playwright

    os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")  # the browser's files stay in tmp
    os.environ["XDG_CACHE_HOME"] = str(tmp / "cache")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS,
                                    timeout=LIMIT_MS)
        try:
            yield browser
        finally:
            browser.close()


def new_page(browser, width: int, height: int, own_context: bool = False):
    """A page whose every wait and action (wait_for_*, click, goto, inner_text) has the limit;
    ``own_context``: in a browser context of its own (no cookie or storage shared with the
    other pages: another player's browser). Closing such a page's context closes it."""
    viewport = {"width": width, "height": height}
    page = (browser.new_context(viewport=viewport).new_page() if own_context
            else browser.new_page(viewport=viewport))
    page.set_default_timeout(LIMIT_MS)
    page.set_default_navigation_timeout(LIMIT_MS)
    return page


def until(page, condition: str, arg=None, share: int = 12) -> bool:
    """Whether the JavaScript ``condition`` holds within a ``share``-th of the limit (a click
    lost in a busy page's redraw is then made again, until the whole limit)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(condition, arg=arg, timeout=LIMIT_MS / share)
        return True
    except PlaywrightTimeout:
        return False


def click_if_there(locator) -> bool:
    """Click the first element ``locator`` finds, if the page still shows one within a twelfth
    of the limit; False when it did not. An element seen a moment ago may be gone in a redraw
    (the bots' turn ended, the phase moved on), and a plain click would wait the whole limit
    for it to come back: a loop that clicks what it saw looks again instead."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        locator.first.click(timeout=LIMIT_MS / 12)
        return True
    except PlaywrightTimeout:
        return False


# Replay has drawn its charts (they come in a run after the board's) and no run is going on: a
# click made meanwhile could be lost in the redraw.
SETTLED = """() => !!document.querySelector('.js-plotly-plot')
    && !document.querySelector('[data-testid="stStatusWidget"]')"""


def board_point(page, role: str, side: str | None = None, index: int = 0
                ) -> tuple[float, float, float, float] | None:
    """Page position and board position of point ``index`` of the clicked board's trace
    ``role`` (and ``side``): its SVG group (warlog/app/pictures/board_svg.py) names its role, side and
    points; None when the board has no such trace or point."""
    found = page.evaluate("""([role, side, index]) => {
        const svg = document.querySelector('svg[data-board="live"]');
        if (!svg) return null;
        const g = Array.from(svg.querySelectorAll('g[data-role]')).find(g =>
            g.dataset.role === role && (side === null || g.dataset.side === side));
        const points = g ? g.dataset.at.split(' ').filter(p => p) : [];
        if (points.length <= index) return null;
        const [x, y] = points[index].split(',').map(Number);
        const at = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
        return [at.x, at.y, x, y]; }""", [role, side, index])
    return None if found is None else tuple(found)


def no_exception(page) -> None:
    assert page.locator('[data-testid="stException"]').count() == 0, \
        page.locator('[data-testid="stException"]').first.inner_text()
