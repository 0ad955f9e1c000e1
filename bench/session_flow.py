"""One session of the many-sessions bench in Chromium (:mod:`bench.bench_sessions`), with Playwright's
async API: its moves on each page (sidebar, select boxes, fields, searches) and the whole flow, run for
N sessions at once in one browser, a tab each (its own websocket, so its own Streamlit session), or
for some of them in a browser and the rest as websocket sessions (:mod:`bench.session_light`)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import re
import time
from typing import Any, Optional
from urllib.parse import quote

from bench.app_server import CHROMIUM, CHROMIUM_ARGS
from bench.session_data import (
    COUNT_CAPTION,
    FOREIGN_WORD,
    IDLE,
    TIMEOUT_MS,
    TRAIN_VOCAB,
    TRAINED_LABEL,
    UPLOAD_VOCAB,
    UPLOADED_LABEL,
    Search,
    SessionResult,
    corpus_text,
    session_word,
    tokenizer_json,
)


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


async def run_sessions(base: str, n: int, *, browsers: Optional[int] = None) -> list[SessionResult]:
    """Run ``n`` sessions against ``base`` at the same time; their results, in order. Session ``i``
    searches for the word of session ``i + 1`` (running at the same time; the first's, for the last).
    The first ``browsers`` sessions (all by default) are Chromium tabs, the rest websocket sessions of
    :mod:`bench.session_light` (the same moves, the server's work the same, without a renderer)."""
    from playwright.async_api import async_playwright

    from bench.session_light import light_session

    words = [session_word(i) for i in range(n)]
    others = [words[(i + 1) % n] if n > 1 else FOREIGN_WORD for i in range(n)]
    uploads = [tokenizer_json(w) for w in words]  # before the sessions start: no training in the race
    tabs = n if browsers is None else max(0, min(browsers, n))
    loop = asyncio.get_running_loop()
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, n - tabs)) as threads:
        light = [loop.run_in_executor(threads, light_session, base, words[i], others[i], uploads[i])
                 for i in range(tabs, n)]
        if not tabs:
            return list(await asyncio.gather(*light))
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                # One context, a tab per session: each tab has its own websocket and so its own Streamlit
                # session (the server keeps no state per cookie), and the tabs share the browser's cache
                # of Streamlit's scripts instead of each loading and compiling them again.
                context = await browser.new_context(viewport={"width": 1400, "height": 1000})
                context.set_default_timeout(TIMEOUT_MS)
                return list(await asyncio.gather(
                    *(_session(context, base, words[i], others[i], uploads[i]) for i in range(tabs)), *light))
            finally:
                await browser.close()


def sessions(base: str, n: int, *, browsers: Optional[int] = None) -> list[SessionResult]:
    """:func:`run_sessions` from synchronous code, in a thread of its own: a sync Playwright (as
    pytest's browser fixture keeps open) leaves an event loop running in the calling thread."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, run_sessions(base, n, browsers=browsers)).result()
