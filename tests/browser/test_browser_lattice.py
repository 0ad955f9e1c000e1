"""The Lattice page in Chromium: a hostile ``?text=`` drawn as a lattice, its tables, and sampling."""

from __future__ import annotations

from urllib.parse import quote

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

HOSTILE = "<img/src=x/onerror=window.__xss=1>"



def test_lattice_page_with_a_hostile_text(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/lattice?text={quote(HOSTILE)}")
    expect(page.get_by_role("heading", name="Unigram lattice", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    expect(page.locator(".st-key-lattice_text input")).to_have_value(HOSTILE, timeout=30_000)
    # The plotly lattice: one text label per edge, the characters as text (never as elements).
    chart = page.locator(".stPlotlyChart").first
    expect(chart.locator(".main-svg").first).to_be_visible(timeout=60_000)
    expect(chart.locator("text", has_text="<").first).to_be_attached()
    assert page.locator(".stPlotlyChart img").count() == 0

    page.get_by_role("tab", name="Viterbi table").click()
    expect(page.get_by_text("Back from position 34").first).to_be_visible(timeout=30_000)

    # The course's word: sampling at alpha 1 shows every segmentation of "pug".
    box = page.locator(".st-key-lattice_text input")
    box.fill("pug")
    box.press("Enter")
    # The run for "pug" has drawn its table (idle alone could be seen before that run even starts):
    # no run is under way when the next tab is clicked.
    expect(page.get_by_text("Back from position 3").first).to_be_visible(timeout=30_000)
    wait_idle(page)
    expect(box).to_have_value("pug")
    page.get_by_role("tab", name="Subword sampling").click()
    # Plotly may keep the previous legend while it redraws: any copy will do.
    expect(page.get_by_text("share of 1,000 samples").first).to_be_attached(timeout=30_000)
    assert page.evaluate("typeof window.__xss") == "undefined"
