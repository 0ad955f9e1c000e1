"""The Compare page in Chromium: a hostile ``?text=`` is shown as text, aligned, and measured."""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest

from tests._pages import goto_page, wait_idle

pytestmark = pytest.mark.browser

HOSTILE = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2"> unhappiness café'



def test_the_round_trip_tab_strikes_what_is_lost_and_runs_nothing(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    main = goto_page(page, f"{streamlit_server}/compare?compare_tab=Round+trip&text={quote(HOSTILE + ' ÉCOLE')}", "Compare")
    expect(main.get_by_test_id("stDataFrame")).to_be_visible(timeout=60_000)
    # the word baseline loses words it never saw: struck through, its [UNK] added in green
    expect(main.locator(".tp-rt .tp-lost").first).to_be_visible()
    expect(main.locator(".tp-rt .tp-added", has_text="[UNK]").first).to_be_visible()
    expect(main.get_by_text("Gives the text back exactly.").first).to_be_visible()  # GPT-2, cl100k, bytes
    assert main.locator(".tp-rt script, .tp-rt img").count() == 0
    assert page.evaluate("typeof window.__xss") == "undefined"


def test_the_numbers_tab_draws_a_heatmap_per_tokenizer(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    text = "I have 1234567 cats \U0001F1EF\U0001F1F5"
    main = goto_page(page, f"{streamlit_server}/compare?compare_tab=Numbers&text={quote(text)}", "Compare")
    expect(main.get_by_text(re.compile(r"^cl100k_base · digits in groups of up to 3, counted from the left"))
           ).to_be_visible(timeout=60_000)
    expect(main.get_by_test_id("stPlotlyChart")).to_have_count(5, timeout=60_000)
    expect(main.locator(".js-plotly-plot .heatmaplayer").first).to_be_attached(timeout=60_000)
    # every date of a year: rows are months, and the choice is in the address
    main.get_by_text("every date of a year", exact=True).click()
    expect(page).to_have_url(re.compile(r"[?&]compare_numbers_kind=dates"), timeout=60_000)
    expect(main.locator(".js-plotly-plot .ytick text", has_text="Feb").first).to_be_attached(timeout=60_000)
    # the Side by side tab: the graphemes cut, and why the counts differ, each row's rules in words and
    # the places where rows part linked to the rule that decides them
    page.get_by_role("tab", name="Side by side").click()
    wait_idle(page)
    expect(main.get_by_text("Characters cut apart")).to_be_visible(timeout=60_000)
    page.locator("[data-testid=stExpander] summary").filter(has_text="Why the counts differ").click()
    expect(main.get_by_text(re.compile(r"^cl100k_base: .*digits in groups of up to 3, from the left"))
           ).to_be_visible(timeout=60_000)
    expect(main.locator("li", has_text=re.compile(r"^digits — \d+ places?, e\.g\. .*cl100k_base: digits in groups"))
           ).to_be_visible(timeout=60_000)


def test_hostile_url_text_is_aligned_as_text(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/compare?text={quote(HOSTILE)}")
    expect(page.get_by_role("heading", name="Compare", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    expect(page.locator(".st-key-compare_text textarea")).to_have_value(HOSTILE, timeout=60_000)
    # One row per tokenizer, each made of chips; the tags are chip text, never elements.
    expect(page.locator(".tp-rowname", has_text="cl100k_base").first).to_be_visible(timeout=60_000)
    expect(page.locator(".tp-chip", has_text="<script").first).to_be_visible()
    assert page.locator(".tp-align script, .tp-align img").count() == 0
    # Hovering a chip tells its id and bytes.
    title = page.locator(".tp-chip", has_text="<script").first.get_attribute("title")
    assert re.match(r"id \d+ · .* · bytes 3C ", title)

    page.get_by_role("tab", name="Metrics").click()
    expect(page.get_by_role("heading", name="On the corpus")).to_be_visible(timeout=60_000)
    wait_idle(page)
    assert page.evaluate("typeof window.__xss") == "undefined"
    assert not [e for e in page.console_errors if "xss" in e.lower()]


def test_stopping_a_sweep_keeps_the_sizes_finished(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/compare")
    expect(page.get_by_role("heading", name="Compare", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    page.get_by_role("tab", name="Vocabulary-size sweep").click()
    picker = page.locator(".st-key-compare_sweep_algorithm").get_by_role("combobox")
    expect(picker).to_be_visible(timeout=30_000)
    picker.click()
    page.get_by_role("option", name="Unigram (SentencePiece style)").click()
    wait_idle(page)
    points = page.locator(".st-key-compare_sweep_points input")
    points.fill("3")
    points.press("Enter")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Sizes: 500, 2,800, 16,000\."))).to_be_visible(timeout=30_000)
    page.locator(".st-key-compare_sweep_run button").click()
    # Unigram trains one size after another: once the second has started, the first is done.
    expect(page.get_by_text(re.compile("vocabulary size 2,800"))).to_be_visible(timeout=120_000)
    page.locator(".st-key-compare_sweep_stop button").first.click()
    expect(page.get_by_text(re.compile(r"The sweep was stopped; [12] of 3 sizes had finished"))).to_be_visible(
        timeout=120_000)
    wait_idle(page)
    table = page.get_by_test_id("stDataFrame").last
    expect(table).to_be_visible(timeout=60_000)  # the grid mounts after the chart; slow on a busy machine


def test_the_open_tab_is_computed_on_click_and_kept_in_the_address(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/compare")
    expect(page.get_by_role("heading", name="Compare", exact=True)).to_be_visible(timeout=60_000)
    wait_idle(page)
    # Only the open tab is drawn: the probes' table is not on the page until its tab is picked.
    assert page.get_by_text("Tokens each tokenizer spends").count() == 0
    page.get_by_role("tab", name="Robustness").click()
    expect(page.get_by_text("Tokens each tokenizer spends")).to_be_visible(timeout=60_000)
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"compare_tab=Robustness"), timeout=30_000)
    page.reload()
    expect(page.get_by_role("tab", name="Robustness")).to_have_attribute("aria-selected", "true", timeout=60_000)
    expect(page.get_by_text("Tokens each tokenizer spends")).to_be_visible(timeout=60_000)
    wait_idle(page)
    assert not page.console_errors, page.console_errors
