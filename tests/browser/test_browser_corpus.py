"""The Corpus page in a real browser: loads cleanly, and pasted HTML stays text."""

from __future__ import annotations

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser

HOSTILE = (
    "<script>window.__xss=1</script>\n"
    '<img src=x onerror="window.__xss=1">\n'
    "hug pug pun bun hugs"
)
HOSTILE_NAME = 'evil <img src=y onerror="window.__xss=2"> :red[name]'


def test_corpus_page_loads_and_pasted_html_stays_text(streamlit_server, browser_page, tmp_path):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(streamlit_server + "/")
    wait_idle(page)
    expect(page.get_by_role("heading", name="Active corpus: English prose")).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stSidebar")).to_contain_text("English prose")
    assert page.console_errors == []

    page.get_by_text("Paste text", exact=True).click()
    # Type only once the radio's run has drawn the text area and ended: text typed while that run
    # is still going can be lost when it ends (the last clean-clone run saw an empty text area).
    text_area = page.get_by_label("Text", exact=True)
    expect(text_area).to_be_visible(timeout=60_000)
    wait_idle(page)
    text_area.fill(HOSTILE)
    text_area.press("Control+Enter")  # commit the value before clicking
    wait_idle(page)
    expect(text_area).to_have_value(HOSTILE)
    name = page.get_by_label("Name for this corpus")
    name.fill(HOSTILE_NAME)
    name.press("Enter")
    wait_idle(page)
    expect(name).to_have_value(HOSTILE_NAME)
    expect(text_area).to_have_value(HOSTILE)
    page.get_by_role("button", name="Use this text").click()
    wait_idle(page)

    # The click's rerun may not have begun when wait_idle looked (it then returns at once), and the new
    # corpus's statistics take seconds on a loaded machine: wait for the page's answer itself.
    expect(page.get_by_test_id("stAlertContentSuccess")).to_contain_text("Now using", timeout=60_000)
    code = page.locator(".tp-preview")
    expect(code).to_contain_text("<script>window.__xss=1</script>")
    expect(code).to_contain_text('<img src=x onerror="window.__xss=1">')
    # The user's corpus name is shown literally in the sidebar and the header.
    expect(page.get_by_test_id("stSidebar")).to_contain_text(HOSTILE_NAME)
    expect(page.get_by_role("heading", level=2)).to_contain_text(HOSTILE_NAME)

    assert page.evaluate("typeof window.__xss") == "undefined"
    assert page.locator("img[src='x'], img[src='y']").count() == 0
    assert page.locator("script", has_text="__xss").count() == 0

    shot = tmp_path / "corpus-page.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    assert page.console_errors == []
