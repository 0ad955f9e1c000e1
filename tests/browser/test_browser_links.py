"""Links that reproduce the view, in Chromium: every tab is in the address and a link opens it, the
address names the run on show (not settings still being edited), and the browser's Back goes to the
previous view without reruns that change nothing filling the history."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote_plus, urlparse

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

#: (page path, parameter, a tab other than the first, text only that tab shows)
TABS = [
    ("lattice", "lattice_tab", "Viterbi table", "Back from position"),
    ("lattice", "lattice_tab", "n-best and entropy", None),
    ("lattice", "lattice_tab", "Subword sampling", None),
    ("compare", "compare_tab", "Metrics", None),
    ("compare", "compare_tab", "Robustness", None),
    ("batch", "batch_tab", "Masks", None),
    ("batch", "batch_tab", "Waste and throughput", None),
    ("tokenizers", "tokenizers_tab", "Merge tree", None),
]


def _query(page) -> dict[str, list[str]]:  # noqa: ANN001 (a Playwright page)
    return parse_qs(urlparse(page.url).query)


def _selected(page, label: str):  # noqa: ANN001
    return page.get_by_role("tab", name=label, exact=True)


@pytest.mark.parametrize(("path", "param", "label", "evidence"), TABS, ids=[f"{t[0]}-{t[2]}" for t in TABS])
def test_a_link_naming_a_tab_opens_it(streamlit_server, browser_page, path, param, label, evidence):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/{path}?{param}={quote_plus(label)}")
    wait_idle(page)
    expect(_selected(page, label)).to_have_attribute("aria-selected", "true", timeout=60_000)
    if evidence:
        expect(page.get_by_text(evidence).first).to_be_visible(timeout=30_000)
    assert _query(page).get(param) == [label]  # the address keeps naming it
    assert page.console_errors == []


def test_clicking_a_tab_names_it_in_the_address_and_back_returns_to_the_previous_one(streamlit_server,
                                                                                    browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/batch")
    wait_idle(page)
    expect(_selected(page, "Batch")).to_have_attribute("aria-selected", "true", timeout=60_000)
    wait_idle(page)
    start = page.evaluate("history.length")
    _selected(page, "Masks").click()
    expect(page).to_have_url(re.compile(r"batch_tab=Masks"), timeout=30_000)
    wait_idle(page)
    _selected(page, "Waste and throughput").click()
    expect(page).to_have_url(re.compile(r"batch_tab=Waste"), timeout=30_000)
    wait_idle(page)
    assert page.evaluate("history.length") == start + 2  # one entry per view, none in between
    page.go_back()
    wait_idle(page)
    expect(page).to_have_url(re.compile(r"batch_tab=Masks$|batch_tab=Masks&"), timeout=30_000)
    expect(_selected(page, "Masks")).to_have_attribute("aria-selected", "true", timeout=30_000)
    wait_idle(page)
    assert _query(page).get("batch_tab") == ["Masks"]  # the page did not write the later view back
    page.go_back()
    wait_idle(page)
    expect(_selected(page, "Batch")).to_have_attribute("aria-selected", "true", timeout=30_000)
    assert "batch_tab" not in _query(page)
    assert page.console_errors == []


def test_the_address_names_the_run_on_show_not_settings_being_edited(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/merges")
    wait_idle(page)
    budget = page.locator(".st-key-merges_budget input")
    expect(budget).to_be_visible(timeout=60_000)
    before, length = page.url, page.evaluate("history.length")
    budget.fill("300")
    budget.press("Enter")
    wait_idle(page)
    expect(budget).to_have_value("300")
    assert page.url == before  # editing a setting is not a new view
    assert page.evaluate("history.length") == length
    page.locator(".st-key-merges_train button").click()
    expect(page).to_have_url(re.compile(r"[?&]n=300(&|$)"), timeout=60_000)
    wait_idle(page)
    assert _query(page).get("step") == ["0"]
    assert page.evaluate("history.length") == length + 1  # Train: one new view
    trained = page.url
    # Edit again without training: the address still names the run on show.
    page.locator("[data-testid='stExpander'] summary").filter(has_text="Settings").first.click()
    expect(budget).to_be_visible(timeout=30_000)
    budget.fill("400")
    budget.press("Enter")
    wait_idle(page)
    expect(budget).to_have_value("400")
    assert page.url == trained
    # The link opens that run at that step (a fresh session).
    other = page.context.new_page()
    other.goto(trained)
    wait_idle(other)
    expect(other.locator(".st-key-merges_budget input")).to_have_value("300", timeout=60_000)
    other.close()
    assert page.console_errors == []


def _sweep_json(page) -> dict:  # noqa: ANN001
    """The sweep's numbers, as its JSON download gives them (the training seconds left out)."""
    import json

    with page.expect_download(timeout=60_000) as download:
        page.locator(".st-key-compare_sweep_numbers_json button:visible").click()
    numbers = json.loads(open(download.value.path(), encoding="utf-8").read())
    for row in numbers["rows"]:
        row.pop("seconds")
    return numbers


def test_a_sweep_link_runs_that_sweep_again(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    # Settings in a link without a sweep only fill the form in.
    page.goto(f"{streamlit_server}/compare?compare_tab={quote_plus('Vocabulary-size sweep')}"
              "&compare_sweep_algorithm=bpe-chars&compare_sweep_range=256&compare_sweep_range=1000"
              "&compare_sweep_points=3")
    wait_idle(page)
    expect(page.get_by_text(re.compile(r"^Sizes: 256, 510, 1,000\."))).to_be_visible(timeout=60_000)
    expect(page.get_by_text("Pick the sizes and press")).to_be_visible()
    assert "compare_sweep" not in _query(page)
    length = page.evaluate("history.length")
    page.locator(".st-key-compare_sweep_run button").click()
    expect(page).to_have_url(re.compile(r"[?&]compare_sweep=1(&|$)"), timeout=60_000)
    wait_idle(page)
    expect(page.locator(".st-key-compare_sweep_numbers_json button:visible")).to_be_visible(timeout=60_000)
    assert page.evaluate("history.length") == length + 1  # the sweep: one new view
    ran, numbers = page.url, _sweep_json(page)
    assert numbers["sizes_asked"] == [256, 510, 1000] and numbers["algorithm"] == "bpe-chars"
    # Editing a setting leaves the address naming the sweep on show.
    points = page.locator(".st-key-compare_sweep_points input")
    points.fill("4")
    points.press("Enter")
    wait_idle(page)
    expect(page.get_by_text("its settings differ from the ones above")).to_be_visible(timeout=30_000)
    assert page.url == ran
    # The link, in a fresh session, runs the same sweep again and shows the same numbers.
    other = page.context.new_page()
    other.goto(ran)
    wait_idle(other)
    expect(other.locator(".st-key-compare_sweep_points input")).to_have_value("3", timeout=60_000)
    expect(other.get_by_text("This link names a sweep")).to_be_visible(timeout=60_000)
    expect(other.locator(".st-key-compare_sweep_numbers_json button:visible")).to_be_visible(timeout=60_000)
    assert _sweep_json(other) == numbers
    assert other.url == ran
    other.close()
    # Back goes to the view before the sweep: no sweep on show there.
    page.go_back()
    wait_idle(page)
    expect(page.get_by_text("Pick the sizes and press")).to_be_visible(timeout=30_000)
    assert "compare_sweep" not in _query(page)
    assert page.console_errors == []
