"""What a teacher sets up is what a student gets (issue 39), in Chromium against a real server:
a page keeps its setup through other pages and a reload, and the share link is the view on screen."""

from __future__ import annotations

from urllib.parse import parse_qs, urlparse

import pytest

from tests._pages import wait_idle

pytestmark = pytest.mark.browser


def _query(page) -> dict[str, list[str]]:  # noqa: ANN001 (a Playwright page)
    return parse_qs(urlparse(page.url).query)


def _nav(page, title: str) -> None:  # noqa: ANN001
    page.locator("[data-testid='stSidebarNav'] a", has_text=title).first.click()


def test_compare_keeps_its_setup_through_another_page_and_a_reload(streamlit_server, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    page.goto(f"{streamlit_server}/compare")
    wait_idle(page)
    box = page.get_by_role("textbox", name="Text to tokenize")
    box.fill("hello round trip")
    box.press("Control+Enter")
    page.wait_for_function("() => location.search.includes('text=hello+round+trip')", timeout=60_000)
    page.get_by_role("tab", name="Metrics", exact=True).click()
    page.wait_for_function("() => location.search.includes('compare_tab=Metrics')", timeout=60_000)
    _nav(page, "Batch")
    page.wait_for_function("() => location.pathname.endsWith('/batch')", timeout=60_000)
    wait_idle(page)
    _nav(page, "Compare")
    page.wait_for_function("() => location.pathname.endsWith('/compare')", timeout=60_000)
    for reload in (False, True):
        if reload:
            page.reload()
        wait_idle(page)
        expect(page.get_by_role("textbox", name="Text to tokenize")).to_have_value("hello round trip", timeout=60_000)
        expect(page.get_by_role("tab", name="Metrics", exact=True)).to_have_attribute("aria-selected", "true",
                                                                                    timeout=60_000)
        page.wait_for_function("() => location.search.includes('compare_tab=Metrics')", timeout=60_000)
        assert _query(page)["text"] == ["hello round trip"]
    assert page.console_errors == []
