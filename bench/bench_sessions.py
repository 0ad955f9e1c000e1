"""Many users at once: N browser sessions on one ``streamlit run`` server, all at the same time.

Each session is a user of a class, with text nobody else has (one made-up word, repeated):

1. pastes it on the Corpus page, opens the BPE step-through page, trains, steps to the last merge;
2. on the Tokenizers page trains "BPE on bytes" at 300 tokens (the default name, the same for
   every session) and searches its vocabulary for its own word (found) and for a word nobody uses
   and a word of another session running at the same time (neither found: "0 tokens");
3. uploads a ``tokenizer.json`` of its own (the same type, size and file name for every session,
   trained on its own word) and searches again;
4. opens Batch with that tokenizer and its word as the row, Compare with its word as the text (the
   aligned view shows its word's tokens) and the Unigram lattice page.

What every page showed is kept (:class:`SessionResult`); :func:`leaks` says which session missed its
own data or showed another's. Prints the wall time, each phase's median and slowest time, the
server's peak resident memory (VmHWM of the server process) and the size of the workspace store::

    python -m bench.bench_sessions --sessions 20

One Chromium, one tab per session (its own websocket, so its own Streamlit session), driven with
Playwright's async API (sync Playwright cannot run one instance per thread).
``tests/test_concurrent_sessions.py`` (20 sessions) and ``tests/test_browser_two_sessions.py``
(2 sessions) run the same sessions.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import CHROMIUM, CHROMIUM_ARGS, running_app  # noqa: E402

TIMEOUT_MS = 240_000  # 20 sessions on 2 cores queue for the one server
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
PHASES = ("open", "corpus", "page", "train", "step", "shelf_train", "shelf_search", "upload", "upload_search",
          "batch", "compare", "lattice")
#: A made-up word no session uses (``session_word`` words start with "zq"): searching for it must find nothing.
FOREIGN_WORD = "plimwhistle"
#: Vocabulary size of the uploaded tokenizers: byte-level BPE on one repeated 8-letter word stops at
#: 256 bytes + 12 merges (the word and " word"), whatever the word (checked by :func:`tokenizer_json`).
UPLOAD_VOCAB = 268
TRAIN_VOCAB = 300  # what the Tokenizers page trains (the 300)
#: The default names, the same for every session: the corpus of one 8-letter word reaches 265 of the
#: 300 tokens asked (256 bytes, <|endoftext|> and 8 merges), and the upload names its model and size.
TRAINED_LABEL = "BPE on bytes 300 → 265 · trained here"
UPLOADED_LABEL = f"tokenizer.json · BPE {UPLOAD_VOCAB} · imported"
#: The counts every session's pages must show: its corpus is 50 words and 5 line ends, and its word is
#: one token of both its tokenizers (another session's tokenizer cuts it into several).
EXPECTED_COUNTS = {
    "tokenizers " + TRAINED_LABEL: 55,
    "tokenizers " + UPLOADED_LABEL: 55,
    "batch padded length": 1,
    "compare " + TRAINED_LABEL: 1,
    "compare " + UPLOADED_LABEL: 1,
}
COUNT_CAPTION = re.compile(r"^([\d,]+) tokens(;.*)?$")  # the caption under the vocabulary table


def session_word(index: int) -> str:
    """A made-up word of 8 letters, different for every index below 26**3, never a substring of another."""
    a, b, c = index // 676 % 26, index // 26 % 26, index % 26
    return "zq" + "".join(chr(97 + n) for n in (a, b, c, (a + 7) % 26, (b + 11) % 26, (c + 5) % 26))


def corpus_text(word: str) -> str:
    """The text a session pastes: its word, ten to a line, five lines."""
    return (" ".join([word] * 10) + "\n") * 5


def tokenizer_json(word: str) -> bytes:
    """A ``tokenizer.json`` (byte-level BPE, :data:`UPLOAD_VOCAB` tokens) trained on ``word`` alone:
    same type and size for every word, different content, and ``word`` is one of its tokens."""
    from tokenizer_core.options import TrainOptions
    from tokenizer_core.training import train

    tok = train("bpe", corpus_text(word).splitlines(keepends=True),
                options=TrainOptions(vocab_size=UPLOAD_VOCAB, byte_level=True))
    if tok.vocab_size != UPLOAD_VOCAB or tok.token_to_id(word) is None:
        raise RuntimeError(f"{word}: {tok.vocab_size} tokens, not {UPLOAD_VOCAB} with the word among them")
    return json.dumps(tok.to_hf_json()).encode("utf-8")


@dataclass
class Search:
    """One vocabulary search on the Tokenizers page: which tokenizer, what was typed, the count shown."""

    tokenizer: str
    query: str
    count: int


@dataclass
class SessionResult:
    """What one session saw on each page (``stMain``'s text), its searches, the token counts pages
    showed for its own tokenizers (:data:`EXPECTED_COUNTS`), and how long each phase took (seconds).
    ``other`` is the word of another session it searched for."""

    word: str
    other: str = ""
    heading: str = ""
    seen: dict[str, str] = field(default_factory=dict)
    searches: list[Search] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)
    error: str = ""


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


def cpu_seconds(pid: int) -> float:
    """The CPU time (user + system) process ``pid`` has used so far, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def store_files(cache: Path) -> list[Path]:
    """The workspace store's files under the server's cache folder (the SQLite file, its -wal and -shm)."""
    return sorted(cache.glob("workspaces.sqlite3*"))


def store_mb(cache: Path) -> float:
    """The size of the workspace store in ``cache`` (every file of it), in MB."""
    return sum(p.stat().st_size for p in store_files(cache)) / 1e6


def _label(label: str) -> re.Pattern[str]:
    """A select box's value showing ``label`` (the box may pad it with a space)."""
    return re.compile("^" + re.escape(label) + r"\s*$")


async def _idle(page: Any) -> None:  # a Playwright page (async API)
    await page.wait_for_selector(IDLE, timeout=TIMEOUT_MS)


async def _sidebar(page: Any, title: str) -> None:
    """Go to a page by its sidebar link: unlike ``goto``, it keeps the tab's Streamlit session."""
    from playwright.async_api import expect

    await page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    await expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=TIMEOUT_MS)
    await _idle(page)


