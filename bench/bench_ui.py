"""Browser latency of the app: cold start and every stepping interaction, click to updated page.

Run from the repository root (needs Playwright and Debian's Chromium, as the browser tests do)::

    python -m bench.bench_ui               # 15 repetitions of each interaction
    python -m bench.bench_ui --reps 5      # a quicker look
    python -m bench.bench_ui --record      # and keep the figures for the manual (docs/bench/ui.json)
    python -m bench.bench_ui --pages       # every page with a 50 MB corpus in use (bench/bench_pages.py)
    python -m bench.bench_ui --pages --mb 5 --reps 3   # the same, quick

What is measured, on the default corpus with the BPE page's default settings (2,000 merges):

- **cold start**: from starting ``streamlit run`` to the first page drawn and idle in the browser,
  once with an empty data cache (a fresh install: the shipped default corpus, no cached files) and once
  with the cache filled (a server restart);
- **interactions**: the time from the click or key press to the page showing its result (the step
  heading, the markers, the other page), watched in the browser at every animation frame. Next
  button, N key, slider (arrow key on its thumb), jump box, the markers toggle, and switching pages.

Each figure is printed as median and 95th percentile. The target is a median under 300 ms and a
cold start under 3 s. With ``--record`` the interactions are kept as the manual's table and the cold
starts as its caption (``docs/bench/ui.json``).

With ``--pages`` the bench is :mod:`bench.bench_pages` instead (every other argument goes to it): a
``--mb`` MB corpus (default 50) is uploaded on the Corpus page as a user would, then every page's first
computation on it is timed (with the progress indicators seen) and ``--reps`` ordinary clicks per page,
click to updated and idle page, are reported per page with their median against the 300 ms target.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402
from bench.results import record  # noqa: E402

IDLE = "[data-testid=stApp][data-test-script-state=notRunning]"
STEP_HEADING = "h3"


@contextlib.contextmanager
def server(cache: Path) -> Iterator[tuple[str, float]]:
    """A fresh ``streamlit run``; yields its URL and the time it was started (perf_counter)."""
    with running_app(cache) as app:
        yield app.url, app.started


def _median_p95(samples_ms: list[float]) -> tuple[float, float]:
    ordered = sorted(samples_ms)
    return statistics.median(ordered), ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def _summary(name: str, samples_ms: list[float]) -> str:
    median, p95 = _median_p95(samples_ms)
    return f"{name:<34} median {median:7.0f} ms   p95 {p95:7.0f} ms   (n={len(samples_ms)})"


def _timed(page, action: Callable[[], None], done_js: str, arg: object = None) -> float:
    """Milliseconds from ``action`` to ``done_js`` (a JS predicate) holding, checked every frame."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    start = time.perf_counter()
    action()
    try:
        page.wait_for_function(done_js, arg=arg, polling="raf", timeout=60_000)
    except PlaywrightTimeout:
        headings = page.locator("h3").all_inner_texts()[:3]
        raise RuntimeError(f"no update within 60 s: waited for {done_js[:60]!r} with {arg!r}; "
                           f"the page shows {headings}") from None
    elapsed = (time.perf_counter() - start) * 1000
    page.wait_for_selector(IDLE, timeout=60_000)  # the run has finished before the next interaction
    return elapsed


STEP_IS = """(n) => [...document.querySelectorAll('h3')].some(h => h.textContent.startsWith(`Step ${n} of`))"""
HEADING_IS = """(t) => [...document.querySelectorAll('h1')].some(h => h.textContent.trim() === t)"""


def _step_of(page) -> int:
    text = page.locator("h3", has_text=re.compile(r"^Step [\d,]+ of")).first.inner_text()
    return int(text.split()[1].replace(",", ""))


