"""Presenter-grade behaviour in Chromium: links that restore a view (``?step=N``, reload), layouts at
projector sizes with nothing truncated and the step controls above the fold, presenter mode, and
play at the fastest speed running to the end."""

from __future__ import annotations

import re

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

SIZES = [(1280, 720), (1024, 768)]

# Elements Streamlit cuts with an ellipsis whose text does not fit: labels a presenter cannot read.
TRUNCATED_JS = """() => [...document.querySelectorAll('[data-testid=stMain] *, [data-testid=stSidebar] *')]
  .filter(e => e.checkVisibility() && e.getBoundingClientRect().height > 0
               && getComputedStyle(e).textOverflow === 'ellipsis'
               && e.scrollWidth > e.clientWidth + 1)
  .map(e => e.textContent.trim().slice(0, 80))"""


def heading(page, pattern: str):
    return page.get_by_role("heading", name=re.compile(pattern))


def open_step(page, base: str, query: str) -> None:
    from playwright.sync_api import expect

    page.goto(f"{base}/merges?{query}")
    wait_idle(page)
    expect(heading(page, r"^Step [\d,]+ of ")).to_be_visible(timeout=120_000)
    wait_idle(page)


def test_a_step_link_trains_opens_that_step_and_survives_a_reload(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    open_step(page, streamlit_server, "step=7&n=300")
    expect(heading(page, r"^Step 7 of 300$")).to_be_visible()
    page.locator("[data-testid=stMain] h1").click()  # focus outside any field
    page.keyboard.press("n")
    expect(heading(page, r"^Step 8 of 300$")).to_be_visible(timeout=30_000)
    expect(page).to_have_url(re.compile(r"[?&]step=8\b"))
    page.reload()
    wait_idle(page)
    expect(heading(page, r"^Step 8 of 300$")).to_be_visible(timeout=120_000)
    # The settings came back too: WordPiece in the link is WordPiece after the reload.
    open_step(page, streamlit_server, "algo=wordpiece&n=50&step=3&raw=1")
    expect(heading(page, r"^Step 3 of 50$")).to_be_visible()
    expect(page.get_by_text(re.compile(r"Trained: WordPiece · characters · 50 merges"))).to_be_visible()
    expect(page.get_by_role("switch", name="Raw markers")).to_be_checked()
    assert page.console_errors == []


def test_a_malformed_link_gets_a_message_not_a_traceback(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/merges?n=-5&algo=%3Cscript%3E&corpus=own-0000&step=x")
    wait_idle(page)
    alerts = page.get_by_test_id("stAlert")
    expect(alerts.filter(has_text="?n= in the address was ignored")).to_be_visible(timeout=60_000)
    expect(alerts.filter(has_text="?algo= in the address was ignored")).to_be_visible()
    expect(alerts.filter(has_text="older version of the app")).to_be_visible()
    assert page.locator("[data-testid=stException]").count() == 0
    assert page.locator("script:text('<script>')").count() == 0


def _untruncated(page) -> list[str]:
    """The cut labels once the layout has settled (waited for a while: after a resize the app lays
    itself out again; what is still cut then is returned for the caller to assert)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    try:
        page.wait_for_function(f"() => ({TRUNCATED_JS})().length === 0", timeout=10_000)
    except PlaywrightTimeout:
        pass
    return page.evaluate(TRUNCATED_JS)


def _sizes_for(index: int) -> list[tuple[int, int]]:
    """Both projector sizes, the first loaded with the page and the other reached by resizing it;
    which comes first alternates from page to page, so each size is checked as a fresh load too."""
    return SIZES if index % 2 == 0 else SIZES[::-1]


def test_projector_sizes_keep_labels_whole_and_steps_above_the_fold(streamlit_server, browser_page):
    """Each page at both projector sizes: loaded at one and resized to the other (one page load per
    page instead of one per page and size, as a presenter moving the window to the projector does)."""
    from playwright.sync_api import expect

    page = browser_page
    first, second = SIZES
    page.set_viewport_size({"width": first[0], "height": first[1]})
    open_step(page, streamlit_server, "step=5&n=300")
    for size in (first, second):
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for action in ("first", "prev", "next", "last", "play"):
            button = page.locator(f".tp-step-{action}")
            expect(button).to_be_in_viewport(ratio=1.0)
            box = button.bounding_box()
            assert box is not None and box["y"] + box["height"] <= size[1], (size, action, box)
        merge = page.locator(".tp-merge").bounding_box()
        assert merge is not None and merge["y"] < size[1], size  # the merge itself is on screen too
        assert _untruncated(page) == [], size
    for index, path in enumerate(("/", "/tokenizers", "/compare", "/lattice", "/batch")):
        sizes = _sizes_for(index)
        page.set_viewport_size({"width": sizes[0][0], "height": sizes[0][1]})
        page.goto(streamlit_server + path)
        wait_idle(page)
        page.locator("[data-testid=stMain] h1").first.wait_for(timeout=60_000)
        for size in sizes:
            page.set_viewport_size({"width": size[0], "height": size[1]})
            assert _untruncated(page) == [], (path, size)


def test_presenter_mode_enlarges_tokens_and_hides_the_toolbar(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    open_step(page, streamlit_server, "step=5&n=300")
    normal = page.locator(".tp-merge .tp-chip").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    open_step(page, streamlit_server, "step=5&n=300&present=1")
    big = page.locator(".tp-merge .tp-chip").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert big >= 1.3 * normal
    expect(page.get_by_test_id("stToolbar")).to_be_hidden()
    expect(page).to_have_url(re.compile(r"[?&]present=1\b"))


def test_play_at_the_fastest_speed_runs_to_the_end(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    open_step(page, streamlit_server, "step=0&n=40&speed=0.1")
    page.locator(".tp-step-play").click()
    expect(heading(page, r"^Step 40 of 40$")).to_be_visible(timeout=60_000)
    expect(page.locator(".tp-step-play")).to_have_text(re.compile("Play"))
    assert page.console_errors == []