async def _enter(page: Any, box: Any, value: str, param: str, key: str = "Enter") -> None:
    """Type ``value`` into the input ``box`` and commit it with ``key``; return once the run that used
    it has finished, which the address says: pages write their inputs there (as ``param``) at the end
    of a run. Typed again if the box loses it (a run already under way when it was typed can redraw
    the box with the value it started with)."""
    pattern = f"[?&]{re.escape(param)}={re.escape(quote(value, safe=''))}(&|$)"
    for _ in range(3):
        await box.fill(value)
        await box.press(key)
        handle = await box.element_handle()
        await page.wait_for_function(
            "([box, value, pattern]) => new RegExp(pattern).test(location.href) || box.value !== value",
            # Polled on a timer: animation frames (the default) wait on rendering, which a browser
            # drawing twenty tabs on a loaded machine gives each tab seldom.
            arg=[handle, value, pattern], polling=100, timeout=TIMEOUT_MS)
        if re.search(pattern, page.url):
            await _idle(page)
            return
    raise RuntimeError(f"{param}: the page lost {value!r} three times")


async def _type(page: Any, box: Any, value: str) -> None:
    """Type ``value`` into a form's input ``box`` and commit it with Enter; return once the app is idle
    with the value in the box (typed again if a run already under way redrew the box)."""
    for _ in range(3):
        await box.fill(value)
        await box.press("Enter")
        await _idle(page)
        if await box.input_value() == value:
            return
    raise AssertionError(f"the box kept refusing {value!r}")


async def _shows_selected(page: Any, label: str) -> None:
    """Wait for the run to end with ``label`` chosen in the Tokenizers page's picker."""
    from playwright.async_api import expect

    await _idle(page)
    await expect(page.locator(".st-key-tokenizers_selected").get_by_role("combobox")).to_have_value(
        _label(label), timeout=TIMEOUT_MS)