def cold_start(cache: Path) -> float:
    """Seconds from starting the server to the first page drawn and idle (the browser is already open,
    as a presenter's is)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        with server(cache) as (url, started):
            page.goto(url + "/")
            page.wait_for_function(HEADING_IS, arg="Corpus", polling="raf", timeout=120_000)
            page.wait_for_selector(IDLE, timeout=120_000)
            seconds = time.perf_counter() - started
        browser.close()
    return seconds


def interactions(cache: Path, reps: int) -> dict[str, list[float]]:
    from playwright.sync_api import sync_playwright

    out: dict[str, list[float]] = {}
    with server(cache) as (url, _), sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.goto(url + "/merges?step=1")
        page.wait_for_function(STEP_IS, arg=1, polling="raf", timeout=300_000)
        page.wait_for_selector(IDLE, timeout=60_000)

        def series(name: str, action: Callable[[int], None], expect_step: Callable[[int], int]) -> None:
            samples = []
            for _ in range(reps):
                k = _step_of(page)
                try:
                    samples.append(_timed(page, lambda k=k: action(k), STEP_IS, expect_step(k)))
                except RuntimeError as err:
                    raise RuntimeError(f"{name}, from step {k}: {err}") from None
            out[name] = samples

        series("Next button", lambda k: page.locator(".tp-step-next").click(), lambda k: k + 1)

        page.locator("[data-testid=stMain] h1").first.click()
        series("N key", lambda k: page.keyboard.press("n"), lambda k: k + 1)

        def scrubber(k: int) -> None:
            thumb = page.locator(".tp-step-range")  # the step controls' scrubber
            thumb.focus()
            page.keyboard.press("ArrowRight")

        series("Scrubber (arrow key on the thumb)", scrubber, lambda k: k + 1)

        def jump(k: int) -> None:
            box = page.locator(".st-key-merges_jump input")
            box.fill(str(k + 7))
            box.press("Enter")

        series("Jump to step", jump, lambda k: k + 7)

        samples = []
        for _ in range(reps):
            was = page.get_by_role("switch", name="Raw markers").is_checked()
            label = page.locator(".st-key-merges_raw_markers label").first
            samples.append(_timed(page, label.click,
                                  "(want) => { const t = document.querySelector('.st-key-merges_raw_markers input');"
                                  " return t !== null && t.checked === want; }", not was))
        out["Markers toggle (a setting)"] = samples

        samples = []
        for i in range(reps):
            target = "Tokenizers" if i % 2 == 0 else "BPE step-through"
            link = page.get_by_role("link", name=target).first
            samples.append(_timed(page, link.click, HEADING_IS, target))
        out["Page switch (Tokenizers / BPE)"] = samples
        browser.close()
    return out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if "--pages" in argv:  # the per-page bench with a big corpus has its own options
        from bench import bench_pages

        return bench_pages.main([a for a in argv if a != "--pages"])
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--pages", action="store_true",
                    help="measure every page with a big corpus instead (see bench/bench_pages.py)")
    ap.add_argument("--reps", type=int, default=15)
    ap.add_argument("--record", action="store_true", help="keep the figures for the manual (docs/bench/ui.json)")
    args = ap.parse_args(argv)
    print(f"{os.cpu_count()} cores; default corpus; BPE page at 2,000 merges; viewport 1280x720")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        first = cold_start(cache)
        again = cold_start(cache)
        print(f"{'Cold start, empty data cache':<34} {first:7.2f} s")
        print(f"{'Cold start, server restart':<34} {again:7.2f} s")
        measured = interactions(cache, args.reps)
    for name, samples in measured.items():
        print(_summary(name, samples))
    if args.record:
        rows = [[name, *(f"{ms:,.0f} ms" for ms in _median_p95(samples))] for name, samples in measured.items()]
        caption = (f"Cold start, from `streamlit run` to the first page drawn and idle in an open browser: "
                   f"{first:.2f} s with an empty data cache (a fresh install), {again:.2f} s on a server restart.")
        figures = {"columns": ["default corpus, BPE page at 2,000 merges", "median", "95th percentile"],
                   "rows": rows, "caption": caption}
        print("recorded in", record("ui", figures, note=f"bench_ui --reps {args.reps}"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
