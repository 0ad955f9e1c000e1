"""Many users at once: N browser sessions on one ``streamlit run`` server, all at the same time.

Each session pastes its own corpus (one made-up word, repeated) on the Corpus page, opens the BPE
step-through page, trains, steps to the last merge and reads the page: it must show its own word
and no other session's. Prints each phase's median and slowest time and the server's peak
resident memory (VmHWM of the server process)::

    python -m bench.bench_sessions --sessions 20

One Chromium, one tab per session (its own websocket, so its own Streamlit session), driven with
Playwright's async API (sync Playwright cannot run one instance per thread).
``tests/test_concurrent_sessions.py`` runs the same sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402

TIMEOUT_MS = 240_000  # 20 sessions on 2 cores queue for the one server
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
PHASES = ("open", "corpus", "page", "train", "step")


def session_word(index: int) -> str:
    """A made-up word of 8 letters, different for every index below 26**3, never a substring of another."""
    a, b, c = index // 676 % 26, index // 26 % 26, index % 26
    return "zq" + "".join(chr(97 + n) for n in (a, b, c, (a + 7) % 26, (b + 11) % 26, (c + 5) % 26))


@dataclass
class SessionResult:
    """What one session saw at its last step, and how long each phase took (seconds)."""

    word: str
    seen: str = ""
    heading: str = ""
    seconds: dict[str, float] = field(default_factory=dict)


@contextlib.contextmanager
def server(cache: Path) -> Iterator[tuple[str, int]]:
    """``streamlit run app.py`` on a free loopback port; yield its URL and process id, then stop it."""
    with running_app(cache) as app:
        yield app.url, app.pid


def peak_rss_mb(pid: int) -> float:
    """The peak resident memory of process ``pid`` so far (VmHWM), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024 / 1e6
    raise RuntimeError(f"no VmHWM in /proc/{pid}/status")


async def _session(context, base: str, word: str) -> SessionResult:  # noqa: ANN001 (a Playwright context)
    from playwright.async_api import expect

    result = SessionResult(word)
    page = await context.new_page()
    clock = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.seconds[phase], clock = now - clock, now

    try:
        # Opened on a tiny sample (a link), so the 20 first runs do not each draw the 2 MB default
        # corpus' statistics and charts: the test is about isolation, not about that page.
        await page.goto(base + "/?corpus=hf-course-hug-pug", timeout=TIMEOUT_MS)
        await expect(page.get_by_role("heading", name=re.compile("^Active corpus"))).to_be_visible(timeout=TIMEOUT_MS)
        await page.wait_for_selector(IDLE)
        lap("open")
        await page.get_by_text("Paste text", exact=True).click()
        area = page.get_by_label("Text", exact=True)
        await area.fill((" ".join([word] * 10) + "\n") * 5)
        await area.press("Control+Enter")  # commit the value before clicking
        await page.wait_for_selector(IDLE)
        await page.get_by_role("button", name="Use this text").click()
        await expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=TIMEOUT_MS)
        lap("corpus")
        await page.get_by_role("link", name="BPE step-through").first.click()
        await expect(page.get_by_role("heading", name="BPE step-through")).to_be_visible(timeout=TIMEOUT_MS)
        await page.wait_for_selector(IDLE)
        lap("page")
        train = page.locator(".st-key-merges_train button")
        if not await train.is_visible():  # the settings close while a run is on show
            await page.locator("[data-testid=stExpander] summary").filter(has_text="Settings").click()
        await train.click()
        await expect(page.get_by_role("heading", name=re.compile("^Step 0 of "))).to_be_visible(timeout=TIMEOUT_MS)
        lap("train")
        await page.locator(".tp-step-last").click()
        last = page.get_by_role("heading", name=re.compile(r"^Step ([\d,]+) of \1$"))
        await expect(last).to_be_visible(timeout=TIMEOUT_MS)
        await page.wait_for_selector(IDLE)
        lap("step")
        result.heading = await last.inner_text()
        result.seen = await page.get_by_test_id("stMain").inner_text()
    finally:
        await page.close()
    return result


async def run_sessions(base: str, n: int) -> list[SessionResult]:
    """Run ``n`` sessions against ``base`` at the same time; their results, in order."""
    from playwright.async_api import async_playwright

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            # One context, a tab per session: each tab has its own websocket and so its own Streamlit
            # session (the server keeps no state per cookie), and the tabs share the browser's cache
            # of Streamlit's scripts instead of each loading and compiling them again.
            context = await browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(TIMEOUT_MS)
            return list(await asyncio.gather(*(_session(context, base, session_word(i)) for i in range(n))))
        finally:
            await browser.close()


def sessions(base: str, n: int) -> list[SessionResult]:
    """:func:`run_sessions` from synchronous code, in a thread of its own: a sync Playwright (as
    pytest's browser fixture keeps open) leaves an event loop running in the calling thread."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run_sessions(base, n)).result()


def leaks(results: list[SessionResult]) -> list[str]:
    """Sessions that miss their own word or show another session's, as readable lines."""
    words = [r.word for r in results]
    problems = []
    for r in results:
        if r.word not in r.seen:
            problems.append(f"{r.word}: own word not shown ({r.heading})")
        others = [w for w in words if w != r.word and w in r.seen]
        if others:
            problems.append(f"{r.word}: shows other sessions' words {others}")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="tp-bench-sessions-") as cache, server(Path(cache)) as (url, pid):
        idle_mb = peak_rss_mb(pid)
        start = time.perf_counter()
        results = sessions(url, args.sessions)
        wall = time.perf_counter() - start
        peak = peak_rss_mb(pid)
    print(f"{args.sessions} concurrent sessions in {wall:.1f} s; server peak RSS {peak:.0f} MB "
          f"(after start-up {idle_mb:.0f} MB)")
    for phase in PHASES:
        times = [r.seconds[phase] for r in results]
        print(f"  {phase:7} median {statistics.median(times):6.2f} s   slowest {max(times):6.2f} s")
    problems = leaks(results)
    print("no session saw another's data" if not problems else "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