async def _press_until(page: Any, button: Any, outcome: Any, *, tries: int = 3) -> None:
    """Click ``button`` until ``outcome`` shows: a click that lands while a rerun redraws the page
    (one that committed a form's input, say) can be lost, and nothing else would say so."""
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import expect

    for attempt in range(tries):
        await button.click()
        try:
            await expect(outcome).to_be_visible(timeout=TIMEOUT_MS // (tries - attempt))
            return
        except (AssertionError, PlaywrightError):
            if attempt == tries - 1:
                raise
            await _idle(page)


async def _choose(page: Any, key: str, option: str) -> None:
    """Pick ``option`` in the select box with widget key ``key`` (opened again if a redraw closed it)."""
    from playwright.async_api import Error as PlaywrightError

    box = page.locator(f".st-key-{key}").get_by_role("combobox")
    for _ in range(5):
        await box.click()
        try:
            await page.get_by_role("option", name=option, exact=True).click(timeout=10_000)
            break
        except PlaywrightError:
            await page.keyboard.press("Escape")
    await _idle(page)


async def _search(page: Any, result: SessionResult, tokenizer: str, query: str) -> int:
    """Type ``query`` in the vocabulary search and read the count the caption gives."""
    from playwright.async_api import expect

    # Once the address holds the query, the run that searched for it has drawn its caption.
    await _enter(page, page.locator(".st-key-tokenizers_search input"), query, "tokenizers_search")
    caption = page.get_by_test_id("stCaptionContainer").filter(has_text=COUNT_CAPTION)
    await expect(caption).to_have_count(1, timeout=TIMEOUT_MS)
    match = COUNT_CAPTION.match((await caption.inner_text()).strip())
    assert match is not None  # the filter above matched it
    count = int(match.group(1).replace(",", ""))
    result.searches.append(Search(tokenizer, query, count))
    return count


async def _search_all(page: Any, result: SessionResult, tokenizer: str) -> None:
    """Search for a word nobody uses, another session's word, then the own word (each differs from
    the one before, so every search is a new run)."""
    for query in (FOREIGN_WORD, result.other, result.word):
        await _search(page, result, tokenizer, query)
    result.seen["tokenizers " + tokenizer] = await page.get_by_test_id("stMain").inner_text()
    result.counts["tokenizers " + tokenizer] = await _metric(page, "Tokens for that text")


async def _metric(page: Any, label: str) -> int:
    """The number an ``st.metric`` labelled ``label`` shows."""
    value = page.get_by_test_id("stMetric").filter(has_text=label).get_by_test_id("stMetricValue")
    return int((await value.inner_text()).strip().replace(",", ""))


def _describe(err: Exception) -> str:
    """One line about a failed step: the message's first line, what the page had, and the locator
    (Playwright puts the locator in its call log, below the first lines)."""
    lines = [line.strip() for line in f"{type(err).__name__}: {err}".splitlines() if line.strip()]
    keep = lines[:2] + [line for line in lines[2:] if "locator(" in line or "get_by_" in line][:1]
    return " / ".join(keep)[:600]


async def _session(context: Any, base: str, word: str, other: str, upload: bytes) -> SessionResult:
    from playwright.async_api import expect

    result = SessionResult(word, other)
    page = await context.new_page()
    clock = time.perf_counter()

    def lap(phase: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        result.seconds[phase], clock = now - clock, now

    main = page.get_by_test_id("stMain")
    try:
        # Opened on a tiny sample (a link), so the 20 first runs do not each draw the 2 MB default
        # corpus' statistics and charts: the test is about isolation, not about that page.
        await page.goto(base + "/?corpus=hf-course-hug-pug", timeout=TIMEOUT_MS)
        await expect(page.get_by_role("heading", name=re.compile("^Active corpus"))).to_be_visible(timeout=TIMEOUT_MS)
        await _idle(page)
        lap("open")
        await page.get_by_text("Paste text", exact=True).click()
        area = page.get_by_label("Text", exact=True)
        await area.fill(corpus_text(word))
        await area.press("Control+Enter")  # commit the value before clicking
        await _idle(page)
        await page.get_by_role("button", name="Use this text").click()
        await expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=TIMEOUT_MS)
        lap("corpus")

        # The BPE step-through: train on the own text and step to its last merge.
        await page.get_by_role("link", name="BPE step-through").first.click()
        await expect(page.get_by_role("heading", name="BPE step-through")).to_be_visible(timeout=TIMEOUT_MS)
        await _idle(page)
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
        await _idle(page)
        lap("step")
        result.heading = await last.inner_text()
        result.seen["merges"] = await main.inner_text()

        # Tokenizers: train BPE on bytes at 300 tokens under its default name (every session's is
        # "BPE on bytes 300"), then search its vocabulary.
        await _sidebar(page, "Tokenizers")
        await page.get_by_text("Add a tokenizer to the shelf").click()
        await _idle(page)
        # A form's settings reach the address only when Train acts (the address describes the run
        # on screen), so the value is checked in its box, and in the address after Train.
        await _type(page, page.locator(".st-key-tokenizers_vocab_size input"), str(TRAIN_VOCAB))
        await expect(page.locator(".st-key-tokenizers_algorithm").get_by_role("combobox")).to_have_value(
            "BPE on bytes (GPT-2 style)", timeout=TIMEOUT_MS)
        await _press_until(page, page.locator(".st-key-tokenizers_train button"),
                           page.get_by_test_id("stAlertContentSuccess").filter(has_text="put on the shelf"))
        await expect(page).to_have_url(re.compile(rf"[?&]tokenizers_vocab_size={TRAIN_VOCAB}(&|$)"), timeout=TIMEOUT_MS)
        await _shows_selected(page, TRAINED_LABEL)
        lap("shelf_train")
        await _search_all(page, result, TRAINED_LABEL)
        lap("shelf_search")

        # Upload a tokenizer.json of its own: same file name, type and size as everybody's.
        await page.get_by_role("tab", name="Upload a file").click()
        # The open tab is part of the address: the click reruns the page, which must end before the
        # file is handed over (a redraw in between drops it).
        await expect(page).to_have_url(re.compile(r"[?&]tokenizers_add_tab=Upload"), timeout=TIMEOUT_MS)
        await _idle(page)
        await page.locator(".st-key-tokenizers_upload input[type=file]").set_input_files(
            {"name": "tokenizer.json", "mimeType": "application/json", "buffer": upload})
        importer = page.locator(".st-key-tokenizers_import button")
        await expect(importer).to_be_enabled(timeout=TIMEOUT_MS)  # the upload arrived
        await importer.click()
        await expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text(
            f": {UPLOAD_VOCAB} tokens. Rename it", timeout=TIMEOUT_MS)
        await _shows_selected(page, UPLOADED_LABEL)
        lap("upload")
        await _search_all(page, result, UPLOADED_LABEL)
        lap("upload_search")

        # Batch: the uploaded tokenizer, the own word as the one row.
        await _sidebar(page, "Batch")
        await _choose(page, "batch_tokenizer", UPLOADED_LABEL)
        await _enter(page, page.locator(".st-key-batch_rows textarea"), word, "text", "Control+Enter")
        await expect(page).to_have_url(re.compile(r"[?&]batch_tokenizer=tokenizer\.json"), timeout=TIMEOUT_MS)
        result.seen["batch"] = await main.inner_text()
        result.counts["batch padded length"] = await _metric(page, "Padded length")
        lap("batch")

        # Compare: the own word as the text and both own tokenizers added to the shelf picker; the
        # aligned view shows each one's tokens (the word baseline's token is the word itself) and
        # how many tokens each gives (one: the word is in both vocabularies, not in another's).
        await _sidebar(page, "Compare")
        await _enter(page, page.locator(".st-key-compare_text textarea"), word, "text", "Control+Enter")
        await expect(page.locator(".tp-chip", has_text=word).first).to_be_visible(timeout=TIMEOUT_MS)
        await _idle(page)
        for label in (TRAINED_LABEL, UPLOADED_LABEL):
            await _choose(page, "compare_shelf", label)
            await page.keyboard.press("Escape")  # a multiselect's list stays open after a pick
            # The line above the aligned rows counts each row's tokens (row names are cut at 28 characters).
            await expect(main).to_contain_text(re.compile(r"Tokens: .*" + re.escape(label) + r" \d"), timeout=TIMEOUT_MS)
        await _idle(page)
        result.seen["compare"] = await main.inner_text()
        for label in (TRAINED_LABEL, UPLOADED_LABEL):
            found = re.search(re.escape(label) + r" ([\d,]+)", result.seen["compare"])
            if found:
                result.counts["compare " + label] = int(found.group(1).replace(",", ""))
        lap("compare")

        await _sidebar(page, "Unigram lattice")
        result.seen["lattice"] = await main.inner_text()
        lap("lattice")
    except Exception as err:  # noqa: BLE001 - kept with what the page showed; leaks() reports it
        # (not raised: gather() would drop every other session's result with it)
        result.error = _describe(err)
        with contextlib.suppress(Exception):
            result.seen["at the error"] = await main.inner_text()
    finally:
        await page.close()
    return result


async def run_sessions(base: str, n: int) -> list[SessionResult]:
    """Run ``n`` sessions against ``base`` at the same time; their results, in order. Session ``i``
    searches for the word of session ``i + 1`` (running at the same time; the first's, for the last)."""
    from playwright.async_api import async_playwright

    words = [session_word(i) for i in range(n)]
    uploads = [tokenizer_json(w) for w in words]  # before the browser starts: no training in the race
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            # One context, a tab per session: each tab has its own websocket and so its own Streamlit
            # session (the server keeps no state per cookie), and the tabs share the browser's cache
            # of Streamlit's scripts instead of each loading and compiling them again.
            context = await browser.new_context(viewport={"width": 1400, "height": 1000})
            context.set_default_timeout(TIMEOUT_MS)
            return list(await asyncio.gather(*(
                _session(context, base, words[i], words[(i + 1) % n] if n > 1 else FOREIGN_WORD, uploads[i])
                for i in range(n))))
        finally:
            await browser.close()


def sessions(base: str, n: int) -> list[SessionResult]:
    """:func:`run_sessions` from synchronous code, in a thread of its own: a sync Playwright (as
    pytest's browser fixture keeps open) leaves an event loop running in the calling thread."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run_sessions(base, n)).result()


def leaks(results: list[SessionResult]) -> list[str]:
    """Sessions that miss their own data or show another session's, as readable lines: a page whose
    text holds another session's word (or the word nobody uses), a search for a word not its own
    that finds tokens, a search for its own word that finds none, a missing page."""
    words = [r.word for r in results] + [FOREIGN_WORD]
    problems = []
    for r in results:
        if r.error:
            problems.append(f"{r.word}: stopped: {r.error}")
        for page in ("merges", "compare"):
            if r.word not in r.seen.get(page, ""):
                problems.append(f"{r.word}: own word not shown on {page} ({r.heading})")
        for page, text in r.seen.items():
            others = [w for w in words if w != r.word and w in text]
            if others:
                problems.append(f"{r.word}: {page} shows other sessions' words {others}")
        for s in r.searches:
            if s.query == r.word and s.count < 1:
                problems.append(f"{r.word}: its own word finds no token of {s.tokenizer}")
            if s.query != r.word and s.count != 0:
                problems.append(f"{r.word}: {s.query!r} finds {s.count} tokens of its {s.tokenizer}")
        for what, expected in EXPECTED_COUNTS.items():
            if r.counts.get(what) != expected:
                problems.append(f"{r.word}: {what} shows {r.counts.get(what)} tokens, not {expected}")
        searched = {(s.tokenizer, s.query) for s in r.searches}
        for tok in (TRAINED_LABEL, UPLOADED_LABEL):
            for query in (r.word, r.other, FOREIGN_WORD):
                if (tok, query) not in searched:
                    problems.append(f"{r.word}: did not search {tok} for {query!r}")
    return problems


def phase_medians(results: list[SessionResult]) -> dict[str, tuple[float, float]]:
    """Each phase's median and slowest time (seconds) over the sessions that reached it."""
    out = {}
    for phase in PHASES:
        times = [r.seconds[phase] for r in results if phase in r.seconds]
        if times:
            out[phase] = (statistics.median(times), max(times))
    return out


def report(n: int, wall: float, results: list[SessionResult], peak: float, idle: float, store: float,
           server_cpu: float) -> str:
    """The figures of a run, as printed lines. The server's CPU time against the wall time says where
    the time went: the server runs every session's scripts under one interpreter lock, so with CPU
    to spare its CPU time is about the wall time; much less means the browser or other programs had
    the CPU (the load average says how busy the machine was)."""
    load = os.getloadavg()[0]
    lines = [f"{n} concurrent sessions in {wall:.1f} s; server CPU {server_cpu:.1f} s; load average {load:.1f} "
             f"on {os.cpu_count()} cores; server peak RSS {peak:.0f} MB (after start-up {idle:.0f} MB); "
             f"workspace store {store:.2f} MB"]
    for phase, (median, slowest) in phase_medians(results).items():
        lines.append(f"  {phase:13} median {median:6.2f} s   slowest {slowest:6.2f} s")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--sessions", type=int, default=20)
    args = ap.parse_args(argv)
    if os.environ.get("TOKENIZER_PLAYGROUND_DB"):
        print("note: TOKENIZER_PLAYGROUND_DB is set; the store size below counts the cache folder's SQLite file only")
    with tempfile.TemporaryDirectory(prefix="tp-bench-sessions-") as tmp, server(Path(tmp)) as (url, pid):
        idle_mb, cpu = peak_rss_mb(pid), cpu_seconds(pid)
        start = time.perf_counter()
        results = sessions(url, args.sessions)
        wall = time.perf_counter() - start
        peak, cpu = peak_rss_mb(pid), cpu_seconds(pid) - cpu
        store = store_mb(Path(tmp))
    print(report(args.sessions, wall, results, peak, idle_mb, store, cpu))
    problems = leaks(results)
    print("no session saw another's data" if not problems else "\n".join(problems))
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
